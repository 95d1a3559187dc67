// The job's key-value store as the plugin's callbacks (PJRT_Client_Create_Args).
#include "src/runtime/pjrt/pjrt_computation_client_kv.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "src/base/logging.h"
#include "src/base/status_macros.h"

namespace seam::runtime {

namespace {

void FreeKvValue(char* value) { std::free(value); }

// A copy of `value` that the plugin frees with the deleter handed back with it.
absl::Status GiveKvValue(const std::string& value, char** out, size_t* out_size,
                         void (**deleter)(char*)) {
  auto* copy = static_cast<char*>(std::malloc(std::max<size_t>(value.size(), 1)));
  if (copy == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", value.size(), " bytes for a key-value store value"));
  }
  std::copy(value.begin(), value.end(), copy);  // bytes, not a C string
  *out = copy;
  *out_size = value.size();
  *deleter = &FreeKvValue;
  return absl::OkStatus();
}

// Runs `body` on the store of a callback's user arg; its error goes back through the
// plugin's own factory. Nothing is thrown across the ABI.
template <typename Args, typename Body>
PJRT_Error* RunKvCallback(Args* args, const char* name, size_t full_size, Body body) {
  if (args == nullptr ||
      args->struct_size < offsetof(Args, callback_error) + sizeof(args->callback_error) ||
      args->callback_error == nullptr || *args->callback_error == nullptr) {
    // Without the plugin's error factory no error can be returned.
    base::Log(base::LogSeverity::kError,
              absl::StrCat(name, " was called without its Args or callback_error; ignored"));
    return nullptr;
  }
  absl::Status status;
  if (args->struct_size < full_size) {
    status = absl::InvalidArgumentError(absl::StrCat("Unexpected ", name, " size: expected ",
                                                     full_size, ", got ", args->struct_size));
  } else if (args->user_arg == nullptr) {
    status = absl::InvalidArgumentError(absl::StrCat(
        name, ": user_arg is null (pass the kv_user_arg given to PJRT_Client_Create)"));
  } else {
    try {
      status = body(*static_cast<KvCallbackState*>(args->user_arg));
    } catch (const std::bad_alloc&) {
      status = absl::ResourceExhaustedError(absl::StrCat(name, ": out of memory"));
    } catch (const std::exception& e) {
      status = absl::InternalError(absl::StrCat(name, ": ", e.what()));
    }
  }
  if (status.ok()) return nullptr;
  const std::string message(status.message());
  // Upstream's field is a pointer to the plugin's factory function.
  return (*args->callback_error)(static_cast<PJRT_Error_Code>(status.code()), message.data(),
                                 message.size());
}

std::string PrefixedKey(const KvCallbackState& state, const char* key, size_t size) {
  std::string prefixed = state.prefix;
  if (key != nullptr) prefixed.append(key, size);
  return prefixed;
}

}  // namespace

PJRT_Error* KvGet(PJRT_KeyValueGetCallback_Args* args) {
  return RunKvCallback(
      args, "PJRT_KeyValueGetCallback_Args", PJRT_KeyValueGetCallback_Args_STRUCT_SIZE,
      [&](KvCallbackState& state) -> absl::Status {
        args->value = nullptr;
        args->value_size = 0;
        const auto timeout = std::chrono::milliseconds(std::max<int64_t>(args->timeout_in_ms, 0));
        SEAM_ASSIGN_OR_RETURN(
            std::string value,
            state.store->Get(PrefixedKey(state, args->key, args->key_size), timeout));
        return GiveKvValue(value, &args->value, &args->value_size, &args->value_deleter_callback);
      });
}

PJRT_Error* KvTryGet(PJRT_KeyValueTryGetCallback_Args* args) {
  return RunKvCallback(
      args, "PJRT_KeyValueTryGetCallback_Args", PJRT_KeyValueTryGetCallback_Args_STRUCT_SIZE,
      [&](KvCallbackState& state) -> absl::Status {
        args->value = nullptr;
        args->value_size = 0;
        SEAM_ASSIGN_OR_RETURN(std::string value,
                              state.store->TryGet(PrefixedKey(state, args->key, args->key_size)));
        return GiveKvValue(value, &args->value, &args->value_size, &args->value_deleter_callback);
      });
}

PJRT_Error* KvPut(PJRT_KeyValuePutCallback_Args* args) {
  return RunKvCallback(
      args, "PJRT_KeyValuePutCallback_Args", PJRT_KeyValuePutCallback_Args_STRUCT_SIZE,
      [&](KvCallbackState& state) -> absl::Status {
        return state.store->Put(
            PrefixedKey(state, args->key, args->key_size),
            std::string_view(args->value == nullptr ? "" : args->value, args->value_size));
      });
}

}  // namespace seam::runtime
