#include "src/plugins/cpu/compile/dot_update.h"

#include <cstring>
#include <limits>

#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

using ir::Op;

// Uses of each value by instructions and by the result tuple (a repeat counts twice).
std::vector<int> UseCounts(const ir::Program& program) {
  std::vector<int> uses(program.instructions.size(), 0);
  for (const ir::Instruction& inst : program.instructions) {
    for (int o : inst.operands) ++uses[o];
  }
  for (int r : program.results) ++uses[r];
  return uses;
}

bool IsBlasFloat(const ir::Shape& shape) {
  return shape.dtype == ir::DType::kF32 || shape.dtype == ir::DType::kF64;
}

// The dot's products must fit BLAS's int sizes; any extent of either operand bounds them.
bool FitsBlas(const ir::Program& program, const ir::Instruction& dot) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (int o : dot.operands) {
    if (program.instructions[o].shape.num_elements() > kMax) return false;
  }
  return dot.shape.num_elements() <= kMax;
}

// `value` as `scale * dot` or `dot * scale` with scale a broadcast rank-0 value: sets the
// update's dot, product and scale.
bool MatchProduct(const ir::Program& program, const std::vector<int>& uses, int value,
                  DotUpdate* update) {
  const ir::Instruction& inst = program.instructions[value];
  if (uses[value] != 1) return false;
  if (inst.op == Op::kDotGeneral) {
    if (!FitsBlas(program, inst)) return false;
    update->dot = value;
    return true;
  }
  if (inst.op != Op::kMultiply) return false;
  for (int side = 0; side < 2; ++side) {
    const int dot = inst.operands[side], factor = inst.operands[1 - side];
    const ir::Instruction& d = program.instructions[dot];
    const ir::Instruction& f = program.instructions[factor];
    if (d.op != Op::kDotGeneral || uses[dot] != 1 || dot == factor || !FitsBlas(program, d)) {
      continue;
    }
    if (f.op != Op::kBroadcastInDim || program.instructions[f.operands[0]].shape.rank() != 0) {
      continue;
    }
    update->dot = dot;
    update->product = value;
    update->scale = f.operands[0];
    return true;
  }
  return false;
}

// Whether `plan` repeats one contiguous row (a bias row broadcast over the product's rows):
// strides 0 but the last, which is 1.
bool RepeatsOneRow(const GatherPlan& plan) {
  if (plan.base != 0 || plan.strides.empty() || plan.strides.back() != 1) return false;
  for (size_t d = 0; d + 1 < plan.strides.size(); ++d) {
    if (plan.strides[d] != 0) return false;
  }
  return true;
}

// A bias row added to a linear layer's product on oneDNN (nn::Linear's X.W^T, the weight
// stored [out, in]; MultiheadAttention's in-projection X.W, stored [in, out]): f32, scale 1,
// one batch, A as it is and B as it is or transposed, the result dense, neither the small
// loop's nor the panel kernel's, and the size oneDNN takes.
bool TakesRowBias(const DotUpdate& u) {
  const DotPlan& p = u.plan;
  return u.dtype == ir::DType::kF32 && u.broadcast >= 0 && u.scale < 0 && !u.negate &&
         RepeatsOneRow(u.broadcast_plan) && !u.broadcast_plan.dims.empty() &&
         u.broadcast_plan.dims.back() == p.n && p.batches == 1 && p.blas && !p.small && !p.panel &&
         p.lhs.layout == DotPlan::kAsIs &&
         (p.rhs.layout == DotPlan::kTransposed || p.rhs.layout == DotPlan::kAsIs) &&
         p.out.ld == p.n && RowBiasSgemmAvailable() &&
         SgemmLibraryFor(p.m, p.n, p.k) == GemmLibrary::kOneDnn;
}

}  // namespace

