// Client and device queries.
#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

absl::StatusOr<PJRT_DeviceDescription*> Description(Suite& suite, PJRT_Device* device) {
  auto args = SEAM_PJRT_ARGS(PJRT_Device_GetDescription_Args);
  args.device = device;
  absl::Status status = SEAM_CALL(suite, PJRT_Device_GetDescription, &args);
  if (!status.ok()) return status;
  return args.device_description;
}

absl::StatusOr<int> DeviceId(Suite& suite, PJRT_Device* device) {
  absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
  if (!description.ok()) return description.status();
  auto args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Id_Args);
  args.device_description = *description;
  absl::Status status = SEAM_CALL(suite, PJRT_DeviceDescription_Id, &args);
  if (!status.ok()) return status;
  return args.id;
}

// Runs `fn` for each addressable device, stopping at the first failure.
absl::Status ForEachDevice(Suite& suite, const std::function<absl::Status(PJRT_Device*)>& fn) {
  if (suite.client() == nullptr) return suite.client_status();
  for (PJRT_Device* device : suite.devices()) {
    absl::Status status = fn(device);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// A key-value store in this process's memory, behind the ABI's callbacks (1.2): what a
// plugin that asks for the job's store receives, for the checks below.
struct MemoryStore {
  std::mutex mu;
  std::map<std::string, std::string> values;
  int calls = 0;
};

MemoryStore& Store(void* user_arg) { return *static_cast<MemoryStore*>(user_arg); }

PJRT_Error* NotFound(PJRT_CallbackError* make, const std::string& key) {
  const std::string message = "key '" + key + "' not found";
  return make(PJRT_Error_Code_NOT_FOUND, message.data(), message.size());
}

void DeleteValue(char* value) { delete[] value; }

PJRT_Error* Found(const std::string& value, char** out, size_t* size, void (**deleter)(char*)) {
  *out = new char[value.size() + 1];
  std::copy(value.begin(), value.end(), *out);
  *size = value.size();
  *deleter = &DeleteValue;
  return nullptr;
}

PJRT_Error* MemoryGet(PJRT_KeyValueGetCallback_Args* args) {
  MemoryStore& store = Store(args->user_arg);
  std::lock_guard<std::mutex> lock(store.mu);
  ++store.calls;
  const std::string key(args->key, args->key_size);
  auto it = store.values.find(key);
  if (it == store.values.end()) return NotFound(args->callback_error, key);  // no one else puts
  return Found(it->second, &args->value, &args->value_size, &args->value_deleter);
}

PJRT_Error* MemoryTryGet(PJRT_KeyValueTryGetCallback_Args* args) {
  MemoryStore& store = Store(args->user_arg);
  std::lock_guard<std::mutex> lock(store.mu);
  ++store.calls;
  const std::string key(args->key, args->key_size);
  auto it = store.values.find(key);
  if (it == store.values.end()) return NotFound(args->callback_error, key);
  return Found(it->second, &args->value, &args->value_size, &args->value_deleter);
}

PJRT_Error* MemoryPut(PJRT_KeyValuePutCallback_Args* args) {
  MemoryStore& store = Store(args->user_arg);
  std::lock_guard<std::mutex> lock(store.mu);
  ++store.calls;
  store.values[std::string(args->key, args->key_size)] = std::string(args->value, args->value_size);
  return nullptr;
}

// Creates and destroys a client with `args`; the creation's status.
absl::Status CreateAndDestroy(Suite& suite, PJRT_Client_Create_Args& args) {
  absl::Status status = SEAM_CALL(suite, PJRT_Client_Create, &args);
  if (!status.ok()) return status;
  auto destroy = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
  destroy.client = args.client;
  return SEAM_CALL(suite, PJRT_Client_Destroy, &destroy);
}

void CheckKeyValueStore(Suite& suite) {
  suite.Check("client", "a 1.1 caller's smaller PJRT_Client_Create_Args is accepted", [&] {
    // The 1.2 fields past the caller's struct_size hold a store that fails the check if
    // the plugin reads and calls it.
    MemoryStore store;
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
    args.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE_1_1;
    args.kv_user_arg = &store;
    args.kv_get = &MemoryGet;
    args.kv_try_get = &MemoryTryGet;
    args.kv_put = &MemoryPut;
    absl::Status status = CreateAndDestroy(suite, args);
    if (!status.ok()) return status;
    return Expect(store.calls == 0, absl::StrCat("the plugin called the key-value store ",
                                                 store.calls, " times past struct_size"));
  });
  suite.Check("client", "a client receives the job's key-value store", [&] {
    MemoryStore store;
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
    args.kv_user_arg = &store;
    args.kv_get = &MemoryGet;
    args.kv_try_get = &MemoryTryGet;
    args.kv_put = &MemoryPut;
    return CreateAndDestroy(suite, args);  // a single-process job: it may use it or not
  });
}

}  // namespace

void CheckClient(Suite& suite) {
  CheckKeyValueStore(suite);
  suite.Check("client", "platform name", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_PlatformName_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_PlatformName, &args);
    if (!status.ok()) return status;
    return Expect(args.platform_name != nullptr && args.platform_name_size > 0,
                  "the platform name is empty");
  });
  suite.Check("client", "process index", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_ProcessIndex_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_ProcessIndex, &args);
    if (!status.ok()) return status;
    return Expect(args.process_index >= 0,
                  absl::StrCat("process index is ", args.process_index, ", expected >= 0"));
  });
  suite.Check("client", "addressable devices are a non-empty subset of the devices", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Devices_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_Devices, &args);
    if (!status.ok()) return status;
    if (suite.devices().empty()) return absl::InternalError("no addressable devices");
    for (PJRT_Device* device : suite.devices()) {
      if (std::find(args.devices, args.devices + args.num_devices, device) ==
          args.devices + args.num_devices) {
        return absl::InternalError("an addressable device is missing from PJRT_Client_Devices");
      }
    }
    return absl::OkStatus();
  });
  suite.Check("client", "lookup by id finds each device", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
      args.client = suite.client();
      args.id = *id;
      absl::Status status = SEAM_CALL(suite, PJRT_Client_LookupDevice, &args);
      if (!status.ok()) return status;
      return Expect(args.device == device, absl::StrCat("id ", *id, " found another device"));
    });
  });
  suite.Check("client", "lookup of negative and out-of-range ids fails", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    int max_id = 0;
    for (PJRT_Device* device : suite.devices()) {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      max_id = std::max(max_id, *id);
    }
    for (int bad : {-1, INT_MIN, max_id + 1, INT_MAX}) {
      auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
      args.client = suite.client();
      args.id = bad;
      absl::Status status =
          ExpectError(SEAM_CALL(suite, PJRT_Client_LookupDevice, &args),
                      absl::StatusCode::kInvalidArgument, absl::StrCat("looking up id ", bad));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  });
  suite.Check("client", "an unknown create option is refused by name", [&] {
    static const char kName[] = "no_such_option_for_conformance";
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = kName;
    option.name_size = sizeof(kName) - 1;
    option.type = PJRT_NamedValue_kInt64;
    option.value.int64_value = 1;
    option.value_size = 1;
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
    args.create_options = &option;
    args.num_options = 1;
    absl::Status status = SEAM_CALL(suite, PJRT_Client_Create, &args);
    if (status.ok()) {
      auto destroy = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
      destroy.client = args.client;
      SEAM_CALL(suite, PJRT_Client_Destroy, &destroy).IgnoreError();
      return absl::InternalError(absl::StrCat("option '", kName, "' was accepted"));
    }
    return Expect(
        status.code() == absl::StatusCode::kInvalidArgument &&
            std::string(status.message()).find(kName) != std::string::npos,
        absl::StrCat("expected INVALID_ARGUMENT naming the option, got: ", status.ToString()));
  });
}

