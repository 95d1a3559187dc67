// seam::compile: a compiled training step against the same step in the plain lazy loop
// (bit-identical losses and parameters), the replay's observables (no calls of fn, buffer
// donation, metrics), the guards that fall back to a traced call, graph breaks,
// SEAM_COMPILE_CHECK and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "seam/compile.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/base/logging.h"

namespace seam {
namespace {

using ::testing::HasSubstr;

struct Batch {
  Tensor x, y;
};

// A fresh host batch of `rows` rows of 16 features with labels in 0..3.
Batch MakeBatch(int64_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> xs(static_cast<size_t>(rows * 16));
  std::vector<int32_t> ys(static_cast<size_t>(rows));
  for (float& v : xs) v = dist(rng);
  for (int32_t& v : ys) v = static_cast<int32_t>(rng() % 4);
  return {Tensor::from_vector(xs, {rows, 16}), Tensor::from_vector(ys, {rows})};
}

std::vector<std::vector<float>> Values(const std::vector<Tensor*>& tensors) {
  std::vector<std::vector<float>> out;
  for (const Tensor* t : tensors) out.push_back(t->to_vector<float>());
  return out;
}

// A model, its optimizer, and the step written once for both loops.
struct Trainer {
  explicit Trainer(bool adam, bool capturable = false) : model({16, 16, 4}, 7) {
    if (adam) {
      opt = std::make_unique<optim::Adam>(model.parameters(), 0.01f, 0.9f, 0.999f, 1e-8f, 0.0f,
                                          capturable);
    } else {
      opt = std::make_unique<optim::Sgd>(model.parameters(), 0.05f, 0.9f);
    }
  }
  Tensor Step(const Tensor& x, const Tensor& y) {
    ++fn_calls;
    Tensor loss = nn::cross_entropy(model.forward(x), y);
    opt->step(loss);
    return loss;
  }
  float PlainStep(const Batch& b) {
    Tensor loss = Step(b.x, b.y);
    sync();
    return loss.item<float>();
  }
  CompiledStep Compiled() {
    return compile(
        [this](const std::vector<Tensor>& in) { return std::vector<Tensor>{Step(in[0], in[1])}; });
  }
  nn::Mlp model;
  std::unique_ptr<optim::Optimizer> opt;
  int fn_calls = 0;
};

void ExpectSameTraining(bool adam, bool capturable = false) {
  Trainer plain(adam, capturable), compiled(adam, capturable);
  CompiledStep step = compiled.Compiled();
  for (int i = 0; i < 8; ++i) {
    Batch batch = MakeBatch(4, 100 + i);
    float expected = plain.PlainStep(batch);
    float loss = step({batch.x, batch.y})[0].item<float>();
    EXPECT_EQ(loss, expected) << "step " << i;
    EXPECT_EQ(Values(compiled.model.parameters()), Values(plain.model.parameters()))
        << "step " << i;
  }
  EXPECT_EQ(plain.fn_calls, 8);
  if (!adam || capturable) {
    // Call 1 creates the optimizer state, calls 2 and 3 capture the same plan, 4..8 replay
    // (capturable Adam keeps its step count and bias corrections in the program).
    EXPECT_EQ(step.traced_calls(), 3);
    EXPECT_EQ(step.replayed_calls(), 5);
    EXPECT_EQ(compiled.fn_calls, 3);
  } else {
    // Adam's bias-corrected step size is a host scalar that changes every step (a fixed
    // value of the capture), so no two captures agree: every call is traced, and the
    // reason names the scalar.
    EXPECT_EQ(step.traced_calls(), 8);
    EXPECT_EQ(step.replayed_calls(), 0);
    EXPECT_EQ(compiled.fn_calls, 8);
    EXPECT_THAT(step.last_reason(), HasSubstr("a fixed value: parameter"));
    EXPECT_THAT(step.last_reason(), HasSubstr("f32[] changed from"));
  }
}

TEST(CompiledStepTest, SgdMomentumMatchesThePlainLoopBitForBit) { ExpectSameTraining(false); }

TEST(CompiledStepTest, AdamMatchesThePlainLoopBitForBitButIsNotReplayed) {
  ExpectSameTraining(true);
}

TEST(CompiledStepTest, CapturableAdamIsReplayedAndMatchesThePlainLoopBitForBit) {
  ExpectSameTraining(true, true);
}

TEST(CompiledStepTest, CapturableAdamMatchesHostStepCountAdamWithinFloatRounding) {
  Trainer host(true), device(true, true);
  const std::vector<std::vector<float>> initial = Values(host.model.parameters());
  for (int i = 0; i < 10; ++i) {
    Batch batch = MakeBatch(4, 300 + i);
    EXPECT_NEAR(device.PlainStep(batch), host.PlainStep(batch), 1e-5f) << "step " << i;
  }
  const std::vector<std::vector<float>> a = Values(device.model.parameters());
  const std::vector<std::vector<float>> b = Values(host.model.parameters());
  ASSERT_EQ(a.size(), b.size());
  float moved = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    for (size_t j = 0; j < a[i].size(); ++j) {
      EXPECT_NEAR(a[i][j], b[i][j], 1e-5f) << "parameter " << i << " element " << j;
      moved = std::max(moved, std::fabs(b[i][j] - initial[i][j]));
    }
  }
  EXPECT_GT(moved, 0.02f);  // ten steps of lr 0.01 moved the parameters, so this compares
  // Moments of the 4 parameters, then the step count, which counted the ten steps.
  std::vector<const Tensor*> state = device.opt->state();
  ASSERT_EQ(state.size(), 9u);
  EXPECT_EQ(state.back()->to_vector<float>(), std::vector<float>{10.0f});
  EXPECT_EQ(host.opt->state().size(), 8u);
}

// An f64 parameter: the device step count stays f32 and its corrections are converted to
// the parameter's type; a compiled step of it replays and agrees with host-count Adam.
TEST(CompiledStepTest, CapturableAdamOfAnF64ParameterReplays) {
  const std::vector<double> start = {0.5, -1.0, 2.0};
  Tensor host_p = Tensor::from_vector(start, {3}), dev_p = Tensor::from_vector(start, {3});
  optim::Adam host({&host_p}, 0.1f), dev({&dev_p}, 0.1f, 0.9f, 0.999f, 1e-8f, 0.0f, true);
  Tensor target = Tensor::from_vector(std::vector<double>{1.0, 2.0, -3.0}, {3});
  auto loss_of = [&](const Tensor& p) { return ((p - target) * (p - target)).sum(); };
  CompiledStep step = compile([&](const std::vector<Tensor>&) {
    Tensor loss = loss_of(dev_p);
    dev.step(loss);
    return std::vector<Tensor>{loss};
  });
  for (int i = 0; i < 6; ++i) {
    host.step(loss_of(host_p));
    sync();
    step({})[0].item<double>();
    std::vector<double> a = dev_p.to_vector<double>(), b = host_p.to_vector<double>();
    ASSERT_EQ(a.size(), 3u);
    for (size_t j = 0; j < 3; ++j) EXPECT_NEAR(a[j], b[j], 1e-6) << "step " << i;
  }
  EXPECT_EQ(dev_p.dtype(), DType::kFloat64);
  EXPECT_GT(dev_p.to_vector<double>()[1], -0.7);  // moved toward 2 (Adam's steps are ~lr)
  EXPECT_EQ(step.replayed_calls(), 3);
}

TEST(CompiledStepTest, ReplayIsOneCachedBarrierThatDonatesEveryState) {
  Trainer t(false);
  CompiledStep step = t.Compiled();
  Batch batch = MakeBatch(4, 1);
  for (int i = 0; i < 3; ++i) step({batch.x, batch.y})[0].item<float>();
  ASSERT_EQ(step.replayed_calls(), 0);
  const int64_t updated = static_cast<int64_t>(t.model.parameters().size() + t.opt->state().size());
  ASSERT_EQ(updated, 8);  // 2 layers x (weight, bias), and a velocity for each
  for (int i = 0; i < 3; ++i) {
    const int64_t aliases = metrics::CounterValue("InputOutputAliasCount");
    const int64_t marks = metrics::CounterValue("MarkStep");
    const int64_t cached = metrics::CounterValue("CachedCompile");
    const int64_t uncached = metrics::CounterValue("UncachedCompile");
    const int64_t executes = metrics::MetricTotalSamples("ExecuteTime");
    const int64_t replays = metrics::CounterValue("CompiledStepReplay");
    const int calls = t.fn_calls;
    std::vector<Tensor> out = step({batch.x, batch.y});
    EXPECT_EQ(t.fn_calls, calls) << "replay " << i;
    EXPECT_EQ(metrics::CounterValue("InputOutputAliasCount") - aliases, updated);
    EXPECT_EQ(metrics::CounterValue("MarkStep") - marks, 1);
    EXPECT_EQ(metrics::CounterValue("CachedCompile") - cached, 1);
    EXPECT_EQ(metrics::CounterValue("UncachedCompile"), uncached);
    EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime") - executes, 1);
    EXPECT_EQ(metrics::CounterValue("CompiledStepReplay") - replays, 1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(std::isfinite(out[0].item<float>()));
  }
  EXPECT_EQ(step.replayed_calls(), 3);
}

TEST(CompiledStepTest, AnotherBatchShapeFallsBackAndStillMatches) {
  Trainer plain(false), compiled(false);
  CompiledStep step = compiled.Compiled();
  for (int i = 0; i < 7; ++i) {
    Batch batch = MakeBatch(i == 4 ? 8 : 4, 200 + i);
    float expected = plain.PlainStep(batch);
    EXPECT_EQ(step({batch.x, batch.y})[0].item<float>(), expected) << "step " << i;
    EXPECT_EQ(Values(compiled.model.parameters()), Values(plain.model.parameters()));
  }
  // Step 4 (batch 8) is traced; step 5 (batch 4 again) differs from it, so it is traced
  // too; step 6 equals step 5 and sets the plan again.
  EXPECT_EQ(step.fallbacks(), 1);
  EXPECT_EQ(step.replayed_calls(), 1);
  EXPECT_EQ(compiled.fn_calls, 6);
}

TEST(CompiledStepTest, AHeldCopyOfAParameterBlocksDonationAndStaysReadable) {
  Trainer plain(false), compiled(false);
  CompiledStep step = compiled.Compiled();
  for (int i = 0; i < 6; ++i) {
    Batch batch = MakeBatch(4, 300 + i);
    Tensor copy;
    std::vector<float> before;
    if (i == 4) {
      copy = *compiled.model.parameters()[0];
      before = copy.to_vector<float>();
    }
    const int64_t aliases = metrics::CounterValue("InputOutputAliasCount");
    float expected_loss = plain.PlainStep(batch);
    const int64_t plain_aliases = metrics::CounterValue("InputOutputAliasCount") - aliases;
    EXPECT_EQ(step({batch.x, batch.y})[0].item<float>(), expected_loss) << "step " << i;
    EXPECT_EQ(Values(compiled.model.parameters()), Values(plain.model.parameters()));
    if (i == 4) {
      EXPECT_EQ(step.fallbacks(), 1);
      // The copy's buffer was not donated: one alias fewer than the plain step's.
      EXPECT_EQ(metrics::CounterValue("InputOutputAliasCount") - aliases - plain_aliases,
                plain_aliases - 1);
      EXPECT_EQ(copy.to_vector<float>(), before);
    }
  }
}

TEST(CompiledStepTest, AHostReadInsideTheStepIsNeverReplayed) {
  Trainer plain(false), compiled(false);
  std::vector<float> seen;
  CompiledStep step = compile([&](const std::vector<Tensor>& in) {
    Tensor loss = compiled.Step(in[0], in[1]);
    Tensor logits = compiled.model.forward(in[0]);
    seen.push_back(logits.sum().item<float>());  // a host read: a graph break
    return std::vector<Tensor>{loss};
  });
  for (int i = 0; i < 6; ++i) {
    Batch batch = MakeBatch(4, 400 + i);
    float expected = plain.PlainStep(batch);
    EXPECT_EQ(step({batch.x, batch.y})[0].item<float>(), expected) << "step " << i;
  }
  EXPECT_TRUE(step.never_replayed());
  EXPECT_THAT(step.last_reason(), HasSubstr("host"));
  EXPECT_EQ(step.replayed_calls(), 0);
  EXPECT_EQ(compiled.fn_calls, 6);
  EXPECT_EQ(seen.size(), 6u);
}

TEST(CompiledStepTest, DebugLogsWhyAStepIsNeverReplayedAndWhenReplayingStarts) {
  ASSERT_EQ(setenv("SEAM_DEBUG", "1", 1), 0);
  std::vector<std::string> lines;
  base::SetLogSink([&](base::LogSeverity, const std::string& line) { lines.push_back(line); });
  Trainer t(false);
  CompiledStep breaking = compile([&](const std::vector<Tensor>& in) {
    Tensor loss = t.Step(in[0], in[1]);
    loss.item<float>();
    return std::vector<Tensor>{loss};
  });
  CompiledStep plain =
      compile([](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * 3.0f}; });
  Batch batch = MakeBatch(4, 8);
  breaking({batch.x, batch.y});
  for (int i = 0; i < 3; ++i) plain({batch.x});
  base::SetLogSink(nullptr);
  unsetenv("SEAM_DEBUG");
  EXPECT_THAT(lines, ::testing::Contains(AllOf(HasSubstr("compiled step"),
                                               HasSubstr("reads a tensor on the host"),
                                               HasSubstr("never replayed"))));
  EXPECT_THAT(lines, ::testing::Contains(HasSubstr("replaying from the next call")));
  EXPECT_EQ(plain.replayed_calls(), 1);
}

TEST(CompiledStepTest, AnExplicitSyncInsideTheStepIsNeverReplayed) {
  Trainer t(false);
  CompiledStep step = compile([&](const std::vector<Tensor>& in) {
    Tensor loss = t.Step(in[0], in[1]);
    sync();
    return std::vector<Tensor>{loss * 2.0f};
  });
  Batch batch = MakeBatch(4, 5);
  for (int i = 0; i < 5; ++i) step({batch.x, batch.y});
  EXPECT_TRUE(step.never_replayed());
  EXPECT_THAT(step.last_reason(), HasSubstr("seam::sync"));
  EXPECT_EQ(t.fn_calls, 5);
}

TEST(CompiledStepTest, ACompiledStepInsideAnotherIsAGraphBreakOfTheOuterOne) {
  Trainer plain(false), compiled(false);
  CompiledStep inner = compiled.Compiled();
  CompiledStep outer = compile(
      [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{inner(in)[0] * 2.0f}; });
  for (int i = 0; i < 6; ++i) {
    Batch batch = MakeBatch(4, 600 + i);
    float expected = plain.PlainStep(batch);
    EXPECT_EQ(outer({batch.x, batch.y})[0].item<float>(), expected * 2) << "step " << i;
  }
  EXPECT_TRUE(outer.never_replayed());
  EXPECT_EQ(compiled.fn_calls, 6);
  EXPECT_EQ(Values(compiled.model.parameters()), Values(plain.model.parameters()));
}

TEST(CompiledStepTest, AFixedLearningRateIsFrozenWhenReplayed) {
  Trainer plain(false), compiled(false);
  CompiledStep step = compiled.Compiled();
  for (int i = 0; i < 6; ++i) {
    Batch batch = MakeBatch(4, 500 + i);
    if (i == 4) static_cast<optim::Sgd&>(*compiled.opt).lr = 0.5f;  // ignored: frozen
    EXPECT_EQ(step({batch.x, batch.y})[0].item<float>(), plain.PlainStep(batch));
  }
  EXPECT_EQ(Values(compiled.model.parameters()), Values(plain.model.parameters()));
}

TEST(CompiledStepTest, CompileCheckNamesAChangedCapturedScalar) {
  ASSERT_EQ(setenv("SEAM_COMPILE_CHECK", "1", 1), 0);
  Trainer t(false);
  CompiledStep step = t.Compiled();
  unsetenv("SEAM_COMPILE_CHECK");
  Batch batch = MakeBatch(4, 9);
  for (int i = 0; i < 4; ++i) step({batch.x, batch.y});
  EXPECT_EQ(t.fn_calls, 4);  // the check runs fn on every call
  EXPECT_EQ(step.replayed_calls(), 0);
  static_cast<optim::Sgd&>(*t.opt).lr = 0.01f;
  try {
    step({batch.x, batch.y});
    ADD_FAILURE() << "a changed learning rate was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_THAT(e.what(), HasSubstr("SEAM_COMPILE_CHECK"));
    EXPECT_THAT(e.what(), HasSubstr("fixed value"));
    EXPECT_THAT(e.what(), HasSubstr("f32[]"));
    EXPECT_THAT(e.what(), HasSubstr("from 0.05 to 0.01"));
    EXPECT_THAT(e.what(), HasSubstr("pass it as an input"));
  }
}

TEST(CompiledStepTest, CompileCheckAcceptsWhatTheGuardsCatch) {
  ASSERT_EQ(setenv("SEAM_COMPILE_CHECK", "1", 1), 0);
  Trainer plain(false), compiled(false);
  CompiledStep step = compiled.Compiled();
  unsetenv("SEAM_COMPILE_CHECK");
  for (int i = 0; i < 8; ++i) {
    Batch batch = MakeBatch(i == 5 ? 8 : 4, 700 + i);
    Tensor copy;
    if (i == 6) copy = *compiled.model.parameters()[1];  // blocks one donation
    EXPECT_EQ(step({batch.x, batch.y})[0].item<float>(), plain.PlainStep(batch)) << i;
  }
  EXPECT_EQ(compiled.fn_calls, 8);
}

TEST(CompiledStepTest, ABadCompileCheckValueIsAnError) {
  ASSERT_EQ(setenv("SEAM_COMPILE_CHECK", "yes", 1), 0);
  try {
    compile([](const std::vector<Tensor>& in) { return in; });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("SEAM_COMPILE_CHECK"));
    EXPECT_THAT(e.what(), HasSubstr("'yes'"));
  }
  unsetenv("SEAM_COMPILE_CHECK");
}

