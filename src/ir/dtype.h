// Element types of the IR and their properties.
#ifndef SEAM_IR_DTYPE_H_
#define SEAM_IR_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace seam::ir {

// New dtypes are appended: the enum value is part of the program hash encoding.
enum class DType : uint8_t {
  kF32,   // "f32", IEEE binary32
  kS32,   // "s32", two's complement int32
  kF64,   // "f64", IEEE binary64
  kBF16,  // "bf16", bfloat16 stored as uint16 (the upper half of an f32; see bf16.h)
  kS64,   // "s64", two's complement int64
  kPred,  // "pred", one byte: 0 = false, 1 = true
};

inline constexpr int kNumDTypes = 6;

// Every dtype in the order documentation and messages list them.
inline constexpr DType kAllDTypeList[] = {DType::kF32, DType::kF64, DType::kBF16,
                                          DType::kS32, DType::kS64, DType::kPred};

std::string_view DTypeName(DType dtype);                 // "f32", "bf16", "pred", ...
std::optional<DType> ParseDType(std::string_view name);  // inverse of DTypeName
size_t DTypeSize(DType dtype);                           // bytes per element

bool IsFloat(DType dtype);    // f32, f64, bf16
bool IsInteger(DType dtype);  // s32, s64 (not pred)

// A set of dtypes, one bit per DType value; ops.def states with one which dtypes an op
// computes on.
using DTypeSet = uint32_t;
constexpr DTypeSet DTypeBit(DType dtype) { return DTypeSet{1} << static_cast<int>(dtype); }
inline constexpr DTypeSet kFloatDTypes =
    DTypeBit(DType::kF32) | DTypeBit(DType::kF64) | DTypeBit(DType::kBF16);
inline constexpr DTypeSet kIntegerDTypes = DTypeBit(DType::kS32) | DTypeBit(DType::kS64);
inline constexpr DTypeSet kNumericDTypes = kFloatDTypes | kIntegerDTypes;
inline constexpr DTypeSet kLogicalDTypes = kIntegerDTypes | DTypeBit(DType::kPred);
inline constexpr DTypeSet kAllDTypes = kNumericDTypes | DTypeBit(DType::kPred);

inline bool Contains(DTypeSet set, DType dtype) {
  return static_cast<int>(dtype) < kNumDTypes && (set & DTypeBit(dtype)) != 0;
}
std::string DTypeSetToString(DTypeSet set);  // "f32, f64 or bf16"

}  // namespace seam::ir

#endif  // SEAM_IR_DTYPE_H_
