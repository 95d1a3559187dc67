#include "src/plugins/cpu/kernels/attention_causal.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/panel_gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

using ir::Op;
using Limits = std::vector<int64_t>;

// The mask values evaluated at compile time may not be larger than this (elements of any
// value they are computed from).
constexpr int64_t kMaxMaskElements = int64_t{1} << 22;
// The most values one search through a product's readers visits (the compile time of a
// program whose values have many readers stays bounded).
constexpr int kMaxVisits = 64;

const ir::Instruction& At(const ir::Program& program, int v) { return program.instructions[v]; }

bool IsScalarFill(const ir::Program& program, int v, float value) {
  const ir::Instruction& fill = At(program, v);
  if (fill.op != Op::kBroadcastInDim) return false;
  const ir::Instruction& c = At(program, fill.operands[0]);
  if (c.op != Op::kConstant || c.shape.dtype != ir::DType::kF32 || c.shape.num_elements() != 1) {
    return false;
  }
  return c.literal.f32()[0] == value;
}

// The ops a mask may be computed with (Evaluate).
bool IsMaskOp(Op op) {
  static constexpr Op kOps[] = {Op::kIota,    Op::kConstant,  Op::kBroadcastInDim,
                                Op::kReshape, Op::kTranspose, Op::kConvert,
                                Op::kEq,      Op::kNe,        Op::kLt,
                                Op::kLe,      Op::kGt,        Op::kGe,
                                Op::kAnd,     Op::kOr,        Op::kNot,
                                Op::kAdd,     Op::kSubtract,  Op::kSelect};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// Evaluates the parameter-free value `v` (iotas, constants, shapes, comparisons and integer
// arithmetic) with the plugin's own kernels; nullopt where it depends on anything else.
std::optional<std::vector<uint8_t>> Evaluate(const ir::Program& program, int v) {
  std::vector<int> order, stack{v};
  std::vector<bool> seen(program.instructions.size(), false);
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    const ir::Instruction& inst = At(program, i);
    if (inst.shape.num_elements() > kMaxMaskElements) return std::nullopt;
    if (!IsMaskOp(inst.op)) return std::nullopt;
    order.push_back(i);
    for (int o : inst.operands) stack.push_back(o);
  }
  std::sort(order.begin(), order.end());  // operands come before their readers
  std::vector<std::vector<uint8_t>> values(program.instructions.size());
  for (int i : order) {
    const ir::Instruction& inst = At(program, i);
    values[i].resize(inst.shape.byte_size());
    std::vector<const uint8_t*> in;
    for (int o : inst.operands) in.push_back(values[o].data());
    RunKernel(
        inst, [&](size_t k) -> const ir::Shape& { return At(program, inst.operands[k]).shape; }, in,
        values[i].data());
  }
  return std::move(values[v]);
}

// The mask `p` describes, on the last two dimensions of its shape: a pred[L, S] value, or
// its broadcast along leading dimensions, that keeps a prefix of each row, the prefixes
// not shrinking from row to row.
std::optional<Limits> MaskLimits(const ir::Program& program, int p) {
  const ir::Instruction& inst = At(program, p);
  if (inst.shape.dtype != ir::DType::kPred || inst.shape.rank() < 2) return std::nullopt;
  const int64_t rank = inst.shape.rank();
  int source = p;
  if (inst.op == Op::kBroadcastInDim) {
    const ir::Instruction& operand = At(program, inst.operands[0]);
    if (operand.shape.rank() != 2 ||
        inst.attrs.at("dims") != std::vector<int64_t>{rank - 2, rank - 1}) {
      return std::nullopt;
    }
    source = inst.operands[0];
  } else if (rank != 2) {
    return std::nullopt;
  }
  const ir::Shape& shape = At(program, source).shape;
  const int64_t rows = shape.dims[0], cols = shape.dims[1];
  std::optional<std::vector<uint8_t>> keep = Evaluate(program, source);
  if (!keep.has_value()) return std::nullopt;
  Limits limit(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = keep->data() + r * cols;
    int64_t n = 0;
    while (n < cols && row[n] != 0) ++n;
    for (int64_t c = n; c < cols; ++c) {
      if (row[c] != 0) return std::nullopt;  // not a prefix
    }
    if (r > 0 && n < limit[r - 1]) return std::nullopt;
    limit[r] = n;
  }
  return limit;
}

