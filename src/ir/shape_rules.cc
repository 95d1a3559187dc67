#include "src/ir/shape_rules.h"

#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/base/status_macros.h"
#include "src/ir/shape_rules_internal.h"

namespace seam::ir {
namespace internal {

absl::Status Error(const Instruction& inst, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(std::string(OpName(inst.op)), ": ", message));
}

std::string Braced(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

absl::Status CheckAttributes(const Instruction& inst,
                             std::initializer_list<std::string_view> allowed) {
  // Runs for every recorded op of the lazy front end: no allocation on the good path.
  auto is_allowed = [&](const std::string& name) {
    for (std::string_view a : allowed) {
      if (a == name) return true;
    }
    return false;
  };
  for (const auto& [name, values] : inst.attrs) {
    if (!is_allowed(name)) return Error(inst, "unexpected attribute '" + name + "'");
  }
  if (inst.attrs.size() != allowed.size()) {
    for (std::string_view name : allowed) {
      if (inst.attrs.count(std::string(name)) == 0) {
        return Error(inst, "missing attribute '" + std::string(name) + "'");
      }
    }
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

absl::Status CheckOnePerDimension(const Instruction& inst, const std::string& attr,
                                  const Shape& operand, const std::string& what) {
  const std::vector<int64_t>& values = inst.attrs.at(attr);
  if (static_cast<int64_t>(values.size()) != operand.rank()) {
    return Error(inst, absl::StrCat(attr, "=", Braced(values), " has ", values.size(), " entries, ",
                                    what, " ", operand.ToString(), " has rank ", operand.rank()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SingleValue(const Instruction& inst, const std::string& attr) {
  const std::vector<int64_t>& values = inst.attrs.at(attr);
  if (values.size() != 1) {
    return Error(inst, absl::StrCat(attr, "=", Braced(values), " must have exactly one entry"));
  }
  return values[0];
}

absl::Status CheckValid(const Instruction& inst, const Shape& shape) {
  absl::Status valid = ValidateShape(shape);
  if (!valid.ok()) return Error(inst, std::string(valid.message()));
  return absl::OkStatus();
}

absl::StatusOr<Shape> ShapeRuleLeaf(const Instruction& inst, const std::vector<Shape>&) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  SEAM_RETURN_IF_ERROR(CheckValid(inst, inst.shape));
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
  // Only 0 and 1 print as false/true and read back to the same byte.
  if (inst.shape.dtype == DType::kPred) {
    for (size_t i = 0; i < inst.literal.bytes.size(); ++i) {
      if (inst.literal.bytes[i] > 1) {
        return Error(inst, absl::StrCat("pred value ", i, " is ", inst.literal.bytes[i],
                                        ", must be 0 or 1"));
      }
    }
  }
  return inst.shape;
}

absl::StatusOr<Shape> ShapeRuleIota(const Instruction& inst, const std::vector<Shape>&) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"dimension"}));
  SEAM_RETURN_IF_ERROR(CheckValid(inst, inst.shape));
  SEAM_ASSIGN_OR_RETURN(int64_t dimension, SingleValue(inst, "dimension"));
  if (dimension < 0 || dimension >= inst.shape.rank()) {
    return Error(inst, absl::StrCat("dimension=", dimension, " is out of range for result ",
                                    inst.shape.ToString(), " of rank ", inst.shape.rank()));
  }
  return inst.shape;
}

absl::StatusOr<Shape> ShapeRuleElementwiseUnary(const Instruction& inst,
                                                const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  return operands[0];
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

absl::StatusOr<Shape> ShapeRuleCompare(const Instruction& inst,
                                       const std::vector<Shape>& operands) {
  SEAM_ASSIGN_OR_RETURN(Shape same, ShapeRuleElementwiseBinary(inst, operands));
  return Shape{DType::kPred, same.dims};
}

absl::StatusOr<Shape> ShapeRuleSelect(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  Shape predicate{DType::kPred, operands[1].dims};
  if (operands[0] != predicate) {
    return Error(inst, absl::StrCat("operand 0 (the predicate) has shape ", operands[0].ToString(),
                                    ", expected ", predicate.ToString()));
  }
  if (operands[2] != operands[1]) {
    return Error(inst, absl::StrCat("operand 2 has shape ", operands[2].ToString(), ", expected ",
                                    operands[1].ToString(), " (operand 1)"));
  }
  return operands[1];
}

absl::StatusOr<Shape> ShapeRuleClamp(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  for (size_t k : {0, 2}) {
    if (operands[k] != operands[1]) {
      return Error(inst, absl::StrCat("operand ", k, " (the ", k == 0 ? "minimum" : "maximum",
                                      ") has shape ", operands[k].ToString(), ", expected ",
                                      operands[1].ToString(), " (operand 1)"));
    }
  }
  return operands[1];
}

absl::StatusOr<Shape> ShapeRuleConvert(const Instruction& inst,
                                       const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  // The target dtype is the declared one; the dimensions are the operand's.
  Shape result{inst.shape.dtype, operands[0].dims};
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
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

// The groups' structure only; that they cover exactly the program's replicas is checked by
// the verifier, which knows the replica count.
absl::StatusOr<Shape> ShapeRuleAllReduce(const Instruction& inst,
                                         const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"group_size", "replica_groups"}));
  SEAM_ASSIGN_OR_RETURN(int64_t group_size, SingleValue(inst, "group_size"));
  if (group_size < 1) return Error(inst, absl::StrCat("group_size=", group_size, " must be >= 1"));
  const std::vector<int64_t>& replicas = inst.attrs.at("replica_groups");
  if (replicas.size() % static_cast<uint64_t>(group_size) != 0) {
    return Error(inst, absl::StrCat("replica_groups has ", replicas.size(),
                                    " entries, not a multiple of group_size=", group_size));
  }
  std::set<int64_t> seen;
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i] < 0) {
      return Error(inst, absl::StrCat("replica_groups[", i, "]=", replicas[i], " is negative"));
    }
    if (!seen.insert(replicas[i]).second) {
      return Error(inst, absl::StrCat("replica ", replicas[i], " appears twice in replica_groups"));
    }
  }
  return operands[0];
}

}  // namespace internal

