// Result-shape inference for every op of ops.def; the verifier and the builders use it.
#ifndef SEAM_IR_SHAPE_RULES_H_
#define SEAM_IR_SHAPE_RULES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/program.h"

namespace seam::ir {

// Computes the result shape of `inst` from its operand shapes and attributes. For leaf ops
// (parameter, constant) returns inst.shape after validating it (and, for a constant, that
// the literal matches it). Errors say what is wrong with which operand or attribute, e.g.
// "add: operand 1 has shape f32[3], expected f32[4] (operand 0)".
absl::StatusOr<Shape> InferShape(const Instruction& inst, const std::vector<Shape>& operand_shapes);

}  // namespace seam::ir

#endif  // SEAM_IR_SHAPE_RULES_H_
