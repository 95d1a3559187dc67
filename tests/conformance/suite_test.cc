// The conformance suite against seam's CPU plugin (in-process and loaded by path), the null
// plugin, and copies of the CPU plugin's table that break the contract, answer wrongly, hide
// seam IR as a vendor's plugin would, or stop at an older minor's table (the suite must
// notice each, and skip or list what a plugin does not offer).
#include "src/conformance/suite.h"

#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/cpu/api/cpu_plugin.h"

namespace seam::conformance {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Row(const CheckResult& r) { return r.area + ": " + r.name + ": " + r.message; }

std::vector<std::string> NotPassed(const std::vector<CheckResult>& results) {
  std::vector<std::string> rows;
  for (const CheckResult& r : results) {
    if (r.outcome != Outcome::kPass) rows.push_back(Row(r));
  }
  return rows;
}

const CheckResult* Find(const std::vector<CheckResult>& results, const std::string& area,
                        const std::string& name) {
  for (const CheckResult& r : results) {
    if (r.area == area && r.name == name) return &r;
  }
  return nullptr;
}

void ExpectAllPass(const std::vector<CheckResult>& results) {
  EXPECT_GE(results.size(), 100u);
  EXPECT_THAT(NotPassed(results), ::testing::IsEmpty());
  EXPECT_TRUE(AllRequiredPassed(results));
}

// A plugin loaded by path and initialized, as `seam plugin check` does (without the
// framework's loader: the suite needs only the table).
const PJRT_Api* LoadAndInitialize(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(library, nullptr) << dlerror();
  if (library == nullptr) return nullptr;
  auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(library, "GetPjrtApi"));
  EXPECT_NE(get, nullptr);
  const PJRT_Api* api = get == nullptr ? nullptr : get();
  EXPECT_NE(api, nullptr);
  if (api == nullptr) return nullptr;
  PJRT_Plugin_Initialize_Args args{};
  args.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE;
  EXPECT_EQ(api->PJRT_Plugin_Initialize(&args), nullptr);
  return api;
}

const PJRT_Api* Cpu() { return cpu::GetCpuPjrtApi(); }

TEST(ConformanceSuiteTest, InProcessCpuPluginPassesEveryRowOfBothGroups) {
  std::vector<CheckResult> results = RunSuite(Cpu());
  ExpectAllPass(results);
  int upstream = 0, seam = 0;
  for (const CheckResult& r : results) (r.group == Group::kUpstream ? upstream : seam)++;
  EXPECT_GE(upstream, 80);
  EXPECT_GE(seam, 15);
  std::string report = FormatResults(results);
  EXPECT_THAT(report, StartsWith(absl::StrCat(kUpstreamHeading, "\nPASS  api: version\n")));
  EXPECT_THAT(report, HasSubstr(absl::StrCat("\n", kSeamHeading, "\n")));
  EXPECT_THAT(report, HasSubstr("\nPASS  struct size: PJRT_Client_Compile\n"));
  EXPECT_THAT(report, HasSubstr("\nPASS  execute: a donated input is deleted after the run\n"));
  EXPECT_THAT(report, HasSubstr("\nPASS  api: seam_ir_version is the int64 1\n"));
  EXPECT_THAT(report,
              ::testing::EndsWith(" pass, 0 fail, 0 unimplemented (optional), 0 skipped\n"));
}

TEST(ConformanceSuiteTest, CpuPluginLoadedByPathPassesEveryRow) {
  const PJRT_Api* api = LoadAndInitialize(SEAM_CPU_PLUGIN_PATH);
  ASSERT_NE(api, nullptr);
  ExpectAllPass(RunSuite(api));
}

TEST(ConformanceSuiteTest, CpuPluginPassesTheOpChecks) {
  std::vector<CheckResult> results = RunSuite(Cpu(), SuiteOptions{.ops = true});
  int ops = 0;
  for (const CheckResult& r : results) {
    if (r.area != "ops") continue;
    ++ops;
    EXPECT_EQ(r.group, Group::kSeam);
    EXPECT_EQ(r.outcome, Outcome::kPass) << Row(r);
  }
  EXPECT_GT(ops, 30);
}

