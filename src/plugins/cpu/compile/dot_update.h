// Dot updates: `base ± [scale *] dot_general(lhs, rhs)` (the SGD step of a weight,
// `w - lr * grad`) computed by one gemm that accumulates into a copy of `base` (or into
// base's donated block itself): C = base, then C += alpha * lhs.rhs with
// alpha = ±scale. The product and the scaled product are never written to memory, and the
// update makes no pass of its own over the parameter. The rounding differs from the
// unfused program's (the product is added to base block by block, not rounded on its own
// first), so results agree within float tolerance, not bit for bit.
#ifndef SEAM_PLUGINS_CPU_DOT_UPDATE_H_
#define SEAM_PLUGINS_CPU_DOT_UPDATE_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {

struct DotUpdate {
  int result = -1;         // the add or subtract
  int dot = -1;            // the dot_general (absorbed: never in memory)
  int product = -1;        // the multiply by the broadcast scale, or -1 (absorbed)
  int scale = -1;          // the rank-0 value the product is scaled by, or -1 for 1
  int base = -1;           // the value the product is added to or subtracted from
  int lhs = -1, rhs = -1;  // the dot's operands
  // The base is a broadcast_in_dim used only here (a bias row): it is absorbed too, and
  // the step broadcasts its operand (`base` is then that operand) straight into the result.
  int broadcast = -1;
  bool negate = false;
  // The base is a bias row broadcast over the product's rows and the product is A.B^T or A.B going
  // to oneDNN (gemm.h's RowBiasSgemm): the primitive adds the bias itself, and the result is
  // neither filled with the bias first nor read by the product.
  bool row_bias = false;
  // What the update's one step reads: lhs, rhs, base and the scale if any.
  std::vector<int> reads;
  // Worked out once for the runs: the product, the broadcast of the base (when absorbed),
  // the result's dtype and size in bytes.
  DotPlan plan;
  GatherPlan broadcast_plan;
  ir::DType dtype = ir::DType::kF32;
  size_t bytes = 0;
};

// Every add/subtract of the program that matches, with its dot and product used by
// nothing else (not results either). f32 and f64 only (BLAS).
std::vector<DotUpdate> FindDotUpdates(const ir::Program& program);

// Runs `update` (the instruction operands' memory in `value`, indexed by instruction) into
// `out`: copies (or broadcasts) base into out unless they are the same block, then
// accumulates; a `row_bias` update is one product with the bias added by the primitive.
void RunDotUpdate(const DotUpdate& update, const uint8_t* const* value, uint8_t* out);

// The same for rows [first, last) of the result only (as RunDotRows counts them), on the
// calling thread; f32 updates whose plan DotRowsSupported accepts (product_epilogue.h).
void RunDotUpdateRows(const DotUpdate& update, const uint8_t* const* value, int64_t first,
                      int64_t last, uint8_t* out);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_DOT_UPDATE_H_
