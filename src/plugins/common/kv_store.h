// The job's key-value store as a plugin sees it: the callbacks the framework passes in
// PJRT_Client_Create_Args (get, put and try-get, each with its own user_arg), wrapped in
// absl::Status calls. A plugin that needs
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
  // The store in `args`, when all three callbacks are set (kv_get_callback,
  // kv_put_callback, and kv_try_get_callback, which is read only when struct_size covers
  // it); nullopt when none is (a single-process job). INVALID_ARGUMENT when only some are.
  static absl::StatusOr<std::optional<KvStore>> FromCreateArgs(const PJRT_Client_Create_Args& args);

  // The value of `key`, waiting up to `timeout` for it (DEADLINE_EXCEEDED after).
  absl::StatusOr<std::string> Get(std::string_view key, std::chrono::milliseconds timeout) const;
  // The value of `key` now (NOT_FOUND when it is not set).
  absl::StatusOr<std::string> TryGet(std::string_view key) const;
  absl::Status Put(std::string_view key, std::string_view value) const;

 private:
  KvStore(PJRT_KeyValueGetCallback get, void* get_arg, PJRT_KeyValueTryGetCallback try_get,
          void* try_get_arg, PJRT_KeyValuePutCallback put, void* put_arg)
      : get_(get),
        get_arg_(get_arg),
        try_get_(try_get),
        try_get_arg_(try_get_arg),
        put_(put),
        put_arg_(put_arg) {}

  PJRT_KeyValueGetCallback get_;
  void* get_arg_;
  PJRT_KeyValueTryGetCallback try_get_;
  void* try_get_arg_;
  PJRT_KeyValuePutCallback put_;
  void* put_arg_;
};

// The PJRT_CallbackError a plugin hands to the callbacks: the callback's error as the
// kit's PJRT_Error (freed by the kit with PJRT_Error_Destroy's logic).
PJRT_Error* CallbackError(PJRT_Error_Code code, const char* message, size_t message_size);

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_KV_STORE_H_
