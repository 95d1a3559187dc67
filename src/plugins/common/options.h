// Named values (PJRT_NamedValue): the options a caller passes to PJRT_Client_Create or
// PJRT_Client_Compile, read and checked in one place, and the attribute list a plugin
// returns from PJRT_Plugin_Attributes.
#ifndef SEAM_PLUGINS_COMMON_OPTIONS_H_
#define SEAM_PLUGINS_COMMON_OPTIONS_H_

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "seam/c/pjrt_c_api.h"

namespace seam::plugin {

// An option a plugin accepts: its name and the one type it must have.
struct OptionSpec {
  absl::string_view name;
  PJRT_NamedValue_Type type;
};

using OptionValue = std::variant<int64_t, std::string, bool, float, std::vector<int64_t>>;

class Options {
 public:
  // Reads values[0..count) for `function` ("PJRT_Client_Create"). Each entry must have a
  // PJRT_NamedValue's size, a name listed in `accepted`, that entry's type, and appear
  // once. Errors (INVALID_ARGUMENT) name the function and the option, e.g.
  //   PJRT_Client_Create: unknown client option 'x' (the cpu plugin accepts: a, b)
  //   PJRT_Client_Compile: unknown compile option 'x' (the cpu plugin accepts none)
  //   PJRT_Client_Create: option 'a' must be an int64 value
  // where `kind` is "client option" or "compile option" and `plugin` the plugin's name.
  static absl::StatusOr<Options> Parse(absl::string_view function, absl::string_view kind,
                                       absl::string_view plugin, const PJRT_NamedValue* values,
                                       size_t count, std::initializer_list<OptionSpec> accepted);

  // The value of an option, when the caller gave it (Parse checked its type).
  std::optional<int64_t> Int64(absl::string_view name) const;
  std::optional<std::string> String(absl::string_view name) const;
  std::optional<bool> Bool(absl::string_view name) const;
  std::optional<float> Float(absl::string_view name) const;
  std::optional<std::vector<int64_t>> Int64List(absl::string_view name) const;

 private:
  const OptionValue* Find(absl::string_view name) const;
  std::vector<std::pair<std::string, OptionValue>> values_;
};

// A plugin's attributes, built once and returned by PJRT_Plugin_Attributes:
//
//   static const Attributes* attributes = &(new Attributes())->String("name", "null");
//   args->attributes = attributes->data();
//   args->num_attributes = attributes->size();
class Attributes {
 public:
  Attributes() = default;
  // The entries point into the stored names and values: a copy would point into the
  // original's. Moving keeps them (a deque's and a vector's blocks move with them).
  Attributes(const Attributes&) = delete;
  Attributes& operator=(const Attributes&) = delete;
  Attributes(Attributes&&) = default;
  Attributes& operator=(Attributes&&) = default;

  Attributes& String(std::string name, std::string value);
  Attributes& Int64(std::string name, int64_t value);
  Attributes& Int64List(std::string name, std::vector<int64_t> values);
  Attributes& Bool(std::string name, bool value);
  Attributes& Float(std::string name, float value);

  // Valid while this object lives and nothing is added.
  const PJRT_NamedValue* data() const { return values_.data(); }
  size_t size() const { return values_.size(); }

 private:
  struct Stored {
    std::string name;
    std::string text;
    std::vector<int64_t> list;
  };
  PJRT_NamedValue& Add(std::string name, PJRT_NamedValue_Type type);
  std::deque<Stored> stored_;  // a deque never moves its elements: pointers into them stay
  std::vector<PJRT_NamedValue> values_;
};

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_OPTIONS_H_
