// The job's key-value store as a plugin sees it: the callbacks the framework passes in
// PJRT_Client_Create_Args (minor 1.2), wrapped in absl::Status calls. A plugin that needs
// to find its peer processes (collectives across processes) keeps one with its client.
#ifndef SEAM_PLUGINS_COMMON_KV_STORE_H_
#define SEAM_PLUGINS_COMMON_KV_STORE_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "seam/c/pjrt_c_api.h"

namespace seam::plugin {

class KvStore {
 public:
  // The store in `args`, when the caller's struct has the 1.2 fields and they are set
  // (all three callbacks); nullopt otherwise (a single-process job, or a 1.1 caller).
  // INVALID_ARGUMENT when only some of the callbacks are set.
  static absl::StatusOr<std::optional<KvStore>> FromCreateArgs(const PJRT_Client_Create_Args& args);

  // The value of `key`, waiting up to `timeout` for it (DEADLINE_EXCEEDED after).
  absl::StatusOr<std::string> Get(std::string_view key, std::chrono::milliseconds timeout) const;
  // The value of `key` now (NOT_FOUND when it is not set).
  absl::StatusOr<std::string> TryGet(std::string_view key) const;
  absl::Status Put(std::string_view key, std::string_view value) const;

 private:
  KvStore(void* user_arg, PJRT_KeyValueGetCallback get, PJRT_KeyValueTryGetCallback try_get,
          PJRT_KeyValuePutCallback put)
      : user_arg_(user_arg), get_(get), try_get_(try_get), put_(put) {}

  void* user_arg_;
  PJRT_KeyValueGetCallback get_;
  PJRT_KeyValueTryGetCallback try_get_;
  PJRT_KeyValuePutCallback put_;
};

// The PJRT_CallbackError a plugin hands to the callbacks: the callback's error as the
// kit's PJRT_Error (freed by the kit with PJRT_Error_Destroy's logic).
PJRT_Error* CallbackError(PJRT_Error_Code code, const char* message, size_t message_size);

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_KV_STORE_H_
