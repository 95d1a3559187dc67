// The conformance suite against the CPU plugin, in-process and loaded by path, against the
// null plugin (every contract check passes, every capability is listed as not
// implemented), and against plugins that break the contract or answer wrongly (the suite
// must notice).
#include "src/conformance/suite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
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

const PJRT_Api* LoadAndInitialize(const std::string& type, const char* path) {
  absl::StatusOr<const PJRT_Api*> api = runtime::LoadPjrtPlugin(type, path);
  EXPECT_TRUE(api.ok()) << api.status();
  if (!api.ok()) return nullptr;
  absl::Status initialized = runtime::InitializePjrtPlugin(type);
  EXPECT_TRUE(initialized.ok()) << initialized;
  return initialized.ok() ? *api : nullptr;
}

TEST(ConformanceSuiteTest, NullPluginPassesTheContractAndListsEachCapabilityAsNotImplemented) {
  const PJRT_Api* api = LoadAndInitialize("null", SEAM_NULL_PLUGIN_PATH);
  ASSERT_NE(api, nullptr);
  std::vector<CheckResult> results = RunSuite(api);
  EXPECT_TRUE(AllRequiredPassed(results));
  int contract = 0, capabilities = 0;
  for (const CheckResult& r : results) {
    if (r.section == Section::kContract) {
      ++contract;
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.area << ": " << r.name << ": " << r.message;
    } else {
      ++capabilities;
      EXPECT_EQ(r.outcome, Outcome::kUnimplemented) << r.area << ": " << r.name;
      EXPECT_THAT(r.message, ::testing::EndsWith(" is not implemented by this plugin"));
    }
  }
  EXPECT_GE(contract, 45);
  EXPECT_GE(capabilities, 10);
  std::string report = FormatResults(results);
  EXPECT_THAT(report, ::testing::StartsWith("contract checks (every plugin must pass these)\n"));
  EXPECT_THAT(report,
              ::testing::HasSubstr("\nNOT IMPLEMENTED  compile: an unknown program format: "
                                   "PJRT_Client_Compile is not implemented by this plugin\n"));
  EXPECT_THAT(report, ::testing::HasSubstr(
                          "\nNOT IMPLEMENTED  buffers: round trip F32: scalar, 0-sized, [3,5]: "
                          "PJRT_Client_BufferFromHostBuffer is not implemented by this plugin\n"));
  EXPECT_THAT(report, ::testing::EndsWith(absl::StrCat(" pass, 0 fail, ", capabilities,
                                                       " unimplemented (optional)\n")));
}

TEST(ConformanceSuiteTest, NullPluginListsTheOpChecksAsNotImplemented) {
  const PJRT_Api* api = LoadAndInitialize("null", SEAM_NULL_PLUGIN_PATH);
  ASSERT_NE(api, nullptr);
  std::vector<CheckResult> results = RunSuite(api, SuiteOptions{.ops = true});
  EXPECT_TRUE(AllRequiredPassed(results));
  int ops = 0;
  for (const CheckResult& r : results) {
    if (r.area != "ops") continue;
    ++ops;
    EXPECT_EQ(r.section, Section::kCapability);
    EXPECT_EQ(r.outcome, Outcome::kUnimplemented) << r.name << ": " << r.message;
  }
  EXPECT_GT(ops, 30);
}

// UNIMPLEMENTED is not a pass for a contract check.
TEST(ConformanceSuiteTest, AContractCheckAnsweredUnimplementedFails) {
  PJRT_Api api = *runtime::GetInProcessCpuPjrtApi();
  api.PJRT_Client_LookupDevice = [](PJRT_Client_LookupDevice_Args*) {
    return plugin::UnimplementedError("PJRT_Client_LookupDevice");
  };
  std::vector<CheckResult> results = RunSuite(&api);
  EXPECT_FALSE(AllRequiredPassed(results));
  bool found = false;
  for (const CheckResult& r : results) {
    if (r.area == "client" && r.name == "lookup by id finds each device") {
      found = true;
      EXPECT_EQ(r.outcome, Outcome::kFail) << r.message;
    }
  }
  EXPECT_TRUE(found);
}

