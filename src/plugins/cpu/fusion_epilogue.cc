#include "src/plugins/cpu/fusion_epilogue.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace seam::cpu {
namespace {

using ir::Op;

std::string EpilogueChoice() {
  const char* env = std::getenv(kEpilogueVariable);
  return env == nullptr ? "" : env;
}

// Whether value `z` is a broadcast of the f32 constant 0 (either sign).
bool IsZeroFill(const ir::Program& program, int z) {
  const ir::Instruction& fill = program.instructions[z];
  if (fill.op != Op::kBroadcastInDim) return false;
  const ir::Instruction& value = program.instructions[fill.operands[0]];
  return value.op == Op::kConstant && value.shape.dtype == ir::DType::kF32 &&
         value.shape.num_elements() == 1 && value.literal.f32()[0] == 0.0f;
}

// The other operand of binary instruction `i` when one of them is `v`, else -1.
int OtherOperand(const ir::Instruction& inst, int v) {
  if (inst.operands.size() != 2) return -1;
  if (inst.operands[0] == v) return inst.operands[1];
  if (inst.operands[1] == v) return inst.operands[0];
  return -1;
}

// The vector that value `bb` broadcasts along convolution `c`'s output feature dimension,
// or -1.
int BiasOf(const ir::Program& program, int bb, int c) {
  const ir::Instruction& broadcast = program.instructions[bb];
  if (broadcast.op != Op::kBroadcastInDim) return -1;
  const int b = broadcast.operands[0];
  const ir::Shape& bias = program.instructions[b].shape;
  const std::vector<int64_t> feature = program.instructions[c].attrs.at("output_feature_dim");
  if (bias.dtype != ir::DType::kF32 || bias.rank() != 1 || broadcast.attrs.at("dims") != feature) {
    return -1;
  }
  return b;
}

}  // namespace

absl::Status CheckEpilogueVariable() {
  const std::string choice = EpilogueChoice();
  if (choice.empty() || choice == "on" || choice == "off") return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: environment variable ",
                                                 kEpilogueVariable, " must be on or off, got '",
                                                 choice, "'"));
}

bool EpiloguesOn() { return EpilogueChoice() != "off"; }

ConvEpilogue MatchEpilogue(const ir::Program& program, const FusionPlan& plan, int s, int g) {
  const ConvEpilogue none;
  const int c = plan.steps[s].instruction;
  const FusionGroup& group = plan.groups[g];
  if (c < 0 || program.instructions[c].op != Op::kConvolution ||
      program.instructions[c].shape.dtype != ir::DType::kF32 || !group.reduces.empty() ||
      group.outputs.size() != 1 ||
      !std::binary_search(group.inputs.begin(), group.inputs.end(), c)) {
    return none;
  }
  // c is read by the group's members alone, and is no result.
  if (std::find(program.results.begin(), program.results.end(), c) != program.results.end()) {
    return none;
  }
  for (int i = c + 1; i < static_cast<int>(program.instructions.size()); ++i) {
    const std::vector<int>& operands = program.instructions[i].operands;
    const bool reads = std::find(operands.begin(), operands.end(), c) != operands.end();
    if (reads && plan.needed[i] && plan.group_of[i] != g) return none;
  }
  ConvEpilogue e;
  e.conv = c;
  e.output = group.outputs[0];
  std::vector<int> used;  // the members the form accounts for
  int v = e.output;
  if (program.instructions[v].op == Op::kMaximum) {
    const ir::Instruction& max = program.instructions[v];
    const int zero = IsZeroFill(program, max.operands[1])   ? max.operands[1]
                     : IsZeroFill(program, max.operands[0]) ? max.operands[0]
                                                            : -1;
    if (zero < 0) return none;
    e.relu = true;
    used.insert(used.end(), {v, zero});
    v = OtherOperand(max, zero);
  }
  // Then adds down to c: at most one of a bias (a member broadcast of a per-feature
  // vector) and one of a residual (a tensor of c's shape read from memory), in any order.
  auto member = [&](int m) {
    return std::binary_search(group.members.begin(), group.members.end(), m);
  };
  while (v != c) {
    const ir::Instruction& add = program.instructions[v];
    if (add.op != Op::kAdd || !member(v)) return none;
    // The operand on the way to c: c itself, else the one that is another add of the group.
    auto towards_c = [&](int o) {
      return o == c || (member(o) && program.instructions[o].op == Op::kAdd);
    };
    const int k =
        add.operands[0] == c || (add.operands[1] != c && towards_c(add.operands[0])) ? 0 : 1;
    const int next = add.operands[k], other = add.operands[1 - k];
    if (!towards_c(next) || (other != c && towards_c(other))) return none;
    const int bias = member(other) ? BiasOf(program, other, c) : -1;
    if (bias >= 0 && e.bias < 0) {
      e.bias = bias;
      used.insert(used.end(), {v, other});
    } else if (!member(other) && other != c && e.residual < 0 &&
               program.instructions[other].shape == program.instructions[c].shape) {
      e.residual = other;
      used.push_back(v);
    } else {
      return none;
    }
    v = next;
  }
  // Nothing else in the group (a guard: with one output, every member lies on the path
  // walked above while groups hold one element count), and its inputs (the bias, the
  // residual) ready before the convolution.
  for (int m : group.members) {
    if (std::find(used.begin(), used.end(), m) == used.end()) return none;
  }
  for (int in : group.inputs) {
    if (in != c && plan.step_of[in] >= s) return none;
  }
  return e;
}

void AttachEpilogues(const ir::Program& program, FusionPlan* plan,
                     absl::FunctionRef<bool(const ConvEpilogue&)> fuses) {
  plan->epilogues.assign(plan->groups.size(), ConvEpilogue{});
  if (!EpiloguesOn()) return;
  for (int s = 0; s + 1 < static_cast<int>(plan->steps.size()); ++s) {
    const int c = plan->steps[s].instruction;
    if (c < 0 || plan->update_of[c] >= 0 || program.instructions[c].op != Op::kConvolution) {
      continue;
    }
    for (int t = s + 1; t < static_cast<int>(plan->steps.size()); ++t) {
      const Step& step = plan->steps[t];
      if (step.group < 0 || step.epilogue) continue;
      const ConvEpilogue e = MatchEpilogue(program, *plan, s, step.group);
      if (e.conv < 0 || !fuses(e)) continue;
      plan->epilogues[step.group] = e;
      Step moved = step;
      moved.epilogue = true;
      plan->steps.erase(plan->steps.begin() + t);
      plan->steps.insert(plan->steps.begin() + s + 1, moved);
      for (int& at : plan->step_of) {
        if (at == t) {
          at = s + 1;
        } else if (at > s && at < t) {
          ++at;
        }
      }
      break;
    }
  }
}

}  // namespace seam::cpu