namespace {

using internal::Error;

// Fields that belong to leaf ops must stay at their defaults elsewhere, or printing (which
// omits them) would not round-trip and hashing would tell equal computations apart.
absl::Status CheckNoLeafFields(const Instruction& inst) {
  if (inst.parameter_index != -1) {
    return Error(inst, absl::StrCat("has parameter index ", inst.parameter_index));
  }
  if (inst.literal != Literal{}) return Error(inst, "has a literal value");
  return absl::OkStatus();
}

absl::Status CheckDTypes(const Instruction& inst, const std::vector<Shape>& operands) {
  DTypeSet accepted = OpDTypes(inst.op);
  // rng_bit_generator's row names its result's dtypes; its shape rule checks the operands.
  if (operands.empty() || inst.op == Op::kRngBitGenerator) {
    if (Contains(accepted, inst.shape.dtype)) return absl::OkStatus();
    return Error(inst,
                 absl::StrCat("result element type ", std::string(DTypeName(inst.shape.dtype)),
                              " is not one of ", DTypeSetToString(accepted)));
  }
  // select's predicate is always pred; its shape rule says so.
  size_t first = inst.op == Op::kSelect ? 1 : 0;
  // gather's and scatter's operand 1 holds indices; their shape rules check it.
  const bool indexed =
      inst.op == Op::kGather || inst.op == Op::kScatterAdd || inst.op == Op::kScatterReplace;
  for (size_t i = first; i < operands.size(); ++i) {
    if (indexed && i == 1) continue;
    if (!Contains(accepted, operands[i].dtype)) {
      return Error(inst, absl::StrCat("operand ", i, " has element type ",
                                      std::string(DTypeName(operands[i].dtype)), ", expected ",
                                      DTypeSetToString(accepted)));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferShape(const Instruction& inst,
                                 const std::vector<Shape>& operand_shapes) {
  if (static_cast<int>(inst.op) >= kNumOps) {
    return absl::InvalidArgumentError(absl::StrCat("invalid op ", static_cast<int>(inst.op)));
  }
  int arity = OpArity(inst.op);
  if (arity < 0 && operand_shapes.empty()) {
    return Error(inst, "has 0 operands, expected at least 1");
  }
  if (arity >= 0 && static_cast<int>(operand_shapes.size()) != arity) {
    return Error(inst, absl::StrCat("has ", operand_shapes.size(), " operands, expected ", arity));
  }
  for (size_t i = 0; i < operand_shapes.size(); ++i) {
    absl::Status valid = ValidateShape(operand_shapes[i]);
    if (!valid.ok()) return Error(inst, absl::StrCat("operand ", i, ": ", valid.message()));
  }
  if (inst.op != Op::kParameter && inst.op != Op::kConstant) {
    SEAM_RETURN_IF_ERROR(CheckNoLeafFields(inst));
  }
  SEAM_RETURN_IF_ERROR(CheckDTypes(inst, operand_shapes));
  switch (inst.op) {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) \
  case Op::name:                                                       \
    return internal::ShapeRule##rule(inst, operand_shapes);
#include "src/ir/ops.def"
#undef SEAM_IR_OP
  }
  return absl::InternalError("unreachable");
}

}  // namespace seam::ir
