// Data parallel training in one process: CPU_NUM_DEVICES replicas (the test is registered
// with 2 and with 4) against one device on the full batch; all_reduce values and gradients;
// misuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam {
namespace {

// Before any test starts the client (it reads CPU_NUM_DEVICES once, at creation).
[[maybe_unused]] const bool kDevicesSet = setenv("CPU_NUM_DEVICES", SEAM_TEST_DEVICES, 1) == 0;

constexpr int64_t kFeatures = 6;
constexpr int64_t kBatch = 24;  // divisible by 2, 3 and 4
constexpr int kSteps = 5;

// A three-class problem from random features (the class is the sign pattern of two sums).
void MakeBatch(int64_t n, uint64_t seed, std::vector<float>* x, std::vector<int32_t>* y) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  x->resize(static_cast<size_t>(n * kFeatures));
  y->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t f = 0; f < kFeatures; ++f) (*x)[i * kFeatures + f] = dist(rng);
    float a = (*x)[i * kFeatures] + (*x)[i * kFeatures + 1];
    float b = (*x)[i * kFeatures + 2] - (*x)[i * kFeatures + 3];
    (*y)[i] = a > 0 ? 2 : (b > 0 ? 1 : 0);
  }
}

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor*>)>;

struct Run {
  std::vector<float> losses;
  std::vector<std::vector<float>> params;  // replica 0's final values
};

// kSteps steps of an MLP. dp == nullptr: one device, the full batch as one tensor.
// Otherwise each replica gets its shard and gradients are averaged across replicas.
Run Train(const MakeOptimizer& make, const DataParallel* dp) {
  nn::Mlp model({kFeatures, 16, 3}, 7);
  std::unique_ptr<optim::Optimizer> opt = make(model.parameters());
  Run run;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> xs;
    std::vector<int32_t> ys;
    MakeBatch(kBatch, 100 + step, &xs, &ys);
    if (dp == nullptr) {
      Tensor loss = nn::cross_entropy(model.forward(Tensor::from_vector(xs, {kBatch, kFeatures})),
                                      Tensor::from_vector(ys, {kBatch}));
      opt->step(loss);
      sync();
      run.losses.push_back(loss.item<float>());
    } else {
      Tensor x = dp->shard(xs, {kBatch, kFeatures});
      Tensor y = dp->shard(ys, {kBatch});
      EXPECT_EQ(x.shape(), (std::vector<int64_t>{kBatch / dp->replicas(), kFeatures}));
      Tensor loss = nn::cross_entropy(model.forward(x), y);
      opt->step(loss, *dp);
      Tensor global = dp->mean(loss);
      sync();
      run.losses.push_back(global.item<float>());
    }
  }
  for (Tensor* p : model.parameters()) {
    run.params.push_back(p->to_vector<float>());
    if (dp != nullptr) {
      // Every replica applied the same all-reduced update: the copies are identical.
      std::vector<std::vector<float>> copies = dp->gather<float>(*p);
      EXPECT_EQ(copies.size(), static_cast<size_t>(dp->replicas()));
      for (const auto& copy : copies) EXPECT_EQ(copy, copies.front());
    }
  }
  return run;
}

void ExpectSameTraining(const MakeOptimizer& make) {
  DataParallel dp;
  ASSERT_EQ(dp.replicas(), local_device_count());
  ASSERT_GE(dp.replicas(), 2) << "run with CPU_NUM_DEVICES >= 2";
  Run one = Train(make, nullptr);
  int64_t replicated_before = metrics::MetricTotalSamples("ExecuteReplicatedTime");
  int64_t uncached_before = metrics::CounterValue("UncachedCompile");
  Run many = Train(make, &dp);
  // The sample is recorded by the last replica's completion callback, which may run just
  // after the values it produced became readable: wait (bounded) for it.
  for (int i = 0; i < 2000 &&
                  metrics::MetricTotalSamples("ExecuteReplicatedTime") - replicated_before < kSteps;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteReplicatedTime") - replicated_before, kSteps);
  EXPECT_EQ(metrics::CounterValue("UncachedCompile") - uncached_before, 1);
  ASSERT_EQ(one.losses.size(), many.losses.size());
  double worst = 0;
  for (size_t i = 0; i < one.losses.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::abs(one.losses[i] - many.losses[i])));
  }
  std::printf("%lld replicas, %d steps: losses %g -> %g, largest loss difference %g\n",
              static_cast<long long>(dp.replicas()), kSteps, one.losses.front(), one.losses.back(),
              worst);
  for (size_t i = 0; i < one.losses.size(); ++i) {
    EXPECT_NEAR(one.losses[i], many.losses[i], 1e-5 * (1 + std::abs(one.losses[i])))
        << "step " << i;
  }
  // The model learns, so equal losses are not equal by accident of a constant loss.
  EXPECT_NE(one.losses.front(), one.losses.back());
  ASSERT_EQ(one.params.size(), many.params.size());
  for (size_t p = 0; p < one.params.size(); ++p) {
    for (size_t k = 0; k < one.params[p].size(); ++k) {
      ASSERT_NEAR(one.params[p][k], many.params[p][k], 1e-5)
          << "parameter " << p << "[" << k << "]";
    }
  }
}

