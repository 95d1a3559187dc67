#include "src/lazy/runtime.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/settings.h"
#include "src/runtime/process/runtime.h"

namespace seam::lazy {
namespace {

std::atomic<Runtime*> g_current{nullptr};  // a ScopedRuntime's, else null

absl::StatusOr<bool> ReadEagerVariable() {
  std::optional<std::string> value = base::ReadSetting(base::Setting::kSeamEager);
  if (!value || value->empty() || *value == "0") return false;
  if (*value == "1") return true;
  return absl::InvalidArgumentError(
      absl::StrCat("Environment variable SEAM_EAGER must be 0 or 1, got '", *value, "'"));
}

}  // namespace

Runtime::Runtime(runtime::ComputationClient* client, size_t cache_capacity)
    : from_environment_(false),
      client_(client),
      cache_(std::make_unique<CompileCache>(cache_capacity)),
      eager_(0) {}

Runtime::Runtime() : from_environment_(true) {}

Runtime& Runtime::Process() {
  static Runtime* process = new Runtime();  // leaked on purpose, as the client is
  return *process;
}

absl::StatusOr<runtime::ComputationClient*> Runtime::client() {
  if (!from_environment_) return client_;
  return runtime::GetComputationClient();
}

runtime::ComputationClient* Runtime::client_if_initialized() const {
  return from_environment_ ? runtime::GetComputationClientIfInitialized() : client_;
}

absl::StatusOr<CompileCache*> Runtime::compile_cache() {
  if (!from_environment_) return cache_.get();
  return GetCompileCache();
}

absl::StatusOr<const std::vector<std::string>*> Runtime::default_device() {
  // Every eager op and step asks: after the first answer, one atomic load (libstdc++'s
  // call_once writes two thread-local pointers even when the flag is set, and a
  // thread-local access in a shared library is a call).
  if (!device_known_.load(std::memory_order_acquire)) {
    std::call_once(device_once_, [this] {
      absl::StatusOr<runtime::ComputationClient*> c = client();
      if (c.ok()) {
        default_device_.push_back((*c)->GetDefaultDevice());
      } else {
        device_status_ = c.status();
      }
      device_known_.store(true, std::memory_order_release);
    });
  }
  if (!device_status_.ok()) return device_status_;
  return &default_device_;
}

absl::StatusOr<bool> Runtime::eager() {
  const int state = eager_.load(std::memory_order_relaxed);
  if (state >= 0) return state == 1;
  absl::StatusOr<bool> enabled = ReadEagerVariable();
  if (!enabled.ok()) return enabled.status();
  int expected = -1;
  eager_.compare_exchange_strong(expected, *enabled ? 1 : 0);
  return eager_.load() == 1;
}

Runtime& CurrentRuntime() {
  Runtime* scoped = g_current.load(std::memory_order_acquire);
  return scoped != nullptr ? *scoped : Runtime::Process();
}

ScopedRuntime::ScopedRuntime(Runtime& runtime)
    : previous_(g_current.exchange(&runtime, std::memory_order_acq_rel)) {}

ScopedRuntime::~ScopedRuntime() { g_current.store(previous_, std::memory_order_release); }

}  // namespace seam::lazy
