// What the runtime asks of a plugin registered by device name (PyTorch/XLA's
// PjRtPlugin), and the named values handed to a plugin when its client is created. The
// public API (include/seam/runtime.h) has its own copy of these types; the front end
// adapts one to the other, so nothing under the seam includes a public header.
#ifndef SEAM_RUNTIME_PJRT_PLUGIN_H_
#define SEAM_RUNTIME_PJRT_PLUGIN_H_

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace seam::runtime {

// A client-create option as a plugin receives it (a PJRT_NamedValue).
using PluginOptionValue = std::variant<int64_t, std::string, bool, float, std::vector<int64_t>>;
using PluginOptions = std::map<std::string, PluginOptionValue>;

class PjRtPlugin {
 public:
  virtual ~PjRtPlugin() = default;
  // Path of the shared library exporting GetPjrtApi (a bare name goes to the dynamic linker).
  virtual std::string library_path() const = 0;
  // Options for PJRT_Client_Create.
  virtual PluginOptions client_create_options() const { return {}; }
  // Whether the plugin needs the multi-process coordinator's key-value store.
  virtual bool requires_xla_coordinator() const { return false; }
  // seam's: runs just before the library is loaded (a plugin found in JAX's jax_plugins
  // loads the NVIDIA libraries it needs, plugin_discovery.h); an error stops the load.
  virtual absl::Status PrepareToLoad() const { return absl::OkStatus(); }
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PLUGIN_H_
