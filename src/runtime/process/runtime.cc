#include "src/runtime/process/runtime.h"

#include <atomic>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "src/runtime/client_registry.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/client_decorators.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "src/runtime/trace.h"

namespace seam::runtime {
namespace {

std::atomic<ComputationClient*> g_client{nullptr};

}  // namespace

void RegisterBuiltinClients() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Neither can fail: both names are non-empty and both have a create function.
    (void)RegisterPjrtClientFactory();
    (void)RegisterRemoteClientFactory();
  });
}

absl::StatusOr<std::string> ReadClientKind() {
  RegisterBuiltinClients();
  return ReadRegisteredClientKind();
}

absl::StatusOr<std::unique_ptr<ComputationClient>> CreateClientFromEnvironment(
    ClientSelection* selection) {
  RegisterBuiltinClients();
  ClientSelection scratch;
  return CreateRegisteredClient(selection != nullptr ? selection : &scratch);
}

absl::StatusOr<std::unique_ptr<ComputationClient>> InitializeComputationClient() {
  // SEAM_CLIENT first: a remote client's process needs no PJRT_DEVICE (its server reads it).
  absl::StatusOr<std::string> kind = ReadClientKind();
  if (!kind.ok()) return kind.status();
  if (const ClientFactory* factory = FindClientFactory(*kind);
      factory != nullptr && factory->precheck) {
    if (absl::Status ready = factory->precheck(); !ready.ok()) return ready;
  }
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) {
    return absl::FailedPreconditionError("ComputationClient can only be initialized once.");
  }
  return CreateClientFromEnvironment(nullptr);
}

absl::StatusOr<ComputationClient*> GetComputationClient() {
  // Leaked on purpose: device work may still be finishing while the process exits (the CPU
  // plugin drains its device threads in an exit handler, docs/architecture.md).
  static const absl::StatusOr<ComputationClient*>* outcome = [] {
    // SEAM_TRACE_TO: the trace starts with the client (its plugin joins it when created)
    // and is written at exit; a path that cannot be written fails the client's creation.
    if (absl::Status traced = trace::StartFromEnvironment(); !traced.ok()) {
      return new absl::StatusOr<ComputationClient*>(traced);
    }
    absl::StatusOr<std::unique_ptr<ComputationClient>> client = InitializeComputationClient();
    if (!client.ok()) return new absl::StatusOr<ComputationClient*>(client.status());
    // The job's decorators (client_decorators.h): job health, the tests' fault injection.
    std::unique_ptr<ComputationClient> decorated = DecorateForJob(*std::move(client));
    g_client.store(decorated.get());
    return new absl::StatusOr<ComputationClient*>(decorated.release());
  }();
  return *outcome;
}

ComputationClient* GetComputationClientIfInitialized() { return g_client.load(); }

absl::Status RegisterPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin) {
  if (plugin != nullptr && GetComputationClientIfInitialized() != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "RegisterPjRtPlugin('", name,
        "'): the ComputationClient already exists, so the plugin could never be used; register "
        "plugins before the first use of a device"));
  }
  return AddPlugin(name, std::move(plugin));
}

}  // namespace seam::runtime