TEST(CompiledStepTest, MisuseIsAClearError) {
  try {
    compile(StepFunction());
    ADD_FAILURE() << "an empty function was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("empty"));
  }
  CompiledStep step = compile([](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{in[0] * 2.0f, Tensor()};
  });
  try {
    step({Tensor(), Tensor::ones({2})});
    ADD_FAILURE() << "an undefined input was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("input 0 is undefined"));
  }
  try {
    step({Tensor::ones({2})});
    ADD_FAILURE() << "an undefined output was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("output 1 is undefined"));
  }
}

TEST(CompiledStepTest, APlainFunctionOfItsInputsReplaysWithNewValues) {
  int calls = 0;
  CompiledStep step = compile([&](const std::vector<Tensor>& in) {
    ++calls;
    return std::vector<Tensor>{in[0] * in[1] + 3.0f};
  });
  for (int i = 0; i < 6; ++i) {
    float a = static_cast<float>(i), b = static_cast<float>(2 * i + 1);
    std::vector<Tensor> out =
        step({Tensor::from_vector({a, -a}, {2}), Tensor::from_vector({b, b}, {2})});
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{a * b + 3, -a * b + 3}));
  }
  EXPECT_EQ(calls, 2);  // calls 1 and 2 agree, 3..6 replay
  EXPECT_EQ(step.replayed_calls(), 4);
}

}  // namespace
}  // namespace seam
