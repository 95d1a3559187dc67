// The per-process ComputationClient, chosen by SEAM_CLIENT among the clients every seam_core
// program links (the PJRT client, chosen further by PJRT_DEVICE, and the remote client).
#ifndef SEAM_RUNTIME_PROCESS_RUNTIME_H_
#define SEAM_RUNTIME_PROCESS_RUNTIME_H_

#include <memory>

#include "absl/status/statusor.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/pjrt/pjrt_registry.h"

namespace seam::runtime {

// Registers the factories of the clients linked into every seam_core program with the
// client registry (client_registry.h): "pjrt" (the default; pjrt_registry.h) first, then
// "remote" (remote_computation_client.h). Once per process; every function below calls it.
void RegisterBuiltinClients();

// SEAM_CLIENT: "pjrt" when unset or empty, "pjrt" or "remote" as set (or the name of a
// client a program registered itself); InvalidArgument naming the variable and its value for
// anything else.
absl::StatusOr<std::string> ReadClientKind();

// The client SEAM_CLIENT chooses, created from the environment through its factory: with
// SEAM_CLIENT=remote a RemoteComputationClient (SEAM_REMOTE_ADDRESS,
// SEAM_REMOTE_TOKEN_FILE; PJRT_DEVICE is not read), otherwise the PJRT client as
// CreatePjrtClient (pjrt_registry.h) describes. `selection` (optional) receives the record,
// on failure too.
absl::StatusOr<std::unique_ptr<ComputationClient>> CreateClientFromEnvironment(
    ClientSelection* selection);

// Builds a new client from the environment. Checks SEAM_CLIENT first; then the chosen
// client's precheck (the PJRT client's: PJRT_DEVICE set, else FailedPrecondition
// "$PJRT_DEVICE is not set."; with SEAM_CLIENT=remote, PJRT_DEVICE is not needed); then
// refuses a second initialization in the process (FailedPrecondition "ComputationClient
// can only be initialized once."); then creates the client as CreateClientFromEnvironment
// does (include/seam/runtime.h lists the branches).
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
