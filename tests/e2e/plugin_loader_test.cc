// The plugin loader and the version handshake (src/runtime/pjrt/pjrt_api.*), against real
// shared libraries built for the tests (tests/plugins/). Every message is compared whole.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/compile_options.pb.h"
#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"
#include "src/base/logging.h"
#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"
#include "tests/plugins/future_args.h"

namespace seam::runtime {
namespace {

const PluginVersion kFramework = FrameworkVersion();

std::string Version(int major, int minor) { return absl::StrCat(major, ".", minor); }

// Calls made into a test plugin's table so far (0 proves the framework never called it).
int CallCount(const char* path) {
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto count = reinterpret_cast<int (*)()>(dlsym(handle, "SeamTestPluginCallCount"));
  int value = count == nullptr ? -2 : count();
  dlclose(handle);  // only drops the reference RTLD_NOLOAD added
  return value;
}

class PluginLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("ENABLE_PJRT_COMPATIBILITY");
    base::SetLogSink([this](base::LogSeverity, const std::string& line) { log_.push_back(line); });
  }
  void TearDown() override { base::SetLogSink(nullptr); }
  std::vector<std::string> log_;
};

TEST_F(PluginLoaderTest, RegistryIsWriteOnceAndLowercased) {
  const PJRT_Api* api = GetInProcessCpuPjrtApi();
  ASSERT_TRUE(SetPjrtApi("MyDevice", api).ok());
  absl::Status again = SetPjrtApi("MYDEVICE", api);
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "PJRT_Api already exists for device type mydevice");
  EXPECT_EQ(*PjrtApi("mydevice"), api);

  absl::StatusOr<const PJRT_Api*> missing = PjrtApi("Other");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "PJRT_Api not found for device type other");
}

TEST_F(PluginLoaderTest, LoadFailuresNameThePathAndTheReason) {
  absl::StatusOr<const PJRT_Api*> text = LoadPjrtPlugin("text", SEAM_NOT_A_LIBRARY);
  EXPECT_EQ(text.status().message(), absl::StrCat("Failed to open ", SEAM_NOT_A_LIBRARY, ": ",
                                                  SEAM_NOT_A_LIBRARY, ": invalid ELF header"));
  absl::StatusOr<const PJRT_Api*> none = LoadPjrtPlugin("none", SEAM_PLUGIN_NO_SYMBOL);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(),
            absl::StrCat("GetPjrtApi not found in ", SEAM_PLUGIN_NO_SYMBOL));
  absl::StatusOr<const PJRT_Api*> null = LoadPjrtPlugin("null", SEAM_PLUGIN_NULL_API);
  EXPECT_EQ(null.status().message(),
            absl::StrCat("GetPjrtApi returned null in ", SEAM_PLUGIN_NULL_API));
  // None of the failures registered anything.
  EXPECT_EQ(PjrtApi("none").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(PluginLoaderTest, InitializeLogsBothVersionsAndRunsTheCurrentPlugin) {
  ASSERT_TRUE(LoadPjrtPlugin("current", SEAM_PLUGIN_CURRENT).ok());
  EXPECT_FALSE(*IsPjrtPluginInitialized("current"));
  ASSERT_TRUE(InitializePjrtPlugin("current").ok());
  EXPECT_TRUE(*IsPjrtPluginInitialized("CURRENT"));
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0], absl::StrCat("The PJRT plugin has PJRT API version ",
                                  Version(kFramework.major, kFramework.minor),
                                  ". The framework PJRT API version is ",
                                  Version(kFramework.major, kFramework.minor), "."));
  absl::Status again = InitializePjrtPlugin("current");
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.message(), "PJRT plugin for device type current is already initialized");
}

// Runs a small program through `client` and checks its result.
void ExpectRunsAProgram(PjrtComputationClient& client) {
  auto program = ir::ParseProgram(
      "program @p {\n  %0 = parameter(0) : s32[3]\n  %1 = add(%0, %0) : s32[3]\n  return "
      "(%1)\n}\n");
  ASSERT_TRUE(program.ok()) << program.status();
  ir::Literal input = ir::Literal::FromS32({1, -2, 40}, {3});
  auto data = client.TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(data.ok());
  auto computation = client.Compile({{*program, "CPU:0"}});
  ASSERT_TRUE(computation.ok()) << computation.status();
  auto outputs = client.ExecuteComputation(*computation->front(), *data, "CPU:0", {});
  ASSERT_TRUE(outputs.ok());
  auto host = client.TransferFromDevice(*outputs);
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(*host, std::vector<ir::Literal>{ir::Literal::FromS32({2, -4, 80}, {3})});
}

