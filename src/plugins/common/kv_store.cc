#include "src/plugins/common/kv_store.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "src/plugins/common/error.h"

namespace seam::plugin {
namespace {

// Takes ownership of a callback's error (one of the kit's, made by CallbackError).
absl::Status TakeCallbackError(PJRT_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  absl::Status status = error->status;
  PJRT_Error_Destroy_Args args{};
  args.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  args.error = error;
  ErrorDestroy(&args);
  return status;
}

// A value the callback allocated, freed with its deleter.
std::string TakeValue(char* value, size_t size, void (*deleter)(char*)) {
  std::string out = value != nullptr ? std::string(value, size) : std::string();
  if (value != nullptr && deleter != nullptr) deleter(value);
  return out;
}

}  // namespace

PJRT_Error* CallbackError(PJRT_Error_Code code, const char* message, size_t message_size) {
  const std::string_view text =
      message != nullptr ? std::string_view(message, message_size) : std::string_view();
  absl::StatusCode status_code = static_cast<absl::StatusCode>(code);
  if (status_code == absl::StatusCode::kOk) status_code = absl::StatusCode::kUnknown;
  return MakeError(absl::Status(status_code, absl::string_view(text.data(), text.size())));
}

absl::StatusOr<std::optional<KvStore>> KvStore::FromCreateArgs(
    const PJRT_Client_Create_Args& args) {
  // kv_try_get_callback and its user_arg came after the other fields: read them only when
  // the caller's struct has them.
  const bool has_try_get =
      args.struct_size >= PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, kv_try_get_user_arg);
  PJRT_KeyValueTryGetCallback try_get = has_try_get ? args.kv_try_get_callback : nullptr;
  void* try_get_arg = has_try_get ? args.kv_try_get_user_arg : nullptr;
  const int set =
      (args.kv_get_callback != nullptr) + (try_get != nullptr) + (args.kv_put_callback != nullptr);
  if (set == 0) return std::nullopt;
  if (set != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_Create: ", set,
        " of the 3 key-value callbacks are set (kv_get_callback, kv_put_callback and "
        "kv_try_get_callback come together)",
        has_try_get ? "" : "; the caller's PJRT_Client_Create_Args has no kv_try_get_callback"));
  }
  return std::optional<KvStore>(KvStore(args.kv_get_callback, args.kv_get_user_arg, try_get,
                                        try_get_arg, args.kv_put_callback, args.kv_put_user_arg));
}

absl::StatusOr<std::string> KvStore::Get(std::string_view key,
                                         std::chrono::milliseconds timeout) const {
  PJRT_KeyValueGetCallback_Args args{};
  args.struct_size = PJRT_KeyValueGetCallback_Args_STRUCT_SIZE;
  args.key = key.data();
  args.key_size = key.size();
  args.timeout_in_ms =
      static_cast<int>(std::min<int64_t>(timeout.count(), std::numeric_limits<int>::max()));
  PJRT_CallbackError callback_error = &CallbackError;  // the field points to a function pointer
  args.callback_error = &callback_error;
  args.user_arg = get_arg_;
  absl::Status status = TakeCallbackError(get_(&args));
  std::string value = TakeValue(args.value, args.value_size, args.value_deleter_callback);
  if (!status.ok()) return status;
  return value;
}

absl::StatusOr<std::string> KvStore::TryGet(std::string_view key) const {
  PJRT_KeyValueTryGetCallback_Args args{};
  args.struct_size = PJRT_KeyValueTryGetCallback_Args_STRUCT_SIZE;
  args.key = key.data();
  args.key_size = key.size();
  PJRT_CallbackError callback_error = &CallbackError;  // the field points to a function pointer
  args.callback_error = &callback_error;
  args.user_arg = try_get_arg_;
  absl::Status status = TakeCallbackError(try_get_(&args));
  std::string value = TakeValue(args.value, args.value_size, args.value_deleter_callback);
  if (!status.ok()) return status;
  return value;
}

absl::Status KvStore::Put(std::string_view key, std::string_view value) const {
  PJRT_KeyValuePutCallback_Args args{};
  args.struct_size = PJRT_KeyValuePutCallback_Args_STRUCT_SIZE;
  args.key = key.data();
  args.key_size = key.size();
  args.value = value.data();
  args.value_size = value.size();
  PJRT_CallbackError callback_error = &CallbackError;  // the field points to a function pointer
  args.callback_error = &callback_error;
  args.user_arg = put_arg_;
  return TakeCallbackError(put_(&args));
}

}  // namespace seam::plugin
