#include "src/ir/verifier.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/ir/shape_rules.h"

namespace seam::ir {
namespace {

absl::Status InstructionError(int index, Op op, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("%", index, " (", std::string(OpName(op)), "): ", message));
}

// The shape rule has checked that the groups are well formed and disjoint; here they must
// also name only the program's replicas, and all of them.
absl::Status CheckReplicaGroups(const Instruction& inst, int64_t replica_count) {
  const std::vector<int64_t>& replicas = inst.attrs.at("replica_groups");
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i] >= replica_count) {
      return absl::InvalidArgumentError(
          absl::StrCat("replica_groups[", i, "]=", replicas[i],
                       " is out of range for replicas=", replica_count));
    }
  }
  if (static_cast<int64_t>(replicas.size()) != replica_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica_groups lists ", replicas.size(), " replicas, the program has ",
                     replica_count, " (every replica must be in exactly one group)"));
  }
  return absl::OkStatus();
}

absl::Status VerifyInstruction(const Program& program, int index,
                               std::vector<int>* parameter_owner) {
  const Instruction& inst = program.instructions[index];
  if (static_cast<int>(inst.op) >= kNumOps) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", index, ": invalid op ", static_cast<int>(inst.op)));
  }
  int arity = OpArity(inst.op);
  if (arity < 0 && inst.operands.empty()) {
    return InstructionError(index, inst.op, "has 0 operands, expected at least 1");
  }
  if (arity >= 0 && static_cast<int>(inst.operands.size()) != arity) {
    return InstructionError(
        index, inst.op, absl::StrCat("has ", inst.operands.size(), " operands, expected ", arity));
  }
  std::vector<Shape> operand_shapes;
  for (size_t i = 0; i < inst.operands.size(); ++i) {
    int operand = inst.operands[i];
    if (operand < 0 || operand >= index) {
      return InstructionError(
          index, inst.op,
          absl::StrCat("operand ", i, " refers to %", operand, ", which does not precede it"));
    }
    operand_shapes.push_back(program.instructions[operand].shape);
  }
  absl::StatusOr<Shape> inferred = InferShape(inst, operand_shapes);
  if (!inferred.ok()) {
    // Shape-rule messages start with the op name, which the prefix already gives.
    absl::string_view message = inferred.status().message();
    std::string op_prefix = absl::StrCat(std::string(OpName(inst.op)), ": ");
    if (absl::StartsWith(message, op_prefix)) message.remove_prefix(op_prefix.size());
    return InstructionError(index, inst.op, message);
  }
  if (*inferred != inst.shape) {
    return InstructionError(index, inst.op,
                            absl::StrCat("declared shape ", inst.shape.ToString(),
                                         " differs from inferred ", inferred->ToString()));
  }
  if (IsAllReduce(inst.op)) {
    absl::Status groups = CheckReplicaGroups(inst, program.replica_count);
    if (!groups.ok()) return InstructionError(index, inst.op, groups.message());
  }
  if (inst.op == Op::kParameter) {
    int64_t p = inst.parameter_index;
    if (p < 0 || p >= static_cast<int64_t>(parameter_owner->size())) {
      return InstructionError(index, inst.op,
                              absl::StrCat("parameter index ", p, " is out of range, program has ",
                                           parameter_owner->size(), " parameters"));
    }
    if ((*parameter_owner)[p] >= 0) {
      return InstructionError(
          index, inst.op,
          absl::StrCat("parameter index ", p, " is already used by %", (*parameter_owner)[p]));
    }
    (*parameter_owner)[p] = index;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyProgram(const Program& program) {
  int bad_instruction;
  return VerifyProgram(program, &bad_instruction);
}

absl::Status VerifyProgram(const Program& program, int* bad_instruction) {
  *bad_instruction = -1;
  if (program.replica_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica count is ", program.replica_count, ", must be >= 1"));
  }
  // n parameters with distinct indices in [0, n) are exactly 0..n-1.
  std::vector<int> parameter_owner(program.num_parameters(), -1);
  for (int i = 0; i < static_cast<int>(program.instructions.size()); ++i) {
    absl::Status status = VerifyInstruction(program, i, &parameter_owner);
    if (!status.ok()) {
      *bad_instruction = i;
      return status;
    }
  }
  if (program.results.empty()) return absl::InvalidArgumentError("result tuple is empty");
  for (size_t i = 0; i < program.results.size(); ++i) {
    int r = program.results[i];
    if (r < 0 || r >= static_cast<int>(program.instructions.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("result ", i, " refers to %", r, ", which does not exist (program has ",
                       program.instructions.size(), " instructions)"));
    }
  }
  int bad_alias;
  return VerifyAliases(program, &bad_alias);
}

absl::Status VerifyAliases(const Program& program, int* bad_alias) {
  *bad_alias = -1;
  const std::vector<Shape> parameters = program.ParameterShapes();
  const std::vector<Shape> outputs = program.ResultShapes();
  std::vector<int> output_owner(outputs.size(), -1);
  std::vector<int> parameter_owner(parameters.size(), -1);
  for (int a = 0; a < static_cast<int>(program.aliases.size()); ++a) {
    const Alias& alias = program.aliases[a];
    std::string name = absl::StrCat("alias output ", alias.output_index, " = parameter ",
                                    alias.parameter_index, ": ");
    auto fail = [&](const std::string& message) {
      *bad_alias = a;
      return absl::InvalidArgumentError(name + message);
    };
    if (alias.output_index < 0 || alias.output_index >= static_cast<int64_t>(outputs.size())) {
      return fail(absl::StrCat("the program has ", outputs.size(), " outputs"));
    }
    if (alias.parameter_index < 0 ||
        alias.parameter_index >= static_cast<int64_t>(parameters.size())) {
      return fail(absl::StrCat("the program has ", parameters.size(), " parameters"));
    }
    const Shape& out = outputs[alias.output_index];
    const Shape& param = parameters[alias.parameter_index];
    if (out != param) {
      return fail(absl::StrCat("output ", alias.output_index, " is ", out.ToString(),
                               ", parameter ", alias.parameter_index, " is ", param.ToString()));
    }
    int& out_owner = output_owner[alias.output_index];
    if (out_owner >= 0) {
      return fail(absl::StrCat("output ", alias.output_index, " is already aliased (to parameter ",
                               program.aliases[out_owner].parameter_index, ")"));
    }
    int& param_owner = parameter_owner[alias.parameter_index];
    if (param_owner >= 0) {
      return fail(absl::StrCat("parameter ", alias.parameter_index,
                               " is already aliased (to output ",
                               program.aliases[param_owner].output_index, ")"));
    }
    out_owner = a;
    param_owner = a;
  }
  return absl::OkStatus();
}

}  // namespace seam::ir
