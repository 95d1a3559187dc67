// ExecuteComputation returns before the device has finished: observed with the CPU
// plugin's execution hold, which keeps queued runs from starting until it is released.
#include <gtest/gtest.h>

#include "seam/metrics.h"
#include "seam/tensor.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

constexpr char kProgram[] = R"(program @scale {
  %0 = parameter(0) : f32[2,2]
  %1 = parameter(1) : f32[2,2]
  %2 = multiply(%0, %1) : f32[2,2]
  %3 = add(%2, %0) : f32[2,2]
  return (%3)
}
)";

TEST(AsyncExecuteTest, ExecuteReturnsBeforeTheOutputIsReady) {
  ComputationClient* client = *GetComputationClient();
  std::string device = client->GetDefaultDevice();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(kProgram);
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = client->Compile({{*program, device}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();

  ir::Literal a = ir::Literal::FromF32({1, 2, 3, 4}, {2, 2});
  ir::Literal b = ir::Literal::FromF32({10, 20, 30, 40}, {2, 2});
  auto inputs = client->TransferToDevice(
      {{a.shape, a.bytes.data(), device}, {b.shape, b.bytes.data(), device}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();

  std::vector<ComputationClient::DataPtr> outputs;
  {
    cpu::testing::ExecutionHold hold;
    auto result = client->ExecuteComputation(*compiled->front(), *inputs, device, {});
    ASSERT_TRUE(result.ok()) << result.status();
    outputs = *result;
    ASSERT_EQ(outputs.size(), 1u);
    // The call has returned, yet the run cannot have started: the output is pending and
    // its execute timer has not been recorded (it stops when the device finishes).
    EXPECT_FALSE(outputs[0]->IsReady());
    EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 0);
  }
  auto host = client->TransferFromDevice(outputs);  // blocks until the run is done
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(outputs[0]->IsReady());
  const float* values = host->front().f32();
  EXPECT_EQ(std::vector<float>(values, values + 4), (std::vector<float>{11, 42, 93, 164}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
}

TEST(AsyncExecuteTest, AwaitReadyBlocksUntilTheRunIsDone) {
  ComputationClient* client = *GetComputationClient();
  std::string device = client->GetDefaultDevice();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(kProgram);
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = client->Compile({{*program, device}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ir::Literal a = ir::Literal::FromF32({1, 2, 3, 4}, {2, 2});
  auto inputs = client->TransferToDevice(
      {{a.shape, a.bytes.data(), device}, {a.shape, a.bytes.data(), device}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  std::vector<ComputationClient::DataPtr> outputs;
  {
    cpu::testing::ExecutionHold hold;
    auto result = client->ExecuteComputation(*compiled->front(), *inputs, device, {});
    ASSERT_TRUE(result.ok()) << result.status();
    outputs = *result;
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_FALSE(outputs[0]->IsReady());
  }
  absl::Status status = outputs[0]->AwaitReady();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE(outputs[0]->IsReady());  // no transfer in between: the await itself waited
}

TEST(AsyncExecuteTest, SyncDoesNotWaitForTheDevice) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  Tensor y = x * x + x;
  {
    cpu::testing::ExecutionHold hold;
    sync();  // returns while the run is held
    EXPECT_FALSE(y.has_pending_ops());
    EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 0);
  }
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 6, 12}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
}

}  // namespace
}  // namespace seam::runtime
