// The reference plugin's objects and the functions its table holds (reference_plugin.cc
// says what the plugin is). Every object lives in host memory; nothing runs in the
// background, so every event it hands out is ready when the call that made it returns.
#ifndef SEAM_PLUGINS_REFERENCE_REFERENCE_PLUGIN_H_
#define SEAM_PLUGINS_REFERENCE_REFERENCE_PLUGIN_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/ir/program.h"
#include "src/plugins/common/device.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/executable.h"

namespace seam::reference {

// A device's memory figures (PJRT_Device_MemoryStats): the bytes of the values held on it.
// Shared with every value it counts, so that a value outliving its client stays safe.
struct MemoryCounter {
  std::atomic<int64_t> in_use{0};
  std::atomic<int64_t> peak{0};
};

}  // namespace seam::reference

struct PJRT_Device {
  PJRT_DeviceDescription description;  // description.id: the device's index in the client
  PJRT_Client* client = nullptr;
  PJRT_Memory memory;                  // its one memory space (kind "device")
  std::vector<PJRT_Memory*> memories;  // {&memory}: what PJRT_Device_AddressableMemories lists
  std::shared_ptr<seam::reference::MemoryCounter> counter =
      std::make_shared<seam::reference::MemoryCounter>();
};

struct PJRT_Client {
  std::string platform_name = "reference";
  std::string platform_version = "seam reference plugin (the IR's reference evaluator)";
  std::vector<std::unique_ptr<PJRT_Device>> owned_devices;
  std::vector<PJRT_Device*> devices;               // every device, in id order
  std::vector<PJRT_Memory*> addressable_memories;  // one per device
};

// A value on a device: host bytes in the IR's dense row-major layout.
struct PJRT_Buffer {
  seam::ir::Shape shape;  // kept after Delete: dimensions and element type stay readable
  // Null once deleted or donated. Shared and never written: a copy to another device and
  // a run's arguments share it.
  std::shared_ptr<const seam::ir::Literal> value;
  PJRT_Device* device = nullptr;
  bool donated = false;  // deleted because a run took it (an input/output alias)
};

namespace seam::reference {

// What compiling a program leaves: the verified program and what PJRT_Executable answers.
struct Compiled {
  ir::Program program;
  std::vector<ir::Shape> parameter_shapes;
  std::vector<ir::Shape> result_shapes;
  // What PJRT_Executable_* report (the kit's queries); the fingerprint is a hex FNV-1a of
  // the program text as sent.
  plugin::ExecutableFacts facts;
};

}  // namespace seam::reference

struct PJRT_LoadedExecutable {
  std::shared_ptr<const seam::reference::Compiled> compiled;  // null after Delete
  PJRT_Client* client = nullptr;
  std::vector<PJRT_Device*> devices;  // the first replica_count devices of the client
};

// What PJRT_LoadedExecutable_GetExecutable hands out (the caller destroys it).
struct PJRT_Executable {
  std::shared_ptr<const seam::reference::Compiled> compiled;
};

namespace seam::reference {

inline constexpr char kPluginName[] = "reference";

// The IR dtype of a PJRT_Buffer_Type held as an int (plugin::RawEnumValue), nullopt for one
// the IR has no dtype for.
std::optional<ir::DType> DTypeOf(int type);

// `value` as the value of a buffer on `device`: its bytes count in the device's memory
// figures until the last reference to it goes.
std::shared_ptr<const ir::Literal> HoldOn(PJRT_Device& device, ir::Literal value);

// reference_plugin.cc: the plugin, the client and compiling.
PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* args);
PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args);
PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args);
PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args);
PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args);
PJRT_Error* ClientDefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args);

// reference_buffers.cc: buffers to and from the host, their properties and the memory
// figures.
void SetBufferFunctions(PJRT_Api& api);

// reference_execute.cc: executables and runs.
void SetExecuteFunctions(PJRT_Api& api);

}  // namespace seam::reference

#endif  // SEAM_PLUGINS_REFERENCE_REFERENCE_PLUGIN_H_