bool SameShape(const ir::Program& program, int a, int b) {
  return At(program, a).shape == At(program, b).shape;
}

// Whether `b` is a row statistic of select `s` spread over its rows: broadcast_in_dim of
// reduce_max(s) over the last axis (maybe through a reshape).
bool IsRowMaxOf(const ir::Program& program, int b, int s) {
  const ir::Instruction& spread = At(program, b);
  if (spread.op != Op::kBroadcastInDim) return false;
  int r = spread.operands[0];
  if (At(program, r).op == Op::kReshape) r = At(program, r).operands[0];
  const ir::Instruction& reduce = At(program, r);
  const int64_t rank = At(program, s).shape.rank();
  return reduce.op == Op::kReduceMax && reduce.operands[0] == s &&
         reduce.attrs.at("axes") == std::vector<int64_t>{rank - 1};
}

// The mask outside which f32 value `v` is zero (on its last two dimensions), proven from
// how it is computed, or nullopt.
std::optional<Limits> ZeroOutside(const ir::Program& program, int v, int depth = 0) {
  if (depth > 8) return std::nullopt;
  const ir::Instruction& inst = At(program, v);
  if (inst.shape.dtype != ir::DType::kF32 || inst.shape.rank() < 2) return std::nullopt;
  const auto operand = [&](int k) { return inst.operands[static_cast<size_t>(k)]; };
  if (inst.op == Op::kSelect) {
    if (!IsScalarFill(program, operand(2), 0.0F)) return std::nullopt;
    return MaskLimits(program, operand(0));
  }
  if (inst.op == Op::kNeg) return ZeroOutside(program, operand(0), depth + 1);
  if (inst.op == Op::kDivide) {
    if (!SameShape(program, v, operand(0))) return std::nullopt;
    return ZeroOutside(program, operand(0), depth + 1);
  }
  if (inst.op == Op::kMultiply) {
    for (int k = 0; k < 2; ++k) {
      if (!SameShape(program, v, operand(k))) continue;
      if (auto limit = ZeroOutside(program, operand(k), depth + 1)) return limit;
    }
    return std::nullopt;
  }
  if (inst.op != Op::kExp) return std::nullopt;
  // exp(select(mask, x, -inf) - row max): the row max is that of the kept part, finite
  // where every row keeps something, so the masked positions are exp(-inf) = 0.
  const ir::Instruction& sub = At(program, operand(0));
  if (sub.op != Op::kSubtract) return std::nullopt;
  const int s = sub.operands[0];
  const ir::Instruction& sel = At(program, s);
  if (sel.op != Op::kSelect || !IsScalarFill(program, sel.operands[2], -INFINITY) ||
      !IsRowMaxOf(program, sub.operands[1], s)) {
    return std::nullopt;
  }
  std::optional<Limits> limit = MaskLimits(program, sel.operands[0]);
  if (!limit.has_value() || limit->empty() || limit->front() == 0) return std::nullopt;
  return limit;
}

bool IsResult(const ir::Program& program, int v) {
  return std::find(program.results.begin(), program.results.end(), v) != program.results.end();
}

// Whether only the part of `v` inside `limit` is ever read, when `v` holds finite values
// (zeros) outside it: every reader is a select on the mask that keeps `v` inside, a
// multiply by a value zero outside the mask, or an elementwise op whose value is such.
bool OnlyInsideRead(const ir::Program& program, const std::vector<std::vector<int>>& readers, int v,
                    const Limits& limit, int* budget, int depth = 0) {
  if (depth > 8 || --*budget < 0 || IsResult(program, v) || readers[v].empty()) return false;
  for (int r : readers[v]) {
    const ir::Instruction& inst = At(program, r);
    if (inst.shape != At(program, v).shape) return false;
    const std::vector<int>& in = inst.operands;
    if (inst.op == Op::kSelect) {
      if (in[0] == v || in[2] == v || MaskLimits(program, in[0]) != limit) return false;
      continue;
    }
    if (inst.op == Op::kMultiply) {
      const int other = in[0] == v ? in[1] : in[0];
      if (other != v && ZeroOutside(program, other) == limit) continue;
    } else if (inst.op == Op::kDivide) {
      if (in[1] == v) return false;  // a zero divisor would make infinities
    } else if (inst.op != Op::kAdd && inst.op != Op::kSubtract && inst.op != Op::kNeg) {
      return false;
    }
    if (!OnlyInsideRead(program, readers, r, limit, budget, depth + 1)) return false;
  }
  return true;
}

