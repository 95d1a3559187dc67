// The client, its devices and their memories.
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
  if (args.device_description == nullptr) {
    return absl::InternalError("PJRT_Device_GetDescription returned a null description");
  }
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

absl::StatusOr<std::vector<PJRT_Device*>> AllDevices(Suite& suite) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Devices_Args);
  args.client = suite.client();
  absl::Status status = SEAM_CALL(suite, PJRT_Client_Devices, &args);
  if (!status.ok()) return status;
  if (args.num_devices > 0 && args.devices == nullptr) {
    return absl::InternalError("PJRT_Client_Devices: devices and a null array");
  }
  return std::vector<PJRT_Device*>(args.devices, args.devices + args.num_devices);
}

// Runs `fn` for each addressable device, stopping at the first failure.
absl::Status ForEachDevice(Suite& suite, const std::function<absl::Status(PJRT_Device*)>& fn) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  for (PJRT_Device* device : suite.devices()) {
    absl::Status status = fn(device);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// A counted string out of a call, or the error that it is missing.
absl::Status NonEmpty(const char* text, size_t size, const std::string& what) {
  return Expect(text != nullptr && size > 0, absl::StrCat(what, " is empty"));
}

// A key-value store in this process's memory, behind the ABI's callbacks: what a plugin
// that asks for the job's store receives, for the checks below.
struct MemoryStore {
  std::mutex mu;
  std::map<std::string, std::string> values;
  int calls = 0;
};

MemoryStore& Store(void* user_arg) { return *static_cast<MemoryStore*>(user_arg); }

PJRT_Error* NotFound(PJRT_CallbackError* make, const std::string& key) {
  const std::string message = "key '" + key + "' not found";
  return (*make)(PJRT_Error_Code_NOT_FOUND, message.data(), message.size());
}

void DeleteValue(char* value) { delete[] value; }

char* Copy(const std::string& value) {
  char* out = new char[value.size() + 1];
  std::copy(value.begin(), value.end(), out);
  return out;
}

PJRT_Error* MemoryGet(PJRT_KeyValueGetCallback_Args* args) {
  MemoryStore& store = Store(args->user_arg);
  std::lock_guard<std::mutex> lock(store.mu);
  ++store.calls;
  const std::string key(args->key, args->key_size);
  auto it = store.values.find(key);
  if (it == store.values.end()) return NotFound(args->callback_error, key);  // no one else puts
  args->value = Copy(it->second);
  args->value_size = it->second.size();
  args->value_deleter_callback = &DeleteValue;
  return nullptr;
}

PJRT_Error* MemoryTryGet(PJRT_KeyValueTryGetCallback_Args* args) {
  MemoryStore& store = Store(args->user_arg);
  std::lock_guard<std::mutex> lock(store.mu);
  ++store.calls;
  const std::string key(args->key, args->key_size);
  auto it = store.values.find(key);
  if (it == store.values.end()) return NotFound(args->callback_error, key);
  args->value = Copy(it->second);
  args->value_size = it->second.size();
  args->value_deleter_callback = &DeleteValue;
  return nullptr;
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

void SetStore(PJRT_Client_Create_Args& args, MemoryStore& store) {
  args.kv_get_callback = &MemoryGet;
  args.kv_get_user_arg = &store;
  args.kv_put_callback = &MemoryPut;
  args.kv_put_user_arg = &store;
  args.kv_try_get_callback = &MemoryTryGet;
  args.kv_try_get_user_arg = &store;
}

void CheckKeyValueStore(Suite& suite) {
  suite.Required("client", "a client receives the job's key-value store (all three callbacks)",
                 [&] {
                   MemoryStore store;
                   auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
                   SetStore(args, store);
                   return CreateAndDestroy(suite, args);  // one process: it may use it or not
                 });
  suite.Required(
      "client",
      "a PJRT_Client_Create_Args that ends at client is accepted without reading past it, or "
      "refused with the size message",
      [&] {
        // An older caller's struct: no store in its fields (kv_get and kv_put NULL), and the
        // try-get fields past its struct_size hold one that fails the check if the plugin
        // reads and calls it.
        MemoryStore store;
        auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
        args.kv_try_get_callback = &MemoryTryGet;
        args.kv_try_get_user_arg = &store;
        args.struct_size = offsetof(PJRT_Client_Create_Args, kv_try_get_callback);
        absl::Status status = CreateAndDestroy(suite, args);
        if (!status.ok()) {
          return ExpectSizeMessage(status, "PJRT_Client_Create_Args",
                                   PJRT_Client_Create_Args_STRUCT_SIZE, args.struct_size, false);
        }
        return Expect(store.calls == 0,
                      absl::StrCat("the plugin called the try-get callback past struct_size ",
                                   store.calls, " times"));
      });
}

}  // namespace

namespace {

absl::Status UnknownCreateOptionIsRefused(Suite& suite) {
  static const char kName[] = "no_such_option_for_conformance";
  PJRT_NamedValue option{};
  option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  option.name = kName;
  option.name_size = sizeof(kName) - 1;
  option.type = PJRT_NamedValue_kInt64;
  option.int64_value = 1;
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
}

absl::Status PlatformVersion(Suite& suite) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  auto args = SEAM_PJRT_ARGS(PJRT_Client_PlatformVersion_Args);
  args.client = suite.client();
  absl::Status status = SEAM_CALL(suite, PJRT_Client_PlatformVersion, &args);
  if (!status.ok()) return status;
  return Expect(args.platform_version != nullptr || args.platform_version_size == 0,
                "a null platform version with a size");
}

absl::Status ProcessIndex(Suite& suite) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  auto args = SEAM_PJRT_ARGS(PJRT_Client_ProcessIndex_Args);
  args.client = suite.client();
  absl::Status status = SEAM_CALL(suite, PJRT_Client_ProcessIndex, &args);
  if (!status.ok()) return status;
  return Expect(args.process_index >= 0,
                absl::StrCat("process index is ", args.process_index, ", expected >= 0"));
}