TEST(ConformanceSuiteTest, NullPluginPassesTheRequiredRowsAndListsOrSkipsTheRest) {
  const PJRT_Api* api = LoadAndInitialize(SEAM_NULL_PLUGIN_PATH);
  ASSERT_NE(api, nullptr);
  std::vector<CheckResult> results = RunSuite(api, SuiteOptions{.ops = true});
  EXPECT_TRUE(AllRequiredPassed(results)) << ::testing::PrintToString(NotPassed(results));
  int unimplemented = 0;
  for (const CheckResult& r : results) {
    if (r.required) {
      EXPECT_NE(r.outcome, Outcome::kFail) << Row(r);
      continue;
    }
    if (r.outcome == Outcome::kUnimplemented) {
      ++unimplemented;
      EXPECT_THAT(r.message, ::testing::AnyOf(HasSubstr(" is not implemented by "),
                                              HasSubstr(" is not provided by this plugin")))
          << Row(r);
    }
  }
  EXPECT_GE(unimplemented, 10);
  const CheckResult* ops = Find(results, "ops", "add matches the reference on every dtype");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->outcome, Outcome::kSkipped);
  std::string report = FormatResults(results);
  EXPECT_THAT(report, HasSubstr("\nNOT IMPLEMENTED  buffers: round trip F32: scalar, 0-sized, "
                                "[3,5]: PJRT_Client_BufferFromHostBuffer is not implemented by "));
  EXPECT_THAT(report, HasSubstr("\nSKIP  ops: add matches the reference on every dtype: the "
                                "plugin does not announce seam_ir_version"));
}

// ---- Copies of the CPU plugin's table, changed one way each.

const PJRT_NamedValue* g_attributes = nullptr;
size_t g_num_attributes = 0;

PJRT_Error* ReplacedAttributes(PJRT_Plugin_Attributes_Args* args) {
  // The CPU plugin's answer to a too-small struct (its size check).
  if (args->struct_size < PJRT_Plugin_Attributes_Args_STRUCT_SIZE) {
    return Cpu()->PJRT_Plugin_Attributes(args);
  }
  args->attributes = g_attributes;
  args->num_attributes = g_num_attributes;
  return nullptr;
}

// The CPU plugin's attributes without `drop`, plus `extra`.
std::vector<PJRT_NamedValue> AttributesWithout(const std::set<std::string>& drop,
                                               const std::vector<PJRT_NamedValue>& extra = {}) {
  PJRT_Plugin_Attributes_Args args{};
  args.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
  EXPECT_EQ(Cpu()->PJRT_Plugin_Attributes(&args), nullptr);
  std::vector<PJRT_NamedValue> kept;
  for (size_t i = 0; i < args.num_attributes; ++i) {
    if (drop.count(std::string(args.attributes[i].name, args.attributes[i].name_size)) == 0) {
      kept.push_back(args.attributes[i]);
    }
  }
  kept.insert(kept.end(), extra.begin(), extra.end());
  return kept;
}

// A vendor's plugin as the suite sees it: it announces neither seam_ir_version nor the
// StableHLO versions. Every row that needs seam IR is skipped with the reason, and so are
// the executions (the suite has no program format it can write for it); everything else
// passes.
TEST(ConformanceSuiteTest, APluginWithoutSeamIrHasItsSeamIrRowsSkippedWithTheReason) {
  std::vector<PJRT_NamedValue> attributes = AttributesWithout(
      {"seam_ir_version", "stablehlo_current_version", "stablehlo_minimum_version"});
  g_attributes = attributes.data();
  g_num_attributes = attributes.size();
  PJRT_Api api = *Cpu();
  api.PJRT_Plugin_Attributes = ReplacedAttributes;
  std::vector<CheckResult> results = RunSuite(&api, SuiteOptions{.ops = true});
  EXPECT_TRUE(AllRequiredPassed(results));
  std::vector<std::string> skipped;
  for (const CheckResult& r : results) {
    if (r.outcome == Outcome::kSkipped) {
      skipped.push_back(r.area + ": " + r.name);
      EXPECT_THAT(r.message, ::testing::AnyOf(StartsWith("the plugin does not announce "
                                                         "seam_ir_version"),
                                              StartsWith("the plugin announces neither "
                                                         "seam_ir_version nor "
                                                         "stablehlo_current_version")))
          << Row(r);
    } else {
      EXPECT_EQ(r.outcome, Outcome::kPass) << Row(r);
    }
  }
  EXPECT_THAT(skipped,
              ::testing::IsSupersetOf({"api: seam_ir_version is the int64 1",
                                       "execute: compile, run and read back",
                                       "execute: a donated input is deleted after the run",
                                       "compile: a malformed seam IR program is INVALID_ARGUMENT",
                                       "profiler: SEAM_Profiler: events of a compile and a run",
                                       "ops: add matches the reference on every dtype"}));
  // The rows that need no program still ran.
  const CheckResult* format = Find(results, "compile", "an unknown program format is refused");
  ASSERT_NE(format, nullptr);
  EXPECT_EQ(format->outcome, Outcome::kPass);
  EXPECT_THAT(FormatResults(results),
              HasSubstr("\nSKIP  compile: a malformed seam IR program is INVALID_ARGUMENT: the "
                        "plugin does not announce seam_ir_version (attribute), so it is not "
                        "asked to compile seam IR\n"));
}

