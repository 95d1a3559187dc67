// Shape rules of the ops along one axis: argmax, argmin (result s64, the axis removed; the
// axis must not be empty) and cumsum (the operand's shape).
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

}  // namespace seam::ir::internal
