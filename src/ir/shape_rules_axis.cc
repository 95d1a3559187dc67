// Shape rules of the ops along one axis: argmax, argmin (result s64, the axis removed; the
// axis must not be empty), cumsum (the operand's shape) and argsort (s64, the operand's
// dims); and of rng_bit_generator (its declared shape, s64 key and counter).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/shape_rules_internal.h"

namespace seam::ir::internal {
namespace {

absl::StatusOr<int64_t> Axis(const Instruction& inst, const Shape& operand) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"axis"}));
  SEAM_ASSIGN_OR_RETURN(int64_t axis, SingleValue(inst, "axis"));
  if (axis < 0 || axis >= operand.rank()) {
    return Error(inst, absl::StrCat("axis=", axis, " is out of range for operand ",
                                    operand.ToString(), " of rank ", operand.rank()));
  }
  return axis;
}

}  // namespace

absl::StatusOr<Shape> ShapeRuleArgReduce(const Instruction& inst,
                                         const std::vector<Shape>& operands) {
  const Shape& operand = operands[0];
  SEAM_ASSIGN_OR_RETURN(int64_t axis, Axis(inst, operand));
  if (operand.dims[axis] == 0) {
    return Error(inst, absl::StrCat("axis=", axis, " of operand ", operand.ToString(),
                                    " is empty: there is no index to return"));
  }
  Shape result{DType::kS64, {}};
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (d != axis) result.dims.push_back(operand.dims[d]);
  }
  return result;
}

absl::StatusOr<Shape> ShapeRuleCumsum(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(Axis(inst, operands[0]).status());
  return operands[0];
}

absl::StatusOr<Shape> ShapeRuleArgsort(const Instruction& inst,
                                       const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"axis", "descending"}));
  SEAM_ASSIGN_OR_RETURN(int64_t axis, SingleValue(inst, "axis"));
  if (axis < 0 || axis >= operands[0].rank()) {
    return Error(inst, absl::StrCat("axis=", axis, " is out of range for operand ",
                                    operands[0].ToString(), " of rank ", operands[0].rank()));
  }
  SEAM_ASSIGN_OR_RETURN(int64_t descending, SingleValue(inst, "descending"));
  if (descending != 0 && descending != 1) {
    return Error(inst, absl::StrCat("descending=", descending, " must be 0 or 1"));
  }
  return Shape{DType::kS64, operands[0].dims};
}

absl::StatusOr<Shape> ShapeRuleRngBitGenerator(const Instruction& inst,
                                               const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  SEAM_RETURN_IF_ERROR(CheckValid(inst, inst.shape));
  const Shape key{DType::kS64, {}}, counter{DType::kS64, {2}};
  if (operands[0] != key) {
    return Error(inst, absl::StrCat("key (operand 0) is ", operands[0].ToString(), ", expected ",
                                    key.ToString()));
  }
  if (operands[1] != counter) {
    return Error(inst, absl::StrCat("counter (operand 1) is ", operands[1].ToString(),
                                    ", expected ", counter.ToString()));
  }
  return inst.shape;
}

}  // namespace seam::ir::internal
