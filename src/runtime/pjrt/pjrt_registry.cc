#include "src/runtime/pjrt/pjrt_registry.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"
#include "src/runtime/distributed/coordinator.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"

namespace seam::runtime {
namespace {

// Reads environment variables and writes down each read.
class EnvReader {
 public:
  explicit EnvReader(ClientSelection* selection) : selection_(selection) {}

  std::optional<std::string> Get(const char* name) {
    std::optional<std::string> value = base::GetEnv(name);
    selection_->env_read.emplace_back(name, value);
    return value;
  }
  std::string GetOr(const char* name, const std::string& fallback) {
    std::optional<std::string> value = Get(name);
    return value.has_value() && !value->empty() ? *value : fallback;
  }
  // PyTorch/XLA's sys_util::GetEnvBool: "true" / "false", else a number (non-zero is true).
  bool GetBool(const char* name, bool fallback) {
    std::optional<std::string> value = Get(name);
    if (!value.has_value() || value->empty()) return fallback;
    if (*value == "true") return true;
    if (*value == "false") return false;
    return std::atoi(value->c_str()) != 0;
  }
  // For the readers of distributed_config.h; every read is recorded the same way.
  EnvGetter Getter() {
    return [this](const char* name) { return Get(name); };
  }

 private:
  ClientSelection* selection_;
};

// The built-in "LIBRARY" plugin: whatever PJRT_LIBRARY_PATH names, read when asked.
class LibraryPlugin : public PjRtPlugin {
 public:
  std::string library_path() const override {
    return base::ReadSetting(base::Setting::kPjrtLibraryPath).value_or("");
  }
};

struct PluginRegistry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const PjRtPlugin>> plugins{
      {"LIBRARY", std::make_shared<LibraryPlugin>()}};
};

PluginRegistry& Plugins() {
  static auto* registry = new PluginRegistry();
  return *registry;
}

// `job`: the job the client is a process of, when a coordinator was created for it.
absl::StatusOr<std::unique_ptr<ComputationClient>> Wrap(
    absl::StatusOr<std::unique_ptr<PjrtComputationClient>> client,
    const std::optional<JobTopology>& job = std::nullopt) {
  if (!client.ok()) return client.status();
  if (job.has_value()) (*client)->SetJob(job->rank, job->world_size);
  return std::unique_ptr<ComputationClient>(*std::move(client));
}

// Creates the process's coordinator (the job's variables read through `env`): the store a
// plugin receives.
absl::StatusOr<JobKeyValueStore> StartCoordinator(EnvReader& env, const JobTopology& topology,
                                                  ClientSelection* selection) {
  SEAM_ASSIGN_OR_RETURN(CoordinatorOptions options, ReadCoordinatorOptions(env.Getter()));
  selection->coordinator = options.Target();
  SEAM_ASSIGN_OR_RETURN(Coordinator * coordinator, InitializeCoordinator(topology, options));
  selection->job_incarnation = coordinator->incarnation();
  return coordinator->PluginStore();
}

// Load + (optionally) initialize + client, for the branches that use a shared library.
absl::StatusOr<std::unique_ptr<ComputationClient>> ClientFromLibrary(
    const std::string& device_type, const std::string& path, bool initialize,
    const PluginOptions& options, ClientSelection* selection,
    std::optional<JobKeyValueStore> store = std::nullopt) {
  selection->library_path = path;
  SEAM_ASSIGN_OR_RETURN(const PJRT_Api* api, LoadPjrtPlugin(device_type, path));
  PluginVersion version = GetPluginVersion(api);
  selection->plugin_version = absl::StrCat(version.major, ".", version.minor);
  // The version rule runs on every branch before any slot is called: a table of another
  // major version has another layout. XPU and NEURON skip only the plugin's initialize.
  SEAM_RETURN_IF_ERROR(initialize ? InitializePjrtPlugin(device_type)
                                  : CheckPjrtPluginVersion(device_type));
  std::optional<JobTopology> job;
  if (store.has_value()) job = selection->job;
  return Wrap(PjrtComputationClient::Create(api, options, std::move(store)), job);
}

absl::StatusOr<std::unique_ptr<ComputationClient>> DynamicPluginClient(
    const std::string& device_type, EnvReader& env, ClientSelection* selection) {
  selection->branch = "dynamic plugin";
  std::shared_ptr<const PjRtPlugin> plugin = FindPlugin(device_type);
  if (plugin == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "No PjRtPlugin registered for: ", device_type,
        ". Make sure the environment variable PJRT_DEVICE is set to a correct device name. ",
        kRegisterPluginDocs));
  }
  if (device_type == "LIBRARY") env.Get("PJRT_LIBRARY_PATH");  // what LibraryPlugin reads
  SEAM_RETURN_IF_ERROR(plugin->PrepareToLoad());
  std::string path = plugin->library_path();
  if (path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("PjRtPlugin '", device_type, "' has an empty library path",
                     device_type == "LIBRARY" ? " (set PJRT_LIBRARY_PATH)" : ""));
  }
  std::optional<JobKeyValueStore> store;
  if (plugin->requires_xla_coordinator()) {
    SEAM_ASSIGN_OR_RETURN(JobTopology topology, ReadJobTopology(env.Getter()));
    selection->job = topology;
    SEAM_ASSIGN_OR_RETURN(store, StartCoordinator(env, topology, selection));
  }
  return ClientFromLibrary(absl::AsciiStrToLower(device_type), path, /*initialize=*/true,
                           plugin->client_create_options(), selection, std::move(store));
}

