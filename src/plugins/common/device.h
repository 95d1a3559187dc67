// Devices and their memories, as every plugin of this kit describes them, and the client
// functions that only list them: PJRT_DeviceDescription and PJRT_Memory are defined here,
// SetDeviceFunctions<Client, Device> fills the slots that read a client's device lists and a
// device's description, and SetMemoryFunctions<Client, Device> those of memories.
//
// A plugin defines its own PJRT_Client and PJRT_Device with at least these members:
//   struct PJRT_Device { PJRT_DeviceDescription description; ... };
//   struct PJRT_Client {
//     std::string platform_name;
//     std::vector<PJRT_Device*> devices;  // every device of the job (PJRT_Client_Devices)
//     ...
//   };
// Optional members, read when present:
//   Client: `process_index` (an integer; else 0), `platform_version` (a std::string; else
//     the platform name), `addressable_devices` (the devices this process drives; else
//     `devices`), `addressable_memories` (std::vector<PJRT_Memory*>, for
//     SetMemoryFunctions).
//   Device: `addressable` (bool; else true), `local_hardware_id` (int; else the
//     description's id), `memories` (std::vector<PJRT_Memory*>, the first one the default,
//     for SetMemoryFunctions).
#ifndef SEAM_PLUGINS_COMMON_DEVICE_H_
#define SEAM_PLUGINS_COMMON_DEVICE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/options.h"
#include "src/plugins/common/table.h"

struct PJRT_DeviceDescription {
  int id = 0;  // unique among the job's devices
  int process_index = 0;
  std::string kind;                     // e.g. "cpu"; what PJRT_DeviceDescription_Kind returns
  std::string debug_string;             // long form, for logs (PJRT_DeviceDescription_DebugString)
  std::string to_string;                // short form, for users (PJRT_DeviceDescription_ToString)
  seam::plugin::Attributes attributes;  // PJRT_DeviceDescription_Attributes
};

// A memory space of one or more devices.
struct PJRT_Memory {
  int id = 0;  // unique among the client's memories
  std::string kind = "device";
  int kind_id = 0;
  std::string debug_string;
  std::string to_string;
  std::vector<PJRT_Device*> devices;  // the devices that address it
};

namespace seam::plugin {

// PJRT_DeviceDescription_Id, _ProcessIndex, _Attributes, _Kind, _DebugString, _ToString.
void SetDeviceDescriptionFunctions(PJRT_Api& api);
// PJRT_Memory_Id, _Kind, _Kind_Id, _DebugString, _ToString, _AddressableByDevices.
void SetMemoryDescriptionFunctions(PJRT_Api& api);

// The functions of the slots SetDeviceFunctions fills, for a plugin's Client and Device
// types (templates, so that they are compiled where those types are complete).
template <typename Client, typename Device>
struct DeviceFunctions {
  static const std::vector<PJRT_Device*>& Addressable(const Client& client) {
    if constexpr (requires { client.addressable_devices; }) {
      return client.addressable_devices;
    } else {
      return client.devices;
    }
  }
  static bool IsAddressableDevice(const Device& device) {
    if constexpr (requires { device.addressable; }) {
      return device.addressable;
    } else {
      return true;
    }
  }
  static int HardwareId(const Device& device) {
    if constexpr (requires { device.local_hardware_id; }) {
      return static_cast<int>(device.local_hardware_id);
    } else {
      return device.description.id;
    }
  }

