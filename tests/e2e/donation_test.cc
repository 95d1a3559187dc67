// Buffer donation through the seam: a program with an input/output alias, run by
// ExecuteComputation on the in-process CPU plugin.
#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "seam/metrics.h"
#include "src/ir/text.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

constexpr char kProgram[] = R"(program @update {
  %0 = parameter(0) : f32[4]
  %1 = parameter(1) : f32[4]
  %2 = subtract(%0, %1) : f32[4]
  alias output 0 = parameter 0
  return (%2)
}
)";

TEST(DonationTest, CountsAliasesAndConsumesTheDonatedArgument) {
  ComputationClient* client = *GetComputationClient();
  std::string device = client->GetDefaultDevice();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(kProgram);
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = client->Compile({{*program, device}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();

  ir::Literal w = ir::Literal::FromF32({1, 2, 3, 4}, {4});
  ir::Literal g = ir::Literal::FromF32({0.5f, 0.5f, 0.5f, 0.5f}, {4});
  auto inputs = client->TransferToDevice(
      {{w.shape, w.bytes.data(), device}, {g.shape, g.bytes.data(), device}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  EXPECT_EQ(metrics::CounterValue("InputOutputAliasCount"), 0);

  auto step1 = client->ExecuteComputation(*compiled->front(), *inputs, device, {});
  ASSERT_TRUE(step1.ok()) << step1.status();
  EXPECT_EQ(metrics::CounterValue("InputOutputAliasCount"), 1);
  auto step2 =
      client->ExecuteComputation(*compiled->front(), {step1->front(), (*inputs)[1]}, device, {});
  ASSERT_TRUE(step2.ok()) << step2.status();
  EXPECT_EQ(metrics::CounterValue("InputOutputAliasCount"), 2);

  auto host = client->TransferFromDevice(*step2);
  ASSERT_TRUE(host.ok()) << host.status();
  const float* values = host->front().f32();
  EXPECT_EQ(std::vector<float>(values, values + 4), (std::vector<float>{0, 1, 2, 3}));

  // The donated weights are gone; the undonated gradient is still there.
  auto donated = client->TransferFromDevice({inputs->front()});
  ASSERT_FALSE(donated.ok());
  EXPECT_EQ(donated.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(donated.status().message(), "buffer was donated"))
      << donated.status();
  EXPECT_TRUE(client->TransferFromDevice({(*inputs)[1]}).ok());
}

}  // namespace
}  // namespace seam::runtime
