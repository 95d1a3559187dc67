// Replicated execution on four in-process CPU devices: all_reduce among the replicas of
// each group, through ComputationClient::ExecuteReplicated.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "seam/metrics.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"

namespace seam::runtime {
namespace {

using DataPtr = ComputationClient::DataPtr;

class ReplicatedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto client =
        PjrtComputationClient::Create(cpu::GetCpuPjrtApi(), {{"cpu_device_count", int64_t{4}}});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    devices_ = client_->GetLocalDevices();
    ASSERT_EQ(devices_.size(), 4u);
  }

  // Replica d's argument is {d+1, 10*(d+1)}; returns every replica's first output.
  absl::StatusOr<std::vector<std::vector<float>>> Run(const std::string& text) {
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    if (!program.ok()) return program.status();
    auto compiled = client_->Compile({{*program, devices_[0]}});
    if (!compiled.ok()) return compiled.status();
    std::vector<std::vector<DataPtr>> arguments;
    for (int d = 0; d < 4; ++d) {
      ir::Literal value = ir::Literal::FromF32({d + 1.0f, 10.0f * (d + 1)}, {2});
      auto data = client_->TransferToDevice({{value.shape, value.bytes.data(), devices_[d]}});
      if (!data.ok()) return data.status();
      arguments.push_back(*data);
    }
    auto outputs = client_->ExecuteReplicated(*compiled->front(), arguments, devices_);
    if (!outputs.ok()) return outputs.status();
    std::vector<std::vector<float>> values;
    for (const std::vector<DataPtr>& replica : *outputs) {
      auto host = client_->TransferFromDevice({replica.front()});
      if (!host.ok()) return host.status();
      const float* f = host->front().f32();
      values.emplace_back(f, f + 2);
    }
    return values;
  }

  std::unique_ptr<PjrtComputationClient> client_;
  std::vector<std::string> devices_;
};

std::string AllReduce(const std::string& op, const std::string& groups, int group_size) {
  return "program @ar replicas=4 {\n  %x = parameter(0) : f32[2]\n  %r = all_reduce_" + op +
         "(%x), group_size={" + std::to_string(group_size) + "}, replica_groups={" + groups +
         "} : f32[2]\n  return (%r)\n}\n";
}

