#include "tools/info_command.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/base/settings.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/pjrt/program_format.h"
#include "src/runtime/process/runtime.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "tools/option_value.h"

namespace seam::tools {

namespace {

// The selected plugin's attributes (PJRT_Plugin_Attributes): the CPU plugin's include the
// OpenBLAS core it runs and, when that core is generic, what to do about it.
void PrintAttributes(std::ostream& out, const runtime::ClientSelection& selection) {
  const PJRT_Api* api =
      selection.branch == "CPU"
          ? runtime::GetInProcessCpuPjrtApi()
          : runtime::PjrtApi(absl::AsciiStrToLower(selection.device_type)).value_or(nullptr);
  if (api == nullptr) return;
  absl::StatusOr<runtime::PluginOptions> attributes = runtime::GetPluginAttributes(api);
  if (!attributes.ok()) {
    out << "attributes    (" << attributes.status().message() << ")\n";
    return;
  }
  out << "attributes" << (attributes->empty() ? "    (none)" : "") << "\n";
  for (const auto& [name, value] : *attributes) {
    out << "  " << name << " = " << DescribeOptionValue(value) << "\n";
  }
  // What Compile sends this plugin: the choice the PJRT client makes at creation.
  absl::StatusOr<runtime::ProgramFormatChoice> format =
      runtime::ChooseProgramFormatFromEnvironment(*attributes, selection.device_type);
  out << "programs      "
      << (format.ok() ? runtime::DescribeProgramFormat(*format)
                      : absl::StrCat("(", format.status().message(), ")"))
      << "\n";
}

// The plugins found in PJRT_NAMES_AND_LIBRARY_PATHS and JAX's jax_plugins (dynamic plugins
// on), each with its PJRT version and, when the version rule accepts it, its attributes.
void PrintDiscovered(std::ostream& out, const runtime::ClientSelection& selection) {
  if (selection.discovered.empty()) return;
  out << "discovered    (PJRT_DYNAMIC_PLUGINS on: PJRT_NAMES_AND_LIBRARY_PATHS, jax_plugins)\n";
  for (const runtime::DiscoveredPlugin& plugin : selection.discovered) {
    const bool chosen = plugin.name == selection.device_type;
    out << "  " << plugin.name << "  " << plugin.library_path << "  (" << plugin.source << ")"
        << (chosen ? "  chosen: PJRT_DEVICE names it" : "") << "\n";
    if (!plugin.preload.empty()) {
      out << "    loads first: " << plugin.preload.size() << " NVIDIA libraries\n";
    }
    absl::StatusOr<const PJRT_Api*> api = runtime::OpenPjrtPluginTable(plugin.library_path);
    if (!api.ok()) {
      out << "    not loadable: " << api.status().message() << "\n";
      continue;
    }
    const runtime::PluginVersion version = runtime::GetPluginVersion(*api);
    absl::Status rule = runtime::CheckPluginVersion(version.major, version.minor,
                                                    runtime::IsPjrtCompatibilityEnabled());
    out << "    PJRT API " << version.major << "." << version.minor
        << (rule.ok() ? "" : absl::StrCat(", refused: ", rule.message())) << "\n";
    if (!rule.ok()) continue;
    absl::StatusOr<runtime::PluginOptions> attributes = runtime::GetPluginAttributes(*api);
    if (!attributes.ok()) continue;
    for (const auto& [name, value] : *attributes) {
      out << "    " << name << " = " << DescribeOptionValue(value) << "\n";
    }
  }
}

// Where this process stands in its job, when the branch read it.
void PrintJob(std::ostream& out, const runtime::ClientSelection& selection) {
  if (!selection.job.has_value()) return;
  const runtime::JobTopology& job = *selection.job;
  out << "job           rank " << job.rank << " of " << job.world_size << " (local rank "
      << job.local_rank << " of " << job.local_world_size << ")\n";
  if (selection.coordinator.empty()) {
    out << "coordinator   none (a single process)\n";
    return;
  }
  out << "coordinator   " << selection.coordinator
      << (job.rank == 0 ? " (hosted by this process)" : " (hosted by rank 0)");
  if (selection.job_incarnation != 0) {
    out << ", job incarnation " << absl::StrFormat("%016x", selection.job_incarnation);
  }
  out << "\n";
}

std::string Bytes(int64_t bytes) {
  return bytes < 0 ? "not reported" : absl::StrCat(bytes, " bytes");
}

// One device's memory figures, under its line.
void PrintMemory(std::ostream& out, const runtime::ComputationClient& client,
                 const std::string& device) {
  absl::StatusOr<runtime::ComputationClient::MemoryStats> stats = client.GetMemoryStats(device);
  if (!stats.ok()) {
    out << "    memory unavailable: " << stats.status().message() << "\n";
    return;
  }
  out << "    memory in use " << Bytes(stats->bytes_in_use) << ", peak "
      << Bytes(stats->peak_bytes_in_use) << ", limit " << Bytes(stats->bytes_limit)
      << ", pool cache " << Bytes(stats->pool_cached_bytes) << "\n";
}

// SEAM_* variables no row of the registry declares: a misspelt setting is named instead of
// silently doing nothing.
void PrintUnknownVariables(std::ostream& out) {
  const std::vector<std::string> unknown = base::UnknownSeamVariables(environ);
  if (unknown.empty()) return;
  out << "unknown       SEAM_* variables seam does not read (`seam info --variables` lists "
         "those it does):\n";
  for (const std::string& name : unknown) out << "  " << name << "\n";
}

}  // namespace

int PrintVariables(std::ostream& out) {
  out << base::SettingsMarkdownTable();
  return 0;
}

int PrintInfo(std::ostream& out, std::ostream& err, bool memory) {
  PrintUnknownVariables(out);
  runtime::ClientSelection selection;
  auto client = runtime::CreateClientFromEnvironment(&selection);
  out << "client        " << selection.client << " (" << selection.client_reason << ")\n";
  if (selection.client == runtime::kRemoteClientKind) {
    // The devices are the server's: its PJRT_DEVICE chose them.
    if (selection.remote_address.empty()) {
      out << "server        none: SEAM_REMOTE_ADDRESS is unset or malformed (below)\n";
    } else {
      out << "server        " << selection.remote_address
          << " (SEAM_REMOTE_ADDRESS; its PJRT_DEVICE chose the devices)\n";
    }
    if (!client.ok()) {
      err << "seam info: " << client.status().message() << "\n";
      return 1;
    }
    out << "platform      " << (*client)->GetPlatformName() << "\n";
    auto devices = (*client)->GetDeviceInfos();
    out << "devices       " << devices.size() << "\n";
    for (const auto& device : devices) {
      out << "  " << device.name << "  id " << device.id << "  kind " << device.kind << "\n";
      if (memory) PrintMemory(out, **client, device.name);
    }
    return 0;
  }
  out << "PJRT_DEVICE   " << (selection.device_type.empty() ? "(unset)" : selection.device_type)
      << "\n";
  out << "branch        " << selection.branch << "\n";
  out << "environment   (every variable read, in order)\n";
  for (const auto& [name, value] : selection.env_read) {
    out << "  " << name << " = " << (value.has_value() ? "'" + *value + "'" : "unset") << "\n";
  }
  if (!selection.plugin_version.empty()) {
    out << "plugin        "
        << (selection.library_path.empty() ? "in process (no shared library)"
                                           : selection.library_path)
        << ", PJRT API " << selection.plugin_version << "\n";
  }
  PrintDiscovered(out, selection);
  PrintJob(out, selection);
  if (!client.ok()) {
    err << "seam info: " << client.status().message() << "\n";
    return 1;
  }
  out << "platform      " << (*client)->GetPlatformName() << "\n";
  auto devices = (*client)->GetDeviceInfos();
  out << "devices       " << devices.size() << "\n";
  for (const auto& device : devices) {
    out << "  " << device.name << "  id " << device.id << "  kind " << device.kind << "\n";
    if (memory) PrintMemory(out, **client, device.name);
  }
  PrintAttributes(out, selection);
  return 0;
}

}  // namespace seam::tools