TEST_F(PluginLoaderTest, NewerMinorIsAcceptedAndRunsAProgram) {
  ASSERT_TRUE(LoadPjrtPlugin("newer", SEAM_PLUGIN_NEWER_MINOR).ok());
  ASSERT_TRUE(InitializePjrtPlugin("newer").ok());
  EXPECT_EQ(log_.at(0), absl::StrCat("The PJRT plugin has PJRT API version ",
                                     Version(kFramework.major, kFramework.minor + 1),
                                     ". The framework PJRT API version is ",
                                     Version(kFramework.major, kFramework.minor), "."));
  auto client = PjrtComputationClient::Create(*PjrtApi("newer"));
  ASSERT_TRUE(client.ok()) << client.status();
  ExpectRunsAProgram(**client);
  EXPECT_GT(CallCount(SEAM_PLUGIN_NEWER_MINOR), 0);
}

// A plugin of an older minor whose layout seam reads (0.60: its table ends after
// PJRT_ExecuteContext_Destroy, every slot behind the end aborts the process when called,
// and PJRT_Device_MemoryStats and PJRT_Executable_OutputDimensions are null) still loads
// (the version difference is logged) and runs programs; the memory query, whose slot is
// null, fails naming the function and the plugin's version.
TEST_F(PluginLoaderTest, AnOlderMinorStillLoadsAndRunsAProgram) {
  ASSERT_GE(60, FrameworkMinimumMinor());
  ASSERT_TRUE(LoadPjrtPlugin("previous", SEAM_PLUGIN_OLDER_LAYOUT).ok());
  ASSERT_TRUE(InitializePjrtPlugin("previous").ok());
  EXPECT_EQ(log_.at(0),
            absl::StrCat("The PJRT plugin has PJRT API version ", Version(kFramework.major, 60),
                         ". The framework PJRT API version is ",
                         Version(kFramework.major, kFramework.minor), "."));
  auto client = PjrtComputationClient::Create(*PjrtApi("previous"));
  ASSERT_TRUE(client.ok()) << client.status();
  ExpectRunsAProgram(**client);
  EXPECT_GT(CallCount(SEAM_PLUGIN_OLDER_LAYOUT), 0);
  absl::StatusOr<ComputationClient::MemoryStats> stats = (*client)->GetMemoryStats("CPU:0");
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(stats.status().message(),
            "memory figures of CPU:0: PJRT_Device_MemoryStats is not provided by this plugin "
            "(PJRT API version 0.60)");
  // Ranged reads and streamed uploads take the client's host-staged defaults: their slots
  // lie behind the table's end and are never called.
  const ir::Shape shape{ir::DType::kF32, {3}};
  const float values[] = {1.5f, -2.0f, 4.0f};
  const auto* bytes = reinterpret_cast<const uint8_t*>(values);
  auto upload = (*client)->StartUpload({{shape, "CPU:0"}});
  ASSERT_TRUE(upload.ok()) << upload.status();
  ASSERT_TRUE((*upload)->Write(0, 0, absl::MakeConstSpan(bytes, 5)).ok());
  ASSERT_TRUE((*upload)->Write(0, 5, absl::MakeConstSpan(bytes + 5, 7)).ok());
  auto handles = (*upload)->Finish();
  ASSERT_TRUE(handles.ok()) << handles.status();
  float middle = 0;
  ASSERT_TRUE((*client)
                  ->TransferFromDeviceRange(handles->front(), 4,
                                            absl::MakeSpan(reinterpret_cast<uint8_t*>(&middle), 4))
                  .ok());
  EXPECT_EQ(middle, -2.0f);
}

