// The clients a process can choose with SEAM_CLIENT, by name. Each implementation of the
// seam registers a factory here (the PJRT client as "pjrt", the remote client as
// "remote"); the process's client (process/runtime.h) and `seam info` create theirs
// through it, so nothing above the implementations compares client names.
#ifndef SEAM_RUNTIME_CLIENT_REGISTRY_H_
#define SEAM_RUNTIME_CLIENT_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/runtime/computation_client.h"

namespace seam::runtime {

// SEAM_CLIENT's value when it is unset or empty.
inline constexpr char kDefaultClientKind[] = "pjrt";

// What client selection decided, for `seam info` and the tests. A client's factory may
// record more in a record of its own that extends this one (the PJRT client's
// ClientSelection, pjrt/pjrt_registry.h).
struct ClientChoice {
  ClientChoice() = default;
  ClientChoice(const ClientChoice&) = default;
  ClientChoice& operator=(const ClientChoice&) = default;
  virtual ~ClientChoice() = default;
  // SEAM_CLIENT's choice (a registered factory's name) and why ("SEAM_CLIENT unset", ...).
  std::string client = kDefaultClientKind;
  std::string client_reason;
  std::string remote_address;  // SEAM_REMOTE_ADDRESS as used, for the remote client
  // How the factory chose its devices: for the PJRT client "dynamic plugin", "CPU",
  // "TPU", "XPU", "NEURON" or "none"; "remote" for the remote client.
  std::string branch;
};

struct ClientFactory {
  std::string name;  // SEAM_CLIENT's value that picks it
  // How SEAM_CLIENT's refusal of an unknown value describes it, e.g. "devices of a `seam
  // serve` at SEAM_REMOTE_ADDRESS".
  std::string description;
  // Checks the process's client makes before its one initialization (runtime.h), so that
  // their error comes first (the PJRT client's refusal of an unset PJRT_DEVICE); may be
  // empty.
  std::function<absl::Status()> precheck;
  // Creates a client from the environment. `choice` is never null; the factory records
  // in it what it decided, on failure too.
  std::function<absl::StatusOr<std::unique_ptr<ComputationClient>>(ClientChoice* choice)> create;
};

// Adds `factory` under its name; replaces an earlier one of the same name (keeping its
// place in the order). InvalidArgument for an empty name or a factory without `create`.
absl::Status RegisterClientFactory(ClientFactory factory);

// The factory registered as `kind`, or null. Factories are never removed, so the pointer
// stays valid.
const ClientFactory* FindClientFactory(const std::string& kind);

// The registered names, in the order they were first registered.
std::vector<std::string> RegisteredClientKinds();

// SEAM_CLIENT: kDefaultClientKind when unset or empty, else a registered name;
// InvalidArgument naming the variable, every registered client and the value otherwise.
absl::StatusOr<std::string> ReadRegisteredClientKind();

// Reads SEAM_CLIENT, records the choice and its reason in `choice` (required) and creates
// the client with the factory chosen.
absl::StatusOr<std::unique_ptr<ComputationClient>> CreateRegisteredClient(ClientChoice* choice);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_CLIENT_REGISTRY_H_
