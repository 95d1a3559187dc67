// Vectorizable float32 exp and erf (kernels_fast.h, FastUnaryF32): branch-free polynomial
// forms the compiler turns into wide-vector loops, where the C library's expf and erff are
// one call per element (erff about 6 ns, against 1.7 ns here, on the Zen 5 build machine;
// a transformer step's GELU runs it on millions of elements). Accuracy, checked against double in
// tests/unit/cpu_math_test.cc: exp within 2 ulp over the whole range (subnormal results,
// overflow to inf, NaN and -inf as expf), erf within 2e-7 absolute and 4 ulp relative.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "src/base/sanitizers.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"

namespace seam::cpu {
namespace {

// Every helper is inlined into the version that calls it (clang has no `flatten` beside
// `target`): a helper left out of line would be compiled for the baseline, where
// __builtin_fmaf is a library call.
#define SEAM_MATH_INLINE inline __attribute__((always_inline))
#define SEAM_MATH_LAMBDA __attribute__((always_inline))

// 2^k as a float for k in [-126, 127].
SEAM_MATH_INLINE float Pow2(int32_t k) { return std::bit_cast<float>((k + 127) << 23); }

// a * b + c: one fused multiply-add (one rounding) in the FMA versions, a multiply and an
// add (two roundings) in the baseline one. The polynomials below are written with it.
template <bool kFma>
SEAM_MATH_INLINE float MulAdd(float a, float b, float c) {
  if constexpr (kFma) {
    return __builtin_fmaf(a, b, c);
  } else {
    return a * b + c;
  }
}

// The reduction and polynomial both exps below share, for a clamped or in-range x: n and
// exp(r), so that exp(x) = exp(r) 2^n.
struct ExpParts {
  float n;
  float e;
};
template <bool kFma>
SEAM_MATH_INLINE ExpParts ReduceExp(float x) {
  const float t = x * 1.44269504088896341F;
  const float n = (t + 12582912.0F) - 12582912.0F;  // round to nearest (|t| < 2^22)
  // n * 0.693359375 is exact (n < 2^8, the constant has 9 significant bits): both forms
  // round r the same way.
  float r = MulAdd<kFma>(n, -0.693359375F, x);
  r = MulAdd<kFma>(n, 2.12194440e-4F, r);
  float p = 1.9875691500e-4F;
  p = MulAdd<kFma>(p, r, 1.3981999507e-3F);
  p = MulAdd<kFma>(p, r, 8.3334519073e-3F);
  p = MulAdd<kFma>(p, r, 4.1665795894e-2F);
  p = MulAdd<kFma>(p, r, 1.6666665459e-1F);
  p = MulAdd<kFma>(p, r, 5.0000001201e-1F);
  return {n, MulAdd<kFma>(p * r, r, r) + 1.0F};
}

// exp(x) = 2^n exp(r), n = round(x / ln 2), r = x - n ln 2 in two parts (Cody and Waite),
// exp(r) by a degree-6 polynomial on |r| <= ln 2 / 2 (Cephes' expf coefficients). 2^n is
// applied as two factors so that results down to the subnormals come out right; x is
// clamped first (exp(-104) underflows to 0 and exp(89) overflows to inf through the
// factors), which keeps n in range; a NaN passes through the arithmetic.
//
// x <= -104 (-inf among them) gives +0, as the factors would, but those lanes are evaluated
// at 0 and replaced afterwards: a product that underflows costs a microcode assist of more
// than a hundred cycles per vector instruction on Intel cores (not on AMD's), and half the
// scores of a causal softmax are -inf (the char model's softmax exp loop 1.6 -> 0.4 ms on
// an Intel Xeon; docs/cpu-plugin.md, "float32 exp and erf"). Results in the subnormal
// range, (-104, -87.3), still take the assist: they are rare, and kept exact.
template <bool kFma>
SEAM_MATH_INLINE float Exp(float x) {
  const bool zero = x <= -104.0F;
  float c = zero ? 0.0F : x;
  c = c > 89.0F ? 89.0F : c;  // a NaN fails both tests and stays
  const ExpParts parts = ReduceExp<kFma>(c);
  const float safe_n = parts.n == parts.n ? parts.n : 0.0F;  // NaN: any scale (the product is NaN)
  const auto whole = static_cast<int32_t>(safe_n);
  const int32_t half = whole / 2;
  const float scaled = parts.e * Pow2(half) * Pow2(whole - half);
  return zero ? 0.0F : scaled;
}

// Exp for x in [-16, 0] only (erf's exp(-x^2), |x| clamped to 4): the same reduction and
// polynomial, without the clamps and the NaN guard (never needed in this range) and with
// one scale factor, 2^n for n in [-24, 0], since the result (at least 1.1e-7) is never
// subnormal: multiplying by powers of two is exact there, so every result has Exp's bits.
// About a third of erf's time on a 2M-element GELU (2.8 -> 1.95 ms, Zen 4, AVX-512).
template <bool kFma>
SEAM_MATH_INLINE float ExpOfSmallNegative(float x) {
  const ExpParts parts = ReduceExp<kFma>(x);
  return parts.e * Pow2(static_cast<int32_t>(parts.n));
}

// erf: for |x| < 1 the Taylor series of the odd function to x^21 (error below 1e-8, and
// relative accuracy near 0, where erf(x) ~ 1.128 x); above, Abramowitz and Stegun 7.1.26,
// 1 - (a1 t + ... + a5 t^5) exp(-x^2) with t = 1 / (1 + p |x|) (absolute error 1.5e-7,
// where erf >= 0.84). |x| is clamped to 4 (erf(4) rounds to 1 in float); the sign is
// restored at the end (copysign, so erf(-0) = -0); a NaN is returned as it is.
template <bool kFma>
SEAM_MATH_INLINE float Erf(float x) {
  const float a = std::fabs(x);
  const float s = a * a;
  // Taylor: (2/sqrt(pi)) x sum_k c_k s^k, c_k = (-1)^k / (k! (2k+1)), Horner from k = 10.
  float t = 1.3122532963802806e-08F;
  t = MulAdd<kFma>(t, s, -1.4503852223150468e-07F);
  t = MulAdd<kFma>(t, s, 1.4589169000933706e-06F);
  t = MulAdd<kFma>(t, s, -1.3227513227513228e-05F);
  t = MulAdd<kFma>(t, s, 1.0683760683760684e-04F);
  t = MulAdd<kFma>(t, s, -7.5757575757575758e-04F);
  t = MulAdd<kFma>(t, s, 4.6296296296296296e-03F);
  t = MulAdd<kFma>(t, s, -2.3809523809523808e-02F);
  t = MulAdd<kFma>(t, s, 1.0000000000000000e-01F);
  t = MulAdd<kFma>(t, s, -3.3333333333333333e-01F);
  t = MulAdd<kFma>(t, s, 1.0F);
  const float small = 1.1283791670955126F * a * t;
  const float b = a < 4.0F ? a : 4.0F;
  const float u = 1.0F / MulAdd<kFma>(0.3275911F, b, 1.0F);
  float poly = 1.061405429F;
  poly = MulAdd<kFma>(poly, u, -1.453152027F);
  poly = MulAdd<kFma>(poly, u, 1.421413741F);
  poly = MulAdd<kFma>(poly, u, -0.284496736F);
  poly = MulAdd<kFma>(poly, u, 0.254829592F);
  const float large = MulAdd<kFma>(-(poly * u), ExpOfSmallNegative<kFma>(-b * b), 1.0F);
  const float magnitude = a < 1.0F ? small : large;
  return x != x ? x : std::copysign(magnitude, x);  // erf(-0) = -0
}

template <typename F>
SEAM_MATH_INLINE void MapF32(const uint8_t* in, uint8_t* out, int64_t n, F f) {
  const auto* x = reinterpret_cast<const float*>(in);
  auto* y = reinterpret_cast<float*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

template <bool kFma>
SEAM_MATH_INLINE bool UnaryBody(ir::Op op, const uint8_t* in, uint8_t* out, int64_t n) {
  switch (op) {
    case ir::Op::kExp:
      MapF32(in, out, n, [](float v) SEAM_MATH_LAMBDA { return Exp<kFma>(v); });
      return true;
    case ir::Op::kErf:
      MapF32(in, out, n, [](float v) SEAM_MATH_LAMBDA { return Erf<kFma>(v); });
      return true;
    // The expressions of kernels_elementwise.cc's loops (each one correctly rounded IEEE
    // operation, so the same bits), here for the wide vectors: the optimizer's sqrt and
    // divide, a softmax's and GELU's negations.
    case ir::Op::kNeg:
      MapF32(in, out, n, [](float v) SEAM_MATH_LAMBDA { return -v; });
      return true;
    case ir::Op::kAbs:
      MapF32(in, out, n, [](float v) SEAM_MATH_LAMBDA { return std::fabs(v); });
      return true;
    case ir::Op::kSqrt:
      MapF32(in, out, n, [](float v) SEAM_MATH_LAMBDA { return std::sqrt(v); });
      return true;
    case ir::Op::kRsqrt:
      MapF32(in, out, n, [](float v) SEAM_MATH_LAMBDA { return 1.0F / std::sqrt(v); });
      return true;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kExp
#define SEAM_CASES_EXCEPT_kErf
#define SEAM_CASES_EXCEPT_kNeg
#define SEAM_CASES_EXCEPT_kAbs
#define SEAM_CASES_EXCEPT_kSqrt
#define SEAM_CASES_EXCEPT_kRsqrt
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kExp
#undef SEAM_CASES_EXCEPT_kErf
#undef SEAM_CASES_EXCEPT_kNeg
#undef SEAM_CASES_EXCEPT_kAbs
#undef SEAM_CASES_EXCEPT_kSqrt
#undef SEAM_CASES_EXCEPT_kRsqrt
      break;
  }
  return false;
}

// Three versions, picked once: AVX-512 with fused multiply-adds, AVX2 with them, and the
// baseline without. The polynomials are compute-bound: the AVX-512 version takes half the
// time of the AVX2 one where the core runs 512-bit vectors at full width (Zen 5: erf 1.56 ->
// 0.77 ns, exp 0.63 -> 0.33 ns per element), and the fused multiply-adds take another 18%
// off erf and 14% off exp (one instruction and one rounding instead of two per step). The
// two FMA versions give the same bits (the same operations per lane, no other
// contraction: -ffp-contract=off); the baseline differs from them by rounding only, within
// the same accuracy (tests/unit/cpu_math_test.cc checks each version the machine has).
// ThreadSanitizer builds get the baseline alone (as SEAM_KERNEL_CLONES, target_clones.h).
#if defined(__x86_64__) && !SEAM_TSAN
#define SEAM_MATH_X86 1
#else
#define SEAM_MATH_X86 0
#endif

#if defined(__clang__)
#define SEAM_MATH_FLATTEN
#else
#define SEAM_MATH_FLATTEN flatten
#endif

#if SEAM_MATH_X86
__attribute__((target("avx512f,fma"), SEAM_MATH_FLATTEN)) bool UnaryAvx512(ir::Op op,
                                                                           const uint8_t* in,
                                                                           uint8_t* out,
                                                                           int64_t n) {
  return UnaryBody<true>(op, in, out, n);
}
__attribute__((target("avx2,fma"), SEAM_MATH_FLATTEN)) bool UnaryAvx2(ir::Op op, const uint8_t* in,
                                                                      uint8_t* out, int64_t n) {
  return UnaryBody<true>(op, in, out, n);
}
#endif
__attribute__((SEAM_MATH_FLATTEN)) bool UnaryBaseline(ir::Op op, const uint8_t* in, uint8_t* out,
                                                      int64_t n) {
  return UnaryBody<false>(op, in, out, n);
}

using UnaryFn = bool (*)(ir::Op, const uint8_t*, uint8_t*, int64_t);

UnaryFn UnaryFor(MathVersion version) {
  switch (version) {
#if SEAM_MATH_X86
    case MathVersion::kAvx512Fma:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma") ? UnaryAvx512
                                                                                : nullptr;
    case MathVersion::kAvx2Fma:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? UnaryAvx2 : nullptr;
#else
    case MathVersion::kAvx512Fma:
    case MathVersion::kAvx2Fma:
      return nullptr;
#endif
    case MathVersion::kBaseline:
      return UnaryBaseline;
  }
  return nullptr;
}

UnaryFn BestUnary() {
  for (MathVersion v : {MathVersion::kAvx512Fma, MathVersion::kAvx2Fma}) {
    if (UnaryFn f = UnaryFor(v)) return f;
  }
  return UnaryBaseline;
}

}  // namespace

bool FastUnaryF32(ir::Op op, const uint8_t* in, uint8_t* out, int64_t n) {
  static const UnaryFn best = BestUnary();
  return best(op, in, out, n);
}

bool FastUnaryF32On(MathVersion version, bool* available, ir::Op op, const uint8_t* in,
                    uint8_t* out, int64_t n) {
  const UnaryFn f = UnaryFor(version);
  *available = f != nullptr;
  return f != nullptr && f(op, in, out, n);
}

}  // namespace seam::cpu
