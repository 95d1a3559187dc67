// Lazy training steps through the CPU plugin: the four crossings per step, the compile
// cache across steps, hyperparameters as data, a small learning problem and API misuse.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam {
namespace {

struct Snapshot {
  int64_t to_device, compile, execute, from_device, uncached, cached;
  static Snapshot Take() {
    return {metrics::MetricTotalSamples("TransferToDeviceTime"),
            metrics::MetricTotalSamples("CompileTime"),
            metrics::MetricTotalSamples("ExecuteTime"),
            metrics::MetricTotalSamples("TransferFromDeviceTime"),
            metrics::CounterValue("UncachedCompile"),
            metrics::CounterValue("CachedCompile")};
  }
};

// A linearly separable two-class problem: the label says whether x0 + x1 > 0.
void MakeBatch(int64_t n, uint64_t seed, int64_t features, std::vector<float>* x,
               std::vector<int32_t>* y) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  x->resize(static_cast<size_t>(n * features));
  y->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t f = 0; f < features; ++f) (*x)[i * features + f] = dist(rng);
    (*y)[i] = (*x)[i * features] + (*x)[i * features + 1] > 0 ? 1 : 0;
  }
}

// One step: forward, loss, gradients and the update, run by one sync.
Tensor Step(nn::Mlp& model, optim::Optimizer& opt, int64_t batch, int64_t features, uint64_t seed) {
  std::vector<float> xs;
  std::vector<int32_t> ys;
  MakeBatch(batch, seed, features, &xs, &ys);
  Tensor loss = nn::cross_entropy(model.forward(Tensor::from_vector(xs, {batch, features})),
                                  Tensor::from_vector(ys, {batch}));
  opt.step(loss);
  sync();
  return loss;
}

TEST(TrainingTest, OneStepCrossesEachWayOnce) {
  nn::Mlp model({5, 7, 2}, 1);
  optim::Adam opt(model.parameters(), 1e-2f);
  Snapshot before = Snapshot::Take();
  Tensor loss = Step(model, opt, 9, 5, 1);
  EXPECT_FALSE(loss.has_pending_ops());
  EXPECT_TRUE(std::isfinite(loss.item<float>()));
  Snapshot after = Snapshot::Take();
  EXPECT_EQ(after.to_device - before.to_device, 1);
  EXPECT_EQ(after.compile - before.compile, 1);
  EXPECT_EQ(after.execute - before.execute, 1);
  EXPECT_EQ(after.from_device - before.from_device, 1);
  // The parameters are device values now, updated by the program.
  for (Tensor* p : model.parameters()) EXPECT_FALSE(p->has_pending_ops());
}

TEST(TrainingTest, StepsReuseOneProgram) {
  nn::Mlp model({6, 8, 2}, 2);
  optim::Adam opt(model.parameters(), 1e-2f);
  Snapshot before = Snapshot::Take();
  const int kSteps = 5;
  Tensor loss;
  for (int i = 0; i < kSteps; ++i) loss = Step(model, opt, 11, 6, 10 + i);
  loss.item<float>();  // waits for the last run (ExecuteTime is recorded when a run ends)
  Snapshot after = Snapshot::Take();
  EXPECT_EQ(after.uncached - before.uncached, 1);
  EXPECT_EQ(after.compile - before.compile, 1);
  EXPECT_EQ(after.execute - before.execute, kSteps);
  EXPECT_EQ(after.cached - before.cached, kSteps - 1);
}

TEST(TrainingTest, LearningRateIsDataBatchSizeIsShape) {
  nn::Mlp model({7, 8, 2}, 3);
  optim::Sgd opt(model.parameters(), 0.1f, 0.9f, 1e-4f);
  Step(model, opt, 13, 7, 1);
  Snapshot before = Snapshot::Take();
  opt.lr = 0.05f;
  Step(model, opt, 13, 7, 2);
  opt.lr = 0.025f;
  Step(model, opt, 13, 7, 3);
  EXPECT_EQ(Snapshot::Take().uncached - before.uncached, 0);
  Step(model, opt, 17, 7, 4);  // a new batch size: a new shape, one compile
  EXPECT_EQ(Snapshot::Take().uncached - before.uncached, 1);
}

TEST(TrainingTest, LearnsASeparableProblem) {
  nn::Mlp model({4, 16, 2}, 4);
  optim::Adam opt(model.parameters(), 3e-2f);
  float first = 0, last = 0;
  for (int i = 0; i < 60; ++i) {
    Tensor loss = Step(model, opt, 64, 4, 100 + i);
    if (i == 0) first = loss.item<float>();
    if (i == 59) last = loss.item<float>();
  }
  EXPECT_LT(last, first);
  std::vector<float> xs;
  std::vector<int32_t> ys;
  MakeBatch(500, 9999, 4, &xs, &ys);
  double acc = nn::accuracy(model.forward(Tensor::from_vector(xs, {500, 4})),
                            Tensor::from_vector(ys, {500}));
  EXPECT_GE(acc, 0.95);
}

void ExpectError(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    FAIL() << "expected seam::Error";
  } catch (const Error& e) {
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
}

TEST(TrainingTest, MisuseNamesTheOpAndShapes) {
  Tensor a = Tensor::zeros({2, 3});
  Tensor b = Tensor::zeros({4, 5});
  ExpectError([&] { a.matmul(b); }, {"matmul", "f32[2,3]", "f32[4,5]"});
  ExpectError([&] { grad(a * 2.0f, {a}); }, {"grad", "f32[2,3]"});
  ExpectError([&] { a + b; }, {"add", "f32[2,3]", "f32[4,5]"});
  ExpectError([&] { a.reshape({4, 2}); }, {"reshape", "f32[2,3]"});
  ExpectError([&] { nn::cross_entropy(a, Tensor::zeros({3}, DType::kInt32)); },
              {"cross_entropy", "[2,3]", "[3]"});
  Tensor c = Tensor::zeros({3});
  ExpectError([&] { c.assign(a); }, {"assign", "f32[2,3]", "f32[3]"});
}

TEST(TrainingTest, ApiBasics) {
  Tensor r = Tensor::arange(4).to(DType::kFloat32);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{0, 1, 2, 3}));
  Tensor m = r.reshape({2, 2});
  EXPECT_EQ(m.transpose().to_vector<float>(), (std::vector<float>{0, 2, 1, 3}));
  EXPECT_EQ(m.max({1}).to_vector<float>(), (std::vector<float>{1, 3}));
  EXPECT_EQ(m.sum({0}, true).shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(m.argmax(1).to_vector<int32_t>(), (std::vector<int32_t>{1, 1}));
  std::vector<float> s = m.softmax(1).to_vector<float>();
  EXPECT_NEAR(s[0] + s[1], 1.0f, 1e-6f);
  Tensor p = Tensor::ones({2});
  Tensor old = p;
  p.assign(p + 1.0f);
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{2, 2}));
  EXPECT_EQ(old.to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(Tensor::randn({3}, 5).to_vector<float>(), Tensor::randn({3}, 5).to_vector<float>());
}

}  // namespace
}  // namespace seam
