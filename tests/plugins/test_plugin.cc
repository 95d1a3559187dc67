// A configurable plugin for the loader tests: the CPU plugin's table behind wrappers that
// count every call, with the version and behaviour set by compile definitions:
//   SEAM_TEST_MAJOR / SEAM_TEST_MINOR   the version it reports (default: the header's)
//   SEAM_TEST_INIT_FAILS                PJRT_Plugin_Initialize returns an error
//   SEAM_TEST_NULL_API                  GetPjrtApi returns null
//   SEAM_TEST_FUTURE_FIELD              PJRT_Client_Create reads a field of a newer header
//   SEAM_TEST_LAX                       breaks the contract twice: PJRT_Client_PlatformName
//                                       accepts a too-small struct (it opts out of the kit's
//                                       Args check), and the PJRT_Buffer_OnDeviceSizeInBytes
//                                       slot is null
//   SEAM_TEST_THROWS                    PJRT_Client_PlatformName throws std::bad_alloc and
//                                       PJRT_Client_ProcessIndex std::runtime_error (the
//                                       kit's firewall turns both into errors)
//   SEAM_TEST_WRONG_SIZE                PJRT_Buffer_OnDeviceSizeInBytes answers 1 byte (a
//                                       wrong answer of a capability)
//   SEAM_TEST_API_SIZE                  the struct_size its PJRT_Api reports (too small)
//   SEAM_TEST_TABLE_END=<slot>          an older plugin's table: struct_size ends after slot
//                                       <slot> (PJRT_STRUCT_SIZE(PJRT_Api, <slot>)); every
//                                       slot behind the end aborts the process when called
//                                       (a framework must not read past struct_size), and
//                                       PJRT_Device_MemoryStats and
//                                       PJRT_Executable_OutputDimensions are null
//   SEAM_TEST_NO_EXTENSIONS             its extension chain is empty (no profiler extension)
//   SEAM_TEST_LARGER_COMPILE_ARGS       a newer plugin's PJRT_Client_Compile, which reads a
//                                       field appended after the framework's struct: a
//                                       caller's struct_size that does not cover it gets the
//                                       struct-size message
//   SEAM_TEST_KV                        requires the job's key-value store: PJRT_Client_Create
//                                       takes the options process_index and process_count,
//                                       puts "hello/<index>", reads the next process's key and
//                                       tries the store's error cases; SeamTestPluginKvReport
//                                       says what it saw
// Its entry points go through the plugin kit (src/plugins/common), like a real plugin's.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/abi_functions.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/kv_store.h"
#include "src/plugins/common/table.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "tests/plugins/future_args.h"

#ifndef SEAM_TEST_MAJOR
#define SEAM_TEST_MAJOR PJRT_API_MAJOR
#endif
#ifndef SEAM_TEST_MINOR
#define SEAM_TEST_MINOR PJRT_API_MINOR
#endif

namespace {

std::atomic<int> g_calls{0};
std::string g_kv_report;  // SEAM_TEST_KV: what the last PJRT_Client_Create saw

const PJRT_Api* Cpu() { return seam::cpu::GetCpuPjrtApi(); }

#define SEAM_FORWARD(Name)                        \
  PJRT_Error* Forward_##Name(Name##_Args* args) { \
    ++g_calls;                                    \
    return Cpu()->Name(args);                     \
  }
#define SEAM_FORWARD_VOID(Name)            \
  void Forward_##Name(Name##_Args* args) { \
    ++g_calls;                             \
    Cpu()->Name(args);                     \
  }

SEAM_PLUGIN_VOID_FUNCTIONS(SEAM_FORWARD_VOID)
SEAM_PLUGIN_FUNCTIONS(SEAM_FORWARD)

PJRT_Error* Initialize(PJRT_Plugin_Initialize_Args* args) {
  ++g_calls;
#ifdef SEAM_TEST_INIT_FAILS
  (void)args;
  return seam::plugin::MakeError(absl::UnavailableError(
      "test plugin: the device is unavailable (initialize fails on purpose)"));
#else
  return Cpu()->PJRT_Plugin_Initialize(args);
#endif
}

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  ++g_calls;
#ifdef SEAM_TEST_FUTURE_FIELD
  if (args != nullptr && args->struct_size >= kFutureClientCreateArgsSize) {
    const auto* future = reinterpret_cast<const FutureClientCreateArgs*>(args);
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = seam::cpu::kDeviceCountOption;
    option.name_size = std::string(seam::cpu::kDeviceCountOption).size();
    option.type = PJRT_NamedValue_kInt64;
    option.int64_value = future->device_count_hint;
    option.value_size = 1;
    PJRT_Client_Create_Args inner = *args;
    inner.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
    inner.create_options = &option;
    inner.num_options = 1;
    PJRT_Error* error = Cpu()->PJRT_Client_Create(&inner);
    args->client = inner.client;
    return error;
  }
