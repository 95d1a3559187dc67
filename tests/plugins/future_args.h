// A struct as a NEWER header would define it: PJRT_Client_Create_Args plus one field. The
// future-field test plugin reads the field only when the caller's struct_size covers it.
#ifndef SEAM_TESTS_PLUGINS_FUTURE_ARGS_H_
#define SEAM_TESTS_PLUGINS_FUTURE_ARGS_H_

#include <cstddef>
#include <cstdint>

#include "seam/c/pjrt_c_api.h"

struct FutureClientCreateArgs {
  PJRT_Client_Create_Args current;
  int64_t device_count_hint;  // added "later": the number of devices to create
};

inline constexpr size_t kFutureClientCreateArgsSize =
    offsetof(FutureClientCreateArgs, device_count_hint) + sizeof(int64_t);

#endif  // SEAM_TESTS_PLUGINS_FUTURE_ARGS_H_
