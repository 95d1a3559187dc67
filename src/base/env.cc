#include "src/base/env.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace seam::base {

std::optional<std::string> GetEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

absl::StatusOr<int64_t> GetEnvInt(const char* name, int64_t default_value) {
  std::optional<std::string> value = GetEnv(name);
  if (!value.has_value() || value->empty()) return default_value;
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(*value, &parsed)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Environment variable ", name, " must be an integer, got '", *value, "'"));
  }
  return parsed;
}

}  // namespace seam::base
