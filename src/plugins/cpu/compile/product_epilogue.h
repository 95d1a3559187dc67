// Product epilogues: a fusion group that reads the f32 result of a matrix product (a
// dot_general, or a dot update, dot_update.h) at each element's own position runs
// interleaved with the product: the product's rows are cut into one part per kernel thread
// (thread_pool.h), and each thread computes its part's rows with one single-threaded gemm
// call (SgemmOnThisThread, gemm.h) and then runs the group's tiles over those rows, which
// its own core has just written. Without it the product and the group are two parallel
// loops, and every thread waits for the slowest part of the product before any starts on
// the group (docs/cpu-plugin.md "Product epilogues"; 1.04-1.43x on the char transformer's
// feed-forward shapes at 2 threads, BENCHMARKS.md table 22). A tile that straddles two
// parts runs on the calling thread once both are done. Any elementwise group qualifies (a GELU with
// the values its gradient keeps, a mask, a scale): its loop is the one it runs on its own, so every
// element is computed by the same code; the product's value is still written (other steps may read
// it). On one thread the run is the product, then the group, as without it.
//
// Taken only where the product goes to oneDNN (gemm.h): OpenBLAS splits a product over its
// own threads, which this scheme cannot share. SEAM_CPU_EPILOGUES=off turns these off with
// the convolution epilogues.
#ifndef SEAM_PLUGINS_CPU_PRODUCT_EPILOGUE_H_
#define SEAM_PLUGINS_CPU_PRODUCT_EPILOGUE_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/compile/loop_compile.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {

// Parts are multiples of this many rows (as gemm.h splits a product over the threads).
inline constexpr int64_t kPartRows = 16;
// Smaller products are not interleaved: a lone loop over them is short anyway.
inline constexpr int64_t kProductEpilogueMinimumBytes = int64_t{1} << 20;

// For each product step, the first later step that reads its value: where that is a group
// with no reductions that reads the value at each element's own position (not through a
// broadcast) and has its element count, it is marked Step::interleaved and the product
// moves down to just before it (safe: nothing in between reads the product, and its
// operands came before it). Products under kProductEpilogueMinimumBytes, products whose
// blocks would go to OpenBLAS and products with a copied operand are left alone. Call
// after the convolution epilogues and before buffer assignment (which keeps the product's
// operands alive through the group and never lets the group overwrite them).
void AttachProductEpilogues(const ir::Program& program, const std::vector<LoopKernel>& kernels,
                            FusionPlan* plan);

// Runs product step `s` and the group of step s + 1 (`kernel`) interleaved over the run's
// `value` table. `dot` is step s's plan when it is a dot_general (a dot update has its own).
void RunProductWithEpilogue(const ir::Program& program, const FusionPlan& plan, int s,
                            const DotPlan& dot, const LoopKernel& kernel,
                            const std::vector<uint8_t*>& value);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_PRODUCT_EPILOGUE_H_
