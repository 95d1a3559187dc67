#include "src/runtime/client_registry.h"

#include <deque>
#include <mutex>
#include <optional>

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/settings.h"

namespace seam::runtime {
namespace {

struct Registry {
  std::mutex mu;
  std::deque<ClientFactory> factories;  // a deque: pointers handed out stay valid
};

Registry& Factories() {
  static auto* registry = new Registry();  // leaked: read until the process ends
  return *registry;
}

}  // namespace

absl::Status RegisterClientFactory(ClientFactory factory) {
  if (factory.name.empty() || !factory.create) {
    return absl::InvalidArgumentError(absl::StrCat("RegisterClientFactory('", factory.name,
                                                   "'): a client factory needs a name and a create "
                                                   "function"));
  }
  Registry& registry = Factories();
  std::lock_guard<std::mutex> lock(registry.mu);
  for (ClientFactory& existing : registry.factories) {
    if (existing.name == factory.name) {
      existing = std::move(factory);
      return absl::OkStatus();
    }
  }
  registry.factories.push_back(std::move(factory));
  return absl::OkStatus();
}

const ClientFactory* FindClientFactory(const std::string& kind) {
  Registry& registry = Factories();
  std::lock_guard<std::mutex> lock(registry.mu);
  for (const ClientFactory& factory : registry.factories) {
    if (factory.name == kind) return &factory;
  }
  return nullptr;
}

std::vector<std::string> RegisteredClientKinds() {
  Registry& registry = Factories();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<std::string> names;
  for (const ClientFactory& factory : registry.factories) names.push_back(factory.name);
  return names;
}

absl::StatusOr<std::string> ReadRegisteredClientKind() {
  const std::string kind = base::ReadSetting(base::Setting::kSeamClient).value_or("");
  if (kind.empty()) return std::string(kDefaultClientKind);
  if (FindClientFactory(kind) != nullptr) return kind;
  // "must be 'a' (...), 'b' (...) or 'c' (...)", in the order of registration.
  std::string choices;
  const std::vector<std::string> names = RegisteredClientKinds();
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) choices += i + 1 == names.size() ? " or " : ", ";
    absl::StrAppend(&choices, "'", names[i], "' (", FindClientFactory(names[i])->description, ")");
  }
  if (names.empty()) choices = "the name of a registered client (none is registered)";
  return absl::InvalidArgumentError(
      absl::StrCat("SEAM_CLIENT must be ", choices, ", got '", kind, "'"));
}

absl::StatusOr<std::unique_ptr<ComputationClient>> CreateRegisteredClient(ClientChoice* choice) {
  const std::optional<std::string> kind_set = base::ReadSetting(base::Setting::kSeamClient);
  const bool set = kind_set.has_value() && !kind_set->empty();
  choice->client_reason = set ? absl::StrCat("SEAM_CLIENT='", *kind_set, "'")
                              : std::string("SEAM_CLIENT unset: the default");
  choice->branch = "none";
  if (set) choice->client = *kind_set;
  absl::StatusOr<std::string> kind = ReadRegisteredClientKind();
  if (!kind.ok()) return kind.status();
  choice->client = *kind;
  const ClientFactory* factory = FindClientFactory(*kind);
  if (factory == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("SEAM_CLIENT chooses '", *kind,
                     "', but no client of that name is linked into this "
                     "program"));
  }
  return factory->create(choice);
}

}  // namespace seam::runtime
