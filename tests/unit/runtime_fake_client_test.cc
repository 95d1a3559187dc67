// The front end over a counting fake client (tests/unit/fake_client.h), each test with a
// lazy::Runtime of its own, all in one process: the step barrier's four crossings, the
// compile cache belonging to its runtime, eager mode, compiled-step replays, a replicated
// step, host reads and uploads through the step runner.
#include <gtest/gtest.h>

#include <vector>

#include "seam/compile.h"
#include "seam/distributed.h"
#include "seam/tensor.h"
#include "src/lazy/runtime.h"
#include "src/lazy/step_runner.h"
#include "tests/unit/fake_client.h"

namespace seam {
namespace {

class RuntimeFakeClientTest : public ::testing::Test {
 protected:
  fake::FakeClient client_;
  lazy::Runtime runtime_{&client_};
  lazy::ScopedRuntime scoped_{runtime_};

  const fake::FakeClient::Counts& counts() const { return client_.counts(); }
};

TEST_F(RuntimeFakeClientTest, BarrierCrossesFourTimesAndHitsTheRuntimesCache) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  for (int step = 0; step < 2; ++step) {
    Tensor y = x * 2.0f + 1.0f;
    sync();
    EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{3.0f, 5.0f, 7.0f}));
  }
  // x and the scalar 2 (program data, as a multiplier other than 0 and 1 is) at the first
  // step; the second step's new scalar at the second (x stays on the device).
  EXPECT_EQ(counts().transfers_to, 2);
  EXPECT_EQ(counts().compiles, 1);  // the second step hits this runtime's cache
  EXPECT_EQ(counts().executes, 2);
  EXPECT_EQ(counts().transfers_from, 2);
  EXPECT_EQ((*runtime_.compile_cache())->size(), 1u);
  EXPECT_EQ(runtime_.barrier_steps, 2);
}

TEST_F(RuntimeFakeClientTest, EachRuntimeHasItsOwnCacheAndClient) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor y = x + 1.0f;
  sync();
  EXPECT_EQ(counts().compiles, 1);
  {
    fake::FakeClient other_client;
    lazy::Runtime other(&other_client);
    lazy::ScopedRuntime scoped(other);
    Tensor a = Tensor::from_vector({5.0f, 6.0f}, {2});
    Tensor b = a + 1.0f;  // the same program as y's
    EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{6.0f, 7.0f}));
    EXPECT_EQ(other_client.counts().compiles, 1);  // not found in the first runtime's cache
    EXPECT_EQ(other_client.counts().executes, 1);
  }
  EXPECT_EQ(counts().compiles, 1);  // nothing of the inner runtime's reached this client
  EXPECT_EQ(counts().executes, 1);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2.0f, 3.0f}));
}

TEST_F(RuntimeFakeClientTest, EagerModeIsTheRuntimesAndCompilesEachOpOnce) {
  EXPECT_FALSE(is_eager());  // a new runtime starts lazy, whatever SEAM_EAGER says
  set_eager(true);
  Tensor x = Tensor::from_vector({1.0f, -2.0f}, {2});
  Tensor y = (x * 3.0f).relu();
  // Each op ran at once, one program each (the scalar's and the zero's broadcasts too).
  const int64_t ops = counts().executes;
  EXPECT_GE(ops, 2);
  EXPECT_EQ(counts().compiles, ops);
  Tensor z = (x * 3.0f).relu();  // the same ops again: found by op key, nothing compiled
  EXPECT_EQ(counts().executes, 2 * ops);
  EXPECT_EQ(counts().compiles, ops);
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{3.0f, 0.0f}));
  EXPECT_TRUE(runtime_.ran_eagerly());
  {
    fake::FakeClient other_client;
    lazy::Runtime other(&other_client);
    lazy::ScopedRuntime scoped(other);
    EXPECT_FALSE(is_eager());
  }
  EXPECT_TRUE(is_eager());
}

TEST_F(RuntimeFakeClientTest, CompiledStepReplaysWithoutCompiling) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f}, {2});
  CompiledStep step =
      compile([&](const std::vector<Tensor>& in) { return std::vector<Tensor>{in[0] * w + 1.0f}; });
  Tensor x = Tensor::from_vector({3.0f, 4.0f}, {2});
  std::vector<float> last;
  for (int i = 0; i < 4; ++i) {
    x = step({x})[0];
    last = x.to_vector<float>();
  }
  // 3 -> 4 -> 5 -> 6 -> 7 and 4 -> 9 -> 19 -> 39 -> 79
  EXPECT_EQ(last, (std::vector<float>{7.0f, 79.0f}));
  EXPECT_EQ(counts().compiles, 1);
  EXPECT_EQ(counts().executes, 4);
  EXPECT_GE(step.replayed_calls(), 2);
}

TEST_F(RuntimeFakeClientTest, ReplicatedStepRunsOnceOverTheFakeDevices) {
  DataParallel dp(2);
  Tensor x = dp.shard(std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f}, {4});
  Tensor total = dp.mean(x.sum());  // (1+2 + 3+4) / 2 on both replicas
  sync();
  EXPECT_EQ(counts().executes_replicated, 1);
  EXPECT_EQ(counts().executes, 0);
  EXPECT_EQ(dp.gather<float>(total), (std::vector<std::vector<float>>{{5.0f}, {5.0f}}));
}

TEST_F(RuntimeFakeClientTest, StepRunnerUploadsAndReadsThroughTheRuntimesClient) {
  const std::vector<float> host = {1.5f, -2.5f};
  ir::Shape shape{ir::DType::kF32, {2}};
  absl::StatusOr<lazy::NodePtr> leaf = lazy::UploadedLeaf(runtime_, shape, host.data());
  ASSERT_TRUE(leaf.ok()) << leaf.status();
  EXPECT_EQ(counts().transfers_to, 1);
  absl::StatusOr<ir::Literal> read = lazy::ReadValue(runtime_, *(*leaf)->value, "test read");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->bytes, ir::Literal::FromF32(host, {2}).bytes);
  EXPECT_EQ(counts().transfers_from, 1);
  EXPECT_EQ(counts().compiles, 0);
}

}  // namespace
}  // namespace seam