absl::Status AddressableDevicesMatch(Suite& suite) {
  absl::StatusOr<std::vector<PJRT_Device*>> all = AllDevices(suite);
  if (!all.ok()) return all.status();
  for (PJRT_Device* device : suite.devices()) {
    if (std::find(all->begin(), all->end(), device) == all->end()) {
      return absl::InternalError("an addressable device is missing from PJRT_Client_Devices");
    }
  }
  size_t addressable = 0;
  for (PJRT_Device* device : *all) {
    auto args = SEAM_PJRT_ARGS(PJRT_Device_IsAddressable_Args);
    args.device = device;
    absl::Status status = SEAM_CALL(suite, PJRT_Device_IsAddressable, &args);
    if (!status.ok()) return status;
    const bool listed =
        std::find(suite.devices().begin(), suite.devices().end(), device) != suite.devices().end();
    if (args.is_addressable != listed) {
      return absl::InternalError(
          absl::StrCat("a device says is_addressable=", args.is_addressable ? "true" : "false",
                       " but is", listed ? "" : " not", " in PJRT_Client_AddressableDevices"));
    }
    addressable += listed ? 1 : 0;
  }
  return Expect(addressable == suite.devices().size(),
                "PJRT_Client_AddressableDevices lists a device twice");
}

absl::Status LookupFindsEachDevice(Suite& suite) {
  absl::StatusOr<std::vector<PJRT_Device*>> all = AllDevices(suite);
  if (!all.ok()) return all.status();
  for (PJRT_Device* device : *all) {
    absl::StatusOr<int> id = DeviceId(suite, device);
    if (!id.ok()) return id.status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
    args.client = suite.client();
    args.id = *id;
    absl::Status status = SEAM_CALL(suite, PJRT_Client_LookupDevice, &args);
    if (!status.ok()) return status;
    if (args.device != device) {
      return absl::InternalError(absl::StrCat("id ", *id, " found another device"));
    }
  }
  return absl::OkStatus();
}

absl::Status LookupRefusesBadIds(Suite& suite) {
  absl::StatusOr<std::vector<PJRT_Device*>> all = AllDevices(suite);
  if (!all.ok()) return all.status();
  int max_id = 0;
  for (PJRT_Device* device : *all) {
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
}

absl::Status LookupByLocalHardwareId(Suite& suite) {
  return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
    auto hardware = SEAM_PJRT_ARGS(PJRT_Device_LocalHardwareId_Args);
    hardware.device = device;
    absl::Status status = SEAM_CALL(suite, PJRT_Device_LocalHardwareId, &hardware);
    if (!status.ok()) return status;
    if (hardware.local_hardware_id < 0) return absl::OkStatus();  // none: nothing to find
    auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupAddressableDevice_Args);
    args.client = suite.client();
    args.local_hardware_id = hardware.local_hardware_id;
    status = SEAM_CALL(suite, PJRT_Client_LookupAddressableDevice, &args);
    if (!status.ok()) return status;
    return Expect(
        args.addressable_device == device,
        absl::StrCat("local hardware id ", hardware.local_hardware_id, " found another device"));
  });
}

}  // namespace