// The first mask found applied to `v` or to an elementwise value computed from it.
std::optional<Limits> MaskReadBy(const ir::Program& program,
                                 const std::vector<std::vector<int>>& readers, int v, int* budget,
                                 int depth = 0) {
  if (depth > 8 || --*budget < 0) return std::nullopt;
  for (int r : readers[v]) {
    const ir::Instruction& inst = At(program, r);
    if (inst.shape != At(program, v).shape) continue;
    if (inst.op == Op::kSelect) return MaskLimits(program, inst.operands[0]);
    if (inst.op == Op::kMultiply) {
      const int other = inst.operands[0] == v ? inst.operands[1] : inst.operands[0];
      if (std::optional<Limits> limit = ZeroOutside(program, other)) return limit;
    }
    if (inst.op == Op::kMultiply || inst.op == Op::kDivide || inst.op == Op::kAdd ||
        inst.op == Op::kSubtract || inst.op == Op::kNeg) {
      if (std::optional<Limits> limit = MaskReadBy(program, readers, r, budget, depth + 1)) {
        return limit;
      }
    }
  }
  return std::nullopt;
}

// Of dot operand `x` (rank r, batch dimensions 0..r-3, `contracting` one of its last two):
// whether the mask's rows (dimension r-2) are its free dimension.
std::optional<bool> RowsAreFree(const ir::Shape& x, const std::vector<int64_t>& batch,
                                const std::vector<int64_t>& contracting) {
  const int64_t r = x.rank();
  if (r < 2 || contracting.size() != 1 || static_cast<int64_t>(batch.size()) != r - 2) {
    return std::nullopt;
  }
  for (int64_t d = 0; d + 2 < r; ++d) {
    if (batch[d] != d) return std::nullopt;
  }
  if (contracting[0] == r - 1) return true;
  if (contracting[0] == r - 2) return false;
  return std::nullopt;
}

std::shared_ptr<const CausalDot> Make(CausalDot::Kind kind, Limits limit) {
  auto causal = std::make_shared<CausalDot>();
  causal->kind = kind;
  const auto rows = static_cast<int64_t>(limit.size());
  const int64_t cols = limit.empty() ? 0 : limit.back();
  causal->first.assign(static_cast<size_t>(cols), rows);
  for (int64_t r = rows - 1; r >= 0; --r) {
    for (int64_t c = 0; c < limit[r]; ++c) causal->first[c] = r;
  }
  causal->limit = std::move(limit);
  return causal;
}

}  // namespace

const char* CausalKindName(CausalDot::Kind kind) {
  switch (kind) {
    case CausalDot::kOutput:
      return "only the kept part of the result is read";
    case CausalDot::kLhsRows:
      return "lhs zero outside the mask (its rows are the result's)";
    case CausalDot::kLhsCols:
      return "lhs zero outside the mask (its rows contracted)";
    case CausalDot::kRhsRows:
      return "rhs zero outside the mask (its rows contracted)";
    case CausalDot::kRhsCols:
      return "rhs zero outside the mask (its rows are the result's columns)";
  }
  return "?";
}

std::vector<std::vector<int>> ReadersOf(const ir::Program& program) {
  std::vector<std::vector<int>> readers(program.instructions.size());
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    for (int o : program.instructions[i].operands) {
      std::vector<int>& list = readers[o];
      if (list.empty() || list.back() != static_cast<int>(i)) list.push_back(static_cast<int>(i));
    }
  }
  return readers;
}

