#include "src/plugins/common/error.h"

#include <new>
#include <utility>

#include "absl/strings/str_cat.h"

namespace seam::plugin {
namespace {

// Built when the library loads, while memory is plentiful, and never freed.
PJRT_Error& OutOfMemory() {
  static PJRT_Error* error = new PJRT_Error{
      absl::ResourceExhaustedError("out of host memory (not even the error's message fit)"),
      /*is_static=*/true};
  return *error;
}
[[maybe_unused]] const PJRT_Error& kBuiltAtLoad = OutOfMemory();

// Runs `make` (which may allocate) and wraps its status; an allocation failure on the way
// becomes the preallocated error.
template <typename Make>
PJRT_Error* Guarded(Make make) noexcept {
  try {
    return MakeError(make());
  } catch (...) {
    return &OutOfMemory();
  }
}

}  // namespace

PJRT_Error* MakeError(absl::Status status) noexcept {
  if (status.ok()) return nullptr;
  auto* error = new (std::nothrow) PJRT_Error{std::move(status)};
  return error != nullptr ? error : &OutOfMemory();
}

absl::Status CheckStructSize(const char* struct_name, size_t needed, size_t actual) {
  if (actual >= needed) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Unexpected ", struct_name, " size: expected ", needed, ", got ", actual,
                   ". Check installed software versions. The framework PJRT API version is ",
                   PJRT_API_MAJOR, ".", PJRT_API_MINOR, "."));
}

PJRT_Error* OutOfMemoryError() noexcept { return &OutOfMemory(); }

PJRT_Error* NullArgsError(const char* args_name) noexcept {
  return Guarded(
      [&] { return absl::InvalidArgumentError(absl::StrCat(args_name, " pointer is null")); });
}

PJRT_Error* StructSizeError(const char* struct_name, size_t needed, size_t actual) noexcept {
  return Guarded([&] { return CheckStructSize(struct_name, needed, actual); });
}

PJRT_Error* UnimplementedError(const char* function) noexcept {
  return Guarded([&] {
    return absl::UnimplementedError(absl::StrCat(function, " is not implemented by this plugin"));
  });
}

PJRT_Error* UnimplementedError(const char* function, const char* plugin) noexcept {
  return Guarded([&] {
    return absl::UnimplementedError(
        absl::StrCat(function, " is not implemented by the ", plugin, " plugin"));
  });
}

void ErrorDestroy(PJRT_Error_Destroy_Args* args) noexcept {
  // This function cannot report an error: a bad Args struct is ignored rather than read.
  if (args == nullptr || args->struct_size < PJRT_Error_Destroy_Args_STRUCT_SIZE) return;
  if (args->error != nullptr && !args->error->is_static) delete args->error;
}

void ErrorMessage(PJRT_Error_Message_Args* args) noexcept {
  if (args == nullptr || args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE) return;
  if (args->error == nullptr) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  absl::string_view message = args->error->status.message();
  args->message = message.data();
  args->message_size = message.size();
}

PJRT_Error* ErrorGetCode(PJRT_Error_GetCode_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Error_GetCode, args->error);
  args->code = static_cast<PJRT_Error_Code>(args->error->status.code());
  return nullptr;
}

}  // namespace seam::plugin
