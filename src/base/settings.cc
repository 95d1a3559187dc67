#include "src/base/settings.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/env.h"

namespace seam::base {
namespace {

struct Row {
  const char* names;
  const char* reader;
  const char* when;
  const char* meaning;
};

constexpr Row kRows[] = {
#define SEAM_SETTINGS_ROW(names, reader, when, meaning) {names, reader, when, meaning},
#define SEAM_SETTING(id, name)
#include "src/base/settings.def"
#undef SEAM_SETTING
#undef SEAM_SETTINGS_ROW
};

constexpr const char* kNames[] = {
#define SEAM_SETTINGS_ROW(names, reader, when, meaning)
#define SEAM_SETTING(id, name) name,
#include "src/base/settings.def"
#undef SEAM_SETTING
#undef SEAM_SETTINGS_ROW
};
static_assert(std::size(kNames) == static_cast<size_t>(Setting::kCount));

// Levenshtein distance, for the "did you mean" of a misspelt variable.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

const char* SettingName(Setting setting) { return kNames[static_cast<size_t>(setting)]; }

std::optional<std::string> ReadSetting(Setting setting) { return GetEnv(SettingName(setting)); }

absl::StatusOr<int64_t> ReadIntSetting(Setting setting, int64_t default_value) {
  return GetEnvInt(SettingName(setting), default_value);
}

bool IsDeclaredSetting(std::string_view name) {
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::string SettingsMarkdownTable() {
  std::string table =
      "| variable | read by | when | meaning |\n"
      "| --- | --- | --- | --- |\n";
  for (const Row& row : kRows) {
    absl::StrAppend(&table, "| ", row.names, " | ", row.reader, " | ", row.when, " | ", row.meaning,
                    " |\n");
  }
  return table;
}

std::vector<std::string> UnknownSeamVariables(char** environment) {
  std::vector<std::string> unknown;
  for (char** entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    if (!name.starts_with("SEAM_") || IsDeclaredSetting(name)) continue;
    const char* closest = nullptr;
    size_t best = 4;
    for (const char* declared : kNames) {
      if (!std::string_view(declared).starts_with("SEAM_")) continue;
      const size_t distance = EditDistance(name, declared);
      if (distance < best) {
        best = distance;
        closest = declared;
      }
    }
    std::string line(name);
    if (closest != nullptr) line += std::string(" (did you mean ") + closest + "?)";
    unknown.push_back(std::move(line));
  }
  std::sort(unknown.begin(), unknown.end());
  return unknown;
}

}  // namespace seam::base