void CheckClient(Suite& suite) {
  suite.Required("client", "an unknown create option is refused by name",
                 [&] { return UnknownCreateOptionIsRefused(suite); });
  CheckKeyValueStore(suite);
  suite.Required("client", "platform name", [&] {
    if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
    auto args = SEAM_PJRT_ARGS(PJRT_Client_PlatformName_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_PlatformName, &args);
    if (!status.ok()) return status;
    return NonEmpty(args.platform_name, args.platform_name_size, "the platform name");
  });
  suite.Required("client", "platform version", [&] { return PlatformVersion(suite); });
  suite.Required("client", "process index", [&] { return ProcessIndex(suite); });
  suite.Required("client",
                 "addressable devices are exactly the devices that say they are addressable",
                 [&] { return AddressableDevicesMatch(suite); });
  suite.Required("client", "lookup by id finds each device",
                 [&] { return LookupFindsEachDevice(suite); });
  suite.Required("client", "lookup of negative and out-of-range ids fails",
                 [&] { return LookupRefusesBadIds(suite); });
  suite.Optional("client", "lookup by local hardware id finds each addressable device",
                 [&] { return LookupByLocalHardwareId(suite); });
}

void CheckDevices(Suite& suite) {
  suite.Required("devices", "ids are unique among all devices", [&]() -> absl::Status {
    absl::StatusOr<std::vector<PJRT_Device*>> all = AllDevices(suite);
    if (!all.ok()) return all.status();
    std::set<int> ids;
    for (PJRT_Device* device : *all) {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      if (!ids.insert(*id).second) return absl::InternalError(absl::StrCat("id ", *id, " repeats"));
    }
    return absl::OkStatus();
  });
  suite.Required("devices", "descriptions: kind, debug string, to string, attributes", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
      if (!description.ok()) return description.status();
      auto kind = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args);
      kind.device_description = *description;
      absl::Status status = SEAM_CALL(suite, PJRT_DeviceDescription_Kind, &kind);
      if (!status.ok()) return status;
      if (status = NonEmpty(kind.device_kind, kind.device_kind_size, "a device kind");
          !status.ok()) {
        return status;
      }
      auto debug = SEAM_PJRT_ARGS(PJRT_DeviceDescription_DebugString_Args);
      debug.device_description = *description;
      status = SEAM_CALL(suite, PJRT_DeviceDescription_DebugString, &debug);
      if (!status.ok()) return status;
      if (status = NonEmpty(debug.debug_string, debug.debug_string_size, "a debug string");
          !status.ok()) {
        return status;
      }
      auto to_string = SEAM_PJRT_ARGS(PJRT_DeviceDescription_ToString_Args);
      to_string.device_description = *description;
      status = SEAM_CALL(suite, PJRT_DeviceDescription_ToString, &to_string);
      if (!status.ok()) return status;
      if (status = NonEmpty(to_string.to_string, to_string.to_string_size, "a to-string");
          !status.ok()) {
        return status;
      }
      auto attributes = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Attributes_Args);
      attributes.device_description = *description;
      status = SEAM_CALL(suite, PJRT_DeviceDescription_Attributes, &attributes);
      if (!status.ok()) return status;
      return ReadNamedValues(attributes.attributes, attributes.num_attributes, "device attribute")
          .status();
    });
  });
  suite.Required("devices", "addressable devices say so and have a local hardware id", [&] {
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
      return Expect(hardware.local_hardware_id >= -1,
                    absl::StrCat("local hardware id ", hardware.local_hardware_id));
    });
  });
  suite.Required("devices", "an addressable device's process index is the client's", [&] {
    if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
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

namespace {

absl::StatusOr<std::vector<PJRT_Memory*>> DeviceMemories(Suite& suite, PJRT_Device* device) {
  auto args = SEAM_PJRT_ARGS(PJRT_Device_AddressableMemories_Args);
  args.device = device;
  absl::Status status = SEAM_CALL(suite, PJRT_Device_AddressableMemories, &args);
  if (!status.ok()) return status;
  if (args.num_memories > 0 && args.memories == nullptr) {
    return absl::InternalError("PJRT_Device_AddressableMemories: memories and a null array");
  }
  return std::vector<PJRT_Memory*>(args.memories, args.memories + args.num_memories);
}

absl::Status DescribeMemory(Suite& suite, PJRT_Memory* memory, PJRT_Device* device) {
  auto id = SEAM_PJRT_ARGS(PJRT_Memory_Id_Args);
  id.memory = memory;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Memory_Id, &id); !s.ok()) return s;
  auto kind = SEAM_PJRT_ARGS(PJRT_Memory_Kind_Args);
  kind.memory = memory;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Memory_Kind, &kind); !s.ok()) return s;
  if (absl::Status s = NonEmpty(kind.kind, kind.kind_size, "a memory kind"); !s.ok()) return s;
  auto kind_id = SEAM_PJRT_ARGS(PJRT_Memory_Kind_Id_Args);
  kind_id.memory = memory;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Memory_Kind_Id, &kind_id); !s.ok()) return s;
  auto debug = SEAM_PJRT_ARGS(PJRT_Memory_DebugString_Args);
  debug.memory = memory;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Memory_DebugString, &debug); !s.ok()) return s;
  if (absl::Status s =
          NonEmpty(debug.debug_string, debug.debug_string_size, "a memory's debug string");
      !s.ok()) {
    return s;
  }
  auto to_string = SEAM_PJRT_ARGS(PJRT_Memory_ToString_Args);
  to_string.memory = memory;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Memory_ToString, &to_string); !s.ok()) return s;
  if (absl::Status s =
          NonEmpty(to_string.to_string, to_string.to_string_size, "a memory's to-string");
      !s.ok()) {
    return s;
  }
  auto by = SEAM_PJRT_ARGS(PJRT_Memory_AddressableByDevices_Args);
  by.memory = memory;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Memory_AddressableByDevices, &by); !s.ok()) return s;
  if (by.num_devices > 0 && by.devices == nullptr) {
    return absl::InternalError("PJRT_Memory_AddressableByDevices: devices and a null array");
  }
  return Expect(
      std::find(by.devices, by.devices + by.num_devices, device) != by.devices + by.num_devices,
      absl::StrCat("memory ", id.id, " (", std::string(kind.kind, kind.kind_size),
                   ") is not addressable by a device that lists it"));
}

}  // namespace

