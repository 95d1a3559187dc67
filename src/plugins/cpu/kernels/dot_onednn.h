// bf16 dot_general on oneDNN's matmul primitive (docs/cpu-plugin.md "Matrix products"): both
// operands stay bf16, oneDNN multiplies on the CPU's bf16 instructions (AVX512_BF16 or
// AMX), accumulates in f32 and rounds each result once to bf16 (to nearest even), as the
// widening path does; only the order of the sums differs. Where a product goes is
// Bf16ProductOnOneDnn below (this build links oneDNN, oneDNN runs bf16 code on this CPU,
// SEAM_CPU_GEMM is not `openblas`, the product is large enough, and, where the CPU's bf16
// instruction is slower than its f32 FMA, small enough in one side), and oneDNN must have a
// JIT kernel for the plan's layouts; else the product widens its operands to f32
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

#include "src/plugins/cpu/kernels/gemm_library.h"

namespace seam::cpu {

struct DotPlan;

// Below this many multiply-adds (batches * m * n * k) a oneDNN call costs more than widening
// (16x16x16 on one thread: about 3.5 us against 2 us through the runtime; level at 32^3,
// oneDNN 1.3-2x faster from 64^3 on; BENCHMARKS.md "bf16 products").
inline constexpr double kBf16OneDnnMinimumWork = 32.0 * 32 * 32;

// Where the CPU's bf16 instruction is slower than its f32 FMA (bf16_rate.h), a product whose
// every side (m, n and k) exceeds this many widens under SEAM_CPU_GEMM=auto: there the f32
// product runs at the FMA's rate and the conversions are a small part. Smaller sides keep
// oneDNN's bf16 matmul, which then costs less than the conversions and a small f32 product
// (Emerald Rapids without AMX, one thread: 128^3 0.051 against 0.055 ms, 192^3 0.165
// against 0.145, 512x64x512 0.43 against 0.47; BENCHMARKS.md "bf16 products").
inline constexpr int64_t kBf16WidenAboveSide = 128;

// Whether this build links oneDNN and oneDNN runs bf16 (AVX512_BF16 or AMX) code here.
bool OneDnnHasBf16();

// What decides where bf16 products go on this machine.
struct Bf16Hardware {
  bool onednn_bf16 = false;  // OneDnnHasBf16()
  bool amx = false;          // oneDNN runs AMX code here (far faster than either path)
  double dot_over_fma = 0;   // Bf16DotRateOverFma() (bf16_rate.h); 0 when not measured
};

// This machine's, measured once per process (the first call takes about 0.1 ms where
// oneDNN runs bf16 code; PJRT_Client_Create makes it through InitializeBf16MatmulOnce).
const Bf16Hardware& ThisBf16Hardware();

// Whether a bf16 product of `batches` products of m x k by k x n goes to oneDNN's matmul:
// never without oneDNN's bf16 code, under `openblas`, or below kBf16OneDnnMinimumWork
// multiply-adds; always else under `onednn` (forced), with AMX, or where the bf16
// instruction is at least as fast as the FMA; otherwise (`auto` on a CPU whose bf16
// instruction is the slower) unless every side exceeds kBf16WidenAboveSide.
bool Bf16ProductOnOneDnn(const Bf16Hardware& hardware, GemmLibrary library, int64_t batches,
                         int64_t m, int64_t n, int64_t k);

// The plugin attribute `dot_bf16` for `library` on this machine: "onednn_bf16_matmul",
// "widened_to_f32", or "by_size" (the last rule above: sides all above 128 widen).
const char* Bf16PathName(const Bf16Hardware& hardware, GemmLibrary library);

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