std::vector<DotUpdate> FindDotUpdates(const ir::Program& program) {
  std::vector<DotUpdate> updates;
  const std::vector<int> uses = UseCounts(program);
  for (int i = 0; i < static_cast<int>(program.instructions.size()); ++i) {
    const ir::Instruction& inst = program.instructions[i];
    if ((inst.op != Op::kAdd && inst.op != Op::kSubtract) || !IsBlasFloat(inst.shape)) continue;
    // subtract: only its right side can be the product; add: either.
    for (int side = 1; side >= (inst.op == Op::kAdd ? 0 : 1); --side) {
      DotUpdate update;
      const int product = inst.operands[side], base = inst.operands[1 - side];
      if (product == base || !MatchProduct(program, uses, product, &update)) continue;
      update.result = i;
      update.base = base;
      const ir::Instruction& b = program.instructions[base];
      if (b.op == Op::kBroadcastInDim && uses[base] == 1) {
        update.broadcast = base;
        update.base = b.operands[0];
      }
      update.negate = inst.op == Op::kSubtract;
      const ir::Instruction& dot = program.instructions[update.dot];
      update.lhs = dot.operands[0];
      update.rhs = dot.operands[1];
      update.reads = {update.lhs, update.rhs, update.base};
      if (update.scale >= 0) update.reads.push_back(update.scale);
      update.plan = PlanDot(program.instructions[update.lhs].shape,
                            program.instructions[update.rhs].shape, DotDimensionsOf(dot));
      if (update.broadcast >= 0) {
        update.broadcast_plan =
            PlanBroadcast(program.instructions[update.base].shape, b.shape, b.attrs.at("dims"));
      }
      update.dtype = inst.shape.dtype;
      update.bytes = inst.shape.byte_size();
      update.row_bias = TakesRowBias(update);
      updates.push_back(std::move(update));
      break;
    }
  }
  return updates;
}

namespace {

// The factor the product is added with: ±scale, or ±1.
double UpdateAlpha(const DotUpdate& update, const uint8_t* const* value) {
  double alpha = 1;
  if (update.scale >= 0) {
    const uint8_t* scale = value[update.scale];
    if (update.dtype == ir::DType::kF32) {
      float s;
      std::memcpy(&s, scale, sizeof s);
      alpha = s;
    } else {
      std::memcpy(&alpha, scale, sizeof alpha);
    }
  }
  return update.negate ? -alpha : alpha;
}

// Gather(plan, in, out), with a repeated row as one copy per row (a tiny product's update
// pays Gather's index walk per element otherwise).
void Broadcast(const GatherPlan& plan, const uint8_t* in, uint8_t* out) {
  if (!RepeatsOneRow(plan)) return Gather(plan, in, out);
  const size_t row_bytes = static_cast<size_t>(plan.dims.back()) * plan.element_bytes;
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < plan.dims.size(); ++d) rows *= plan.dims[d];
  for (int64_t r = 0; r < rows; ++r) std::memcpy(out + r * row_bytes, in, row_bytes);
}

// Rows [first, last) of a row_bias update in one product (RowBiasSgemm).
void RunRowBias(const DotUpdate& update, const uint8_t* const* value, int64_t first, int64_t last,
                bool on_this_thread, uint8_t* out) {
  const DotPlan& p = update.plan;
  const auto* a = reinterpret_cast<const float*>(value[update.lhs]) + first * p.lhs.ld;
  const auto* b = reinterpret_cast<const float*>(value[update.rhs]);
  const auto* bias = reinterpret_cast<const float*>(value[update.base]);
  auto* c = reinterpret_cast<float*>(out) + first * p.n;
  RowBiasSgemm(on_this_thread, p.rhs.layout == DotPlan::kTransposed, last - first, p.n, p.k, a,
               p.lhs.ld, b, p.rhs.ld, bias, c, p.n);
}

}  // namespace

void RunDotUpdate(const DotUpdate& update, const uint8_t* const* value, uint8_t* out) {
  const uint8_t* base = value[update.base];
  if (update.row_bias) return RunRowBias(update, value, 0, update.plan.m, false, out);
  if (update.broadcast >= 0) {
    Broadcast(update.broadcast_plan, base, out);
  } else if (out != base && update.bytes > 0) {
    std::memcpy(out, base, update.bytes);
  }
  RunDotAccumulate(update.plan, value[update.lhs], value[update.rhs], UpdateAlpha(update, value),
                   out);
}

void RunDotUpdateRows(const DotUpdate& update, const uint8_t* const* value, int64_t first,
                      int64_t last, uint8_t* out) {
  const uint8_t* base = value[update.base];
  const int64_t n = update.plan.n;
  if (update.row_bias) return RunRowBias(update, value, first, last, true, out);
  if (update.broadcast >= 0) {
    GatherElements(update.broadcast_plan, base, first * n, (last - first) * n, out);
  } else if (out != base) {
    const size_t row_bytes = static_cast<size_t>(n) * sizeof(float);
    std::memcpy(out + first * row_bytes, base + first * row_bytes, (last - first) * row_bytes);
  }
  RunDotRows(update.plan, value[update.lhs], value[update.rhs], first, last, true,
             static_cast<float>(UpdateAlpha(update, value)), out);
}

}  // namespace seam::cpu
