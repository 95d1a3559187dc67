// Helpers shared by the shape-rule files; not part of the IR's interface.
#ifndef SEAM_IR_SHAPE_RULES_INTERNAL_H_
#define SEAM_IR_SHAPE_RULES_INTERNAL_H_

#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/program.h"

namespace seam::ir::internal {

// One declaration per rule named in ops.def (repeats are harmless redeclarations).
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) \
  absl::StatusOr<Shape> ShapeRule##rule(const Instruction& inst,       \
                                        const std::vector<Shape>& operands);
#include "src/ir/ops.def"
#undef SEAM_IR_OP

// InvalidArgument "<op>: <message>".
absl::Status Error(const Instruction& inst, const std::string& message);

std::string Braced(const std::vector<int64_t>& values);  // "{1,2}"

// Every op lists the attributes it reads; any other attribute is a mistake of the producer.
absl::Status CheckAttributes(const Instruction& inst,
                             std::initializer_list<std::string_view> allowed);

absl::Status CheckStrictlyIncreasing(const Instruction& inst, const std::string& attr);

// The attribute has exactly one entry per dimension of `operand` (named `what`).
absl::Status CheckOnePerDimension(const Instruction& inst, const std::string& attr,
                                  const Shape& operand, const std::string& what);

// The single value of a one-entry attribute such as "dimension".
absl::StatusOr<int64_t> SingleValue(const Instruction& inst, const std::string& attr);

// ValidateShape, reported as an error of `inst`.
absl::Status CheckValid(const Instruction& inst, const Shape& shape);

}  // namespace seam::ir::internal

#endif  // SEAM_IR_SHAPE_RULES_INTERNAL_H_
