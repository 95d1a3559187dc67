// The null plugin: the smallest complete seam plugin, and the one to copy when starting a
// new device (docs/plugins.md, "Writing a plugin"). It has one device, implements what
// every plugin must (errors, initialize, attributes, the client and its devices, events)
// and leaves compile, buffers and execute to the kit's stubs, which answer UNIMPLEMENTED
// naming the function. `seam plugin check libseam_pjrt_null.so` passes every contract
// check and lists those capabilities as not implemented.
//
// It uses only the ABI header and the plugin kit (src/plugins/common): every slot goes
// through the kit's entry, which checks the Args struct's size and keeps C++ exceptions
// from crossing the ABI, so the functions below start with the real work.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/options.h"
#include "src/plugins/common/table.h"

// The ABI's opaque objects, as this plugin defines them (errors and events are the kit's).
struct PJRT_DeviceDescription {
  int id = 0;
  int process_index = 0;
  std::string kind = "null";
};

struct PJRT_Device {
  PJRT_DeviceDescription description;
};

struct PJRT_Client {
  std::string platform_name = "null";
  std::vector<std::unique_ptr<PJRT_Device>> owned_devices;
  std::vector<PJRT_Device*> devices;  // what PJRT_Client_Devices returns
};

namespace seam::null_plugin {
namespace {

using plugin::MakeError;

constexpr char kPluginName[] = "null";

// ---- Plugin

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* /*args*/) { return nullptr; }

PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  // Built once, kept for the process's life (the ABI says so). A plugin that takes
  // buffers lists them too: .Int64List("supported_element_types", {PJRT_Buffer_Type_F32}).
  static const plugin::Attributes* attributes =
      &(new plugin::Attributes())->String("seam_plugin_name", kPluginName);
  args->attributes = attributes->data();
  args->num_attributes = attributes->size();
  return nullptr;
}

// ---- Client

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  // This plugin takes no option; any one given is refused by name.
  absl::StatusOr<plugin::Options> options =
      plugin::Options::Parse("PJRT_Client_Create", "client option", kPluginName,
                             args->create_options, args->num_options, {});
  if (!options.ok()) return MakeError(options.status());
  auto client = std::make_unique<PJRT_Client>();
  auto device = std::make_unique<PJRT_Device>();
  client->devices.push_back(device.get());
  client->owned_devices.push_back(std::move(device));
  args->client = client.release();
  return nullptr;
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;
  return nullptr;
}

PJRT_Error* ClientPlatformName(PJRT_Client_PlatformName_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_PlatformName, args->client);
  args->platform_name = args->client->platform_name.data();
  args->platform_name_size = args->client->platform_name.size();
  return nullptr;
}

PJRT_Error* ClientProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_ProcessIndex, args->client);
  args->process_index = 0;
  return nullptr;
}

PJRT_Error* ClientDevices(PJRT_Client_Devices_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Devices, args->client);
  args->devices = args->client->devices.data();
  args->num_devices = args->client->devices.size();
  return nullptr;
}

PJRT_Error* ClientAddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_AddressableDevices, args->client);
  args->addressable_devices = args->client->devices.data();
  args->num_addressable_devices = args->client->devices.size();
  return nullptr;
}

PJRT_Error* ClientLookupDevice(PJRT_Client_LookupDevice_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_LookupDevice, args->client);
  for (PJRT_Device* device : args->client->devices) {
    if (device->description.id == args->id) {
      args->device = device;
      return nullptr;
    }
  }
  return MakeError(absl::InvalidArgumentError(absl::StrCat(
      "PJRT_Client_LookupDevice: no device has id ", args->id, " (the null plugin has id 0)")));
}

// ---- Devices and their descriptions

PJRT_Error* DeviceDescriptionId(PJRT_DeviceDescription_Id_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_Id, args->device_description);
  args->id = args->device_description->id;
  return nullptr;
}

PJRT_Error* DeviceDescriptionProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_ProcessIndex, args->device_description);
  args->process_index = args->device_description->process_index;
  return nullptr;
}

PJRT_Error* DeviceDescriptionKind(PJRT_DeviceDescription_Kind_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_Kind, args->device_description);
  args->device_kind = args->device_description->kind.data();
  args->device_kind_size = args->device_description->kind.size();
  return nullptr;
}

PJRT_Error* DeviceGetDescription(PJRT_Device_GetDescription_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_GetDescription, args->device);
  args->device_description = &args->device->description;
  return nullptr;
}

PJRT_Error* DeviceIsAddressable(PJRT_Device_IsAddressable_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_IsAddressable, args->device);
  args->is_addressable = true;
  return nullptr;
}

PJRT_Error* DeviceLocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_LocalHardwareId, args->device);
  args->local_hardware_id = args->device->description.id;
  return nullptr;
}

// ---- The table

PJRT_Api MakeApi() {
  // Every slot starts as the kit's UNIMPLEMENTED stub; the error functions are the kit's.
  PJRT_Api api = plugin::NewApi();
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Initialize, PluginInitialize);
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Attributes, PluginAttributes);
  plugin::SetEventFunctions(api);

  SEAM_PLUGIN_SET(api, PJRT_Client_Create, ClientCreate);
  SEAM_PLUGIN_SET(api, PJRT_Client_Destroy, ClientDestroy);
  SEAM_PLUGIN_SET(api, PJRT_Client_PlatformName, ClientPlatformName);
  SEAM_PLUGIN_SET(api, PJRT_Client_ProcessIndex, ClientProcessIndex);
  SEAM_PLUGIN_SET(api, PJRT_Client_Devices, ClientDevices);
  SEAM_PLUGIN_SET(api, PJRT_Client_AddressableDevices, ClientAddressableDevices);
  SEAM_PLUGIN_SET(api, PJRT_Client_LookupDevice, ClientLookupDevice);

  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Id, DeviceDescriptionId);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_ProcessIndex, DeviceDescriptionProcessIndex);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Kind, DeviceDescriptionKind);
  SEAM_PLUGIN_SET(api, PJRT_Device_GetDescription, DeviceGetDescription);
  SEAM_PLUGIN_SET(api, PJRT_Device_IsAddressable, DeviceIsAddressable);
  SEAM_PLUGIN_SET(api, PJRT_Device_LocalHardwareId, DeviceLocalHardwareId);

  // Not implemented here (the kit's stubs stay): PJRT_Client_Compile,
  // PJRT_Client_BufferFromHostBuffer, PJRT_LoadedExecutable_*, PJRT_Buffer_*.
  return api;
}

}  // namespace
}  // namespace seam::null_plugin

// The one exported symbol (seam_add_plugin's export map keeps every other one local).
extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static const PJRT_Api api = seam::null_plugin::MakeApi();
  return &api;
}
