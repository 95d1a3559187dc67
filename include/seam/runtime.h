// Choosing the device: the plugins PJRT_DEVICE can name, and registering your own.
//
// PJRT_DEVICE picks the client once per process, at the first use of a device, by exact
// (case-sensitive) name and in this order (docs/plugins.md has the details):
//   1. PJRT_DYNAMIC_PLUGINS on and PJRT_DEVICE != "CPU": a plugin registered under that
//      name (RegisterPjRtPlugin, or the built-in "LIBRARY" = $PJRT_LIBRARY_PATH);
//   2. "CPU": the CPU plugin inside this process, CPU_NUM_DEVICES devices;
//   3. "TPU": $TPU_LIBRARY_PATH, else $PTXLA_TPU_LIBRARY_PATH, else libtpu.so;
//   4. "XPU", "NEURON": $XPU_LIBRARY_PATH (libxpu.so), $NEURON_LIBRARY_PATH
//      (libneuronpjrt.so), built without the plugin's initialize, as PyTorch/XLA does;
//   5. anything else: "Unknown PJRT_DEVICE: '<value>'".
#ifndef SEAM_RUNTIME_H_
#define SEAM_RUNTIME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace seam {

// A named value handed to a plugin when its client is created.
using PluginOptionValue = std::variant<int64_t, std::string, bool, float, std::vector<int64_t>>;
using PluginOptions = std::map<std::string, PluginOptionValue>;

// What the framework asks a plugin before building its client.
class PjRtPlugin {
 public:
  virtual ~PjRtPlugin() = default;
  // Path of the shared library exporting GetPjrtApi (a bare name goes to the dynamic linker).
  virtual std::string library_path() const = 0;
  // Options for PJRT_Client_Create; e.g. the CPU plugin takes "cpu_device_count".
  virtual PluginOptions client_create_options() const { return {}; }
  // Whether the plugin needs the multi-process coordinator's key-value store.
  virtual bool requires_xla_coordinator() const { return false; }
};

// Registers `plugin` under `name` (a later registration of the same name replaces it).
// It is used when PJRT_DYNAMIC_PLUGINS is on and PJRT_DEVICE equals `name`. Throws
// seam::Error (FailedPrecondition) once the process's client exists: register first.
void RegisterPjRtPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin);

// One device's memory figures in bytes, as its plugin counts them (docs/cpu-plugin.md, "Memory
// figures", says what the CPU plugin counts). A figure the plugin does not report is -1.
struct MemoryStats {
  int64_t bytes_in_use = 0;        // device memory held for the device now
  int64_t peak_bytes_in_use = -1;  // the most held at once since the client was created
  int64_t bytes_limit = -1;        // what the plugin refuses to allocate beyond; -1: no limit
  int64_t pool_cached_bytes = -1;  // memory the plugin keeps for reuse, not in use
};

// The memory figures of local device `device` (0 to local_device_count() - 1, in the order
// of the client's devices: CPU:0, CPU:1, ...), read from the plugin now; starts the
// process's client if needed. Throws seam::Error: INVALID_ARGUMENT naming the index when
// there is no such device; UNIMPLEMENTED naming the plugin's ABI version when the plugin
// has no memory query (ABI minor 1 or 2); the client's error when it cannot start.
MemoryStats memory_stats(int device);

}  // namespace seam

#endif  // SEAM_RUNTIME_H_