TEST(ConformanceSuiteTest, StableHloVersionsMustBeThreeInt64) {
  static const int64_t kTwo[] = {1, 7};
  PJRT_NamedValue current{};
  current.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  current.name = "stablehlo_current_version";
  current.name_size = 25;
  current.type = PJRT_NamedValue_kInt64List;
  current.int64_array_value = kTwo;
  current.value_size = 2;
  PJRT_NamedValue minimum = current;
  minimum.name = "stablehlo_minimum_version";
  std::vector<PJRT_NamedValue> attributes = AttributesWithout(
      {"stablehlo_current_version", "stablehlo_minimum_version"}, {current, minimum});
  g_attributes = attributes.data();
  g_num_attributes = attributes.size();
  PJRT_Api api = *Cpu();
  api.PJRT_Plugin_Attributes = ReplacedAttributes;
  std::vector<CheckResult> results = RunSuite(&api);
  const CheckResult* row = Find(results, "api",
                                "stablehlo_current_version and stablehlo_minimum_version, when "
                                "present, are 3 int64");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->outcome, Outcome::kFail);
  EXPECT_EQ(row->message,
            "attribute 'stablehlo_current_version' is not a list of 3 int64 (type 2, 2 entries)");
}

// A plugin that announces StableHLO (and not seam IR) is asked to compile the doubling
// program as MLIR text (format "mlir"); the CPU plugin reads it (src/stablehlo/read.h), so
// the runs pass.
TEST(ConformanceSuiteTest, APluginAnnouncingStableHloIsGivenMlir) {
  static const int64_t kVersion[] = {1, 8, 0};
  PJRT_NamedValue current{};
  current.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  current.name = "stablehlo_current_version";
  current.name_size = 25;
  current.type = PJRT_NamedValue_kInt64List;
  current.int64_array_value = kVersion;
  current.value_size = 3;
  PJRT_NamedValue minimum = current;
  minimum.name = "stablehlo_minimum_version";
  std::vector<PJRT_NamedValue> attributes = AttributesWithout(
      {"seam_ir_version", "stablehlo_current_version", "stablehlo_minimum_version"},
      {current, minimum});
  g_attributes = attributes.data();
  g_num_attributes = attributes.size();
  PJRT_Api api = *Cpu();
  api.PJRT_Plugin_Attributes = ReplacedAttributes;
  std::vector<CheckResult> results = RunSuite(&api);
  const CheckResult* versions = Find(results, "api",
                                     "stablehlo_current_version and stablehlo_minimum_version, "
                                     "when present, are 3 int64");
  ASSERT_NE(versions, nullptr);
  EXPECT_EQ(versions->outcome, Outcome::kPass) << versions->message;
  const CheckResult* run = Find(results, "execute", "compile, run and read back");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->outcome, Outcome::kPass) << run->message;
  const CheckResult* malformed =
      Find(results, "compile", "a malformed seam IR program is INVALID_ARGUMENT");
  ASSERT_NE(malformed, nullptr);
  EXPECT_EQ(malformed->outcome, Outcome::kSkipped);
}

PJRT_Error* LaxPlatformName(PJRT_Client_PlatformName_Args* args) {
  PJRT_Client_PlatformName_Args copy = *args;  // skips the size check
  copy.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE;
  PJRT_Error* error = Cpu()->PJRT_Client_PlatformName(&copy);
  args->platform_name = copy.platform_name;
  args->platform_name_size = copy.platform_name_size;
  return error;
}

