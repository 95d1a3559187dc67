// Reading environment variables.
#ifndef SEAM_BASE_ENV_H_
#define SEAM_BASE_ENV_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace seam::base {

// The variable's value, or nullopt when it is unset (set-but-empty returns "").
std::optional<std::string> GetEnv(const char* name);

// The variable as a base-10 integer; `default_value` when unset or empty. A value that is
// not an integer is InvalidArgument naming the variable and the value.
absl::StatusOr<int64_t> GetEnvInt(const char* name, int64_t default_value);

}  // namespace seam::base

#endif  // SEAM_BASE_ENV_H_