absl::StatusOr<std::unique_ptr<ComputationClient>> CpuClient(EnvReader& env,
                                                             ClientSelection* selection) {
  selection->branch = "CPU";
  std::string count = env.GetOr("CPU_NUM_DEVICES", "1");
  int64_t devices = 0;
  if (!absl::SimpleAtoi(count, &devices)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Environment variable CPU_NUM_DEVICES must be an integer, got '", count, "'"));
  }
  const PJRT_Api* api = GetInProcessCpuPjrtApi();
  if (api == nullptr) {
    return absl::FailedPreconditionError(
        "PJRT_DEVICE=CPU: this program has no in-process CPU plugin (it links seam::core, "
        "libseam_core, only); link seam::seam (libseam), or load the CPU plugin's shared "
        "library libseam_pjrt_cpu.so with PJRT_DEVICE=LIBRARY, PJRT_DYNAMIC_PLUGINS=1 and "
        "PJRT_LIBRARY_PATH");
  }
  PluginVersion version = GetPluginVersion(api);
  selection->plugin_version = absl::StrCat(version.major, ".", version.minor);
  // Built from the same header, so it always passes; checked all the same, like every branch.
  SEAM_RETURN_IF_ERROR(
      CheckPluginVersion(version.major, version.minor, IsPjrtCompatibilityEnabled()));
  SEAM_RETURN_IF_ERROR(CheckPluginLayout(version.major, version.minor));
  // Single-process in PyTorch/XLA; here a job of several processes (world size above 1)
  // starts the coordinator and hands its store to the plugin (docs/architecture.md).
  SEAM_ASSIGN_OR_RETURN(JobTopology topology, ReadJobTopology(env.Getter()));
  selection->job = topology;
  PluginOptions options{{"cpu_device_count", devices}};
  std::optional<JobKeyValueStore> store;
  if (topology.world_size > 1) {
    SEAM_ASSIGN_OR_RETURN(store, StartCoordinator(env, topology, selection));
    options["process_index"] = int64_t{topology.rank};
    options["process_count"] = int64_t{topology.world_size};
    options["local_process_count"] = int64_t{topology.local_world_size};
  }
  std::optional<JobTopology> job;
  if (store.has_value()) job = topology;
  return Wrap(PjrtComputationClient::Create(api, options, std::move(store)), job);
}