TEST_F(ReplicatedTest, SumOverAllFourDevices) {
  auto values = Run(AllReduce("sum", "0,1,2,3", 4));
  ASSERT_TRUE(values.ok()) << values.status();
  for (const auto& v : *values) EXPECT_EQ(v, (std::vector<float>{10, 100}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteReplicatedTime"), 1);
}

TEST_F(ReplicatedTest, GroupsReduceWithinThemselves) {
  auto values = Run(AllReduce("sum", "0,1,2,3", 2));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ((*values)[0], (std::vector<float>{3, 30}));
  EXPECT_EQ((*values)[1], (std::vector<float>{3, 30}));
  EXPECT_EQ((*values)[2], (std::vector<float>{7, 70}));
  EXPECT_EQ((*values)[3], (std::vector<float>{7, 70}));
  values = Run(AllReduce("sum", "0,2,1,3", 2));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ((*values)[0], (std::vector<float>{4, 40}));
  EXPECT_EQ((*values)[1], (std::vector<float>{6, 60}));
}

TEST_F(ReplicatedTest, MaxAndMin) {
  auto values = Run(AllReduce("max", "0,1,2,3", 4));
  ASSERT_TRUE(values.ok()) << values.status();
  for (const auto& v : *values) EXPECT_EQ(v, (std::vector<float>{4, 40}));
  values = Run(AllReduce("min", "0,1,2,3", 2));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ((*values)[1], (std::vector<float>{1, 10}));
  EXPECT_EQ((*values)[3], (std::vector<float>{3, 30}));
}

TEST_F(ReplicatedTest, TwoAllReducesInARow) {
  auto values =
      Run("program @twice replicas=4 {\n  %x = parameter(0) : f32[2]\n"
          "  %a = all_reduce_sum(%x), group_size={2}, replica_groups={0,1,2,3} : f32[2]\n"
          "  %b = all_reduce_max(%a), group_size={4}, replica_groups={0,1,2,3} : f32[2]\n"
          "  %c = add(%a, %b) : f32[2]\n  return (%c)\n}\n");
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_EQ((*values)[0], (std::vector<float>{10, 100}));
  EXPECT_EQ((*values)[3], (std::vector<float>{14, 140}));
}

TEST_F(ReplicatedTest, ReplicaCountMustEqualTheDevices) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(
      "program @two replicas=2 {\n  %x = parameter(0) : f32[2]\n"
      "  %r = all_reduce_sum(%x), group_size={2}, replica_groups={0,1} : f32[2]\n"
      "  return (%r)\n}\n");
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = client_->Compile({{*program, devices_[0]}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ir::Literal value = ir::Literal::FromF32({1, 2}, {2});
  auto data = client_->TransferToDevice({{value.shape, value.bytes.data(), devices_[0]}});
  ASSERT_TRUE(data.ok());
  auto outputs = client_->ExecuteComputation(*compiled->front(), *data, devices_[0], {});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "PJRT_LoadedExecutable_Execute: the program has replicas=2, the call runs on 1 "
            "device(s) (num_devices must equal the replica count)");
}

// A replica that fails before its all_reduce releases the others with its error: every
// replica's output reports an error, and nothing waits forever.
TEST_F(ReplicatedTest, AFailingReplicaReleasesTheOthers) {
  cpu::testing::RunFailure failure(2, absl::InternalError("injected"));
  auto values = Run(AllReduce("sum", "0,1,2,3", 4));
  ASSERT_FALSE(values.ok());
  EXPECT_TRUE(absl::StrContains(values.status().message(),
                                "%1 (all_reduce_sum): the launch was aborted: replica 2 "
                                "failed: injected"))
      << values.status();
}

// Groups other than the failing replica's finish normally.
TEST_F(ReplicatedTest, AFailureStaysInsideItsGroups) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(AllReduce("sum", "0,1,2,3", 2));
  ASSERT_TRUE(program.ok());
  auto compiled = client_->Compile({{*program, devices_[0]}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<std::vector<DataPtr>> arguments;
  for (int d = 0; d < 4; ++d) {
    ir::Literal value = ir::Literal::FromF32({1, 2}, {2});
    auto data = client_->TransferToDevice({{value.shape, value.bytes.data(), devices_[d]}});
    ASSERT_TRUE(data.ok());
    arguments.push_back(*data);
  }
  std::vector<std::vector<DataPtr>> outputs;
  {
    cpu::testing::RunFailure failure(3, absl::InternalError("injected"));
    auto result = client_->ExecuteReplicated(*compiled->front(), arguments, devices_);
    ASSERT_TRUE(result.ok()) << result.status();
    outputs = *result;
    for (const auto& replica : outputs) {
      while (!replica.front()->IsReady()) std::this_thread::yield();
    }
  }
  for (int d = 0; d < 2; ++d) {
    auto host = client_->TransferFromDevice({outputs[d].front()});
    ASSERT_TRUE(host.ok()) << host.status();
    EXPECT_EQ(std::vector<float>(host->front().f32(), host->front().f32() + 2),
              (std::vector<float>{2, 4}));
  }
  auto failed = client_->TransferFromDevice({outputs[2].front()});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "replica 3 failed: injected"))
      << failed.status();
  failed = client_->TransferFromDevice({outputs[3].front()});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(absl::StrContains(failed.status().message(), "injected")) << failed.status();
}

TEST_F(ReplicatedTest, RefusesUnevenArgumentLists) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(AllReduce("sum", "0,1,2,3", 4));
  ASSERT_TRUE(program.ok());
  auto compiled = client_->Compile({{*program, devices_[0]}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<std::vector<DataPtr>> arguments;
  for (int d = 0; d < 4; ++d) {
    ir::Literal value = ir::Literal::FromF32({1, 2}, {2});
    auto data = client_->TransferToDevice({{value.shape, value.bytes.data(), devices_[d]}});
    ASSERT_TRUE(data.ok());
    arguments.push_back(*data);
  }
  arguments[2].clear();
  auto outputs = client_->ExecuteReplicated(*compiled->front(), arguments, devices_);
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().message(),
            "ExecuteReplicated: device 2 has 0 arguments, device 0 has 1");
}

}  // namespace
}  // namespace seam::runtime
