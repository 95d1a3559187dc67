// Eager mode: every op runs when it is recorded, through an op-level compile cache, and
// training gives the same losses as the lazy step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/ir/text.h"

namespace seam {
namespace {

int64_t Samples(const char* name) { return metrics::MetricTotalSamples(name); }

struct Counts {
  int64_t compiles, executes, lazy_compiles, lazy_executes;
  static Counts Take() {
    return {Samples("EagerOpCompileTime"), Samples("EagerOpExecuteTime"), Samples("CompileTime"),
            Samples("ExecuteTime")};
  }
};

struct Batch {
  Tensor x, y;
};

Batch MakeBatch(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> xs(16 * 6);
  std::vector<int32_t> ys(16);
  for (float& x : xs) x = dist(rng);
  for (int i = 0; i < 16; ++i) ys[i] = xs[i * 6] + xs[i * 6 + 2] > 0 ? 1 : 0;
  return {Tensor::from_vector(xs, {16, 6}), Tensor::from_vector(ys, {16})};
}

// Instructions of the lazy step's program that compute something (not parameters or
// constants), their op kinds, and their distinct signatures: op, attributes, result
// shape, and each operand's shape (or value, for a constant, which eager mode compiles in).
struct LazyOps {
  size_t count = 0;
  std::set<std::string> op_names;
  std::set<std::string> signatures;
};

LazyOps CountOps(const std::string& text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  LazyOps ops;
  if (!program.ok()) return ops;
  for (const ir::Instruction& inst : program->instructions) {
    if (inst.op == ir::Op::kParameter || inst.op == ir::Op::kConstant) continue;
    ++ops.count;
    ops.op_names.insert(std::string(ir::OpName(inst.op)));
    std::string signature =
        absl::StrCat(std::string(ir::OpName(inst.op)), " ", inst.shape.ToString());
    for (const auto& [name, values] : inst.attrs) {
      absl::StrAppend(&signature, " ", name, "=", absl::StrJoin(values, ","));
    }
    for (int operand : inst.operands) {
      const ir::Instruction& o = program->instructions[static_cast<size_t>(operand)];
      absl::StrAppend(&signature, " ", o.shape.ToString());
      if (o.op == ir::Op::kConstant) {
        absl::StrAppend(&signature, "=",
                        std::string(o.literal.bytes.begin(), o.literal.bytes.end()));
      }
    }
    ops.signatures.insert(signature);
  }
  return ops;
}

TEST(EagerTest, TwoTrainingStepsMatchLazyAndRunOpByOp) {
  // Lazy: two steps, one program each (the same program, compiled once).
  std::vector<float> lazy_losses;
  LazyOps lazy_ops;
  {
    nn::Mlp model({6, 8, 2}, 11);
    optim::Adam opt(model.parameters(), 1e-2f);
    for (int step = 0; step < 2; ++step) {
      Batch b = MakeBatch(100 + step);
      Tensor loss = nn::cross_entropy(model.forward(b.x), b.y);
      opt.step(loss);
      if (step == 1) {
        std::vector<Tensor> pending{loss};
        for (Tensor* p : model.parameters()) pending.push_back(*p);
        for (const Tensor* s : opt.state()) pending.push_back(*s);
        lazy_ops = CountOps(pending_ir_text(pending));
      }
      sync();
      lazy_losses.push_back(loss.item<float>());
    }
  }
  Counts lazy = Counts::Take();
  EXPECT_EQ(lazy.lazy_compiles, 1);
  EXPECT_EQ(lazy.lazy_executes, 2);
  EXPECT_EQ(lazy.compiles, 0);
  EXPECT_EQ(lazy.executes, 0);

  set_eager(true);
  ASSERT_TRUE(is_eager());
  std::vector<float> eager_losses;
  std::vector<Counts> after;
  {
    nn::Mlp model({6, 8, 2}, 11);
    optim::Adam opt(model.parameters(), 1e-2f);
    for (int step = 0; step < 2; ++step) {
      Batch b = MakeBatch(100 + step);
      Tensor loss = nn::cross_entropy(model.forward(b.x), b.y);
      EXPECT_FALSE(loss.has_pending_ops());
      opt.step(loss);
      sync();
      eager_losses.push_back(loss.item<float>());
      // Wait for the updates too: a run's sample is recorded when it finishes.
      for (Tensor* p : model.parameters()) p->to_vector<float>();
      for (const Tensor* s : opt.state()) s->to_vector<float>();
      after.push_back(Counts::Take());
    }
  }
  int64_t compiles1 = after[0].compiles - lazy.compiles,
          executes1 = after[0].executes - lazy.executes;
  int64_t compiles2 = after[1].compiles - after[0].compiles;
  int64_t executes2 = after[1].executes - after[0].executes;
  std::printf("lazy step: %zu ops (%zu signatures, %zu kinds: %s) in 1 program\n", lazy_ops.count,
              lazy_ops.signatures.size(), lazy_ops.op_names.size(),
              absl::StrJoin(lazy_ops.op_names, " ").c_str());
  std::printf("eager step 1: %lld compiles, %lld executes; step 2: %lld compiles, %lld executes\n",
              static_cast<long long>(compiles1), static_cast<long long>(executes1),
              static_cast<long long>(compiles2), static_cast<long long>(executes2));

  // One run per op of the step; a compile per distinct op signature, all in the first step.
  EXPECT_EQ(executes1, static_cast<int64_t>(lazy_ops.count));
  EXPECT_EQ(executes2, executes1);
  EXPECT_EQ(compiles1, static_cast<int64_t>(lazy_ops.signatures.size()));
  EXPECT_GT(compiles1, static_cast<int64_t>(lazy_ops.op_names.size()));
  EXPECT_LT(compiles1, executes1);
  EXPECT_EQ(compiles2, 0);
  // Nothing ran as a lazy program.
  EXPECT_EQ(after[1].lazy_executes, lazy.lazy_executes);

  ASSERT_EQ(eager_losses.size(), lazy_losses.size());
  for (size_t i = 0; i < lazy_losses.size(); ++i) {
    EXPECT_NEAR(eager_losses[i], lazy_losses[i], 1e-5f * (1.0f + std::abs(lazy_losses[i])))
        << "step " << i;
  }
  EXPECT_NE(eager_losses[0], eager_losses[1]);
}

TEST(EagerTest, OpCacheIsKeyedByOpAttributesAndShapes) {
  set_eager(true);
  Tensor a = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  Tensor b = Tensor::from_vector({4.0f, 5.0f, 6.0f}, {3});
  Tensor c = a + b;
  EXPECT_FALSE(c.has_pending_ops());
  EXPECT_EQ(Samples("EagerOpCompileTime"), 1);
  Tensor d = c + a;  // same op, same shapes: a cache hit
  EXPECT_EQ(Samples("EagerOpCompileTime"), 1);
  Tensor e = Tensor::from_vector({1.0f, 2.0f}, {2}) + Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor f = c * b;  // another op
  EXPECT_EQ(Samples("EagerOpCompileTime"), 3);
  // Reading waits for the runs (a run's sample is recorded when it finishes).
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{6, 9, 12}));
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{20, 35, 54}));
  EXPECT_EQ(Samples("EagerOpExecuteTime"), 4);
  EXPECT_EQ(Samples("ExecuteTime"), 0);
  std::string report = metrics::CreateMetricReport();
  EXPECT_NE(report.find("Metric: EagerOpCompileTime\n  TotalSamples: 3\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("Metric: EagerOpExecuteTime\n  TotalSamples: 4\n"), std::string::npos)
      << report;
}

// A concatenate of many operands has an op key longer than the key buffer; it is then
// cached under its lowered program's hash, and a repeat is still a hit.
TEST(EagerTest, OpWithAVeryLongKeyIsCachedByItsProgram) {
  set_eager(true);
  std::vector<Tensor> parts;
  std::vector<float> expected;
  for (int i = 0; i < 40; ++i) {
    const float v = static_cast<float>(i);
    parts.push_back(Tensor::from_vector({v, v + 0.5f}, {2}));
    expected.push_back(v);
    expected.push_back(v + 0.5f);
  }
  Tensor joined = Tensor::cat(parts, 0);
  EXPECT_EQ(Samples("EagerOpCompileTime"), 1);
  Tensor again = Tensor::cat(parts, 0);
  EXPECT_EQ(Samples("EagerOpCompileTime"), 1);
  EXPECT_EQ(joined.to_vector<float>(), expected);
  EXPECT_EQ(again.to_vector<float>(), expected);
  EXPECT_EQ(Samples("EagerOpExecuteTime"), 2);
  set_eager(false);
}

TEST(EagerTest, OpOnAPendingLazyTensorRunsItsGraph) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f}, {2});
  auto run = [&] {
    set_eager(false);
    Tensor pending = a * 4.0f;  // recorded lazily
    set_eager(true);
    return pending + a;  // runs the multiply and the add as one program
  };
  Tensor first = run();
  EXPECT_FALSE(first.has_pending_ops());
  EXPECT_EQ(first.to_vector<float>(), (std::vector<float>{5, 10}));
  int64_t compiles = Samples("EagerOpCompileTime");
  EXPECT_EQ(run().to_vector<float>(), (std::vector<float>{5, 10}));
  EXPECT_EQ(Samples("EagerOpCompileTime"), compiles);  // the same program: a cache hit
}

