// bf16 dot_general on oneDNN's matmul primitive (docs/cpu-plugin.md "Matrix products"): both
// operands stay bf16, oneDNN multiplies on the CPU's bf16 instructions (AVX512_BF16 or
// AMX), accumulates in f32 and rounds each result once to bf16 (to nearest even), as the
// widening path does; only the order of the sums differs. Used where this build links
// oneDNN, oneDNN runs bf16 code on this CPU (OneDnnHasBf16), SEAM_CPU_GEMM is not
// `openblas`, the product has at least kBf16OneDnnMinimumWork multiply-adds, and oneDNN has
// a JIT kernel for the plan's layouts; else the product widens its operands to f32
// (kernels_dot.cc). The primitives are made once per DotPlan, i.e. once
// per dot_general of a compiled executable, for the [batches, m, k] x [batches, k, n]
// layouts the plan chose (either operand may be read transposed). Products of at least
// kSplitMinimumWork multiply-adds are split over the kernel threads (thread_pool.h), by
// batch where there are enough batches, else by rows of the result, each part one
// single-threaded oneDNN call.
#ifndef SEAM_PLUGINS_CPU_DOT_ONEDNN_H_
#define SEAM_PLUGINS_CPU_DOT_ONEDNN_H_

#include <cstdint>
#include <memory>

namespace seam::cpu {

struct DotPlan;

// Below this many multiply-adds (batches * m * n * k) a oneDNN call costs more than widening
// (16x16x16 on one thread: about 3.5 us against 2 us through the runtime; level at 32^3,
// oneDNN 1.3-2x faster from 64^3 on; BENCHMARKS.md "bf16 products").
inline constexpr double kBf16OneDnnMinimumWork = 32.0 * 32 * 32;

// Whether this build links oneDNN and oneDNN runs bf16 (AVX512_BF16 or AMX) code here.
bool OneDnnHasBf16();

// The primitives for one bf16 product (opaque outside dot_onednn.cc).
class Bf16Matmul;

// The primitives for `plan` (a bf16 plan with `blas` set; a copied operand is read in the
// canonical layout its copy has),
// or null where any condition above fails.
std::shared_ptr<const Bf16Matmul> MakeBf16Matmul(const DotPlan& plan);

// out = a.b with `a` and `b` in the plan's layouts. False where a oneDNN call failed (the
// caller then computes the product on the widening path; `out` may be half written).
bool RunBf16Matmul(const Bf16Matmul& matmul, const uint8_t* a, const uint8_t* b, uint8_t* out);

// Runs one small bf16 product on oneDNN, once per process, where products can go there
// (as InitializeGemmLibrariesOnce does for f32, gemm.h: oneDNN sets up the matmul's kernels
// and statics before the device threads register their exit handler). PJRT_Client_Create
// calls it.
void InitializeBf16MatmulOnce();

// How many products RunBf16Matmul has computed in this process (tests: that the oneDNN
// path ran).
int64_t Bf16MatmulRuns();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_DOT_ONEDNN_H_