#endif
  return Cpu()->PJRT_Client_Create(args);
}

#ifdef SEAM_TEST_KV
std::string CodeName(const absl::Status& status) { return absl::StatusCodeToString(status.code()); }

// The store's round trip across the job's processes, then the CPU plugin's client (without
// the two options it does not take).
PJRT_Error* KvClientCreate(PJRT_Client_Create_Args* args) {
  ++g_calls;
  using seam::plugin::MakeError;
  absl::StatusOr<std::optional<seam::plugin::KvStore>> store =
      seam::plugin::KvStore::FromCreateArgs(*args);
  if (!store.ok()) return MakeError(store.status());
  if (!store->has_value()) {
    return MakeError(absl::FailedPreconditionError(
        "test plugin (kv): PJRT_Client_Create was given no key-value store"));
  }
  int64_t index = -1;
  int64_t count = -1;
  std::vector<PJRT_NamedValue> rest;
  for (size_t i = 0; i < args->num_options; ++i) {
    const PJRT_NamedValue& option = args->create_options[i];
    const std::string name(option.name, option.name_size);
    if (name == "process_index") {
      index = option.int64_value;
    } else if (name == "process_count") {
      count = option.int64_value;
    } else {
      rest.push_back(option);
    }
  }
  if (index < 0 || count < 1) {
    return MakeError(absl::InvalidArgumentError(
        "test plugin (kv): the options process_index and process_count are required"));
  }
  const seam::plugin::KvStore& kv = **store;
  const std::string mine = absl::StrCat("hello/", index);
  if (absl::Status put = kv.Put(mine, absl::StrCat("from process ", index)); !put.ok()) {
    return MakeError(put);
  }
  absl::StatusOr<std::string> next =
      kv.Get(absl::StrCat("hello/", (index + 1) % count), std::chrono::seconds(30));
  if (!next.ok()) return MakeError(next.status());
  absl::StatusOr<std::string> miss = kv.TryGet("never-set");
  absl::StatusOr<std::string> late = kv.Get("never-set", std::chrono::milliseconds(100));
  absl::Status again = kv.Put(mine, "twice");
  g_kv_report =
      absl::StrCat("process ", index, " of ", count, " read '", *next,
                   "'; try-get miss: ", CodeName(miss.status()), " (", miss.status().message(),
                   "); get timeout: ", CodeName(late.status()), "; second put: ", CodeName(again));
  PJRT_Client_Create_Args inner = *args;
  inner.create_options = rest.data();
  inner.num_options = rest.size();
  PJRT_Error* error = Cpu()->PJRT_Client_Create(&inner);
  args->client = inner.client;
  return error;
}
#endif

#ifdef SEAM_TEST_LAX
PJRT_Error* LaxPlatformName(PJRT_Client_PlatformName_Args* args) {
  ++g_calls;
  PJRT_Client_PlatformName_Args full = *args;  // reads past a short struct: the breach
  full.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE;
  PJRT_Error* error = Cpu()->PJRT_Client_PlatformName(&full);
  args->platform_name = full.platform_name;
  args->platform_name_size = full.platform_name_size;
  return error;
}
#endif

#ifdef SEAM_TEST_THROWS
PJRT_Error* ThrowingPlatformName(PJRT_Client_PlatformName_Args*) {
  ++g_calls;
  throw std::bad_alloc();
}
PJRT_Error* ThrowingProcessIndex(PJRT_Client_ProcessIndex_Args*) {
  ++g_calls;
  throw std::runtime_error("test plugin: the process index exploded");
}
#endif

#ifdef SEAM_TEST_WRONG_SIZE
PJRT_Error* WrongOnDeviceSize(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  PJRT_Error* error = Forward_PJRT_Buffer_OnDeviceSizeInBytes(args);
  args->on_device_size_in_bytes = 1;
  return error;
}
#endif