TEST(EagerTest, GradientsInEagerModeMatchLazy) {
  auto grads = [] {
    Tensor x = Tensor::from_vector({0.5f, -1.0f, 2.0f}, {3});
    Tensor loss = (x * x * 3.0f + x.exp()).sum();
    return grad(loss, {x})[0].to_vector<float>();
  };
  std::vector<float> lazy = grads();
  set_eager(true);
  std::vector<float> eager = grads();
  ASSERT_EQ(lazy.size(), eager.size());
  for (size_t i = 0; i < lazy.size(); ++i) EXPECT_NEAR(eager[i], lazy[i], 1e-5f);
}

TEST(EagerTest, EnvironmentVariableTurnsItOn) {
  ASSERT_EQ(setenv("SEAM_EAGER", "1", 1), 0);
  EXPECT_TRUE(is_eager());
  Tensor c = Tensor::from_vector({1.0f}, {1}) * 3.0f;
  EXPECT_FALSE(c.has_pending_ops());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{3}));
  EXPECT_GE(Samples("EagerOpExecuteTime"), 1);  // the multiply (and the scalar's broadcast)
  set_eager(false);                             // the function overrides the variable
  EXPECT_TRUE((c * 2.0f).has_pending_ops());
}

TEST(EagerTest, BadEnvironmentValueIsAClearError) {
  ASSERT_EQ(setenv("SEAM_EAGER", "yes", 1), 0);
  Tensor a = Tensor::from_vector({1.0f}, {1});
  try {
    (void)(a + a);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "Environment variable SEAM_EAGER must be 0 or 1, got 'yes'");
  }
  EXPECT_THROW(is_eager(), Error);
  set_eager(false);  // an explicit choice replaces the unreadable variable
  EXPECT_EQ((a + a).to_vector<float>(), (std::vector<float>{2}));
}

}  // namespace
}  // namespace seam