// A plugin of the current minor answers the memory query through the ABI.
TEST_F(PluginLoaderTest, CurrentMinorAnswersTheMemoryQuery) {
  ASSERT_TRUE(LoadPjrtPlugin("current_mem", SEAM_PLUGIN_CURRENT).ok());
  ASSERT_TRUE(InitializePjrtPlugin("current_mem").ok());
  auto client = PjrtComputationClient::Create(*PjrtApi("current_mem"));
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<ComputationClient::MemoryStats> before = (*client)->GetMemoryStats("CPU:0");
  ASSERT_TRUE(before.ok()) << before.status();
  std::vector<float> values(100, 1.0f);
  auto data =
      (*client)->TransferToDevice({{ir::Shape{ir::DType::kF32, {100}}, values.data(), "CPU:0"}});
  ASSERT_TRUE(data.ok()) << data.status();
  absl::StatusOr<ComputationClient::MemoryStats> after = (*client)->GetMemoryStats("CPU:0");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->bytes_in_use - before->bytes_in_use, 400);
  EXPECT_GE(after->peak_bytes_in_use, after->bytes_in_use);
  EXPECT_EQ((*client)->GetMemoryStats("CPU:9").status().message(),
            "Unknown device 'CPU:9' (devices: CPU:0)");
}

// A newer plugin (0.120) whose PJRT_Client_Compile reads a field appended after the
// framework's struct: it is accepted, serves every other call, and that call fails with the
// plugin's struct-size message.
TEST_F(PluginLoaderTest, ANewerPluginNeedingALargerStructFailsAtThatCall) {
  ASSERT_TRUE(LoadPjrtPlugin("larger", SEAM_PLUGIN_LARGER_ARGS).ok());
  ASSERT_TRUE(InitializePjrtPlugin("larger").ok());
  auto client = PjrtComputationClient::Create(*PjrtApi("larger"));
  ASSERT_TRUE(client.ok()) << client.status();
  ir::Literal input = ir::Literal::FromS32({7}, {1});
  auto data = (*client)->TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(data.ok()) << data.status();
  auto program = ir::ParseProgram("program @p {\n  %0 = parameter(0) : s32[1]\n  return (%0)\n}\n");
  ASSERT_TRUE(program.ok()) << program.status();
  auto computation = (*client)->Compile({{*program, "CPU:0"}});
  EXPECT_EQ(computation.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(computation.status().message(),
            absl::StrCat("Unexpected PJRT_Client_Compile_Args size: expected ",
                         PJRT_Client_Compile_Args_STRUCT_SIZE + sizeof(int64_t), ", got ",
                         PJRT_Client_Compile_Args_STRUCT_SIZE,
                         ". Check installed software versions. The framework PJRT API version is ",
                         Version(kFramework.major, kFramework.minor), "."));
}

// A plugin of 0.40 passes the version rule (>= 0.29) but its layout predates the one seam
// reads: refused at the handshake, before any of its functions is called.
TEST_F(PluginLoaderTest, APluginPredatingTheLayoutIsRefused) {
  ASSERT_TRUE(LoadPjrtPlugin("ancient", SEAM_PLUGIN_PREDATES_LAYOUT).ok());
  absl::Status status = InitializePjrtPlugin("ancient");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "PJRT plugin API version 0.40 predates the layout seam reads (0.57 and later)");
  EXPECT_EQ(log_.at(0), absl::StrCat("The PJRT plugin has PJRT API version 0.40. The framework "
                                     "PJRT API version is ",
                                     Version(kFramework.major, kFramework.minor), "."));
  EXPECT_EQ(CallCount(SEAM_PLUGIN_PREDATES_LAYOUT), 0);
  // Unregistered again: a retry reports the same refusal.
  ASSERT_TRUE(LoadPjrtPlugin("ancient", SEAM_PLUGIN_PREDATES_LAYOUT).ok());
  EXPECT_EQ(InitializePjrtPlugin("ancient").message(), status.message());
}

TEST_F(PluginLoaderTest, OlderThanTheMinimumIsRefused) {
  ASSERT_TRUE(LoadPjrtPlugin("older", SEAM_PLUGIN_OLDER_MINOR).ok());
  absl::Status status = InitializePjrtPlugin("older");
  EXPECT_EQ(status.message(), absl::StrCat("Plugin PJRT API version ",
                                           Version(kFramework.major, FrameworkMinimumMinor() - 1),
                                           " is older than the minimum supported version ",
                                           Version(kFramework.major, FrameworkMinimumMinor())));
  EXPECT_EQ(CallCount(SEAM_PLUGIN_OLDER_MINOR), 0);
}

