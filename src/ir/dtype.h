// Element types of the IR and their properties.
#ifndef SEAM_IR_DTYPE_H_
#define SEAM_IR_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace seam::ir {

enum class DType : uint8_t {
  kF32,  // "f32", IEEE binary32
  kS32,  // "s32", two's complement int32
};

inline constexpr int kNumDTypes = 2;

std::string_view DTypeName(DType dtype);                 // "f32", "s32"
std::optional<DType> ParseDType(std::string_view name);  // inverse of DTypeName
size_t DTypeSize(DType dtype);                           // bytes per element

}  // namespace seam::ir

#endif  // SEAM_IR_DTYPE_H_
