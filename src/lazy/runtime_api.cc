// The public API over the runtime: plugin registration (include/seam/runtime.h; a public
// PjRtPlugin is handed to the runtime through an adapter, since nothing under the seam
// includes the public headers), the devices' memory figures, and wait_device_ops
// (include/seam/tensor.h).
#include "absl/strings/str_cat.h"
#include "seam/runtime.h"
#include "seam/tensor.h"
#include "src/lazy/runtime.h"
#include "src/runtime/process/runtime.h"

namespace seam {
namespace {

class PluginAdapter final : public runtime::PjRtPlugin {
 public:
  explicit PluginAdapter(std::shared_ptr<const seam::PjRtPlugin> plugin)
      : plugin_(std::move(plugin)) {}
  std::string library_path() const override { return plugin_->library_path(); }
  runtime::PluginOptions client_create_options() const override {
    seam::PluginOptions options = plugin_->client_create_options();
    return runtime::PluginOptions(options.begin(), options.end());
  }
  bool requires_xla_coordinator() const override { return plugin_->requires_xla_coordinator(); }

 private:
  std::shared_ptr<const seam::PjRtPlugin> plugin_;
};

[[noreturn]] void ThrowStatus(const absl::Status& status) {
  throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
}

}  // namespace

void RegisterPjRtPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin) {
  std::shared_ptr<const runtime::PjRtPlugin> adapted;
  if (plugin != nullptr) adapted = std::make_shared<PluginAdapter>(std::move(plugin));
  absl::Status status = runtime::RegisterPlugin(name, std::move(adapted));
  if (!status.ok()) ThrowStatus(status);
}

void wait_device_ops() {
  runtime::ComputationClient* client = lazy::CurrentRuntime().client_if_initialized();
  if (client == nullptr) return;
  for (const std::string& device : client->GetLocalDevices()) {
    absl::Status status = client->AwaitRunsInFlightBelow(device, 1);
    if (!status.ok()) ThrowStatus(status);
  }
}

MemoryStats memory_stats(int device) {
  absl::StatusOr<runtime::ComputationClient*> client = lazy::CurrentRuntime().client();
  if (!client.ok()) ThrowStatus(client.status());
  const std::vector<std::string> devices = (*client)->GetLocalDevices();
  if (device < 0 || static_cast<size_t>(device) >= devices.size()) {
    ThrowStatus(absl::InvalidArgumentError(
        absl::StrCat("memory_stats: device ", device, " is out of range: the process has ",
                     devices.size(), " local devices (0 to ", devices.size() - 1, ")")));
  }
  absl::StatusOr<runtime::ComputationClient::MemoryStats> stats =
      (*client)->GetMemoryStats(devices[static_cast<size_t>(device)]);
  if (!stats.ok()) ThrowStatus(stats.status());
  return MemoryStats{stats->bytes_in_use, stats->peak_bytes_in_use, stats->bytes_limit,
                     stats->pool_cached_bytes};
}

}  // namespace seam
