#include "src/plugins/reference/compile_options.h"

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace seam::reference {
namespace {

// Field numbers (upstream's xla.CompileOptionsProto and xla.ExecutableBuildOptionsProto).
constexpr uint64_t kExecutableBuildOptions = 3;
constexpr uint64_t kNumReplicas = 4;
constexpr uint64_t kNumPartitions = 5;
constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("failed to deserialize CompileOptionsProto (", what, ")"));
}

// A base-128 varint of at most 10 bytes at bytes[pos]; false when it runs past the end.
bool ReadVarint(absl::string_view bytes, size_t& pos, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= bytes.size()) return false;
    const auto byte = static_cast<uint8_t>(bytes[pos++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

struct Field {
  uint64_t number = 0;
  int wire_type = 0;
  uint64_t varint = 0;      // kVarint
  absl::string_view bytes;  // kLengthDelimited
};

// Calls `visit` for each field of `message` in order; the first malformed one is the error.
absl::Status ForEachField(absl::string_view message, absl::FunctionRef<void(const Field&)> visit) {
  size_t pos = 0;
  while (pos < message.size()) {
    uint64_t tag = 0;
    if (!ReadVarint(message, pos, tag)) return Malformed("a tag runs past the end");
    Field field;
    field.number = tag >> 3;
    field.wire_type = static_cast<int>(tag & 7);
    if (field.number == 0 || field.number > kMaxFieldNumber) {
      return Malformed(absl::StrCat("field number ", field.number));
    }
    const size_t left = message.size() - pos;
    switch (field.wire_type) {
      case kVarint:
        if (!ReadVarint(message, pos, field.varint)) {
          return Malformed(absl::StrCat("field ", field.number, " runs past the end"));
        }
        break;
      case kFixed64:
      case kFixed32: {
        const size_t size = field.wire_type == kFixed64 ? 8 : 4;
        if (left < size) return Malformed(absl::StrCat("field ", field.number, " is truncated"));
        pos += size;
        break;
      }
      case kLengthDelimited: {
        uint64_t length = 0;
        if (!ReadVarint(message, pos, length) || length > message.size() - pos) {
          return Malformed(absl::StrCat("field ", field.number, " is longer than the message"));
        }
        field.bytes = message.substr(pos, length);
        pos += length;
        break;
      }
      default:
        return Malformed(absl::StrCat("field ", field.number, " has wire type ", field.wire_type));
    }
    visit(field);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BuildOptions> ReadBuildOptions(absl::string_view bytes) {
  BuildOptions options;
  absl::Status inner = absl::OkStatus();
  absl::Status outer = ForEachField(bytes, [&](const Field& field) {
    // Of another wire type, it is an unknown field to protobuf too: skipped.
    if (field.number != kExecutableBuildOptions || field.wire_type != kLengthDelimited ||
        !inner.ok()) {
      return;
    }
    // A message field given twice is merged: its scalars take the last value.
    inner = ForEachField(field.bytes, [&](const Field& build) {
      if (build.wire_type != kVarint) return;
      if (build.number == kNumReplicas) options.num_replicas = static_cast<int64_t>(build.varint);
      if (build.number == kNumPartitions) {
        options.num_partitions = static_cast<int64_t>(build.varint);
      }
    });
  });
  if (!outer.ok()) return outer;
  if (!inner.ok()) return inner;
  return options;
}

}  // namespace seam::reference
