// How PJRT_DEVICE becomes a client: the registry of plugins by device name and the branch
// chain of PyTorch/XLA's pjrt_registry.cpp, with a record of what was decided.
#ifndef SEAM_RUNTIME_PJRT_PJRT_REGISTRY_H_
#define SEAM_RUNTIME_PJRT_PJRT_REGISTRY_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "src/runtime/client_registry.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/distributed/distributed_config.h"
#include "src/runtime/pjrt/plugin.h"
#include "src/runtime/pjrt/plugin_discovery.h"

namespace seam::runtime {

// What client selection did: for `seam info` and the tests. The PJRT client's factory
// (RegisterPjrtClientFactory) records its branch chain here; SEAM_CLIENT's choice and the
// remote client's address are in the ClientChoice it extends (client_registry.h).
struct ClientSelection : ClientChoice {
  std::string device_type;  // PJRT_DEVICE as read
  // Every environment variable read, in order, with its value (nullopt = unset).
  std::vector<std::pair<std::string, std::optional<std::string>>> env_read;
  std::string library_path;    // the plugin loaded, "" for the in-process CPU plugin
  std::string plugin_version;  // "<major>.<minor>" of the plugin used, when one was loaded
  // The job, when the branch read it (PJRT_DEVICE=CPU, or a plugin requiring the coordinator).
  std::optional<JobTopology> job;
  // With PJRT_DYNAMIC_PLUGINS on: the plugins found in PJRT_NAMES_AND_LIBRARY_PATHS and in
  // JAX's jax_plugins (plugin_discovery.h), whether or not one was chosen.
  std::vector<DiscoveredPlugin> discovered;
  std::string coordinator;       // "address:port" when a coordinator was asked for, else ""
  uint64_t job_incarnation = 0;  // once the coordinator is up
};

// Adds `plugin` to the registry under `name`; replaces an earlier one. (runtime.h's
// RegisterPlugin refuses it once the process's client exists.)
absl::Status AddPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin);

// The plugin registered under `name` (exact match), or null.
std::shared_ptr<const PjRtPlugin> FindPlugin(const std::string& name);

// Registers every plugin plugin_discovery.h finds whose name the program has not registered
// itself (a RegisterPjRtPlugin call wins); one found earlier under the same name is
// replaced. Returns the plugins found, for `seam info`. Client selection calls it when
// PJRT_DYNAMIC_PLUGINS is on.
absl::StatusOr<std::vector<DiscoveredPlugin>> RegisterDiscoveredPlugins(const EnvGetter& env);

// Registers the PJRT client's factory as "pjrt" (client_registry.h): its precheck refuses
// an unset or empty PJRT_DEVICE (kPjrtDeviceUnset); it creates the client with
// CreatePjrtClient, recording into a ClientSelection when the choice it is given is one.
absl::Status RegisterPjrtClientFactory();

// Reads PJRT_DEVICE (refusing unset or empty with kPjrtDeviceUnset) and runs the branch
// chain. `selection` (required) receives the record, on failure too. The job's
// coordinator (coordinator.h) is created, before the client, for a registered plugin that
// requires it and for PJRT_DEVICE=CPU when the world size is above 1; the CPU plugin then
// also receives the options process_index and process_count (docs/distributed.md).
absl::StatusOr<std::unique_ptr<ComputationClient>> CreatePjrtClient(ClientSelection* selection);

// The refusal of an unset or empty PJRT_DEVICE: the reference's exact message first, then
// how to fix it. There is no default device in the library.
inline constexpr char kPjrtDeviceUnset[] =
    "$PJRT_DEVICE is not set. Set PJRT_DEVICE=CPU to run on this machine's processors, or "
    "see docs/architecture.md (\"Choosing a device\") for the other devices.";

// Where the docs on registering a plugin are, quoted by the lookup-miss message.
inline constexpr char kRegisterPluginDocs[] =
    "See docs/plugins.md (\"Registering a plugin\") for how to register one.";

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PJRT_REGISTRY_H_