TEST(ConformanceSuiteTest, ContractBreachesAreReportedByName) {
  PJRT_Api api = *Cpu();
  api.PJRT_Client_PlatformName = LaxPlatformName;
  api.PJRT_Buffer_OnDeviceSizeInBytes = nullptr;
  std::vector<CheckResult> results = RunSuite(&api);
  EXPECT_FALSE(AllRequiredPassed(results));
  EXPECT_THAT(
      NotPassed(results),
      ::testing::UnorderedElementsAre(
          "api: no null slots up to the table's struct_size: null: "
          "PJRT_Buffer_OnDeviceSizeInBytes (a function a plugin does not serve returns "
          "UNIMPLEMENTED)",
          StartsWith("struct size: PJRT_Client_PlatformName: message "
                     "'PJRT_Client_PlatformName: args->client is null', expected 'Unexpected "
                     "PJRT_Client_PlatformName_Args size: expected 40, got 16. Check installed "
                     "software versions. The framework PJRT API version is <major>.<minor>.'"),
          "struct size: PJRT_Buffer_OnDeviceSizeInBytes: PJRT_Buffer_OnDeviceSizeInBytes is a "
          "null slot",
          "buffers: on-device size: PJRT_Buffer_OnDeviceSizeInBytes is a null slot (it must "
          "return UNIMPLEMENTED)"));
  std::string report = FormatResults(results);
  EXPECT_THAT(report, HasSubstr("\nFAIL  struct size: PJRT_Client_PlatformName: "));
  EXPECT_THAT(report,
              ::testing::EndsWith(" pass, 4 fail, 0 unimplemented (optional), 0 skipped\n"));
}

PJRT_Error* UnimplementedLookup(PJRT_Client_LookupDevice_Args*) {
  // An error made by the plugin itself: its own PJRT_Error type.
  PJRT_Client_LookupDevice_Args args{};
  args.struct_size = 1;  // refused: an error object of the CPU plugin's kind
  PJRT_Error* error = Cpu()->PJRT_Client_LookupDevice(&args);
  return error;
}

// UNIMPLEMENTED (here: any error) is not a pass for a required row.
TEST(ConformanceSuiteTest, ARequiredRowAnsweredWithAnErrorFails) {
  PJRT_Api api = *Cpu();
  api.PJRT_Client_LookupDevice = UnimplementedLookup;
  std::vector<CheckResult> results = RunSuite(&api);
  EXPECT_FALSE(AllRequiredPassed(results));
  const CheckResult* row = Find(results, "client", "lookup by id finds each device");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->outcome, Outcome::kFail) << row->message;
}

PJRT_Error* OneByte(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  PJRT_Error* error = Cpu()->PJRT_Buffer_OnDeviceSizeInBytes(args);
  if (error == nullptr) args->on_device_size_in_bytes = 1;
  return error;
}

// A capability that answers, but wrongly, fails the run.
TEST(ConformanceSuiteTest, AWrongAnswerOfAnOptionalRowFails) {
  PJRT_Api api = *Cpu();
  api.PJRT_Buffer_OnDeviceSizeInBytes = OneByte;
  std::vector<CheckResult> results = RunSuite(&api);
  EXPECT_FALSE(AllRequiredPassed(results));
  EXPECT_THAT(NotPassed(results),
              ::testing::ElementsAre("buffers: on-device size: f32[3,5] reports 1 bytes"));
}

PJRT_Error* Untouchable(PJRT_Buffer_CopyRawToHost_Args*) {
  ADD_FAILURE() << "a slot past the table's struct_size was called";
  std::abort();
}

// A plugin of an older minor whose table ends before PJRT_Buffer_CopyRawToHost: the rows of
// the functions it lacks are listed as not implemented, naming its version, and no slot
// past its table is called.
TEST(ConformanceSuiteTest, AnOlderTableHasTheRowsItLacksListedAsNotProvided) {
  PJRT_Api api = *Cpu();
  api.pjrt_api_version.minor_version = 60;
  api.struct_size = offsetof(PJRT_Api, PJRT_Buffer_CopyRawToHost);
  api.PJRT_Buffer_CopyRawToHost = Untouchable;
  std::vector<CheckResult> results = RunSuite(&api);
  EXPECT_TRUE(AllRequiredPassed(results)) << ::testing::PrintToString(NotPassed(results));
  std::vector<std::string> not_provided;
  for (const CheckResult& r : results) {
    if (r.outcome == Outcome::kPass) continue;
    EXPECT_EQ(r.outcome, Outcome::kUnimplemented) << Row(r);
    EXPECT_THAT(r.message, HasSubstr(" is not provided by this plugin (PJRT API version 0.60)"));
    not_provided.push_back(r.area + ": " + r.name);
  }
  EXPECT_THAT(not_provided,
              ::testing::IsSupersetOf({"struct size: PJRT_Buffer_CopyRawToHost",
                                       "transfers: a streamed upload reads back what was sent, "
                                       "by ranges",
                                       "events: an event made by PJRT_Event_Create carries what "
                                       "Set gives it"}));
}

}  // namespace
}  // namespace seam::conformance
