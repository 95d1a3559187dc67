// Errors a plugin returns through the ABI: the kit's PJRT_Error, the messages every plugin
// shares (struct sizes, null arguments, unimplemented functions) and the three error
// functions of the table.
#ifndef SEAM_PLUGINS_COMMON_ERROR_H_
#define SEAM_PLUGINS_COMMON_ERROR_H_

#include <cstddef>
#include <cstring>

#include "absl/status/status.h"
#include "seam/c/pjrt_c_api.h"

// A plugin error is an absl::Status. Errors made while memory ran out are preallocated
// (`is_static`) and PJRT_Error_Destroy leaves them alone.
struct PJRT_Error {
  absl::Status status;
  bool is_static = false;
};

namespace seam::plugin {

// Wraps a non-OK status for the caller (null for OK). Never throws: when even the error
// cannot be allocated, it returns a preallocated RESOURCE_EXHAUSTED error.
PJRT_Error* MakeError(absl::Status status) noexcept;

// The reference's per-call struct check (docs/abi.md): INVALID_ARGUMENT "Unexpected
// <struct_name> size: expected <needed>, got <actual>. Check installed software versions.
// The framework PJRT API version is <major>.<minor>." when actual < needed; OK otherwise
// (a larger struct comes from a newer caller).
absl::Status CheckStructSize(const char* struct_name, size_t needed, size_t actual);

// INVALID_ARGUMENT "<args_name> pointer is null".
PJRT_Error* NullArgsError(const char* args_name) noexcept;
// CheckStructSize's error, as a PJRT_Error.
PJRT_Error* StructSizeError(const char* struct_name, size_t needed, size_t actual) noexcept;
// The preallocated RESOURCE_EXHAUSTED error, for when nothing can be allocated.
PJRT_Error* OutOfMemoryError() noexcept;
// UNIMPLEMENTED "<function> is not implemented by this plugin".
PJRT_Error* UnimplementedError(const char* function) noexcept;
// UNIMPLEMENTED "<function> is not implemented by the <plugin> plugin" (the stubs' text).
PJRT_Error* UnimplementedError(const char* function, const char* plugin) noexcept;

// The int an enum field of an ABI struct holds, read without loading it as the enum type: a
// C caller may store any int there (PJRT_Buffer_Type 99), and C++ may not load a value
// outside the enum's range (UBSan's enum check). Compare or range-check the int first.
template <typename Enum>
int RawEnumValue(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int), "the ABI's enums are int-sized");
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

// The table's error functions: PJRT_Error_Destroy, PJRT_Error_Message, PJRT_Error_GetCode
// (the last one through Entry, which checks its Args).
void ErrorDestroy(PJRT_Error_Destroy_Args* args) noexcept;
void ErrorMessage(PJRT_Error_Message_Args* args) noexcept;
PJRT_Error* ErrorGetCode(PJRT_Error_GetCode_Args* args);

}  // namespace seam::plugin

// Returns INVALID_ARGUMENT "<function>: <field> is null" from the current function when
// `field` is null: SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->program).
#define SEAM_PLUGIN_CHECK_NOT_NULL(function, field)                      \
  do {                                                                   \
    if ((field) == nullptr) {                                            \
      return ::seam::plugin::MakeError(                                  \
          absl::InvalidArgumentError(#function ": " #field " is null")); \
    }                                                                    \
  } while (0)

// Returns the struct-size error from the current function when the struct `value` (of
// ABI type `type`, e.g. PJRT_Program) is smaller than this plugin reads.
#define SEAM_PLUGIN_CHECK_STRUCT(type, value)                                                 \
  do {                                                                                        \
    if ((value).struct_size < type##_STRUCT_SIZE) {                                           \
      return ::seam::plugin::StructSizeError(#type, type##_STRUCT_SIZE, (value).struct_size); \
    }                                                                                         \
  } while (0)

#endif  // SEAM_PLUGINS_COMMON_ERROR_H_
