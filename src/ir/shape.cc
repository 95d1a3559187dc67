#include "src/ir/shape.h"

#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/ir/bf16.h"

namespace seam::ir {

int64_t Shape::num_elements() const {
  // Unsigned arithmetic: an invalid (overflowing) shape must not be undefined behaviour.
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(n);
}

std::string Shape::ToString() const {
  std::string out(DTypeName(dtype));
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(dims[i]);
  }
  out += ']';
  return out;
}

absl::Status ValidateShape(const Shape& shape) {
  if (static_cast<int>(shape.dtype) >= kNumDTypes) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has invalid dtype ", static_cast<int>(shape.dtype)));
  }
  // Zero dimensions are skipped so that strides (products of the other dimensions) and the
  // byte size can never overflow either, even when the element count is 0.
  int64_t count = static_cast<int64_t>(DTypeSize(shape.dtype));
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    int64_t d = shape.dims[i];
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", shape.ToString(), ": dimension ", i, " is negative"));
    }
    if (d != 0 && __builtin_mul_overflow(count, d, &count)) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", shape.ToString(), ": size overflows int64"));
    }
  }
  return absl::OkStatus();
}

namespace {

template <typename T>
Literal FromValues(DType dtype, const std::vector<T>& values, std::vector<int64_t> dims) {
  Literal lit;
  lit.shape = Shape{dtype, std::move(dims)};
  lit.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(lit.bytes.data(), values.data(), lit.bytes.size());
  return lit;
}

}  // namespace

Literal Literal::FromF32(const std::vector<float>& values, std::vector<int64_t> dims) {
  return FromValues(DType::kF32, values, std::move(dims));
}

Literal Literal::FromS32(const std::vector<int32_t>& values, std::vector<int64_t> dims) {
  return FromValues(DType::kS32, values, std::move(dims));
}

Literal Literal::FromF64(const std::vector<double>& values, std::vector<int64_t> dims) {
  return FromValues(DType::kF64, values, std::move(dims));
}

Literal Literal::FromS64(const std::vector<int64_t>& values, std::vector<int64_t> dims) {
  return FromValues(DType::kS64, values, std::move(dims));
}

Literal Literal::FromBF16(const std::vector<float>& values, std::vector<int64_t> dims) {
  std::vector<uint16_t> rounded;
  rounded.reserve(values.size());
  for (float v : values) rounded.push_back(FloatToBF16(v));
  return FromValues(DType::kBF16, rounded, std::move(dims));
}

Literal Literal::FromPred(const std::vector<bool>& values, std::vector<int64_t> dims) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  return FromValues(DType::kPred, bytes, std::move(dims));
}

}  // namespace seam::ir
