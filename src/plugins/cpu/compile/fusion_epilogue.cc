#include "src/plugins/cpu/compile/fusion_epilogue.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api/cpu_settings.h"

namespace seam::cpu {
namespace {

using ir::Op;

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

// The f32 vector that member broadcast `bb` of `group` spreads along convolution `c`'s
// output feature dimension (its other dimensions of size 1), or -1.
int ChannelVectorOf(const ir::Program& program, const FusionGroup& group, int bb, int c) {
  const ir::Instruction& broadcast = program.instructions[bb];
  if (broadcast.op != Op::kBroadcastInDim) return -1;
  const int b = broadcast.operands[0];
  if (!std::binary_search(group.inputs.begin(), group.inputs.end(), b)) return -1;
  const ir::Shape& vector = program.instructions[b].shape;
  const ir::Instruction& conv = program.instructions[c];
  const int64_t feature = conv.attrs.at("output_feature_dim")[0];
  const std::vector<int64_t>& dims = broadcast.attrs.at("dims");
  if (vector.dtype != ir::DType::kF32) return -1;
  bool spread = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == feature) {
      spread = vector.dims[d] == conv.shape.dims[feature];
    } else if (vector.dims[d] != 1) {
      return -1;
    }
  }
  return spread ? b : -1;
}

bool IsChannelArithmetic(Op op) {
  return op == Op::kAdd || op == Op::kSubtract || op == Op::kMultiply || op == Op::kDivide;
}

}  // namespace

absl::Status CheckEpilogueVariable() { return CpuSettingsFromEnvironment().status(); }

bool EpiloguesOn() { return ActiveEpilogues(); }

ConvEpilogue MatchEpilogue(const ir::Program& program, const FusionPlan& plan, int s, int g) {
  const int c = plan.steps[s].instruction;
  const FusionGroup& group = plan.groups[g];
  if (c < 0 || program.instructions[c].op != Op::kConvolution ||
      program.instructions[c].shape.dtype != ir::DType::kF32 || !group.reduces.empty() ||
      group.outputs.size() != 1 ||
      !std::binary_search(group.inputs.begin(), group.inputs.end(), c)) {
    return {};
  }
  // c is read by the group's members alone, and is no result.
  if (std::find(program.results.begin(), program.results.end(), c) != program.results.end()) {
    return {};
  }
  for (int i = c + 1; i < static_cast<int>(program.instructions.size()); ++i) {
    const std::vector<int>& operands = program.instructions[i].operands;
    const bool reads = std::find(operands.begin(), operands.end(), c) != operands.end();
    if (reads && plan.needed[i] && plan.group_of[i] != g) return {};
  }
  // A member another group computes too (FusionPlan::copied, fusion_sink.h) reads c there
  // as well.
  for (int h = 0; h < static_cast<int>(plan.groups.size()); ++h) {
    const std::vector<int>& inputs = plan.groups[h].inputs;
    if (h != g && std::binary_search(inputs.begin(), inputs.end(), c)) return {};
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
    if (zero < 0) return {};
    e.relu = true;
    used.insert(used.end(), {v, zero});
    v = OtherOperand(max, zero);
  }
  // Then arithmetic down to c: per-feature vectors (member broadcasts) added, subtracted,
  // multiplied or divided by, and at most one residual (a tensor of c's shape read from
  // memory) added, outside which only vectors are added or subtracted (they commute with it).
  auto member = [&](int m) {
    return std::binary_search(group.members.begin(), group.members.end(), m);
  };
  auto towards_c = [&](int o) {
    return o == c || (member(o) && IsChannelArithmetic(program.instructions[o].op));
  };
  std::vector<ChannelOp> inward;
  size_t outside_residual = 0;  // how many of `inward` come after the residual's add
  while (v != c) {
    const ir::Instruction& inst = program.instructions[v];
    if (!member(v) || !IsChannelArithmetic(inst.op)) return {};
    const int k =
        inst.operands[0] == c || (inst.operands[1] != c && towards_c(inst.operands[0])) ? 0 : 1;
    const int next = inst.operands[k], other = inst.operands[1 - k];
    if (!towards_c(next) || (other != c && towards_c(other))) return {};
    const int vector = member(other) ? ChannelVectorOf(program, group, other, c) : -1;
    if (vector >= 0) {
      if (inst.op == Op::kDivide && k == 1) return {};  // v / y is no scale
      inward.push_back(ChannelOp{inst.op, inst.op == Op::kSubtract && k == 1, vector});
      used.insert(used.end(), {v, other});
    } else if (inst.op == Op::kAdd && !member(other) && other != c && e.residual < 0 &&
               program.instructions[other].shape == program.instructions[c].shape) {
      e.residual = other;
      outside_residual = inward.size();
      used.push_back(v);
    } else {
      return {};
    }
    v = next;
  }
  for (size_t i = 0; i < outside_residual; ++i) {
    const ChannelOp& op = inward[i];
    if (op.op != Op::kAdd && (op.op != Op::kSubtract || op.swapped)) return {};
  }
  if (inward.size() == 1 && inward[0].op == Op::kAdd) {
    e.bias = inward[0].value;
  } else {
    e.channel.assign(inward.rbegin(), inward.rend());
  }
  // Nothing else in the group (a guard: with one output, every member lies on the path
  // walked above while groups hold one element count).
  for (int m : group.members) {
    if (std::find(used.begin(), used.end(), m) == used.end()) return {};
  }
  return e;
}

