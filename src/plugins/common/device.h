// Devices, as every plugin of this kit describes them, and the client functions that only
// list them: PJRT_DeviceDescription is defined here (an id, a process index, a kind), and
// SetDeviceFunctions<Client, Device> fills the slots that read a client's device list and
// a device's description.
//
// A plugin defines its own PJRT_Client and PJRT_Device with at least these members:
//   struct PJRT_Device { PJRT_DeviceDescription description; ... };
//   struct PJRT_Client {
//     std::string platform_name;
//     std::vector<PJRT_Device*> devices;  // device i has description.id == i
//     ...
//   };
// and calls SetDeviceFunctions<PJRT_Client, PJRT_Device>(api) where both are complete.
// Every device is addressable. The client's process index is its `process_index` member
// (an integer) where it has one, else 0 (a plugin whose clients are one process each).
#ifndef SEAM_PLUGINS_COMMON_DEVICE_H_
#define SEAM_PLUGINS_COMMON_DEVICE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/table.h"

struct PJRT_DeviceDescription {
  int id = 0;
  int process_index = 0;
  std::string kind;  // e.g. "cpu"; what PJRT_DeviceDescription_Kind returns
};

namespace seam::plugin {

// PJRT_DeviceDescription_Id, _ProcessIndex and _Kind.
void SetDeviceDescriptionFunctions(PJRT_Api& api);

// The functions of the slots SetDeviceFunctions fills, for a plugin's Client and Device
// types (templates, so that they are compiled where those types are complete).
template <typename Client, typename Device>
struct DeviceFunctions {
  static PJRT_Error* PlatformName(PJRT_Client_PlatformName_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_PlatformName, args->client);
    const Client& client = *args->client;
    args->platform_name = client.platform_name.data();
    args->platform_name_size = client.platform_name.size();
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
    const Client& client = *args->client;
    args->addressable_devices = client.devices.data();
    args->num_addressable_devices = client.devices.size();
    return nullptr;
  }
  static PJRT_Error* LookupDevice(PJRT_Client_LookupDevice_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_LookupDevice, args->client);
    const Client& client = *args->client;
    if (args->id < 0 || static_cast<size_t>(args->id) >= client.devices.size()) {
      return MakeError(absl::InvalidArgumentError(
          absl::StrCat("PJRT_Client_LookupDevice: no device has id ", args->id, " (ids are 0..",
                       client.devices.size() - 1, ")")));
    }
    args->device = client.devices[static_cast<size_t>(args->id)];
    return nullptr;
  }
  static PJRT_Error* GetDescription(PJRT_Device_GetDescription_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_GetDescription, args->device);
    Device* device = args->device;
    args->device_description = &device->description;
    return nullptr;
  }
  static PJRT_Error* IsAddressable(PJRT_Device_IsAddressable_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_IsAddressable, args->device);
    args->is_addressable = true;
    return nullptr;
  }
  static PJRT_Error* LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_LocalHardwareId, args->device);
    const Device* device = args->device;
    args->local_hardware_id = device->description.id;
    return nullptr;
  }
};

// PJRT_Client_PlatformName, _ProcessIndex, _Devices, _AddressableDevices, _LookupDevice,
// PJRT_Device_GetDescription, _IsAddressable, _LocalHardwareId, and the description's
// functions.
template <typename Client, typename Device>
void SetDeviceFunctions(PJRT_Api& api) {
  using F = DeviceFunctions<Client, Device>;
  SEAM_PLUGIN_SET(api, PJRT_Client_PlatformName, F::PlatformName);
  SEAM_PLUGIN_SET(api, PJRT_Client_ProcessIndex, F::ProcessIndex);
  SEAM_PLUGIN_SET(api, PJRT_Client_Devices, F::Devices);
  SEAM_PLUGIN_SET(api, PJRT_Client_AddressableDevices, F::AddressableDevices);
  SEAM_PLUGIN_SET(api, PJRT_Client_LookupDevice, F::LookupDevice);
  SEAM_PLUGIN_SET(api, PJRT_Device_GetDescription, F::GetDescription);
  SEAM_PLUGIN_SET(api, PJRT_Device_IsAddressable, F::IsAddressable);
  SEAM_PLUGIN_SET(api, PJRT_Device_LocalHardwareId, F::LocalHardwareId);
  SetDeviceDescriptionFunctions(api);
}

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_DEVICE_H_
