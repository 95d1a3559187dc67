#include "src/ir/dtype.h"

namespace seam::ir {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kS32:
      return "s32";
    case DType::kF64:
      return "f64";
    case DType::kBF16:
      return "bf16";
    case DType::kS64:
      return "s64";
    case DType::kPred:
      return "pred";
  }
  return "invalid";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType dtype : kAllDTypeList) {
    if (DTypeName(dtype) == name) return dtype;
  }
  return std::nullopt;
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kF32:
    case DType::kS32:
      return 4;
    case DType::kF64:
    case DType::kS64:
      return 8;
    case DType::kBF16:
      return 2;
    case DType::kPred:
      return 1;
  }
  return 0;
}

bool IsFloat(DType dtype) { return Contains(kFloatDTypes, dtype); }

bool IsInteger(DType dtype) { return Contains(kIntegerDTypes, dtype); }

std::string DTypeSetToString(DTypeSet set) {
  std::string out;
  int remaining = 0;
  for (DType dtype : kAllDTypeList) remaining += Contains(set, dtype);
  for (DType dtype : kAllDTypeList) {
    if (!Contains(set, dtype)) continue;
    out += DTypeName(dtype);
    --remaining;
    if (remaining > 1) out += ", ";
    if (remaining == 1) out += " or ";
  }
  return out;
}

}  // namespace seam::ir
