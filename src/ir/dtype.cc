#include "src/ir/dtype.h"

namespace seam::ir {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kS32:
      return "s32";
  }
  return "invalid";
}

std::optional<DType> ParseDType(std::string_view name) {
  if (name == "f32") return DType::kF32;
  if (name == "s32") return DType::kS32;
  return std::nullopt;
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return sizeof(float);
    case DType::kS32:
      return sizeof(int32_t);
  }
  return 0;
}

}  // namespace seam::ir