absl::StatusOr<std::unique_ptr<ComputationClient>> SelectClient(const std::string& device_type,
                                                                EnvReader& env,
                                                                ClientSelection* selection) {
  if (env.GetBool("PJRT_DYNAMIC_PLUGINS", false) && device_type != "CPU") {
    // Vendors' plugins named in PJRT_NAMES_AND_LIBRARY_PATHS or installed with JAX join
    // the registry first (a plugin the program registered itself keeps its name). Their
    // variables are seam's, not the reference's chain's: not in the list of reads.
    SEAM_ASSIGN_OR_RETURN(selection->discovered, RegisterDiscoveredPlugins(ProcessEnv()));
    return DynamicPluginClient(device_type, env, selection);
  }
  if (device_type == "CPU") return CpuClient(env, selection);
  if (device_type == "TPU") {
    selection->branch = "TPU";
    // Read in order and only as far as needed; seam never writes TPU_LIBRARY_PATH.
    std::string path = env.GetOr("TPU_LIBRARY_PATH", "");
    if (path.empty()) path = env.GetOr("PTXLA_TPU_LIBRARY_PATH", "libtpu.so");
    return ClientFromLibrary("tpu", path, /*initialize=*/true, {}, selection);
  }
  if (device_type == "XPU" || device_type == "NEURON") {
    // As in PyTorch/XLA, these half-finished branches skip the plugin's initialize.
    selection->branch = device_type;
    std::string path = device_type == "XPU" ? env.GetOr("XPU_LIBRARY_PATH", "libxpu.so")
                                            : env.GetOr("NEURON_LIBRARY_PATH", "libneuronpjrt.so");
    return ClientFromLibrary(absl::AsciiStrToLower(device_type), path, /*initialize=*/false, {},
                             selection);
  }
  selection->branch = "none";
  return absl::InvalidArgumentError(absl::StrCat("Unknown PJRT_DEVICE: '", device_type, "'"));
}

}  // namespace

absl::Status AddPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin) {
  if (plugin == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("RegisterPjRtPlugin('", name, "'): plugin is null"));
  }
  PluginRegistry& registry = Plugins();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.plugins[name] = std::move(plugin);
  return absl::OkStatus();
}

std::shared_ptr<const PjRtPlugin> FindPlugin(const std::string& name) {
  PluginRegistry& registry = Plugins();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.plugins.find(name);
  return it == registry.plugins.end() ? nullptr : it->second;
}

absl::StatusOr<std::vector<DiscoveredPlugin>> RegisterDiscoveredPlugins(const EnvGetter& env) {
  SEAM_ASSIGN_OR_RETURN(std::vector<DiscoveredPlugin> plugins, DiscoverPlugins(env));
  // A job of several processes (or variables that say nothing sensible about it, which the
  // branch then reports) asks for the coordinator.
  absl::StatusOr<JobTopology> topology = ReadJobTopology(env);
  const bool multi_process = !topology.ok() || topology->world_size > 1;
  // The names this code registered, so that a later discovery replaces its own entries and
  // never one the program registered.
  static auto* mu = new std::mutex();
  static auto* ours = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(*mu);
  for (const DiscoveredPlugin& plugin : plugins) {
    if (FindPlugin(plugin.name) != nullptr && ours->count(plugin.name) == 0) continue;
    SEAM_RETURN_IF_ERROR(AddPlugin(plugin.name, AsPjRtPlugin(plugin, multi_process)));
    ours->insert(plugin.name);
  }
  return plugins;
}

absl::StatusOr<std::unique_ptr<ComputationClient>> CreatePjrtClient(ClientSelection* selection) {
  EnvReader env(selection);
  selection->device_type = env.Get("PJRT_DEVICE").value_or("");
  selection->branch = "none";
  if (selection->device_type.empty()) {
    return absl::FailedPreconditionError(kPjrtDeviceUnset);
  }
  return SelectClient(selection->device_type, env, selection);
}

absl::Status RegisterPjrtClientFactory() {
  ClientFactory factory;
  factory.name = "pjrt";
  factory.description = "the default: devices of this process, chosen by PJRT_DEVICE";
  factory.precheck = [] {
    if (base::ReadSetting(base::Setting::kPjrtDevice).value_or("").empty()) {
      return absl::FailedPreconditionError(kPjrtDeviceUnset);
    }
    return absl::OkStatus();
  };
  factory.create = [](ClientChoice* choice) -> absl::StatusOr<std::unique_ptr<ComputationClient>> {
    if (auto* selection = dynamic_cast<ClientSelection*>(choice))
      return CreatePjrtClient(selection);
    ClientSelection scratch;
    static_cast<ClientChoice&>(scratch) = *choice;
    absl::StatusOr<std::unique_ptr<ComputationClient>> client = CreatePjrtClient(&scratch);
    *choice = static_cast<const ClientChoice&>(scratch);
    return client;
  };
  return RegisterClientFactory(std::move(factory));
}

}  // namespace seam::runtime