void CheckDevices(Suite& suite) {
  suite.Check("devices", "ids are unique", [&] {
    std::set<int> ids;
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      return Expect(ids.insert(*id).second, absl::StrCat("id ", *id, " repeats"));
    });
  });
  suite.Check("devices", "kind", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
      if (!description.ok()) return description.status();
      auto args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args);
      args.device_description = *description;
      absl::Status status = SEAM_CALL(suite, PJRT_DeviceDescription_Kind, &args);
      if (!status.ok()) return status;
      return Expect(args.device_kind_size > 0, "a device kind is empty");
    });
  });
  suite.Check("devices", "addressable devices say so and have a local hardware id", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      auto addressable = SEAM_PJRT_ARGS(PJRT_Device_IsAddressable_Args);
      addressable.device = device;
      absl::Status status = SEAM_CALL(suite, PJRT_Device_IsAddressable, &addressable);
      if (!status.ok()) return status;
      if (!addressable.is_addressable) return absl::InternalError("reports not addressable");
      auto hardware = SEAM_PJRT_ARGS(PJRT_Device_LocalHardwareId_Args);
      hardware.device = device;
      status = SEAM_CALL(suite, PJRT_Device_LocalHardwareId, &hardware);
      if (!status.ok()) return status;
      return Expect(hardware.local_hardware_id >= 0,
                    absl::StrCat("local hardware id ", hardware.local_hardware_id));
    });
  });
  suite.Check("devices", "process index matches the client's", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto client = SEAM_PJRT_ARGS(PJRT_Client_ProcessIndex_Args);
    client.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_ProcessIndex, &client);
    if (!status.ok()) return status;
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
      if (!description.ok()) return description.status();
      auto args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_ProcessIndex_Args);
      args.device_description = *description;
      absl::Status s = SEAM_CALL(suite, PJRT_DeviceDescription_ProcessIndex, &args);
      if (!s.ok()) return s;
      return Expect(args.process_index == client.process_index,
                    absl::StrCat("device process index ", args.process_index, ", client's ",
                                 client.process_index));
    });
  });
}

}  // namespace seam::conformance