// A capability that answers, but wrongly, fails the run.
TEST(ConformanceSuiteTest, AWrongAnswerOfACapabilityFails) {
  const PJRT_Api* api = LoadAndInitialize("wrong_size", SEAM_WRONG_SIZE_PLUGIN_PATH);
  ASSERT_NE(api, nullptr);
  std::vector<CheckResult> results = RunSuite(api);
  EXPECT_FALSE(AllRequiredPassed(results));
  std::vector<std::string> failed;
  for (const CheckResult& r : results) {
    if (r.outcome != Outcome::kPass) failed.push_back(r.area + ": " + r.name + ": " + r.message);
  }
  EXPECT_THAT(failed, ::testing::ElementsAre("buffers: on-device size: f32[3,5] reports 1 bytes"));
}

// A plugin of minor 2 (its table ends before PJRT_Device_MemoryStats, and its extension
// chain is not read) passes every check it can; the memory checks and the profiler's are
// listed as not implemented with the reason, and the slot behind its table's end (null
// there) is never called.
TEST(ConformanceSuiteTest, AMinor2PluginSkipsTheMemoryChecksWithTheReason) {
  const PJRT_Api* api = LoadAndInitialize("previous", SEAM_MINOR_1_2_PLUGIN_PATH);
  ASSERT_NE(api, nullptr);
  std::vector<CheckResult> results = RunSuite(api);
  EXPECT_TRUE(AllRequiredPassed(results));
  int memory = 0;
  int transfers = 0;
  for (const CheckResult& r : results) {
    if (r.area == "transfers") {  // ABI 1.5: not called either
      ++transfers;
      EXPECT_EQ(r.outcome, Outcome::kUnimplemented) << r.name << ": " << r.message;
      EXPECT_EQ(r.message, absl::StrCat("the plugin reports version ", PJRT_API_MAJOR, ".", 2,
                                        " and a ", PJRT_Api_STRUCT_SIZE_1_2,
                                        "-byte table; PJRT_Buffer_CopyRawToHost and the transfer "
                                        "manager are functions of ",
                                        PJRT_API_MAJOR, ".5 (not called)"));
      continue;
    }
    if (r.area == "profiler") {
      EXPECT_EQ(r.outcome, Outcome::kUnimplemented) << r.name << ": " << r.message;
      continue;
    }
    if (r.area != "memory") {
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.area << ": " << r.name << ": " << r.message;
      EXPECT_NE(r.name, "PJRT_Device_MemoryStats");
      continue;
    }
    ++memory;
    EXPECT_EQ(r.outcome, Outcome::kUnimplemented) << r.name;
    EXPECT_EQ(r.message, absl::StrCat("the plugin reports version ", PJRT_API_MAJOR, ".", 2,
                                      " and a ", PJRT_Api_STRUCT_SIZE_1_2,
                                      "-byte table; PJRT_Device_MemoryStats is a function of ",
                                      PJRT_API_MAJOR, ".3 (not called)"));
  }
  EXPECT_EQ(memory, 2);
  EXPECT_EQ(transfers, 3);
}

TEST(ConformanceSuiteTest, CpuPluginPassesTheMemoryChecks) {
  std::vector<CheckResult> results = RunSuite(runtime::GetInProcessCpuPjrtApi());
  std::vector<std::string> memory;
  for (const CheckResult& r : results) {
    if (r.area == "memory" || r.name == "PJRT_Device_MemoryStats") {
      memory.push_back(r.area + ": " + r.name);
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.name << ": " << r.message;
    }
  }
  EXPECT_THAT(memory,
              ::testing::ElementsAre(
                  "struct size: PJRT_Device_MemoryStats",
                  "memory: every device answers with consistent figures",
                  "memory: bytes in use grows with a buffer and drops when it is destroyed"));
}

TEST(ConformanceSuiteTest, CpuPluginPassesTheTransferChecks) {
  std::vector<CheckResult> results = RunSuite(runtime::GetInProcessCpuPjrtApi());
  std::vector<std::string> transfers;
  for (const CheckResult& r : results) {
    if (r.area != "transfers") continue;
    transfers.push_back(r.name);
    EXPECT_EQ(r.outcome, Outcome::kPass) << r.name << ": " << r.message;
  }
  EXPECT_THAT(transfers,
              ::testing::ElementsAre("a streamed upload reads back what was sent, by ranges",
                                     "pieces and reads outside a buffer are refused",
                                     "a manager destroyed early fails its unfinished buffer"));
}

}  // namespace
}  // namespace seam::conformance
