// Tiny matrix products on a plain loop instead of gemm.h's libraries. OpenBLAS spends about
// 2,000 instructions on a 4x16x16 product before and around its arithmetic (dispatch,
// thread checks, packing) and oneDNN more; for products as small as SmallGemmFits accepts
// a loop over register tiles is cheaper (docs/cpu-plugin.md, "Matrix products").
//
// Each result element is one sum over the contracting index in order (p = 0, 1, ...,
// k - 1), scaled by alpha once at the end: the same bits whatever the transposes, however
// the rows are split between calls, and in every instruction-set version of the loop (no
// multiply-add contraction).
#ifndef SEAM_PLUGINS_CPU_SMALL_GEMM_H_
#define SEAM_PLUGINS_CPU_SMALL_GEMM_H_

#include <cstdint>

namespace seam::cpu {

// Products of at most kSmallGemmMaximumWork multiply-adds (m * n * k) whose contracting
// length k is at most 4 * max(n, 4) go to SmallSgemm/SmallDgemm (PlanDot, SmallGemmFits).
// Measured one thread at a time on the 2-core AMD EPYC (AVX-512; OpenBLAS 0.3.21, oneDNN)
// over 38 shapes and the four transpose pairs: the loop takes 0.3-0.6x OpenBLAS's time up to
// about 1 Ki multiply-adds, and breaks even between 8 Ki and 12 Ki (16x16x32: 0.169 us
// against 0.177; 32x32x16: 0.363 against 0.338); oneDNN was slower than both throughout.
// A long k over few columns leaves the loop's vector lanes idle and one sum chain per lane
// (16x4x128: 0.85 us against 0.27): the second condition keeps those on OpenBLAS.
inline constexpr int64_t kSmallGemmMaximumWork = 8192;

inline bool SmallGemmFits(int64_t m, int64_t n, int64_t k) {
  return m > 0 && n > 0 && k > 0 && k <= 4 * (n > 4 ? n : 4) &&
         static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <=
             static_cast<double>(kSmallGemmMaximumWork);
}

// C[m,n] = alpha * op(A) . op(B), or with `accumulate` C += alpha * op(A) . op(B); row-major
// with gemm.h's conventions (A stored [k,m] when trans_a, B stored [n,k] when trans_b).
// Requires n * k <= kSmallGemmMaximumWork (op(B) may be copied to the stack) and k > 0.
void SmallSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, bool accumulate, float* c,
                int64_t ldc);
void SmallDgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                const double* a, int64_t lda, const double* b, int64_t ldb, bool accumulate,
                double* c, int64_t ldc);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_SMALL_GEMM_H_