namespace seam {
namespace {

// docs/frontend.md, "Eager and lazy agree, but not always bit for bit": twelve Adam steps of a
// small model in each mode, an MLP and a CNN (convolution, batch norm, pooling). Each prints the
// first step whose loss differs and the largest relative difference (measured: the MLP and
// the small CNN agree to the bit; the example-sized CNN differs from step 1 on, by at most
// 4.5e-6 by step 11); none may differ by more than 1e-4 relative, and the first loss (one forward
// pass from the same weights) is the same to the bit.
struct Drift {
  int first_difference = -1;
  double worst = 0;
};

Drift CompareModes(const std::function<std::shared_ptr<nn::Module>()>& make,
                   const std::function<Batch(int)>& batch, float lr, const char* what) {
  constexpr int kSteps = 12;
  auto train = [&](bool eager) {
    set_eager(eager);
    std::shared_ptr<nn::Module> model = make();
    optim::Adam opt(model->parameters(), lr);
    std::vector<float> losses;
    for (int step = 0; step < kSteps; ++step) {
      Batch b = batch(step);
      Tensor loss = nn::cross_entropy(model->forward(b.x), b.y);
      opt.step(loss);
      sync();
      losses.push_back(loss.item<float>());
    }
    set_eager(false);
    return losses;
  };
  const std::vector<float> lazy = train(false);
  const std::vector<float> eager = train(true);
  Drift drift;
  for (int i = 0; i < kSteps; ++i) {
    const double rel = std::abs(double{eager[i]} - lazy[i]) / std::abs(double{lazy[i]});
    if (rel > 0 && drift.first_difference < 0) drift.first_difference = i;
    drift.worst = std::max(drift.worst, rel);
    EXPECT_LT(rel, 1e-4) << what << " step " << i << ": eager " << eager[i] << ", lazy " << lazy[i];
  }
  std::printf(
      "%s, eager vs lazy over %d steps: first differing step %d (-1: none), largest "
      "relative difference %.3g\n",
      what, kSteps, drift.first_difference, drift.worst);
  EXPECT_EQ(eager[0], lazy[0]) << what;
  EXPECT_GT(lazy[0], lazy[kSteps - 1]) << what << " trains";
  return drift;
}

TEST(EagerTest, LossesDriftOnlyByRounding) {
  CompareModes(
      [] {
        return std::make_shared<nn::Mlp>(std::vector<int64_t>{6, 16, 16, 2}, 5);
      },
      [](int step) { return MakeBatch(300 + step); }, 1e-2f, "MLP 6-16-16-2");
  CompareModes(
      [] {
        auto model = std::make_shared<nn::Sequential>();
        model->add(std::make_shared<nn::Conv2d>(1, 4, std::array<int64_t, 2>{3, 3}, 7))
            .add(std::make_shared<nn::BatchNorm2d>(4))
            .add(std::make_shared<nn::ReLU>())
            .add(std::make_shared<nn::MaxPool2d>(std::array<int64_t, 2>{2, 2}))
            .add(std::make_shared<nn::Flatten>())
            .add(std::make_shared<nn::Linear>(4 * 3 * 3, 2, 8));
        return model;
      },
      [](int step) {
        Batch b = MakeBatch(400 + step);  // 16 x 6 values reused as 16 images of 8 x 8
        std::vector<float> pixels = b.x.to_vector<float>();
        pixels.resize(16 * 64);
        for (size_t i = 96; i < pixels.size(); ++i) pixels[i] = pixels[i % 96] * 0.5f;
        return Batch{Tensor::from_vector(pixels, {16, 1, 8, 8}), b.y};
      },
      1e-2f, "CNN conv-bn-relu-pool-linear");
  // The example's CNN (two conv-bn-relu-pool blocks, 32 and 64 channels, 28 x 28 images):
  // its losses differ from the second step on, by rounding.
  CompareModes(
      [] {
        auto model = std::make_shared<nn::Sequential>();
        nn::Conv2dOptions same;
        same.padding = {1, 1};
        model->add(std::make_shared<nn::Conv2d>(1, 32, std::array<int64_t, 2>{3, 3}, 7, same))
            .add(std::make_shared<nn::BatchNorm2d>(32))
            .add(std::make_shared<nn::ReLU>())
            .add(std::make_shared<nn::MaxPool2d>(std::array<int64_t, 2>{2, 2}))
            .add(std::make_shared<nn::Conv2d>(32, 64, std::array<int64_t, 2>{3, 3}, 9, same))
            .add(std::make_shared<nn::BatchNorm2d>(64))
            .add(std::make_shared<nn::ReLU>())
            .add(std::make_shared<nn::MaxPool2d>(std::array<int64_t, 2>{2, 2}))
            .add(std::make_shared<nn::Flatten>())
            .add(std::make_shared<nn::Linear>(64 * 7 * 7, 128, 8))
            .add(std::make_shared<nn::ReLU>())
            .add(std::make_shared<nn::Linear>(128, 2, 10));
        return model;
      },
      [](int step) {
        Batch b = MakeBatch(500 + step);
        std::vector<float> pixels = b.x.to_vector<float>();
        pixels.resize(16 * 784);
        for (size_t i = 96; i < pixels.size(); ++i) {
          pixels[i] = pixels[i % 96] * 0.5f + 0.001f * static_cast<float>(i % 7);
        }
        return Batch{Tensor::from_vector(pixels, {16, 1, 28, 28}), b.y};
      },
      1e-3f, "CNN of the Fashion-MNIST example's shape");
}

}  // namespace
}  // namespace seam
