// The registry of environment variables (src/base/settings.def): every variable seam reads
// or sets, declared once with the row of docs/architecture.md's table that explains it.
// Each read site parses its own variable (its messages name the variable and the value);
// what the registry gives is the one list: the documentation table is generated from it,
// `seam info` reports SEAM_* variables it does not declare (a misspelt setting is never
// silently ignored), and scripts/check-settings.py fails on a variable read in src/ or
// tools/ that it does not declare. Thread-safe: everything here is constant data.
#ifndef SEAM_BASE_SETTINGS_H_
#define SEAM_BASE_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace seam::base {

enum class Setting : int {
#define SEAM_SETTINGS_ROW(names, reader, when, meaning)
#define SEAM_SETTING(id, name) id,
#include "src/base/settings.def"
#include "src/base/settings.h"
#undef SEAM_SETTING
#undef SEAM_SETTINGS_ROW
  kCount
};

// The variable's name ("SEAM_CPU_THREADS").
const char* SettingName(Setting setting);
// Its value, or nullopt when unset (set-but-empty is "").
std::optional<std::string> ReadSetting(Setting setting);
// Its value as a base-10 integer; `default_value` when unset or empty; anything else is
// InvalidArgument naming the variable and the value (base::GetEnvInt's rule).
absl::StatusOr<int64_t> ReadIntSetting(Setting setting, int64_t default_value);
// Whether `name` is declared.
bool IsDeclaredSetting(std::string_view name);

// docs/architecture.md's table: a header row, then one row per SEAM_SETTINGS_ROW, in the
// file's order, each ending in '\n'.
std::string SettingsMarkdownTable();

// The SEAM_* variables of `environment` (environ's form: "NAME=value" strings, null
// terminated) that no row declares, sorted, each as "NAME (did you mean CLOSEST?)" when a
// declared SEAM_* name is within 3 edits, else "NAME".
std::vector<std::string> UnknownSeamVariables(char** environment);

}  // namespace seam::base

#endif  // SEAM_BASE_SETTINGS_H_