  static PJRT_Error* PlatformName(PJRT_Client_PlatformName_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_PlatformName, args->client);
    const Client& client = *args->client;
    args->platform_name = client.platform_name.data();
    args->platform_name_size = client.platform_name.size();
    return nullptr;
  }
  static PJRT_Error* PlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_PlatformVersion, args->client);
    const Client& client = *args->client;
    if constexpr (requires { client.platform_version; }) {
      args->platform_version = client.platform_version.data();
      args->platform_version_size = client.platform_version.size();
    } else {
      args->platform_version = client.platform_name.data();
      args->platform_version_size = client.platform_name.size();
    }
    return nullptr;
  }
  static PJRT_Error* ProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_ProcessIndex, args->client);
    const Client& client = *args->client;
    if constexpr (requires { client.process_index; }) {
      args->process_index = static_cast<int>(client.process_index);
    } else {
      args->process_index = 0;
    }
    return nullptr;
  }
  static PJRT_Error* Devices(PJRT_Client_Devices_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Devices, args->client);
    const Client& client = *args->client;
    args->devices = client.devices.data();
    args->num_devices = client.devices.size();
    return nullptr;
  }
  static PJRT_Error* AddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_AddressableDevices, args->client);
    const std::vector<PJRT_Device*>& devices = Addressable(*args->client);
    args->addressable_devices = devices.data();
    args->num_addressable_devices = devices.size();
    return nullptr;
  }
  static PJRT_Error* LookupDevice(PJRT_Client_LookupDevice_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_LookupDevice, args->client);
    const Client& client = *args->client;
    for (PJRT_Device* device : client.devices) {
      const Device& d = *device;
      if (d.description.id == args->id) {
        args->device = device;
        return nullptr;
      }
    }
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_LookupDevice: no device has id ", args->id, " (ids are 0..",
                     client.devices.size() - 1, ")")));
  }
  static PJRT_Error* LookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_LookupAddressableDevice, args->client);
    const std::vector<PJRT_Device*>& devices = Addressable(*args->client);
    for (PJRT_Device* device : devices) {
      if (HardwareId(*device) == args->local_hardware_id) {
        args->addressable_device = device;
        return nullptr;
      }
    }
    return MakeError(absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_LookupAddressableDevice: no addressable device has local hardware id ",
        args->local_hardware_id, " (this process has ", devices.size(), " device(s))")));
  }
  static PJRT_Error* GetDescription(PJRT_Device_GetDescription_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_GetDescription, args->device);
    Device* device = args->device;
    args->device_description = &device->description;
    return nullptr;
  }
  static PJRT_Error* IsAddressable(PJRT_Device_IsAddressable_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_IsAddressable, args->device);
    args->is_addressable = IsAddressableDevice(*args->device);
    return nullptr;
  }
  static PJRT_Error* LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_LocalHardwareId, args->device);
    args->local_hardware_id = IsAddressableDevice(*args->device) ? HardwareId(*args->device) : -1;
    return nullptr;
  }

  // Memories (SetMemoryFunctions).
  static PJRT_Error* ClientAddressableMemories(PJRT_Client_AddressableMemories_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_AddressableMemories, args->client);
    const Client& client = *args->client;
    args->addressable_memories = client.addressable_memories.data();
    args->num_addressable_memories = client.addressable_memories.size();
    return nullptr;
  }
  static PJRT_Error* DeviceAddressableMemories(PJRT_Device_AddressableMemories_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_AddressableMemories, args->device);
    const Device& device = *args->device;
    args->memories = device.memories.data();
    args->num_memories = device.memories.size();
    return nullptr;
  }
  static PJRT_Error* DeviceDefaultMemory(PJRT_Device_DefaultMemory_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_DefaultMemory, args->device);
    const Device& device = *args->device;
    if (device.memories.empty()) {
      return MakeError(absl::FailedPreconditionError(
          absl::StrCat("PJRT_Device_DefaultMemory: device ", device.description.id,
                       " has no memory (it is not addressable from this process)")));
    }
    args->memory = device.memories.front();
    return nullptr;
  }
};

// PJRT_Client_PlatformName, _PlatformVersion, _ProcessIndex, _Devices,
// _AddressableDevices, _LookupDevice, _LookupAddressableDevice, PJRT_Device_GetDescription,
// _IsAddressable, _LocalHardwareId, and the description's functions.
template <typename Client, typename Device>
void SetDeviceFunctions(PJRT_Api& api) {
  using F = DeviceFunctions<Client, Device>;
  SEAM_PLUGIN_SET(api, PJRT_Client_PlatformName, F::PlatformName);
  SEAM_PLUGIN_SET(api, PJRT_Client_PlatformVersion, F::PlatformVersion);
  SEAM_PLUGIN_SET(api, PJRT_Client_ProcessIndex, F::ProcessIndex);
  SEAM_PLUGIN_SET(api, PJRT_Client_Devices, F::Devices);
  SEAM_PLUGIN_SET(api, PJRT_Client_AddressableDevices, F::AddressableDevices);
  SEAM_PLUGIN_SET(api, PJRT_Client_LookupDevice, F::LookupDevice);
  SEAM_PLUGIN_SET(api, PJRT_Client_LookupAddressableDevice, F::LookupAddressableDevice);
  SEAM_PLUGIN_SET(api, PJRT_Device_GetDescription, F::GetDescription);
  SEAM_PLUGIN_SET(api, PJRT_Device_IsAddressable, F::IsAddressable);
  SEAM_PLUGIN_SET(api, PJRT_Device_LocalHardwareId, F::LocalHardwareId);
  SetDeviceDescriptionFunctions(api);
}

// PJRT_Client_AddressableMemories, PJRT_Device_AddressableMemories, _DefaultMemory and the
// memories' own functions, for a Client with `addressable_memories` and a Device with
// `memories`.
template <typename Client, typename Device>
void SetMemoryFunctions(PJRT_Api& api) {
  using F = DeviceFunctions<Client, Device>;
  SEAM_PLUGIN_SET(api, PJRT_Client_AddressableMemories, F::ClientAddressableMemories);
  SEAM_PLUGIN_SET(api, PJRT_Device_AddressableMemories, F::DeviceAddressableMemories);
  SEAM_PLUGIN_SET(api, PJRT_Device_DefaultMemory, F::DeviceDefaultMemory);
  SetMemoryDescriptionFunctions(api);
}

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_DEVICE_H_
