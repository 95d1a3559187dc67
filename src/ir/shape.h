// Shapes (element type + dimensions) and literals (a shape plus row-major host bytes).
#ifndef SEAM_IR_SHAPE_H_
#define SEAM_IR_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/dtype.h"

namespace seam::ir {

struct Shape {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;  // empty = scalar; every entry >= 0

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t num_elements() const;  // product of dims (1 for a scalar)
  size_t byte_size() const { return static_cast<size_t>(num_elements()) * DTypeSize(dtype); }
  std::string ToString() const;  // "f32[4,3]", "s32[]"
  bool operator==(const Shape& other) const = default;
};

// Checks that every dimension is >= 0 and that the element count and byte size fit in int64;
// zero dimensions are left out of the product, so that no stride can overflow either.
absl::Status ValidateShape(const Shape& shape);

// A host value: shape plus shape.byte_size() bytes in row-major order.
struct Literal {
  Shape shape;
  std::vector<uint8_t> bytes;

  static Literal FromF32(const std::vector<float>& values, std::vector<int64_t> dims);
  static Literal FromS32(const std::vector<int32_t>& values, std::vector<int64_t> dims);
  static Literal FromF64(const std::vector<double>& values, std::vector<int64_t> dims);
  static Literal FromS64(const std::vector<int64_t>& values, std::vector<int64_t> dims);
  // Each value rounded to the nearest bf16 (ties to even).
  static Literal FromBF16(const std::vector<float>& values, std::vector<int64_t> dims);
  static Literal FromPred(const std::vector<bool>& values, std::vector<int64_t> dims);
  static Literal ScalarF32(float value) { return FromF32({value}, {}); }

  const float* f32() const { return reinterpret_cast<const float*>(bytes.data()); }
  const int32_t* s32() const { return reinterpret_cast<const int32_t*>(bytes.data()); }
  bool operator==(const Literal& other) const = default;
};

}  // namespace seam::ir

#endif  // SEAM_IR_SHAPE_H_