std::shared_ptr<const CausalDot> PlanCausalDot(const ir::Program& program,
                                               const std::vector<std::vector<int>>& readers,
                                               int dot) {
  const ir::Instruction& inst = At(program, dot);
  if (inst.op != Op::kDotGeneral || inst.shape.dtype != ir::DType::kF32) return nullptr;
  const int lhs = inst.operands[0], rhs = inst.operands[1];
  const std::vector<int64_t>& lhs_batch = inst.attrs.at("lhs_batch");
  const std::vector<int64_t>& rhs_batch = inst.attrs.at("rhs_batch");
  const std::vector<int64_t>& lhs_contracting = inst.attrs.at("lhs_contracting");
  const std::vector<int64_t>& rhs_contracting = inst.attrs.at("rhs_contracting");
  // One free and one contracted dimension per operand (the batch dimensions may lie
  // anywhere in an operand the mask does not describe: a transpose folded into the product).
  const auto one_free = [&](int v, const std::vector<int64_t>& batch,
                            const std::vector<int64_t>& contracting) {
    return contracting.size() == 1 &&
           static_cast<int64_t>(batch.size()) + 2 == At(program, v).shape.rank();
  };
  if (!one_free(lhs, lhs_batch, lhs_contracting) || !one_free(rhs, rhs_batch, rhs_contracting)) {
    return nullptr;
  }
  // Where the mask describes an operand, its batch dimensions lead and the mask's rows are
  // its free dimension or its contracted one.
  const std::optional<bool> lhs_rows_free =
      RowsAreFree(At(program, lhs).shape, lhs_batch, lhs_contracting);
  const std::optional<bool> rhs_rows_free =
      RowsAreFree(At(program, rhs).shape, rhs_batch, rhs_contracting);
  // Each mask must span the matrix it describes.
  const auto fits = [&](int v, const Limits& limit) {
    const ir::Shape& shape = At(program, v).shape;
    const int64_t r = shape.rank();
    return static_cast<int64_t>(limit.size()) == shape.dims[r - 2] && !limit.empty() &&
           limit.back() <= shape.dims[r - 1];
  };
  if (lhs_rows_free.has_value()) {
    if (std::optional<Limits> limit = ZeroOutside(program, lhs); limit && fits(lhs, *limit)) {
      return Make(*lhs_rows_free ? CausalDot::kLhsRows : CausalDot::kLhsCols, *std::move(limit));
    }
  }
  if (rhs_rows_free.has_value()) {
    if (std::optional<Limits> limit = ZeroOutside(program, rhs); limit && fits(rhs, *limit)) {
      return Make(*rhs_rows_free ? CausalDot::kRhsCols : CausalDot::kRhsRows, *std::move(limit));
    }
  }
  // The result: a mask that some reader applies (a select, or a multiply by a value zero
  // outside it), then proof that only its kept part is read.
  int budget = kMaxVisits;
  std::optional<Limits> limit = MaskReadBy(program, readers, dot, &budget);
  budget = kMaxVisits;
  if (limit.has_value() && fits(dot, *limit) &&
      OnlyInsideRead(program, readers, dot, *limit, &budget)) {
    return Make(CausalDot::kOutput, *std::move(limit));
  }
  return nullptr;
}