TEST_F(PluginLoaderTest, AnotherMajorIsRefusedBeforeAnyCall) {
  ASSERT_TRUE(LoadPjrtPlugin("other", SEAM_PLUGIN_OTHER_MAJOR).ok());
  for (const char* setting : {"true", "false"}) {  // no setting rescues another major
    setenv("ENABLE_PJRT_COMPATIBILITY", setting, 1);
    if (!PjrtApi("other").ok()) {
      ASSERT_TRUE(LoadPjrtPlugin("other", SEAM_PLUGIN_OTHER_MAJOR).ok());
    }
    absl::Status status = InitializePjrtPlugin("other");
    std::string expected =
        std::string(setting) == "true"
            ? absl::StrCat(
                  "Mismatched PJRT plugin PJRT API major version (1) and framework PJRT "
                  "API major version ",
                  kFramework.major, ").")
            : absl::StrCat(
                  "Mismatched PJRT plugin PJRT API version (1.5) and framework PJRT "
                  "API version ",
                  Version(kFramework.major, kFramework.minor), ").");
    EXPECT_EQ(status.message(), expected) << setting;
  }
  EXPECT_EQ(CallCount(SEAM_PLUGIN_OTHER_MAJOR), 0);
}

TEST_F(PluginLoaderTest, FailedInitializeIsReportedAgainOnRetry) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin("flaky", SEAM_PLUGIN_INIT_FAILS);
    ASSERT_TRUE(api.ok()) << "attempt " << attempt << ": " << api.status();
    absl::Status status = InitializePjrtPlugin("flaky");
    EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
    EXPECT_EQ(status.message(),
              "test plugin: the device is unavailable (initialize fails on purpose)");
  }
}

TEST_F(PluginLoaderTest, CompatibilitySettingPicksTheRule) {
  struct Case {
    const char* value;  // nullptr = unset
    bool compatibility;
  };
  const Case cases[] = {{nullptr, true},    {"true", true}, {"t", true},      {"YES", true},
                        {"y", true},        {"1", true},    {"false", false}, {"F", false},
                        {"no", false},      {"n", false},   {"0", false},     {"on", false},
                        {"enabled", false}, {"", false}};
  for (const Case& c : cases) {
    if (c.value == nullptr) {
      unsetenv("ENABLE_PJRT_COMPATIBILITY");
    } else {
      setenv("ENABLE_PJRT_COMPATIBILITY", c.value, 1);
    }
    std::string label = c.value == nullptr ? "unset" : absl::StrCat("'", c.value, "'");
    EXPECT_EQ(IsPjrtCompatibilityEnabled(), c.compatibility) << label;
    // The rule itself: a plugin one minor newer passes only under compatibility.
    absl::Status newer =
        CheckPluginVersion(kFramework.major, kFramework.minor + 1, IsPjrtCompatibilityEnabled());
    if (c.compatibility) {
      EXPECT_TRUE(newer.ok()) << label << ": " << newer;
    } else {
      EXPECT_EQ(newer.message(), absl::StrCat("Mismatched PJRT plugin PJRT API version (",
                                              Version(kFramework.major, kFramework.minor + 1),
                                              ") and framework PJRT API version ",
                                              Version(kFramework.major, kFramework.minor), ")."))
          << label;
    }
    EXPECT_TRUE(
        CheckPluginVersion(kFramework.major, kFramework.minor, IsPjrtCompatibilityEnabled()).ok())
        << label;
  }
}

TEST_F(PluginLoaderTest, ExactModeRefusesANewerMinorAtInitialize) {
  setenv("ENABLE_PJRT_COMPATIBILITY", "on", 1);  // not a boolean: exact match
  ASSERT_TRUE(LoadPjrtPlugin("newer", SEAM_PLUGIN_NEWER_MINOR).ok());
  absl::Status status = InitializePjrtPlugin("newer");
  EXPECT_EQ(status.message(), absl::StrCat("Mismatched PJRT plugin PJRT API version (",
                                           Version(kFramework.major, kFramework.minor + 1),
                                           ") and framework PJRT API version ",
                                           Version(kFramework.major, kFramework.minor), ")."));
  EXPECT_EQ(CallCount(SEAM_PLUGIN_NEWER_MINOR), 0);
}