TEST(DataParallelTest, SgdMatchesOneDeviceOnTheFullBatch) {
  ExpectSameTraining([](std::vector<Tensor*> params) {
    return std::make_unique<optim::Sgd>(std::move(params), 0.5f, 0.9f, 1e-3f);
  });
}

TEST(DataParallelTest, AdamMatchesOneDeviceOnTheFullBatch) {
  ExpectSameTraining([](std::vector<Tensor*> params) {
    return std::make_unique<optim::Adam>(std::move(params), 0.05f);
  });
}

// The bf16 gradient exchange: training follows the f32 exchange closely but not bit for bit
// (the gradients lose their low mantissa bits), and the replicas stay identical (Train
// checks every parameter's copies).
TEST(DataParallelTest, Bf16GradientExchangeTrainsCloseToF32) {
  const MakeOptimizer sgd = [](std::vector<Tensor*> params) {
    return std::make_unique<optim::Sgd>(std::move(params), 0.5f, 0.9f, 1e-3f);
  };
  DataParallel f32;
  DataParallel bf16(0, DataParallelOptions{.bf16_gradient_exchange = true});
  EXPECT_FALSE(f32.options().bf16_gradient_exchange);
  ASSERT_GE(bf16.replicas(), 2) << "run with CPU_NUM_DEVICES >= 2";
  const struct Run wide = Train(sgd, &f32);
  const struct Run narrow = Train(sgd, &bf16);
  ASSERT_EQ(wide.losses.size(), narrow.losses.size());
  for (size_t i = 0; i < wide.losses.size(); ++i) {
    EXPECT_NEAR(wide.losses[i], narrow.losses[i], 2e-2 * (1 + std::abs(wide.losses[i])))
        << "step " << i;
  }
  bool differs = false;
  for (size_t p = 0; p < wide.params.size(); ++p) {
    for (size_t k = 0; k < wide.params[p].size(); ++k) {
      EXPECT_NEAR(wide.params[p][k], narrow.params[p][k], 2e-2)
          << "parameter " << p << "[" << k << "]";
      differs = differs || wide.params[p][k] != narrow.params[p][k];
    }
  }
  EXPECT_TRUE(differs) << "the bf16 exchange left every parameter bit-identical to f32's";
}

// Replica d's shard is row d of [[1,2],[3,4],...] scaled by a sign pattern.
TEST(DataParallelTest, AllReduceSumMaxMin) {
  DataParallel dp;
  const int64_t n = dp.replicas();
  std::vector<float> values;
  for (int64_t d = 0; d < n; ++d) {
    float sign = d % 2 == 0 ? 1.0f : -1.0f;
    values.push_back(sign * static_cast<float>(d + 1));
    values.push_back(static_cast<float>(10 * (d + 1)));
  }
  Tensor x = dp.shard(values, {n, 2});
  Tensor sum = all_reduce(x, ReduceOp::kSum);
  Tensor max = all_reduce(x, ReduceOp::kMax);
  Tensor min = all_reduce(x, ReduceOp::kMin);
  sync();
  std::vector<float> want_sum(2, 0), want_max(2, -1e9f), want_min(2, 1e9f);
  for (int64_t d = 0; d < n; ++d) {
    for (int k = 0; k < 2; ++k) {
      want_sum[k] += values[2 * d + k];
      want_max[k] = std::max(want_max[k], values[2 * d + k]);
      want_min[k] = std::min(want_min[k], values[2 * d + k]);
    }
  }
  for (const auto& v : dp.gather<float>(sum)) EXPECT_EQ(v, want_sum);
  for (const auto& v : dp.gather<float>(max)) EXPECT_EQ(v, want_max);
  for (const auto& v : dp.gather<float>(min)) EXPECT_EQ(v, want_min);
  // The program a sync would run is the replicated one.
  Tensor pending = all_reduce(x * 2.0f, ReduceOp::kSum);
  std::string text = pending_ir_text({pending});
  EXPECT_NE(text.find("replicas=" + std::to_string(n)), std::string::npos) << text;
  EXPECT_NE(text.find("group_size={" + std::to_string(n) + "}"), std::string::npos) << text;
  // The shards themselves are still each replica's own rows.
  std::vector<std::vector<float>> shards = dp.gather<float>(x);
  for (int64_t d = 0; d < n; ++d) {
    EXPECT_EQ(shards[d], (std::vector<float>{values[2 * d], values[2 * d + 1]}));
  }
}

