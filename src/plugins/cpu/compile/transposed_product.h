// Transposed products: a transpose of a dot_general's result that nothing else reads is
// written by the product's own gemm calls, each batch's [m, n] matrix at its place in the
// transpose's layout (WriteResultTransposed, kernels.h); the product's value is never in
// memory and the transpose copies nothing. In a transformer's attention, the heads' merge
// [batch, heads, seq, dim] -> [batch, seq, heads, dim] follows p.v in the forward and the
// gradients of q, k and v in the backward. The values are the product's, moved: the same
// gemm calls write to other addresses (a library may block a call with another ldc
// differently: the order of sums only).
#ifndef SEAM_PLUGINS_CPU_TRANSPOSED_PRODUCT_H_
#define SEAM_PLUGINS_CPU_TRANSPOSED_PRODUCT_H_

#include <optional>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {

// Per instruction: for a transpose whose operand is a dot_general read by it alone (not a
// result either) and whose layout WriteResultTransposed accepts, that dot_general; -1
// elsewhere.
std::vector<int> FindTransposedProducts(const ir::Program& program);

// The plan of transpose `transpose`'s step, computed by dot_general `dot`: PlanDot of the
// dot, writing the transpose's layout; nullopt where WriteResultTransposed refuses it (never
// for the pairs FindTransposedProducts returns: it asks this function).
std::optional<DotPlan> PlanTransposedProduct(const ir::Program& program, int transpose, int dot);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_TRANSPOSED_PRODUCT_H_
