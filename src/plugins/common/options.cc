#include "src/plugins/common/options.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/plugins/common/error.h"

namespace seam::plugin {
namespace {

const char* TypeName(PJRT_NamedValue_Type type) {
  switch (type) {
    case PJRT_NamedValue_kString:
      return "a string";
    case PJRT_NamedValue_kInt64:
      return "an int64";
    case PJRT_NamedValue_kInt64List:
      return "an int64 list";
    case PJRT_NamedValue_kFloat:
      return "a float";
    case PJRT_NamedValue_kBool:
      return "a bool";
  }
  return "an unknown";
}

absl::string_view NameOf(const PJRT_NamedValue& value) {
  return value.name == nullptr ? absl::string_view()
                               : absl::string_view(value.name, value.name_size);
}

absl::StatusOr<OptionValue> ValueOf(absl::string_view function, const PJRT_NamedValue& value) {
  // Parse has checked the type against the spec's: a valid enumerator.
  switch (static_cast<PJRT_NamedValue_Type>(RawEnumValue(value.type))) {
    case PJRT_NamedValue_kString:
      if (value.string_value == nullptr && value.value_size > 0) break;
      return value.value_size == 0 ? std::string()
                                   : std::string(value.string_value, value.value_size);
    case PJRT_NamedValue_kInt64:
      return value.int64_value;
    case PJRT_NamedValue_kInt64List:
      if (value.int64_array_value == nullptr && value.value_size > 0) break;
      return value.value_size == 0
                 ? std::vector<int64_t>()
                 : std::vector<int64_t>(value.int64_array_value,
                                        value.int64_array_value + value.value_size);
    case PJRT_NamedValue_kFloat:
      return value.float_value;
    case PJRT_NamedValue_kBool:
      return value.bool_value;
  }
  return absl::InvalidArgumentError(absl::StrCat(function, ": option '", NameOf(value),
                                                 "' has a null value of ", value.value_size,
                                                 " element(s)"));
}

}  // namespace

absl::StatusOr<Options> Options::Parse(absl::string_view function, absl::string_view kind,
                                       absl::string_view plugin, const PJRT_NamedValue* values,
                                       size_t count, std::initializer_list<OptionSpec> accepted) {
  Options options;
  if (count > 0 && values == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": ", count, " ", kind, "(s) given, but the list is null"));
  }
  for (size_t i = 0; i < count; ++i) {
    const PJRT_NamedValue& value = values[i];
    if (absl::Status s =
            CheckStructSize("PJRT_NamedValue", PJRT_NamedValue_STRUCT_SIZE, value.struct_size);
        !s.ok()) {
      return s;
    }
    absl::string_view name = NameOf(value);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& candidate : accepted) {
      if (candidate.name == name) spec = &candidate;
    }
    if (spec == nullptr) {
      std::vector<absl::string_view> names;
      for (const OptionSpec& candidate : accepted) names.push_back(candidate.name);
      return absl::InvalidArgumentError(absl::StrCat(
          function, ": unknown ", kind, " '", name, "' (the ", plugin, " plugin accepts",
          names.empty() ? " none" : absl::StrCat(": ", absl::StrJoin(names, ", ")), ")"));
    }
    if (RawEnumValue(value.type) != spec->type) {
      return absl::InvalidArgumentError(
          absl::StrCat(function, ": option '", name, "' must be ", TypeName(spec->type), " value"));
    }
    if (options.Find(name) != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(function, ": option '", name, "' is given twice"));
    }
    absl::StatusOr<OptionValue> parsed = ValueOf(function, value);
    if (!parsed.ok()) return parsed.status();
    options.values_.emplace_back(std::string(name), *std::move(parsed));
  }
  return options;
}

const OptionValue* Options::Find(absl::string_view name) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return &value;
  }
  return nullptr;
}

namespace {
template <typename T>
std::optional<T> Get(const OptionValue* value) {
  if (value == nullptr) return std::nullopt;
  if (const T* typed = std::get_if<T>(value)) return *typed;
  return std::nullopt;
}
}  // namespace

std::optional<int64_t> Options::Int64(absl::string_view name) const {
  return Get<int64_t>(Find(name));
}
std::optional<std::string> Options::String(absl::string_view name) const {
  return Get<std::string>(Find(name));
}
std::optional<bool> Options::Bool(absl::string_view name) const { return Get<bool>(Find(name)); }
std::optional<float> Options::Float(absl::string_view name) const { return Get<float>(Find(name)); }
std::optional<std::vector<int64_t>> Options::Int64List(absl::string_view name) const {
  return Get<std::vector<int64_t>>(Find(name));
}

PJRT_NamedValue& Attributes::Add(std::string name, PJRT_NamedValue_Type type) {
  Stored& stored = stored_.emplace_back();
  stored.name = std::move(name);
  PJRT_NamedValue& value = values_.emplace_back();
  value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  value.extension_start = nullptr;
  value.name = stored.name.data();
  value.name_size = stored.name.size();
  value.type = type;
  value.value_size = 1;
  return value;
}

Attributes& Attributes::String(std::string name, std::string text) {
  PJRT_NamedValue& value = Add(std::move(name), PJRT_NamedValue_kString);
  std::string& stored = stored_.back().text;
  stored = std::move(text);
  value.string_value = stored.data();
  value.value_size = stored.size();
  return *this;
}

Attributes& Attributes::Int64(std::string name, int64_t number) {
  Add(std::move(name), PJRT_NamedValue_kInt64).int64_value = number;
  return *this;
}

Attributes& Attributes::Int64List(std::string name, std::vector<int64_t> numbers) {
  PJRT_NamedValue& value = Add(std::move(name), PJRT_NamedValue_kInt64List);
  std::vector<int64_t>& stored = stored_.back().list;
  stored = std::move(numbers);
  value.int64_array_value = stored.data();
  value.value_size = stored.size();
  return *this;
}

Attributes& Attributes::Bool(std::string name, bool flag) {
  Add(std::move(name), PJRT_NamedValue_kBool).bool_value = flag;
  return *this;
}

Attributes& Attributes::Float(std::string name, float number) {
  Add(std::move(name), PJRT_NamedValue_kFloat).float_value = number;
  return *this;
}

}  // namespace seam::plugin