TEST_F(PluginLoaderTest, AFieldOfALargerStructIsReadOnlyWhenTheCallerHasIt) {
  ASSERT_TRUE(LoadPjrtPlugin("future", SEAM_PLUGIN_FUTURE_FIELD).ok());
  ASSERT_TRUE(InitializePjrtPlugin("future").ok());
  const PJRT_Api* api = *PjrtApi("future");

  // Today's framework passes today's struct: the plugin must not read past it.
  auto today = PjrtComputationClient::Create(api);
  ASSERT_TRUE(today.ok()) << today.status();
  EXPECT_EQ((*today)->GetLocalDevices().size(), 1u);

  // A newer caller passes the larger struct, and the plugin reads the new field.
  FutureClientCreateArgs future{};
  future.current.struct_size = kFutureClientCreateArgsSize;
  future.device_count_hint = 3;
  ASSERT_TRUE(TakePjrtError(api, api->PJRT_Client_Create(&future.current)).ok());
  auto devices = SEAM_PJRT_ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = future.current.client;
  ASSERT_TRUE(TakePjrtError(api, api->PJRT_Client_AddressableDevices(&devices)).ok());
  EXPECT_EQ(devices.num_addressable_devices, 3u);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
  destroy.client = future.current.client;
  EXPECT_TRUE(TakePjrtError(api, api->PJRT_Client_Destroy(&destroy)).ok());

  // A struct too small for what the plugin reads is refused with upstream's message.
  PJRT_Client_Create_Args old{};
  old.struct_size = offsetof(PJRT_Client_Create_Args, create_options);
  absl::Status status = TakePjrtError(api, api->PJRT_Client_Create(&old));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StartsWith(status.message(), "Unexpected PJRT_Client_Create_Args size: expected "))
      << status;
  EXPECT_TRUE(absl::EndsWith(
      status.message(),
      absl::StrCat(", got ", offsetof(PJRT_Client_Create_Args, create_options),
                   ". Check installed software versions. The framework PJRT API version is ",
                   Version(kFramework.major, kFramework.minor), ".")))
      << status;
}

// The CPU table with PJRT_Client_Compile and PJRT_Client_Create recording what the
// framework sends.
std::string g_compile_options;
std::vector<std::string> g_create_option_names;
PJRT_Error* RecordingCompile(PJRT_Client_Compile_Args* args) {
  g_compile_options.assign(args->compile_options, args->compile_options_size);
  return GetInProcessCpuPjrtApi()->PJRT_Client_Compile(args);
}
PJRT_Error* RecordingCreate(PJRT_Client_Create_Args* args) {
  g_create_option_names.clear();
  for (size_t i = 0; i < args->num_options; ++i) {
    g_create_option_names.emplace_back(args->create_options[i].name,
                                       args->create_options[i].name_size);
  }
  return GetInProcessCpuPjrtApi()->PJRT_Client_Create(args);
}

