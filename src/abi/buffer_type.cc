#include "src/abi/buffer_type.h"

namespace seam::abi {
namespace {

struct Pair {
  ir::DType dtype;
  PJRT_Buffer_Type type;
};

constexpr Pair kPairs[] = {
    {ir::DType::kPred, PJRT_Buffer_Type_PRED}, {ir::DType::kS32, PJRT_Buffer_Type_S32},
    {ir::DType::kS64, PJRT_Buffer_Type_S64},   {ir::DType::kF32, PJRT_Buffer_Type_F32},
    {ir::DType::kF64, PJRT_Buffer_Type_F64},   {ir::DType::kBF16, PJRT_Buffer_Type_BF16},
};

}  // namespace

PJRT_Buffer_Type ToPjrtBufferType(ir::DType dtype) {
  for (const Pair& pair : kPairs) {
    if (pair.dtype == dtype) return pair.type;
  }
  return PJRT_Buffer_Type_INVALID;
}

std::optional<ir::DType> FromPjrtBufferType(PJRT_Buffer_Type type) {
  for (const Pair& pair : kPairs) {
    if (pair.type == type) return pair.dtype;
  }
  return std::nullopt;
}

}  // namespace seam::abi
