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
//   SEAM_TEST_PREVIOUS_CREATE_ARGS      PJRT_Client_Create reads only the fields of 1.1's
//                                       PJRT_Client_Create_Args, as a plugin built then does
//   SEAM_TEST_TABLE_1_2                 its PJRT_Api ends where 1.2's did (struct_size
//                                       PJRT_Api_STRUCT_SIZE_1_2): no PJRT_Device_MemoryStats,
//                                       and the slots behind the end are null, so a framework
//                                       that called one would crash
//   SEAM_TEST_KV                        requires the job's key-value store: PJRT_Client_Create
//                                       takes the options process_index and process_count,
//                                       puts "hello/<index>", reads the next process's key and
//                                       tries the store's error cases; SeamTestPluginKvReport
//                                       says what it saw
// Its entry points go through the plugin kit (src/plugins/common), like a real plugin's.
#include <atomic>
#include <chrono>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/kv_store.h"
#include "src/plugins/common/table.h"
#include "src/plugins/cpu/cpu_plugin.h"
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

SEAM_FORWARD_VOID(PJRT_Error_Destroy)
SEAM_FORWARD_VOID(PJRT_Error_Message)
SEAM_FORWARD(PJRT_Error_GetCode)
SEAM_FORWARD(PJRT_Plugin_Attributes)
SEAM_FORWARD(PJRT_Event_Destroy)
SEAM_FORWARD(PJRT_Event_IsReady)
SEAM_FORWARD(PJRT_Event_Error)
SEAM_FORWARD(PJRT_Event_Await)
SEAM_FORWARD(PJRT_Event_OnReady)
SEAM_FORWARD(PJRT_Client_Destroy)
SEAM_FORWARD(PJRT_Client_PlatformName)
SEAM_FORWARD(PJRT_Client_ProcessIndex)
SEAM_FORWARD(PJRT_Client_Devices)
SEAM_FORWARD(PJRT_Client_AddressableDevices)
SEAM_FORWARD(PJRT_Client_LookupDevice)
SEAM_FORWARD(PJRT_Client_Compile)
SEAM_FORWARD(PJRT_Client_BufferFromHostBuffer)
SEAM_FORWARD(PJRT_DeviceDescription_Id)
SEAM_FORWARD(PJRT_DeviceDescription_ProcessIndex)
SEAM_FORWARD(PJRT_DeviceDescription_Kind)
SEAM_FORWARD(PJRT_Device_GetDescription)
SEAM_FORWARD(PJRT_Device_IsAddressable)
SEAM_FORWARD(PJRT_Device_LocalHardwareId)
SEAM_FORWARD(PJRT_LoadedExecutable_Destroy)
SEAM_FORWARD(PJRT_LoadedExecutable_NumOutputs)
SEAM_FORWARD(PJRT_LoadedExecutable_Execute)
SEAM_FORWARD(PJRT_Buffer_Destroy)
SEAM_FORWARD(PJRT_Buffer_ElementType)
SEAM_FORWARD(PJRT_Buffer_Dimensions)
SEAM_FORWARD(PJRT_Buffer_ToHostBuffer)
SEAM_FORWARD(PJRT_Buffer_ReadyEvent)
SEAM_FORWARD(PJRT_Buffer_Delete)
SEAM_FORWARD(PJRT_Buffer_IsDeleted)
SEAM_FORWARD(PJRT_Buffer_OnDeviceSizeInBytes)

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
    option.value.int64_value = future->device_count_hint;
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
#ifdef SEAM_TEST_PREVIOUS_CREATE_ARGS
  // Built against 1.1: only that minor's fields exist for it (no key-value callbacks).
  if (args != nullptr && args->struct_size >= PJRT_Client_Create_Args_STRUCT_SIZE_1_1) {
    PJRT_Client_Create_Args inner{};
    std::memcpy(&inner, args, PJRT_Client_Create_Args_STRUCT_SIZE_1_1);
    inner.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE_1_1;
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
      index = option.value.int64_value;
    } else if (name == "process_count") {
      count = option.value.int64_value;
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

PJRT_Api MakeApi() {
  PJRT_Api api = *Cpu();
  api.pjrt_api_version.major_version = SEAM_TEST_MAJOR;
  api.pjrt_api_version.minor_version = SEAM_TEST_MINOR;
  api.PJRT_Error_Destroy = Forward_PJRT_Error_Destroy;
  api.PJRT_Error_Message = Forward_PJRT_Error_Message;
#define SEAM_SET(Name) SEAM_PLUGIN_SET(api, Name, Forward_##Name)
  SEAM_SET(PJRT_Error_GetCode);
  SEAM_SET(PJRT_Plugin_Attributes);
  SEAM_SET(PJRT_Event_Destroy);
  SEAM_SET(PJRT_Event_IsReady);
  SEAM_SET(PJRT_Event_Error);
  SEAM_SET(PJRT_Event_Await);
  SEAM_SET(PJRT_Event_OnReady);
  SEAM_SET(PJRT_Client_Destroy);
  SEAM_SET(PJRT_Client_PlatformName);
  SEAM_SET(PJRT_Client_ProcessIndex);
  SEAM_SET(PJRT_Client_Devices);
  SEAM_SET(PJRT_Client_AddressableDevices);
  SEAM_SET(PJRT_Client_LookupDevice);
  SEAM_SET(PJRT_Client_Compile);
  SEAM_SET(PJRT_Client_BufferFromHostBuffer);
  SEAM_SET(PJRT_DeviceDescription_Id);
  SEAM_SET(PJRT_DeviceDescription_ProcessIndex);
  SEAM_SET(PJRT_DeviceDescription_Kind);
  SEAM_SET(PJRT_Device_GetDescription);
  SEAM_SET(PJRT_Device_IsAddressable);
  SEAM_SET(PJRT_Device_LocalHardwareId);
  SEAM_SET(PJRT_LoadedExecutable_Destroy);
  SEAM_SET(PJRT_LoadedExecutable_NumOutputs);
  SEAM_SET(PJRT_LoadedExecutable_Execute);
  SEAM_SET(PJRT_Buffer_Destroy);
  SEAM_SET(PJRT_Buffer_ElementType);
  SEAM_SET(PJRT_Buffer_Dimensions);
  SEAM_SET(PJRT_Buffer_ToHostBuffer);
  SEAM_SET(PJRT_Buffer_ReadyEvent);
  SEAM_SET(PJRT_Buffer_Delete);
  SEAM_SET(PJRT_Buffer_IsDeleted);
  SEAM_SET(PJRT_Buffer_OnDeviceSizeInBytes);
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
#ifdef SEAM_TEST_TABLE_1_2
  api.struct_size = PJRT_Api_STRUCT_SIZE_1_2;
  api.PJRT_Device_MemoryStats = nullptr;
  api.PJRT_Buffer_CopyRawToHost = nullptr;  // 1.5
  api.PJRT_Client_CreateBuffersForAsyncHostToDevice = nullptr;
  api.PJRT_AsyncHostToDeviceTransferManager_TransferData = nullptr;
  api.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer = nullptr;
  api.PJRT_AsyncHostToDeviceTransferManager_Destroy = nullptr;
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
