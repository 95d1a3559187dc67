// The public API over the runtime: plugin registration (include/seam/runtime.h; a public
// PjRtPlugin is handed to the runtime through an adapter, since nothing under the seam
// includes the public headers) and wait_device_ops (include/seam/tensor.h).
#include "seam/runtime.h"
#include "seam/tensor.h"
#include "src/runtime/runtime.h"

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

}  // namespace

void RegisterPjRtPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin) {
  std::shared_ptr<const runtime::PjRtPlugin> adapted;
  if (plugin != nullptr) adapted = std::make_shared<PluginAdapter>(std::move(plugin));
  absl::Status status = runtime::RegisterPlugin(name, std::move(adapted));
  if (!status.ok())
    throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
}

void wait_device_ops() {
  runtime::ComputationClient* client = runtime::GetComputationClientIfInitialized();
  if (client == nullptr) return;
  for (const std::string& device : client->GetLocalDevices()) {
    absl::Status status = client->AwaitRunsInFlightBelow(device, 1);
    if (!status.ok()) {
      throw Error(static_cast<ErrorCode>(status.code()), std::string(status.message()));
    }
  }
}

}  // namespace seam
