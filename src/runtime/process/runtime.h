// The per-process ComputationClient, chosen by PJRT_DEVICE.
#ifndef SEAM_RUNTIME_PROCESS_RUNTIME_H_
#define SEAM_RUNTIME_PROCESS_RUNTIME_H_

#include <memory>

#include "absl/status/statusor.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/pjrt/plugin.h"

namespace seam::runtime {

// Builds a new client from the environment. Checks SEAM_CLIENT (pjrt_registry.h) first;
// with SEAM_CLIENT=remote, PJRT_DEVICE is not needed. Otherwise checks PJRT_DEVICE first
// (FailedPrecondition "$PJRT_DEVICE is not set."); then refuses a second initialization in
// the process (FailedPrecondition "ComputationClient can only be initialized once.");
// then picks the client as pjrt_registry.h describes (include/seam/runtime.h lists the
// branches).
absl::StatusOr<std::unique_ptr<ComputationClient>> InitializeComputationClient();

// The process's client, initialized on first use. The outcome of that first
// initialization, success or error, is returned by every later call.
absl::StatusOr<ComputationClient*> GetComputationClient();

// The client if GetComputationClient() has built one, else null.
ComputationClient* GetComputationClientIfInitialized();

// Registers `plugin` under `name` for PJRT_DEVICE (pjrt_registry.h); replaces an earlier
// one. FailedPrecondition once the process's client exists (it could never be used).
absl::Status RegisterPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PROCESS_RUNTIME_H_
