// The conformance suite against the CPU plugin, in-process and loaded by path, and against
// a plugin that breaks the contract (the suite must notice).
#include "tests/conformance/suite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/runtime/pjrt_api.h"

namespace seam::conformance {
namespace {

void ExpectAllPass(const std::vector<CheckResult>& results) {
  EXPECT_GE(results.size(), 50u);
  for (const CheckResult& r : results) {
    EXPECT_EQ(r.outcome, Outcome::kPass) << r.area << ": " << r.name << ": " << r.message;
  }
  EXPECT_TRUE(AllRequiredPassed(results));
}

TEST(ConformanceSuiteTest, InProcessCpuPluginPassesEveryCheck) {
  ExpectAllPass(RunSuite(runtime::GetInProcessCpuPjrtApi()));
}

TEST(ConformanceSuiteTest, CpuPluginLoadedByPathPassesEveryCheck) {
  absl::StatusOr<const PJRT_Api*> api = runtime::LoadPjrtPlugin("cpu_so", SEAM_CPU_PLUGIN_PATH);
  ASSERT_TRUE(api.ok()) << api.status();
  ASSERT_TRUE(runtime::InitializePjrtPlugin("cpu_so").ok());
  ExpectAllPass(RunSuite(*api));
}

TEST(ConformanceSuiteTest, ContractBreachesAreReportedByName) {
  absl::StatusOr<const PJRT_Api*> api = runtime::LoadPjrtPlugin("lax", SEAM_LAX_PLUGIN_PATH);
  ASSERT_TRUE(api.ok()) << api.status();
  ASSERT_TRUE(runtime::InitializePjrtPlugin("lax").ok());
  std::vector<CheckResult> results = RunSuite(*api);
  EXPECT_FALSE(AllRequiredPassed(results));
  std::vector<std::string> failed;
  for (const CheckResult& r : results) {
    if (r.outcome != Outcome::kPass) failed.push_back(r.area + ": " + r.name + ": " + r.message);
  }
  // The lax plugin skips the size check of PJRT_Client_PlatformName and leaves the
  // PJRT_Buffer_OnDeviceSizeInBytes slot empty; nothing else is wrong with it.
  EXPECT_THAT(
      failed,
      ::testing::UnorderedElementsAre(
          ::testing::StartsWith("api: no null slots: null: slot at byte "),
          ::testing::StartsWith("struct size: PJRT_Client_PlatformName: message "
                                "'PJRT_Client_PlatformName: args->client is null', expected "
                                "'Unexpected PJRT_Client_PlatformName_Args size: expected "),
          ::testing::StartsWith("struct size: PJRT_Buffer_OnDeviceSizeInBytes: code INTERNAL"),
          ::testing::StartsWith("buffers: on-device size: PJRT_Buffer_OnDeviceSizeInBytes is a "
                                "null slot")));
  std::string report = FormatResults(results);
  EXPECT_THAT(report, ::testing::HasSubstr("\nFAIL  struct size: PJRT_Client_PlatformName: "));
  EXPECT_THAT(report, ::testing::EndsWith(" pass, 4 fail, 0 unimplemented (optional)\n"));
}

}  // namespace
}  // namespace seam::conformance
