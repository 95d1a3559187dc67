#include "src/checkpoint/safetensors.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace seam::checkpoint {
namespace {

using Json = nlohmann::json;

struct DTypeEntry {
  DType dtype;
  const char* name;
  int64_t size;
};

constexpr std::array<DTypeEntry, 13> kDTypes = {{
    {DType::kBool, "BOOL", 1},
    {DType::kU8, "U8", 1},
    {DType::kI8, "I8", 1},
    {DType::kU16, "U16", 2},
    {DType::kI16, "I16", 2},
    {DType::kF16, "F16", 2},
    {DType::kBF16, "BF16", 2},
    {DType::kU32, "U32", 4},
    {DType::kI32, "I32", 4},
    {DType::kF32, "F32", 4},
    {DType::kU64, "U64", 8},
    {DType::kI64, "I64", 8},
    {DType::kF64, "F64", 8},
}};

constexpr std::string_view kMetadataKey = "__metadata__";

// Every refusal of a header is DATA_LOSS: the file is malformed or truncated, not the
// caller's mistake.
absl::Status Malformed(const std::string& what) {
  return absl::DataLossError(absl::StrCat("safetensors header: ", what));
}

// A non-negative integer that fits int64 (JSON numbers may be negative, fractional or
// beyond 2^63).
bool AsCount(const Json& value, uint64_t* out) {
  if (!value.is_number_unsigned()) return false;
  *out = value.get<uint64_t>();
  return *out <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

absl::StatusOr<TensorInfo> ParseTensor(const std::string& name, const Json& entry) {
  if (!entry.is_object()) return Malformed(absl::StrCat("tensor '", name, "' is not an object"));
  for (const auto& [key, value] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      return Malformed(absl::StrCat("tensor '", name, "' has an unknown field '", key, "'"));
    }
  }
  if (!entry.contains("dtype") || !entry["dtype"].is_string()) {
    return Malformed(absl::StrCat("tensor '", name, "' has no dtype string"));
  }
  TensorInfo info;
  info.name = name;
  absl::StatusOr<DType> dtype = ParseDType(entry["dtype"].get<std::string>());
  if (!dtype.ok()) {
    return Malformed(absl::StrCat("tensor '", name, "': ", dtype.status().message()));
  }
  info.dtype = *dtype;
  if (!entry.contains("shape") || !entry["shape"].is_array()) {
    return Malformed(absl::StrCat("tensor '", name, "' has no shape array"));
  }
  uint64_t bytes = static_cast<uint64_t>(DTypeSize(info.dtype));
  for (const Json& dim : entry["shape"]) {
    uint64_t size = 0;
    if (!AsCount(dim, &size)) {
      return Malformed(absl::StrCat("tensor '", name, "' has a dimension that is not a ",
                                    "non-negative integer: ", dim.dump()));
    }
    if (__builtin_mul_overflow(bytes, size, &bytes) ||
        bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Malformed(absl::StrCat("tensor '", name, "' has shape ", entry["shape"].dump(),
                                    ": its byte size overflows 64 bits"));
    }
    info.shape.push_back(static_cast<int64_t>(size));
  }
  const Json* offsets = entry.contains("data_offsets") ? &entry["data_offsets"] : nullptr;
  if (offsets == nullptr || !offsets->is_array() || offsets->size() != 2 ||
      !AsCount((*offsets)[0], &info.begin) || !AsCount((*offsets)[1], &info.end) ||
      info.begin > info.end) {
    return Malformed(absl::StrCat("tensor '", name, "' needs data_offsets [begin, end] with ",
                                  "0 <= begin <= end, got ",
                                  offsets == nullptr ? "none" : offsets->dump()));
  }
  if (info.end - info.begin != bytes) {
    return Malformed(absl::StrCat("tensor '", name, "' (", DTypeName(info.dtype), " ",
                                  entry["shape"].dump(), ") needs ", bytes, " bytes but its ",
                                  "data_offsets ", offsets->dump(), " span ",
                                  info.end - info.begin));
  }
  return info;
}

absl::StatusOr<std::map<std::string, std::string>> ParseMetadata(const Json& value) {
  if (!value.is_object()) return Malformed("__metadata__ is not an object");
  std::map<std::string, std::string> metadata;
  for (const auto& [key, entry] : value.items()) {
    if (!entry.is_string()) {
      return Malformed(
          absl::StrCat("__metadata__ value of '", key, "' is not a string: ", entry.dump()));
    }
    metadata[key] = entry.get<std::string>();
  }
  return metadata;
}

// The tensors, sorted by offset, must tile [0, data_bytes) exactly.
absl::Status CheckLayout(std::vector<TensorInfo>& tensors, uint64_t data_bytes) {
  std::sort(tensors.begin(), tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t next = 0;
  for (const TensorInfo& t : tensors) {
    if (t.end > data_bytes) {
      return Malformed(absl::StrCat("tensor '", t.name, "' ends at byte ", t.end,
                                    " of a data section of ", data_bytes, " bytes"));
    }
    if (t.begin < next) {
      return Malformed(absl::StrCat("tensor '", t.name, "' [", t.begin, ", ", t.end,
                                    ") overlaps the tensor before it, which ends at ", next));
    }
    if (t.begin > next) {
      return Malformed(absl::StrCat("bytes [", next, ", ", t.begin, ") of the data section ",
                                    "belong to no tensor"));
    }
    next = t.end;
  }
  if (next != data_bytes) {
    return Malformed(absl::StrCat("bytes [", next, ", ", data_bytes, ") of the data section ",
                                  "belong to no tensor"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DType> ParseDType(std::string_view name) {
  for (const DTypeEntry& entry : kDTypes) {
    if (name == entry.name) return entry.dtype;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", std::string(name), "'"));
}

const char* DTypeName(DType dtype) {
  for (const DTypeEntry& entry : kDTypes) {
    if (entry.dtype == dtype) return entry.name;
  }
  return "?";
}

int64_t DTypeSize(DType dtype) {
  for (const DTypeEntry& entry : kDTypes) {
    if (entry.dtype == dtype) return entry.size;
  }
  return 1;
}

namespace {

absl::StatusOr<Header> ParseHeaderOrThrow(std::string_view text, uint64_t data_bytes) {
  // Duplicate names: the JSON library keeps the last, so they are caught while parsing.
  std::set<std::string> names;
  std::string duplicate;
  auto on_event = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!names.insert(key).second && duplicate.empty()) duplicate = key;
    }
    return true;
  };
  Json root;
  try {
    root = Json::parse(text.begin(), text.end(), on_event);
  } catch (const Json::parse_error& e) {
    return Malformed(absl::StrCat("not valid JSON (or not UTF-8): ", e.what()));
  } catch (const Json::exception& e) {  // e.g. a number too large for any JSON number type
    return Malformed(absl::StrCat("not valid JSON: ", e.what()));
  }
  if (!root.is_object()) return Malformed("not a JSON object");
  if (!duplicate.empty()) return Malformed(absl::StrCat("tensor '", duplicate, "' appears twice"));
  Header header;
  for (const auto& [name, entry] : root.items()) {
    if (name == kMetadataKey) {
      absl::StatusOr<std::map<std::string, std::string>> metadata = ParseMetadata(entry);
      if (!metadata.ok()) return metadata.status();
      header.metadata = *std::move(metadata);
      continue;
    }
    absl::StatusOr<TensorInfo> info = ParseTensor(name, entry);
    if (!info.ok()) return info.status();
    header.tensors.push_back(*std::move(info));
  }
  if (absl::Status layout = CheckLayout(header.tensors, data_bytes); !layout.ok()) return layout;
  return header;
}

}  // namespace

absl::StatusOr<Header> ParseHeader(std::string_view text, uint64_t data_bytes) {
  try {
    return ParseHeaderOrThrow(text, data_bytes);
  } catch (const Json::exception& e) {  // no input may escape as an exception
    return Malformed(absl::StrCat("cannot be read: ", e.what()));
  }
}

}  // namespace seam::checkpoint