// Every compile sends a serialized xla.CompileOptionsProto: device_ordinal -1, the
// program's replica count, one partition, the process; a device assignment of replica r to
// global device r for more than one replica; never debug_options (field 3 of the build
// options, which seam does not even declare: no unknown fields either). The client's
// create options are exactly the ones given.
TEST_F(PluginLoaderTest, CompileSendsTheCompileOptionsProto) {
  PJRT_Api api = *GetInProcessCpuPjrtApi();
  api.PJRT_Client_Compile = RecordingCompile;
  api.PJRT_Client_Create = RecordingCreate;
  auto client = PjrtComputationClient::Create(&api, {{"cpu_device_count", int64_t{2}}});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(g_create_option_names, std::vector<std::string>{"cpu_device_count"});
  EXPECT_EQ((*client)->GetNumGlobalDevices(), 2);

  auto one = ir::ParseProgram("program @p {\n  %0 = parameter(0) : s32[3]\n  return (%0)\n}\n");
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE((*client)->Compile({{*one, "CPU:0"}}).ok());
  xla::CompileOptionsProto options;
  ASSERT_TRUE(options.ParseFromString(g_compile_options));
  const xla::ExecutableBuildOptionsProto& build = options.executable_build_options();
  EXPECT_EQ(build.device_ordinal(), -1);
  EXPECT_EQ(build.num_replicas(), 1);
  EXPECT_EQ(build.num_partitions(), 1);
  EXPECT_EQ(build.process_index(), 0);
  EXPECT_EQ(build.process_count(), 1);
  EXPECT_FALSE(build.has_device_assignment());
  EXPECT_TRUE(options.GetReflection()->GetUnknownFields(options).empty());
  EXPECT_TRUE(build.GetReflection()->GetUnknownFields(build).empty());

  auto two = ir::ParseProgram(
      "program @two replicas=2 {\n  %x = parameter(0) : f32[2]\n"
      "  %r = all_reduce_sum(%x), group_size={2}, replica_groups={0,1} : f32[2]\n"
      "  return (%r)\n}\n");
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_TRUE((*client)->Compile({{*two, "CPU:0"}}).ok());
  ASSERT_TRUE(options.ParseFromString(g_compile_options));
  EXPECT_EQ(options.executable_build_options().num_replicas(), 2);
  const xla::DeviceAssignmentProto& assignment =
      options.executable_build_options().device_assignment();
  EXPECT_EQ(assignment.replica_count(), 2);
  EXPECT_EQ(assignment.computation_count(), 1);
  ASSERT_EQ(assignment.computation_devices_size(), 1);
  EXPECT_EQ(std::vector<int64_t>(assignment.computation_devices(0).replica_device_ids().begin(),
                                 assignment.computation_devices(0).replica_device_ids().end()),
            (std::vector<int64_t>{0, 1}));
}

// What the framework passes to the buffer functions.
std::vector<std::string> g_buffer_calls;
PJRT_Error* RecordingFromHost(PJRT_Client_BufferFromHostBuffer_Args* args) {
  g_buffer_calls.push_back(absl::StrCat("from host: semantics ",
                                        static_cast<int>(args->host_buffer_semantics), ", strides ",
                                        args->byte_strides == nullptr ? "null" : "set", ", memory ",
                                        args->memory == nullptr ? "null" : "set", ", layout ",
                                        args->device_layout == nullptr ? "null" : "set"));
  return GetInProcessCpuPjrtApi()->PJRT_Client_BufferFromHostBuffer(args);
}
PJRT_Error* RecordingToHost(PJRT_Buffer_ToHostBuffer_Args* args) {
  std::string layout = "null";
  if (args->host_layout != nullptr) {
    layout = args->host_layout->type == PJRT_Buffer_MemoryLayout_Type_Tiled ? "tiled" : "strides";
    const PJRT_Buffer_MemoryLayout_Tiled& tiled = args->host_layout->tiled;
    for (size_t i = 0; i < tiled.minor_to_major_size; ++i) {
      absl::StrAppend(&layout, i == 0 ? " " : ",", tiled.minor_to_major[i]);
    }
    absl::StrAppend(&layout, " tiles ", tiled.num_tiles);
  }
  PJRT_Error* error = GetInProcessCpuPjrtApi()->PJRT_Buffer_ToHostBuffer(args);
  g_buffer_calls.push_back(absl::StrCat("to host: dst ", args->dst == nullptr ? "null" : "set",
                                        ", layout ", layout, ", size ", args->dst_size));
  return error;
}

// Uploads copy during the call (dense, no memory, no device layout); reads ask for the size
// first (dst NULL) in a dense row-major tiled layout, then copy.
TEST_F(PluginLoaderTest, BuffersMoveWithDenseLayoutsAndASizeQueryFirst) {
  PJRT_Api api = *GetInProcessCpuPjrtApi();
  api.PJRT_Client_BufferFromHostBuffer = RecordingFromHost;
  api.PJRT_Buffer_ToHostBuffer = RecordingToHost;
  auto client = PjrtComputationClient::Create(&api);
  ASSERT_TRUE(client.ok()) << client.status();
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  auto data =
      (*client)->TransferToDevice({{ir::Shape{ir::DType::kF32, {2, 3}}, values.data(), "CPU:0"}});
  ASSERT_TRUE(data.ok()) << data.status();
  auto host = (*client)->TransferFromDevice(*data);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(host->front().bytes.size(), 24u);
  EXPECT_EQ(g_buffer_calls, (std::vector<std::string>{
                                "from host: semantics 0, strides null, memory null, layout null",
                                "to host: dst null, layout tiled 1,0 tiles 0, size 24",
                                "to host: dst set, layout tiled 1,0 tiles 0, size 24"}));
}