TEST(DataParallelTest, AllReduceOutsideAReplicatedStepIsTheIdentity) {
  Tensor x = Tensor::from_vector({1.5f, -2.0f, 4.0f}, {3});
  int64_t replicated_before = metrics::MetricTotalSamples("ExecuteReplicatedTime");
  EXPECT_EQ(all_reduce(x, ReduceOp::kSum).to_vector<float>(), (std::vector<float>{1.5f, -2, 4}));
  EXPECT_EQ(all_reduce(x * 2.0f, ReduceOp::kMax).to_vector<float>(),
            (std::vector<float>{3, -4, 8}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteReplicatedTime"), replicated_before);
  // And the lowering is all_reduce, not an elided op.
  EXPECT_NE(pending_ir_text({all_reduce(x, ReduceOp::kMin)}).find("all_reduce_min"),
            std::string::npos);
}

// F = sum over replicas r of sum(all_reduce(x_r * x_r, op) * w): the gradient replica d
// computes for its shard is dF/d(shard d), checked by central differences in f64.
void CheckAllReduceGrad(ReduceOp op) {
  DataParallel dp;
  const int64_t n = dp.replicas();
  const std::vector<int64_t> shape{2 * n, 3};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<double> values(static_cast<size_t>(6 * n));
  for (double& v : values) v = dist(rng);
  Tensor w = Tensor::from_vector(std::vector<double>{0.5, 1.25, -0.75, 1.0, 2.0, -1.5}, {2, 3});
  auto local_loss = [&](const Tensor& x) { return (all_reduce(x * x, op) * w).sum(); };
  auto objective = [&](const std::vector<double>& v) {
    double total = 0;
    for (const auto& r : dp.gather<double>(local_loss(dp.shard(v, shape)))) total += r.front();
    return total;
  };
  Tensor x = dp.shard(values, shape);
  std::vector<std::vector<double>> analytic = dp.gather<double>(grad(local_loss(x), {x})[0]);
  const double h = 1e-6;
  for (size_t k = 0; k < values.size(); ++k) {
    auto plus = values, minus = values;
    plus[k] += h;
    minus[k] -= h;
    double numeric = (objective(plus) - objective(minus)) / (2 * h);
    EXPECT_NEAR(analytic[k / 6][k % 6], numeric, 1e-5 * (1 + std::abs(numeric))) << "element " << k;
  }
}

TEST(DataParallelTest, AllReduceGradientsMatchFiniteDifferences) {
  CheckAllReduceGrad(ReduceOp::kSum);
  CheckAllReduceGrad(ReduceOp::kMax);
  CheckAllReduceGrad(ReduceOp::kMin);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected a seam::Error";
  return "";
}

TEST(DataParallelTest, Misuse) {
  DataParallel dp;
  const int64_t n = dp.replicas();
  std::string message = ErrorOf([&] { dp.shard(std::vector<float>(3 * (n + 1), 0), {n + 1, 3}); });
  EXPECT_NE(message.find("shard: the batch dimension of f32[" + std::to_string(n + 1) + ",3]"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(std::to_string(n) + " replicas"), std::string::npos) << message;
  message = ErrorOf([&] { dp.shard(std::vector<int32_t>(5, 0), {n, 3}); });
  EXPECT_NE(message.find("shard: 5 values given for shape"), std::string::npos) << message;
  message = ErrorOf([&] { DataParallel too_many(n + 1); });
  EXPECT_NE(message.find(std::to_string(n + 1) + " replicas asked for"), std::string::npos)
      << message;
  message = ErrorOf([&] { all_reduce(eq(Tensor::ones({2}), Tensor::ones({2})), ReduceOp::kSum); });
  EXPECT_NE(message.find("all_reduce: needs a numeric tensor, got pred[2]"), std::string::npos)
      << message;
  message = ErrorOf([&] { dp.mean(Tensor::from_vector({1, 2}, {2})); });
  EXPECT_NE(message.find("DataParallel::mean: needs a float tensor"), std::string::npos) << message;
}

TEST(DataParallelTest, OneStepCannotMixReplicaCounts) {
  DataParallel all;
  if (all.replicas() < 4) GTEST_SKIP() << "needs 4 devices";
  DataParallel two(2);
  Tensor a = all.shard(std::vector<float>(4, 1), {4});
  Tensor b = two.shard(std::vector<float>(2, 1), {2});
  Tensor c = a.sum() + b.sum();
  std::string message = ErrorOf([&] { sync(); });
  EXPECT_NE(message.find("mixes values sharded over"), std::string::npos) << message;
  (void)c;
}

// A DataParallel over fewer replicas than devices uses the first ones.
TEST(DataParallelTest, FewerReplicasThanDevices) {
  DataParallel two(2);
  Tensor x = two.shard(std::vector<float>{1, 2, 3, 4}, {4});
  Tensor s = all_reduce(x, ReduceOp::kSum);
  std::vector<std::vector<float>> values = two.gather<float>(s);
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], (std::vector<float>{4, 6}));
  EXPECT_EQ(values[1], (std::vector<float>{4, 6}));
}

}  // namespace
}  // namespace seam