void AttachEpilogues(const ir::Program& program, FusionPlan* plan,
                     absl::FunctionRef<bool(const ConvEpilogue&)> fuses) {
  plan->epilogues.assign(plan->groups.size(), ConvEpilogue{});
  if (!EpiloguesOn()) return;
  std::vector<Step>& steps = plan->steps;
  for (int s = 0; s + 1 < static_cast<int>(steps.size()); ++s) {
    const int c = steps[s].instruction;
    if (c < 0 || plan->update_of[c] >= 0 || program.instructions[c].op != Op::kConvolution ||
        steps[s + 1].epilogue) {
      continue;
    }
    for (int t = s + 1; t < static_cast<int>(steps.size()); ++t) {
      const Step& step = steps[t];
      if (step.group < 0 || step.epilogue) continue;
      const ConvEpilogue e = MatchEpilogue(program, *plan, s, step.group);
      if (e.conv < 0 || !fuses(e)) continue;
      plan->epilogues[step.group] = e;
      steps[t].epilogue = true;
      // The convolution moves down to just before its epilogue.
      MoveStepBefore(plan, s, t);
      --s;  // the step now at s is the one after the convolution
      break;
    }
  }
}

void FoldChannelOps(const ir::Program& program, const ConvEpilogue& e, const uint8_t* const* values,
                    const float* weights, std::vector<float>* scaled, std::vector<float>* bias) {
  const ir::Instruction& conv = program.instructions[e.conv];
  const int64_t features = conv.shape.dims[conv.attrs.at("output_feature_dim")[0]];
  thread_local std::vector<float> scale;  // per run: no allocation once grown
  scale.assign(features, 1.0f);
  bias->assign(features, 0.0f);
  float* shift = bias->data();
  for (const ChannelOp& op : e.channel) {
    const float* v = reinterpret_cast<const float*>(values[op.value]);
    for (int64_t f = 0; f < features; ++f) {
      switch (op.op) {
        case Op::kAdd:
          shift[f] += v[f];
          break;
        case Op::kSubtract:
          if (op.swapped) {
            scale[f] = -scale[f];
            shift[f] = v[f] - shift[f];
          } else {
            shift[f] -= v[f];
          }
          break;
        case Op::kMultiply:
          scale[f] *= v[f];
          shift[f] *= v[f];
          break;
        case Op::kDivide:
          scale[f] /= v[f];
          shift[f] /= v[f];
          break;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kAdd
#define SEAM_CASES_EXCEPT_kSubtract
#define SEAM_CASES_EXCEPT_kMultiply
#define SEAM_CASES_EXCEPT_kDivide
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kAdd
#undef SEAM_CASES_EXCEPT_kSubtract
#undef SEAM_CASES_EXCEPT_kMultiply
#undef SEAM_CASES_EXCEPT_kDivide
          // MatchEpilogue takes no other operation
          break;
      }
    }
  }
  // The weights' output feature dimension splits the kernel into outer x features x inner.
  const ir::Shape& kernel = program.instructions[conv.operands[1]].shape;
  const int64_t o = conv.attrs.at("kernel_output_feature_dim")[0];
  scaled->resize(static_cast<size_t>(kernel.num_elements()));
  if (kernel.num_elements() == 0) return;  // no weight to scale (and no division by 0)
  int64_t inner = 1;
  for (int64_t d = o + 1; d < kernel.rank(); ++d) inner *= kernel.dims[d];
  const int64_t outer = kernel.num_elements() / (inner * features);
  float* out = scaled->data();
  for (int64_t i = 0; i < outer; ++i) {
    for (int64_t f = 0; f < features; ++f) {
      const int64_t at = (i * features + f) * inner;
      for (int64_t j = 0; j < inner; ++j) out[at + j] = weights[at + j] * scale[f];
    }
  }
}

}  // namespace seam::cpu