#ifdef SEAM_TEST_LARGER_COMPILE_ARGS
// PJRT_Client_Compile_Args as a newer header (0.120, say) defines it: one field appended.
struct NewerCompileArgs {
  PJRT_Client_Compile_Args current;
  int64_t appended_field;
};
constexpr size_t kNewerCompileArgsSize =
    offsetof(NewerCompileArgs, appended_field) + sizeof(int64_t);

PJRT_Error* NewerCompile(PJRT_Client_Compile_Args* args) {
  ++g_calls;
  if (args->struct_size < kNewerCompileArgsSize) {
    return seam::plugin::StructSizeError("PJRT_Client_Compile_Args", kNewerCompileArgsSize,
                                         args->struct_size);
  }
  return Cpu()->PJRT_Client_Compile(args);
}
#endif

#ifdef SEAM_TEST_TABLE_END
// What every slot behind the table's end holds: a framework that reads past struct_size
// and calls it ends the process, loudly.
[[noreturn]] void PastTheEnd() {
  std::fputs("test plugin: a slot past PJRT_Api.struct_size was called\n", stderr);
  std::abort();
}
#endif

PJRT_Api MakeApi() {
  PJRT_Api api = *Cpu();
  api.pjrt_api_version.major_version = SEAM_TEST_MAJOR;
  api.pjrt_api_version.minor_version = SEAM_TEST_MINOR;
  api.PJRT_Error_Destroy = Forward_PJRT_Error_Destroy;
  api.PJRT_Error_Message = Forward_PJRT_Error_Message;
#define SEAM_SET(Name) SEAM_PLUGIN_SET(api, Name, Forward_##Name);
  SEAM_PLUGIN_FUNCTIONS(SEAM_SET)
#undef SEAM_SET
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Initialize, Initialize);
  SEAM_PLUGIN_SET(api, PJRT_Client_Create, ClientCreate);
#ifdef SEAM_TEST_LAX
  api.PJRT_Client_PlatformName = seam::plugin::UncheckedEntry<&LaxPlatformName>;
  api.PJRT_Buffer_OnDeviceSizeInBytes = nullptr;
#endif
#ifdef SEAM_TEST_THROWS
  SEAM_PLUGIN_SET(api, PJRT_Client_PlatformName, ThrowingPlatformName);
  SEAM_PLUGIN_SET(api, PJRT_Client_ProcessIndex, ThrowingProcessIndex);
#endif
#ifdef SEAM_TEST_WRONG_SIZE
  SEAM_PLUGIN_SET(api, PJRT_Buffer_OnDeviceSizeInBytes, WrongOnDeviceSize);
#endif
#ifdef SEAM_TEST_LARGER_COMPILE_ARGS
  SEAM_PLUGIN_SET(api, PJRT_Client_Compile, NewerCompile);
#endif
#ifdef SEAM_TEST_NO_EXTENSIONS
  api.extension_start = nullptr;
#endif
#ifdef SEAM_TEST_TABLE_END
  api.struct_size = PJRT_STRUCT_SIZE(PJRT_Api, SEAM_TEST_TABLE_END);
  api.PJRT_Device_MemoryStats = nullptr;
  api.PJRT_Executable_OutputDimensions = nullptr;
  {
    // Every function pointer behind the end: PastTheEnd (copied bytewise: the slots have
    // other function types, and a slot is never called through this one).
    void (*past)() = &PastTheEnd;
    for (size_t offset = api.struct_size; offset + sizeof(past) <= sizeof(PJRT_Api);
         offset += sizeof(past)) {
      std::memcpy(reinterpret_cast<char*>(&api) + offset, &past, sizeof(past));
    }
  }
#endif
#ifdef SEAM_TEST_API_SIZE
  api.struct_size = SEAM_TEST_API_SIZE;
#endif
#ifdef SEAM_TEST_KV
  SEAM_PLUGIN_SET(api, PJRT_Client_Create, KvClientCreate);
#endif
  return api;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static const PJRT_Api api = MakeApi();
#ifdef SEAM_TEST_NULL_API
  return api.struct_size == 0 ? &api : nullptr;  // always null: the plugin has no table
#else
  return &api;
#endif
}

// How many table functions have been called: the loader tests prove a refused plugin is
// never called.
extern "C" __attribute__((visibility("default"))) int SeamTestPluginCallCount(void) {
  return g_calls.load();
}

// What the SEAM_TEST_KV plugin's last PJRT_Client_Create saw ("" in the other plugins).
extern "C" __attribute__((visibility("default"))) const char* SeamTestPluginKvReport(void) {
  return g_kv_report.c_str();
}