void CheckMemories(Suite& suite) {
  suite.Optional("memories", "each device's default memory is among its memories", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<std::vector<PJRT_Memory*>> memories = DeviceMemories(suite, device);
      if (!memories.ok()) return memories.status();
      auto args = SEAM_PJRT_ARGS(PJRT_Device_DefaultMemory_Args);
      args.device = device;
      absl::Status status = SEAM_CALL(suite, PJRT_Device_DefaultMemory, &args);
      if (!status.ok()) return status;
      return Expect(std::find(memories->begin(), memories->end(), args.memory) != memories->end(),
                    "the default memory is not among the device's addressable memories");
    });
  });
  suite.Optional("memories", "id, kind, kind id, debug string, to string, devices", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<std::vector<PJRT_Memory*>> memories = DeviceMemories(suite, device);
      if (!memories.ok()) return memories.status();
      for (PJRT_Memory* memory : *memories) {
        if (absl::Status s = DescribeMemory(suite, memory, device); !s.ok()) return s;
      }
      return absl::OkStatus();
    });
  });
  suite.Optional(
      "memories", "the client's memories are its devices' memories", [&]() -> absl::Status {
        if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
        auto args = SEAM_PJRT_ARGS(PJRT_Client_AddressableMemories_Args);
        args.client = suite.client();
        absl::Status status = SEAM_CALL(suite, PJRT_Client_AddressableMemories, &args);
        if (!status.ok()) return status;
        std::set<PJRT_Memory*> client(args.addressable_memories,
                                      args.addressable_memories + args.num_addressable_memories);
        std::set<PJRT_Memory*> devices;
        for (PJRT_Device* device : suite.devices()) {
          absl::StatusOr<std::vector<PJRT_Memory*>> memories = DeviceMemories(suite, device);
          if (!memories.ok()) return memories.status();
          devices.insert(memories->begin(), memories->end());
        }
        return Expect(client == devices, absl::StrCat("the client lists ", client.size(),
                                                      " memories, its devices ", devices.size()));
      });
}

}  // namespace seam::conformance
