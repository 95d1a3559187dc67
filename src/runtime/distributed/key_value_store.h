// The job's key-value store as the runtime sees it (the coordinator's client implements
// it). Keys and values are bytes. PjrtComputationClient hands a store to a plugin as the
// ABI's key-value callbacks, adding the job's key prefix to every key.
#ifndef SEAM_RUNTIME_DISTRIBUTED_KEY_VALUE_STORE_H_
#define SEAM_RUNTIME_DISTRIBUTED_KEY_VALUE_STORE_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace seam::runtime {

class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  // The value of `key`, waiting up to `timeout` for another process to set it:
  // DEADLINE_EXCEEDED when it is still unset then. Fails at once (ABORTED, naming the rank)
  // once the job has lost a process.
  virtual absl::StatusOr<std::string> Get(std::string_view key,
                                          std::chrono::milliseconds timeout) = 0;
  // The value of `key` now; NOT_FOUND when it is unset.
  virtual absl::StatusOr<std::string> TryGet(std::string_view key) = 0;
  // Sets `key`. A key is written once per job: ALREADY_EXISTS when it is set.
  virtual absl::Status Put(std::string_view key, std::string_view value) = 0;
};

// A store as a plugin receives it: every key the plugin passes is prefixed with
// `key_prefix` ("pjrt:<job incarnation>/"), so keys of another job are never read.
struct JobKeyValueStore {
  std::shared_ptr<KeyValueStore> store;
  std::string key_prefix;
};

// "pjrt:<incarnation as 16 hex digits>/".
std::string PluginKeyPrefix(uint64_t incarnation);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_KEY_VALUE_STORE_H_