namespace {

// Batch `batch` of a causal product (RunCausalDot), one gemm per strip on the calling
// thread (SgemmOnThisThread or the panel kernel) or, with `all_threads`, on the kernel
// threads (Sgemm). A null `causal`: the whole product, one gemm.
void RunCausalBatch(const DotPlan& plan, const CausalDot* causal, const float* a, const float* b,
                    float* out, int64_t batch, bool all_threads) {
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const bool trans_a = plan.lhs.layout == DotPlan::kTransposed;
  const bool trans_b = plan.rhs.layout == DotPlan::kTransposed;
  const int64_t lda = plan.lhs.ld, ldb = plan.rhs.ld, ldc = plan.out.ld;
  // The plugin's panel kernel where the plan chose it (panel_gemm.h), else the libraries.
  const auto gemm = [&](int64_t rows, int64_t cols, int64_t depth, const float* a_block,
                        const float* b_block, float* c_block) {
    if (plan.panel) {
      PanelSgemm(trans_a, trans_b, rows, cols, depth, 1.0F, a_block, lda, b_block, ldb, false,
                 c_block, ldc);
    } else if (all_threads) {
      Sgemm(trans_a, trans_b, rows, cols, depth, 1.0F, a_block, lda, b_block, ldb, 0.0F, c_block,
            ldc);
    } else {
      SgemmOnThisThread(trans_a, trans_b, rows, cols, depth, 1.0F, a_block, lda, b_block, ldb, 0.0F,
                        c_block, ldc);
    }
  };
  const float* ab = a + plan.lhs.BatchOffset(batch);
  const float* bb = b + plan.rhs.BatchOffset(batch);
  float* cb = out + plan.out.BatchOffset(batch);
  if (causal == nullptr) return gemm(m, n, k, ab, bb, cb);
  const Limits& limit = causal->limit;
  const auto first = [&](int64_t c) {
    return c < static_cast<int64_t>(causal->first.size()) ? causal->first[c]
                                                          : static_cast<int64_t>(limit.size());
  };
  // Strips of kCausalBlockRows rows of the result, or of columns where the mask's rows are
  // the result's columns, and for a result read only inside the mask (their columns are
  // the mask's columns: each strip of columns is needed from its first kept row down).
  const bool by_rows = causal->kind == CausalDot::kLhsRows || causal->kind == CausalDot::kLhsCols;
  const int64_t extent = by_rows ? m : n;
  for (int64_t p0 = 0; p0 < extent; p0 += kCausalBlockRows) {
    const int64_t p1 = std::min(extent, p0 + kCausalBlockRows);
    // The block computed: rows [i0, i1), columns [j0, j1), contracted range [k0, k1); the
    // rest of the strip is zero.
    int64_t i0 = by_rows ? p0 : 0, i1 = by_rows ? p1 : m;
    const int64_t j0 = by_rows ? 0 : p0, j1 = by_rows ? n : p1;
    int64_t k0 = 0, k1 = k;
    switch (causal->kind) {
      case CausalDot::kOutput:
        i0 = std::min(m, first(p0));
        break;
      case CausalDot::kLhsRows:
      case CausalDot::kRhsCols:
        k1 = std::min(k, limit[p1 - 1]);
        break;
      case CausalDot::kLhsCols:
      case CausalDot::kRhsRows:
        k0 = std::min(k, first(p0));
        break;
    }
    if (k1 <= k0) i0 = i1;  // nothing to add: all zero
    for (int64_t i = by_rows ? p0 : 0; i < i0; ++i) {
      std::memset(cb + i * ldc + j0, 0, sizeof(float) * (j1 - j0));
    }
    if (i0 == i1) continue;
    const float* a_block = trans_a ? ab + k0 * lda + i0 : ab + i0 * lda + k0;
    const float* b_block = trans_b ? bb + j0 * ldb + k0 : bb + k0 * ldb + j0;
    gemm(i1 - i0, j1 - j0, k1 - k0, a_block, b_block, cb + i0 * ldc + j0);
  }
}

}  // namespace

void RunCausalDot(const DotPlan& plan, const CausalDot& causal, const float* a, const float* b,
                  float* out) {
  // Whole batches per kernel thread, each gemm on its thread alone; a product with fewer
  // batches than threads lets each gemm use them all.
  if (plan.batches < KernelThreads()) {
    for (int64_t batch = 0; batch < plan.batches; ++batch) {
      RunCausalBatch(plan, &causal, a, b, out, batch, /*all_threads=*/true);
    }
    return;
  }
  ParallelFor(plan.batches, [&](int64_t begin, int64_t end) {
    RunCausalDotBatches(plan, &causal, a, b, out, begin, end);
  });
}

void RunCausalDotBatches(const DotPlan& plan, const CausalDot* causal, const float* a,
                         const float* b, float* out, int64_t first, int64_t last) {
  for (int64_t batch = first; batch < last; ++batch) {
    RunCausalBatch(plan, causal, a, b, out, batch, /*all_threads=*/false);
  }
}

}  // namespace seam::cpu
