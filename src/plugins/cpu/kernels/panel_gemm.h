// f32 products whose right-hand panel is small, on the plugin's own AVX-512 kernel instead
// of gemm.h's libraries: attention's batched products (scores q.k^T, p.v and their
// gradients, 32 to 128 rows over 32 to 128 columns and contractions) and the causal blocks
// of those (attention_causal.h) are hundreds of calls per step, each too small for the
// libraries' packing and dispatch to pay off (OpenBLAS ran the char model's 64x64x32 score
// products at about 70 GFLOP/s on the Xeon VM, a third of the core's peak).
//
// op(B) (at most kPanelMaxColumns x kPanelMaxDepth) is copied once per call into a dense
// k x n buffer (its columns padded to a multiple of 16 with zeros), except a plain B whose
// n is a multiple of 16 and whose rows span at most 32 KiB, which the kernel reads in
// place; the result is then computed 64 columns at a time, 6 rows at a time, with 24 vector
// accumulators: for each p in order, a broadcast of A's element times B's row added with
// one fused multiply-add. So every element of C is the same sum, in the same order
// (p = 0 .. k-1, from +0), however the rows and columns are split between calls and
// threads; alpha scales it once at the end (a multiply), and `accumulate` adds the old C
// after that (an add). docs/cpu-plugin.md, "Matrix products".
#ifndef SEAM_PLUGINS_CPU_PANEL_GEMM_H_
#define SEAM_PLUGINS_CPU_PANEL_GEMM_H_

#include <cstdint>

namespace seam::cpu {

inline constexpr int64_t kPanelMaxColumns = 128;
inline constexpr int64_t kPanelMaxDepth = 128;

// Whether this machine runs the kernel (x86-64 with AVX-512F and FMA).
bool PanelGemmAvailable();

inline constexpr int64_t kPanelMaxRows = 512;
inline constexpr int64_t kPanelMaxWork = int64_t{1} << 20;

// Whether a product (per batch: m x n over a contraction of k, B stored transposed or not)
// goes to PanelSgemm. Decided once per product when its plan is made (PlanDot), so that
// every part of it (rows per thread, causal blocks) takes the same kernel. Measured on the
// Xeon VM against OpenBLAS, one thread (BENCHMARKS.md "Attention-sized products"): 1.2-1.7x
// on the transposed-B shapes (q.k^T), 1.2x on p^T.do; where B is plain and 32 columns or
// fewer wide it was level or slower while B was copied on every call, so such a B is taken
// only as whole vectors (16 or 32 columns), which the kernel can read in place (the char
// model's p.v, 64 x 32 over 64: its 24 causal products 9.0-10.2 -> 8.8-9.6 ms per step);
// rows are capped so that the linear layers (thousands of rows) stay on oneDNN, which is
// faster there, and so is the work per batch: from 2^20 multiply-adds (the transformer
// block's 128 x 128 x 64 heads) the libraries' strips were faster in the step (its six
// attention products about 0.6 ms less of about 9.5, session 30), as for the library choice
// itself ("oneDNN from 2^20 multiply-adds").
inline bool PanelGemmChosen(int64_t m, int64_t n, int64_t k, bool trans_b) {
  return m > 0 && n > 0 && k > 0 && m <= kPanelMaxRows && n <= kPanelMaxColumns &&
         k <= kPanelMaxDepth && m * n * k < kPanelMaxWork && (trans_b || n > 32 || n % 16 == 0);
}

// C[m,n] = alpha * op(A).op(B), or with `accumulate` C += alpha * op(A).op(B); row-major,
// gemm.h's conventions (A stored [k,m] when trans_a, B stored [n,k] when trans_b). Requires
// PanelGemmAvailable(), n <= kPanelMaxColumns and k <= kPanelMaxDepth.
void PanelSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, bool accumulate, float* c,
                int64_t ldc);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_PANEL_GEMM_H_
