// Loops for each IR op on dense row-major memory, one file per family. Shapes and
// attributes were checked by the verifier; the semantics are those of docs/ir.md.
#ifndef SEAM_PLUGINS_CPU_KERNELS_H_
#define SEAM_PLUGINS_CPU_KERNELS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "src/ir/program.h"

namespace seam::cpu {

// kernels_elementwise.cc. `count` elements; `dtype` is the operands' dtype.
void Unary(ir::Op op, ir::DType dtype, const uint8_t* in, uint8_t* out, int64_t count);
// Arithmetic, logical and comparison ops (a comparison writes pred).
void Binary(ir::Op op, ir::DType dtype, const uint8_t* a, const uint8_t* b, uint8_t* out,
            int64_t count);
void Select(ir::DType dtype, const uint8_t* predicate, const uint8_t* on_true,
            const uint8_t* on_false, uint8_t* out, int64_t count);
void Convert(ir::DType from, ir::DType to, const uint8_t* in, uint8_t* out, int64_t count);

// kernels_shape.cc.
// A broadcast, transpose or slice worked out once: result position p (row-major over `dims`,
// the result's dimensions) reads element base + sum(index[d] * strides[d]) of the operand.
// Unit dimensions are dropped and neighbours that walk the operand alike merged.
struct GatherPlan {
  int element_bytes = 4;
  int64_t base = 0;
  std::vector<int64_t> dims, strides;
};
GatherPlan PlanBroadcast(const ir::Shape& in_shape, const ir::Shape& out_shape,
                         const std::vector<int64_t>& dims);
GatherPlan PlanTranspose(const ir::Shape& in_shape, const std::vector<int64_t>& permutation);
void Gather(const GatherPlan& plan, const uint8_t* in, uint8_t* out);
// Elements [start, start + n) of Gather's result, into the same positions of `out` (a
// result computed in parts; kernels_fused.cc).
void GatherElements(const GatherPlan& plan, const uint8_t* in, int64_t start, int64_t n,
                    uint8_t* out);

void BroadcastInDim(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
                    const std::vector<int64_t>& dims, uint8_t* out);
// Result dimension i is operand dimension permutation[i].
void Transpose(const ir::Shape& in_shape, const uint8_t* in,
               const std::vector<int64_t>& permutation, uint8_t* out);
void Slice(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
           const std::vector<int64_t>& start, const std::vector<int64_t>& stride, uint8_t* out);
void Concatenate(const std::vector<ir::Shape>& in_shapes, const std::vector<const uint8_t*>& ins,
                 int64_t dimension, uint8_t* out);
void Pad(const ir::Shape& in_shape, const uint8_t* in, const uint8_t* value,
         const ir::Shape& out_shape, const std::vector<int64_t>& low,
         const std::vector<int64_t>& interior, uint8_t* out);
void Iota(const ir::Shape& out_shape, int64_t dimension, uint8_t* out);

// kernels_reduce.cc. reduce_sum, reduce_product, reduce_max, reduce_min over `axes`.
void Reduce(ir::Op op, const ir::Shape& in_shape, const uint8_t* in,
            const std::vector<int64_t>& axes, uint8_t* out);
// The maximum (`max`) or minimum of x[0, n) and `init` with the f32 rules of reduce_max and
// reduce_min (NaN wins as the quiet NaN, +0 above -0), computed `lanes` wide: 16 (AVX-512),
// 8 (AVX2) or 1; a width this CPU lacks gives the 1-wide fold. The rules make the result
// independent of the order, so every width gives the in-order fold's bits. The kernels use
// the widest (f32 row maxima and minima, e.g. a softmax's); tests call each.
float ExtremeOfRowAt(int lanes, bool max, const float* x, int64_t n, float init);
// f32 sums over [outer, kept, inner] with rows of at least kLaneSumMinimumRow elements
// (a batch norm's statistics) add each result's elements in kSumLanes lanes
// (kernels_reduce.cc); between the ranges of ReduceRange the lanes of every result live
// here.
inline constexpr int64_t kSumLanes = 32;
inline constexpr int64_t kLaneSumMinimumRow = 128;
struct ReduceCarry {
  std::vector<float> lanes;
};
// Folds positions [first, last) of the operand (row-major) into `out`, the result of a
// reduction over adjacent `axes` of an f32 or f64 operand: the first position folded into
// a result element starts it from the reduction's initial value. Called on consecutive
// ranges that cover the operand in order, with the same `carry` (one per reduction), it
// gives Reduce's bits (the same fold order); used for reductions that run with the group
// producing their operand (fusion.h).
void ReduceRange(ir::Op op, const ir::Shape& in_shape, const uint8_t* in,
                 const std::vector<int64_t>& axes, int64_t first, int64_t last, uint8_t* out,
                 ReduceCarry* carry);
// ReduceRange in two halves: what depends only on the reduction (worked out once, at
// compile time), and the fold of a range with it.
struct ReduceRangePlan {
  ir::Combiner combiner = ir::Combiner::kSum;
  bool f32 = true;                 // else f64
  bool middle = false;             // the kept axes lie between reduced ones ([outer, kept, inner])
  int64_t reduced = 1, inner = 1;  // otherwise: [.., reduced, inner]
  int64_t kept_outer = 1, kept = 1, kept_inner = 1;
  bool lanes = false;  // f32 sums of rows of at least kLaneSumMinimumRow: in lanes
};
ReduceRangePlan PlanReduceRange(ir::Op op, const ir::Shape& in_shape,
                                const std::vector<int64_t>& axes);
void RunReduceRange(const ReduceRangePlan& plan, const uint8_t* in, int64_t first, int64_t last,
                    uint8_t* out, ReduceCarry* carry);

// kernels_dot.cc.
struct DotDimensions {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};
DotDimensions DotDimensionsOf(const ir::Instruction& dot);  // its four attributes

class Bf16Matmul;  // dot_onednn.h
struct CausalDot;  // attention_causal.h

// A dot_general worked out once: the operands seen as [batches, m, k] x [batches, k, n],
// and how each reaches that layout.
//
// f32 and f64 products within BLAS's sizes also read an operand in place when its batch
// dimensions lie anywhere (a transpose folded into the product, as the attention heads'
// [batch, seq, heads, dim] -> [batch, heads, seq, dim]): each batch's matrix is then a
// strided view, rows `ld` elements apart, one of its two dimensions the operand's last.
struct DotPlan {
  enum Layout : uint8_t {
    kAsIs,        // each batch's matrix in that layout (rows `ld` apart)
    kTransposed,  // the two inner dimensions swapped in memory: gemm reads it transposed
    kCopy,        // copied through `copy` into a scratch buffer at every run
  };
  struct Operand {
    Layout layout = kAsIs;
    GatherPlan copy;  // kCopy only
    size_t copy_bytes = 0;
    // The stored matrix of batch i (of the copy, for kCopy): rows `ld` elements apart, its
    // first element at BatchOffset(i); batch i is the row-major position of (i_0, i_1, ..)
    // over the batch dimensions' sizes, each i_d stepping `batch_strides[d]` elements.
    int64_t ld = 1;
    std::vector<int64_t> batch_sizes{1}, batch_strides{0};
    int64_t BatchOffset(int64_t batch) const {
      if (batch_strides.size() == 1) return batch * batch_strides[0];
      int64_t offset = 0;
      for (size_t d = batch_sizes.size(); d-- > 0;) {
        offset += (batch % batch_sizes[d]) * batch_strides[d];
        batch /= batch_sizes[d];
      }
      return offset;
    }
  };
  ir::DType dtype = ir::DType::kF32;
  int64_t batches = 1, m = 1, k = 1, n = 1;
  bool blas = false;  // f32, f64 or bf16 within BLAS's int: gemm.h; else a loop
  // f32 or f64 with `blas` where SmallGemmFits(m, n, k): small_gemm.h's loop, not gemm.h
  // (RunDot, RunDotAccumulate and RunDotRows alike; a causal plan keeps its own path).
  bool small = false;
  // f32 with `blas`, not `small`, under SEAM_CPU_GEMM=auto, neither operand copied, where
  // PanelGemmChosen says so: panel_gemm.h's kernel (the same call sites as `small`, and
  // the causal blocks).
  bool panel = false;
  Operand lhs, rhs;
  // Where the result goes: batch i's [m, n] matrix at out.BatchOffset(i), rows out.ld apart
  // (dense: n, and m * n per batch; WriteResultTransposed changes them).
  Operand out;
  // bf16 with `blas`: oneDNN's matmul primitives where dot_onednn.h allows, else null (the
  // operands are widened to f32 for gemm.h).
  std::shared_ptr<const Bf16Matmul> bf16_matmul;
  // f32 with `blas`: the blocks a causal attention mask proves zero or unread, skipped
  // (attention_causal.h); null: the whole product.
  std::shared_ptr<const CausalDot> causal;
};
DotPlan PlanDot(const ir::Shape& lhs_shape, const ir::Shape& rhs_shape, const DotDimensions& dims);
// Makes `plan` (f32 or f64 with `blas`, from PlanDot) write its result in the layout of
// transpose(result, permutation), `result` having `batch_dims` batch dimensions then one
// lhs and one rhs free dimension: what the transpose would have copied, written by the
// gemm itself (a transformer's attention output [batch, heads, seq, dim] written as
// [batch, seq, heads, dim]). False, with `plan` unchanged, where the permutation moves the
// rhs free dimension (then the result's rows are not contiguous) or the shapes differ.
bool WriteResultTransposed(DotPlan* plan, const ir::Shape& result, int64_t batch_dims,
                           const std::vector<int64_t>& permutation);
// Whether PlanDot reads an operand of `shape` with these batch and contracting dimensions
// in place (kAsIs or kTransposed, strided or not) rather than copying it, for a product of
// `dtype` (f32 or f64; the others copy whatever is not dense).
bool DotReadsInPlace(ir::DType dtype, const ir::Shape& shape, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& contracting, bool lhs);
// out = lhs.rhs.
void RunDot(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out);
// out += alpha * lhs.rhs, for plans with `blas` set (dot_update.h).
void RunDotAccumulate(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, double alpha,
                      uint8_t* out);
// Whether RunDotRows serves `plan`: f32 with `blas` set, k > 0, neither operand copied.
bool DotRowsSupported(const DotPlan& plan);
// Rows [first, last) of the product's batches * m result rows (row r is row r % m of batch
// r / m), on the calling thread (SgemmOnThisThread, gemm.h): out = lhs.rhs over those rows,
// or with `accumulate` out += alpha * lhs.rhs. `out` is the whole result. Plans that
// DotRowsSupported accepts only.
void RunDotRows(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, int64_t first,
                int64_t last, bool accumulate, float alpha, uint8_t* out);
// PlanDot and RunDot in one call (constant folding, tests).
void DotGeneral(const ir::Shape& lhs_shape, const uint8_t* lhs, const ir::Shape& rhs_shape,
                const uint8_t* rhs, const DotDimensions& dims, uint8_t* out);

// kernels_dispatch.cc: computes `inst` from its operands' memory `in` (operand k has shape
// operand_shape(k)) into `out`, with the kernel for its op. A parameter writes nothing, a
// constant copies its literal, an all_reduce copies its operand (a lone replica).
void RunKernel(const ir::Instruction& inst,
               absl::FunctionRef<const ir::Shape&(size_t)> operand_shape,
               const std::vector<const uint8_t*>& in, uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_H_
