#include "src/runtime/runtime.h"

#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/status_macros.h"
#include "src/runtime/pjrt_api.h"
#include "src/runtime/pjrt_computation_client.h"

namespace seam::runtime {
namespace {

std::atomic<ComputationClient*> g_client{nullptr};

absl::StatusOr<std::unique_ptr<ComputationClient>> CreateClient(const std::string& device_type) {
  if (device_type == "CPU") {
    SEAM_ASSIGN_OR_RETURN(int64_t num_devices, base::GetEnvInt("CPU_NUM_DEVICES", 1));
    PluginOptions options{{"cpu_device_count", num_devices}};
    SEAM_ASSIGN_OR_RETURN(std::unique_ptr<PjrtComputationClient> client,
                          PjrtComputationClient::Create(GetInProcessCpuPjrtApi(), options));
    return std::unique_ptr<ComputationClient>(std::move(client));
  }
  return absl::InvalidArgumentError(absl::StrCat("Unknown PJRT_DEVICE: '", device_type, "'"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ComputationClient>> InitializeComputationClient() {
  std::string device_type = base::GetEnv("PJRT_DEVICE").value_or("");
  if (device_type.empty()) {
    return absl::FailedPreconditionError("$PJRT_DEVICE is not set.");
  }
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) {
    return absl::FailedPreconditionError("ComputationClient can only be initialized once.");
  }
  return CreateClient(device_type);
}

absl::StatusOr<ComputationClient*> GetComputationClient() {
  // Leaked on purpose: device work may still be finishing while the process exits.
  static const absl::StatusOr<ComputationClient*>* outcome = [] {
    absl::StatusOr<std::unique_ptr<ComputationClient>> client = InitializeComputationClient();
    if (!client.ok()) return new absl::StatusOr<ComputationClient*>(client.status());
    g_client.store(client->get());
    return new absl::StatusOr<ComputationClient*>(client->release());
  }();
  return *outcome;
}

ComputationClient* GetComputationClientIfInitialized() { return g_client.load(); }

}  // namespace seam::runtime