// The profiler extension is found on the chain by its type (read as an int: seam's id lies
// outside PJRT_Extension_Type), links of other types are skipped, a link smaller than the
// extension struct is ignored, a chain that loops is given up after 64 links, and the chain
// of a plugin whose layout predates 0.57 is not read at all.
TEST_F(PluginLoaderTest, TheProfilerExtensionIsFoundByTypeOnTheChain) {
  const PJRT_Api* cpu = GetInProcessCpuPjrtApi();
  ASSERT_NE(cpu, nullptr);
  const SEAM_Profiler_Extension* profiler = FindProfilerExtension(cpu);
  ASSERT_NE(profiler, nullptr);
  SEAM_Profiler_Extension copy = *profiler;
  copy.base.next = nullptr;

  PJRT_Extension_Base layouts{};  // upstream's type 4, a struct seam does not read
  layouts.struct_size = PJRT_Extension_Base_STRUCT_SIZE;
  layouts.type = PJRT_Extension_Type_Layouts;
  PJRT_Extension_Base unknown{};  // a type no one knows
  unknown.struct_size = PJRT_Extension_Base_STRUCT_SIZE;
  SEAM_SetExtensionType(&unknown, 0x7777);
  layouts.next = &unknown;
  unknown.next = &copy.base;

  PJRT_Api api = *cpu;
  api.extension_start = &layouts;
  EXPECT_EQ(FindProfilerExtension(&api), &copy);

  // Too small for the struct seam reads: not the extension.
  copy.base.struct_size = SEAM_Profiler_Extension_STRUCT_SIZE - 1;
  EXPECT_EQ(FindProfilerExtension(&api), nullptr);
  copy.base.struct_size = SEAM_Profiler_Extension_STRUCT_SIZE;

  // A loop of other links: given up (64 links), never followed forever.
  unknown.next = &layouts;
  EXPECT_EQ(FindProfilerExtension(&api), nullptr);
  unknown.next = &copy.base;

  // 0.40's chain is not read.
  api.pjrt_api_version.minor_version = 40;
  EXPECT_EQ(FindProfilerExtension(&api), nullptr);
  api.pjrt_api_version.minor_version = kOldestLayoutMinor;
  EXPECT_EQ(FindProfilerExtension(&api), &copy);
}

// A slot is callable only when the table reaches it and it is not null; the call that
// needs a missing one fails naming it and the plugin's version.
TEST_F(PluginLoaderTest, AMissingSlotIsNamedAndNeverCalled) {
  PJRT_Api api = *GetInProcessCpuPjrtApi();
  api.pjrt_api_version.minor_version = 61;
  EXPECT_TRUE(SEAM_PJRT_HAS(&api, PJRT_Device_MemoryStats));
  api.PJRT_Device_MemoryStats = nullptr;
  EXPECT_FALSE(SEAM_PJRT_HAS(&api, PJRT_Device_MemoryStats));
  api.struct_size = offsetof(PJRT_Api, PJRT_Buffer_CopyRawToHost);
  EXPECT_FALSE(SEAM_PJRT_HAS(&api, PJRT_Buffer_CopyRawToHost));  // not null, but past the end
  EXPECT_TRUE(SEAM_PJRT_HAS(&api, PJRT_ExecuteContext_Destroy));
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_CopyRawToHost_Args);
  absl::Status status = SEAM_PJRT_CALL(&api, PJRT_Buffer_CopyRawToHost, &args);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(),
            "PJRT_Buffer_CopyRawToHost is not provided by this plugin (PJRT API version 0.61)");
}

}  // namespace
}  // namespace seam::runtime
