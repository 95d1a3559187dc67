#include "src/ir/shape_rules.h"

#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/base/status_macros.h"

namespace seam::ir {
namespace {

std::string Name(const Instruction& inst) { return std::string(OpName(inst.op)); }

absl::Status Error(const Instruction& inst, const std::string& message) {
  return absl::InvalidArgumentError(Name(inst) + ": " + message);
}

std::string Braced(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

// Every op lists the attributes it reads; any other attribute is a mistake of the producer.
absl::Status CheckAttributes(const Instruction& inst, const std::set<std::string>& allowed) {
  for (const auto& [name, values] : inst.attrs) {
    if (allowed.count(name) == 0) return Error(inst, "unexpected attribute '" + name + "'");
  }
  for (const std::string& name : allowed) {
    if (inst.attrs.count(name) == 0) return Error(inst, "missing attribute '" + name + "'");
  }
  return absl::OkStatus();
}

absl::Status CheckStrictlyIncreasing(const Instruction& inst, const std::string& attr) {
  const std::vector<int64_t>& values = inst.attrs.at(attr);
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i] <= values[i - 1]) {
      return Error(inst, absl::StrCat(attr, "=", Braced(values), " is not strictly increasing"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> ShapeRuleLeaf(const Instruction& inst, const std::vector<Shape>&) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  absl::Status valid = ValidateShape(inst.shape);
  if (!valid.ok()) return Error(inst, std::string(valid.message()));
  if (inst.op == Op::kParameter) {
    if (inst.literal != Literal{}) return Error(inst, "has a literal value");
    return inst.shape;
  }
  if (inst.parameter_index != -1) {
    return Error(inst, absl::StrCat("has parameter index ", inst.parameter_index));
  }
  if (inst.literal.shape != inst.shape) {
    return Error(inst, absl::StrCat("literal has shape ", inst.literal.shape.ToString(),
                                    ", declared shape is ", inst.shape.ToString()));
  }
  if (inst.literal.bytes.size() != inst.shape.byte_size()) {
    return Error(inst, absl::StrCat("literal has ", inst.literal.bytes.size(), " bytes, shape ",
                                    inst.shape.ToString(), " needs ", inst.shape.byte_size()));
  }
  return inst.shape;
}

absl::StatusOr<Shape> ShapeRuleElementwiseBinary(const Instruction& inst,
                                                 const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  if (operands[1] != operands[0]) {
    return Error(inst, absl::StrCat("operand 1 has shape ", operands[1].ToString(), ", expected ",
                                    operands[0].ToString(), " (operand 0)"));
  }
  return operands[0];
}

absl::StatusOr<Shape> ShapeRuleDot(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  const Shape& lhs = operands[0];
  const Shape& rhs = operands[1];
  const char* sides[] = {"lhs", "rhs"};
  for (int i = 0; i < 2; ++i) {
    if (operands[i].rank() != 2) {
      return Error(inst, absl::StrCat(sides[i], " ", operands[i].ToString(), " has rank ",
                                      operands[i].rank(), ", expected 2"));
    }
  }
  if (lhs.dtype != rhs.dtype) {
    return Error(inst, absl::StrCat("operand dtypes differ: lhs ", lhs.ToString(), ", rhs ",
                                    rhs.ToString()));
  }
  if (lhs.dims[1] != rhs.dims[0]) {
    return Error(inst, absl::StrCat("contracting dimensions differ: lhs ", lhs.ToString(), " has ",
                                    lhs.dims[1], ", rhs ", rhs.ToString(), " has ", rhs.dims[0]));
  }
  return Shape{lhs.dtype, {lhs.dims[0], rhs.dims[1]}};
}

absl::StatusOr<Shape> ShapeRuleBroadcastInDim(const Instruction& inst,
                                              const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"dims"}));
  const Shape& operand = operands[0];
  // The result dimensions come from the declaration; only the dtype is inherited.
  Shape result{operand.dtype, inst.shape.dims};
  absl::Status valid = ValidateShape(result);
  if (!valid.ok()) return Error(inst, std::string(valid.message()));
  const std::vector<int64_t>& dims = inst.attrs.at("dims");
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return Error(inst,
                 absl::StrCat("dims=", Braced(dims), " has ", dims.size(), " entries, operand ",
                              operand.ToString(), " has rank ", operand.rank()));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= result.rank()) {
      return Error(inst, absl::StrCat("dims[", i, "]=", dims[i], " is out of range for result ",
                                      result.ToString(), " of rank ", result.rank()));
    }
  }
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "dims"));
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t from = operand.dims[i];
    int64_t to = result.dims[dims[i]];
    if (from != to && from != 1) {
      return Error(inst, absl::StrCat("operand ", operand.ToString(), " dimension ", i, " (", from,
                                      ") cannot broadcast to result ", result.ToString(),
                                      " dimension ", dims[i], " (", to, ")"));
    }
  }
  return result;
}

absl::StatusOr<Shape> ShapeRuleReduce(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"axes"}));
  const Shape& operand = operands[0];
  const std::vector<int64_t>& axes = inst.attrs.at("axes");
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= operand.rank()) {
      return Error(inst, absl::StrCat("axes[", i, "]=", axes[i], " is out of range for operand ",
                                      operand.ToString(), " of rank ", operand.rank()));
    }
  }
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "axes"));
  Shape result{operand.dtype, {}};
  size_t next_axis = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (next_axis < axes.size() && axes[next_axis] == d) {
      ++next_axis;
    } else {
      result.dims.push_back(operand.dims[d]);
    }
  }
  return result;
}

// Fields that belong to leaf ops must stay at their defaults elsewhere, or printing (which
// omits them) would not round-trip and hashing would tell equal computations apart.
absl::Status CheckNoLeafFields(const Instruction& inst) {
  if (inst.parameter_index != -1) {
    return Error(inst, absl::StrCat("has parameter index ", inst.parameter_index));
  }
  if (inst.literal != Literal{}) return Error(inst, "has a literal value");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferShape(const Instruction& inst,
                                 const std::vector<Shape>& operand_shapes) {
  if (static_cast<int>(inst.op) >= kNumOps) {
    return absl::InvalidArgumentError(absl::StrCat("invalid op ", static_cast<int>(inst.op)));
  }
  if (static_cast<int>(operand_shapes.size()) != OpArity(inst.op)) {
    return Error(inst, absl::StrCat("has ", operand_shapes.size(), " operands, expected ",
                                    OpArity(inst.op)));
  }
  for (size_t i = 0; i < operand_shapes.size(); ++i) {
    absl::Status valid = ValidateShape(operand_shapes[i]);
    if (!valid.ok()) return Error(inst, absl::StrCat("operand ", i, ": ", valid.message()));
  }
  if (OpArity(inst.op) > 0) SEAM_RETURN_IF_ERROR(CheckNoLeafFields(inst));
  switch (inst.op) {
#define SEAM_IR_OP(name, text, arity, rule) \
  case Op::name:                            \
    return ShapeRule##rule(inst, operand_shapes);
#include "src/ir/ops.def"
#undef SEAM_IR_OP
  }
  return absl::InternalError("unreachable");
}

}  // namespace seam::ir
