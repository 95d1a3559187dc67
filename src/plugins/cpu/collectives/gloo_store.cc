#include "src/plugins/cpu/collectives/gloo_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace seam::cpu {

void GlooStore::set(const std::string& key, const std::vector<char>& data) {
  const std::string full = prefix_ + key;
  absl::Status status = store_.Put(full, std::string_view(data.data(), data.size()));
  if (!status.ok()) {
    throw GlooStoreError(absl::Status(
        status.code(), absl::StrCat("key-value store: put '", full, "': ", status.message())));
  }
}

std::vector<char> GlooStore::get(const std::string& key) {
  const std::string full = prefix_ + key;
  absl::StatusOr<std::string> value = store_.Get(full, timeout_);
  if (!value.ok()) {
    throw GlooStoreError(absl::Status(
        value.status().code(), absl::StrCat("key-value store: get '", full, "' (waited up to ",
                                            timeout_.count(), " ms): ", value.status().message())));
  }
  return std::vector<char>(value->begin(), value->end());
}

void GlooStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void GlooStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout;
  for (const std::string& key : keys) {
    const std::string full = prefix_ + key;
    const auto left =
        std::max(std::chrono::milliseconds(0),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    absl::StatusOr<std::string> value = store_.Get(full, left);
    if (!value.ok()) {
      throw GlooStoreError(
          absl::Status(value.status().code(),
                       absl::StrCat("key-value store: wait for '", full, "' (up to ",
                                    timeout.count(), " ms): ", value.status().message())));
    }
  }
}

}  // namespace seam::cpu
