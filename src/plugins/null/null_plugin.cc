// The null plugin: the smallest complete seam plugin, and the one to copy when starting a
// new device (docs/plugins.md, "Writing a plugin"). It has one device, implements what
// every plugin must (errors, initialize, attributes, the client and its devices, events)
// and leaves every other slot of PJRT_Api (compile, buffers, execute, memories, the memory
// figures, topologies, ...) to the kit's stubs, which answer UNIMPLEMENTED "<PJRT_Name> is
// not implemented by the null plugin". `seam plugin check
// libseam_pjrt_null.so` passes every contract check and lists those capabilities as not
// implemented.
//
// It uses only the ABI header and the plugin kit (src/plugins/common): every slot goes
// through the kit's entry, which checks the Args struct's size and keeps C++ exceptions
// from crossing the ABI, so the functions below start with the real work.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/device.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/options.h"
#include "src/plugins/common/table.h"

// The ABI's opaque objects, as this plugin defines them (errors, events and device
// descriptions are the kit's).
struct PJRT_Device {
  PJRT_DeviceDescription description;
};

struct PJRT_Client {
  std::string platform_name = "null";
  std::string platform_version = "seam null plugin";
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
  device->description.kind = kPluginName;
  device->description.debug_string = "null:0";
  device->description.to_string = "NullDevice(id=0)";
  client->devices.push_back(device.get());
  client->owned_devices.push_back(std::move(device));
  args->client = client.release();
  return nullptr;
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;
  return nullptr;
}

// ---- The table

PJRT_Api MakeApi() {
  // Every slot starts as the kit's UNIMPLEMENTED stub; the error functions are the kit's.
  PJRT_Api api = plugin::NewApi<kPluginName>();
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Initialize, PluginInitialize);
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Attributes, PluginAttributes);
  plugin::SetEventFunctions(api);

  SEAM_PLUGIN_SET(api, PJRT_Client_Create, ClientCreate);
  SEAM_PLUGIN_SET(api, PJRT_Client_Destroy, ClientDestroy);
  // The client's device list and the devices' descriptions: the kit's functions.
  plugin::SetDeviceFunctions<PJRT_Client, PJRT_Device>(api);

  // Not implemented here (the kit's stubs stay): PJRT_Client_Compile,
  // PJRT_Client_BufferFromHostBuffer, PJRT_LoadedExecutable_*, PJRT_Executable_*,
  // PJRT_Buffer_*, PJRT_Memory_*, PJRT_Device_MemoryStats, PJRT_TopologyDescription_*, ...
  return api;
}

}  // namespace
}  // namespace seam::null_plugin

// The one exported symbol (seam_add_plugin's export map keeps every other one local).
extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static const PJRT_Api api = seam::null_plugin::MakeApi();
  return &api;
}
