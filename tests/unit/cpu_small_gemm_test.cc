// The small-product loop (src/plugins/cpu/kernels/small_gemm.h) against OpenBLAS for every
// transpose pair, on shapes around kSmallGemmMaximumWork and on every column remainder of its
// 16/8/4/1 blocks, with strides wider than the matrices, alpha and accumulation; f32 and f64.
// Then through PlanDot/RunDot/RunDotAccumulate/RunDotRows: which plans take the loop, and
// that a product split by rows gives the same bits as the whole.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/small_gemm.h"

namespace seam::cpu {
namespace {

struct Case {
  int64_t m, n, k;
};

template <typename T>
std::vector<T> Random(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> dist(-1, 1);
  std::vector<T> values(static_cast<size_t>(count));
  for (T& v : values) v = dist(rng);
  return values;
}

// Shapes: both sides of the threshold, every n remainder mod 16 up to 33, k = 1, m = 1.
std::vector<Case> Cases() {
  std::vector<Case> cases = {{1, 1, 1},    {4, 16, 16}, {16, 16, 16}, {16, 16, 32},
                             {16, 16, 33}, {4, 4, 16},  {16, 4, 4},   {4, 16, 4},
                             {16, 16, 4},  {1, 64, 64}, {64, 64, 1},  {64, 1, 64},
                             {7, 9, 65},   {3, 33, 41}, {17, 15, 16}, {5, 3, 128}};
  for (int64_t n = 1; n <= 33; ++n) cases.push_back({3, n, 5});
  return cases;
}

void Blas(bool ta, bool tb, const Case& c, float alpha, const float* a, int64_t lda, const float* b,
          int64_t ldb, float beta, float* out, int64_t ldc) {
  Sgemm(ta, tb, c.m, c.n, c.k, alpha, a, lda, b, ldb, beta, out, ldc);
}
void Blas(bool ta, bool tb, const Case& c, double alpha, const double* a, int64_t lda,
          const double* b, int64_t ldb, double beta, double* out, int64_t ldc) {
  Dgemm(ta, tb, c.m, c.n, c.k, alpha, a, lda, b, ldb, beta, out, ldc);
}
void Small(bool ta, bool tb, const Case& c, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, bool accumulate, float* out, int64_t ldc) {
  SmallSgemm(ta, tb, c.m, c.n, c.k, alpha, a, lda, b, ldb, accumulate, out, ldc);
}
void Small(bool ta, bool tb, const Case& c, double alpha, const double* a, int64_t lda,
           const double* b, int64_t ldb, bool accumulate, double* out, int64_t ldc) {
  SmallDgemm(ta, tb, c.m, c.n, c.k, alpha, a, lda, b, ldb, accumulate, out, ldc);
}

// Runs one case both ways with leading dimensions `pad` wider than the matrices and checks
// every element within the error bound of a k-term sum (both sides round differently),
// and that the padding is left alone.
template <typename T>
void Check(bool ta, bool tb, const Case& c, T alpha, bool accumulate, int64_t pad) {
  const int64_t a_rows = ta ? c.k : c.m, a_cols = ta ? c.m : c.k;
  const int64_t b_rows = tb ? c.n : c.k, b_cols = tb ? c.k : c.n;
  const int64_t lda = a_cols + pad, ldb = b_cols + pad, ldc = c.n + pad;
  const std::vector<T> a = Random<T>(a_rows * lda, 1), b = Random<T>(b_rows * ldb, 2);
  std::vector<T> expected = Random<T>(c.m * ldc, 3);
  if (!accumulate) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) expected[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
    }
  }
  std::vector<T> got = expected;
  Blas(ta, tb, c, alpha, a.data(), lda, b.data(), ldb, T(accumulate ? 1 : 0), expected.data(), ldc);
  Small(ta, tb, c, alpha, a.data(), lda, b.data(), ldb, accumulate, got.data(), ldc);
  const std::string what = std::string(ta ? "T" : "N") + (tb ? "T" : "N") +
                           " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                           " k=" + std::to_string(c.k) + " pad=" + std::to_string(pad) +
                           (accumulate ? " accumulate" : "");
  // |sum| error <= k * eps * sum |a||b| (here |a|, |b| <= 1), plus the accumulated value's.
  const T bound = static_cast<T>(c.k + 2) * std::numeric_limits<T>::epsilon() *
                  (static_cast<T>(c.k) * std::abs(alpha) + 1);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const T e = expected[i * ldc + j], g = got[i * ldc + j];
      if (j >= c.n) {
        ASSERT_EQ(e, g) << what << ": padding changed at " << i << "," << j;
      } else {
        ASSERT_FALSE(std::isnan(g)) << what << " at " << i << "," << j;
        ASSERT_NEAR(e, g, bound) << what << " at " << i << "," << j;
      }
    }
  }
}

template <typename T>
void CheckAll() {
  for (const Case& c : Cases()) {
    if (c.n * c.k > kSmallGemmMaximumWork) continue;  // beyond SmallSgemm's stated limit
    for (int t = 0; t < 4; ++t) {
      const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
      Check<T>(ta, tb, c, 1, false, 0);
      Check<T>(ta, tb, c, 1, false, 3);
      Check<T>(ta, tb, c, T(-0.25), true, 0);
      Check<T>(ta, tb, c, T(0.5), true, 2);
      Check<T>(ta, tb, c, T(3), false, 1);
    }
  }
}

TEST(SmallGemmTest, F32MatchesOpenBlasForEveryTransposeAndShape) {
  SetGemmLibrary(GemmLibrary::kOpenBlas);
  CheckAll<float>();
  SetGemmLibrary(GemmLibrary::kAuto);
}

TEST(SmallGemmTest, F64MatchesOpenBlasForEveryTransposeAndShape) { CheckAll<double>(); }

// Each element is one in-order sum: the transposes do not change a bit.
TEST(SmallGemmTest, TransposesGiveTheSameBits) {
  const Case c{5, 19, 7};
  const std::vector<float> a = Random<float>(c.m * c.k, 4), b = Random<float>(c.k * c.n, 5);
  std::vector<float> a_t(a.size()), b_t(b.size());
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t p = 0; p < c.k; ++p) a_t[p * c.m + i] = a[i * c.k + p];
  }
  for (int64_t p = 0; p < c.k; ++p) {
    for (int64_t j = 0; j < c.n; ++j) b_t[j * c.k + p] = b[p * c.n + j];
  }
  std::vector<float> nn(c.m * c.n), other(c.m * c.n);
  SmallSgemm(false, false, c.m, c.n, c.k, 1, a.data(), c.k, b.data(), c.n, false, nn.data(), c.n);
  for (int t = 1; t < 4; ++t) {
    const bool ta = (t & 1) != 0, tb = (t & 2) != 0;
    SmallSgemm(ta, tb, c.m, c.n, c.k, 1, ta ? a_t.data() : a.data(), ta ? c.m : c.k,
               tb ? b_t.data() : b.data(), tb ? c.k : c.n, false, other.data(), c.n);
    EXPECT_EQ(nn, other) << "transposes " << t;
  }
}

ir::Shape F32(std::vector<int64_t> dims) { return ir::Shape{ir::DType::kF32, std::move(dims)}; }

// [b, m, k] x [b, k, n] with batch dimension 0, contracting lhs 2 / rhs 1.
DotDimensions BatchedDims() { return DotDimensions{{0}, {0}, {2}, {1}}; }

TEST(SmallGemmTest, PlansTakeTheLoopUpToTheThreshold) {
  const DotDimensions dims = BatchedDims();
  EXPECT_TRUE(PlanDot(F32({3, 16, 32}), F32({3, 32, 16}), dims).small);  // 8192 per batch
  EXPECT_FALSE(PlanDot(F32({3, 16, 33}), F32({3, 33, 16}), dims).small);
  EXPECT_TRUE(PlanDot(F32({1, 4, 16}), F32({1, 16, 4}), dims).small);   // k = 4 n
  EXPECT_FALSE(PlanDot(F32({1, 4, 17}), F32({1, 17, 4}), dims).small);  // k > 4 n
  EXPECT_FALSE(PlanDot(F32({1, 4, 0}), F32({1, 0, 4}), dims).small);    // an empty sum
  EXPECT_FALSE(
      PlanDot(ir::Shape{ir::DType::kS32, {1, 2, 2}}, ir::Shape{ir::DType::kS32, {1, 2, 2}}, dims)
          .small);
  EXPECT_TRUE(
      PlanDot(ir::Shape{ir::DType::kF64, {1, 2, 2}}, ir::Shape{ir::DType::kF64, {1, 2, 2}}, dims)
          .small);
}

// RunDot on a small plan against the same product on OpenBLAS (a plan with `small` cleared),
// every batch; RunDotAccumulate likewise; RunDotRows split at every row equals the whole.
TEST(SmallGemmTest, RunDotMatchesTheBlasPathAndSplitsExactly) {
  for (const DotDimensions& dims :
       {BatchedDims(), DotDimensions{{0}, {0}, {1}, {1}}, DotDimensions{{0}, {0}, {2}, {2}},
        DotDimensions{{0}, {0}, {1}, {2}}}) {
    const ir::Shape lhs = F32({2, 6, 6}), rhs = F32({2, 6, 6});
    DotPlan small = PlanDot(lhs, rhs, dims);
    ASSERT_TRUE(small.small);
    DotPlan blas = small;
    blas.small = false;
    const std::vector<float> a = Random<float>(72, 6), b = Random<float>(72, 7);
    const auto* ab = reinterpret_cast<const uint8_t*>(a.data());
    const auto* bb = reinterpret_cast<const uint8_t*>(b.data());
    std::vector<float> got(72), want(72), rows(72);
    RunDot(small, ab, bb, reinterpret_cast<uint8_t*>(got.data()));
    RunDot(blas, ab, bb, reinterpret_cast<uint8_t*>(want.data()));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
    RunDotAccumulate(small, ab, bb, -0.5, reinterpret_cast<uint8_t*>(got.data()));
    RunDotAccumulate(blas, ab, bb, -0.5, reinterpret_cast<uint8_t*>(want.data()));
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
    if (!DotRowsSupported(small)) continue;
    RunDot(small, ab, bb, reinterpret_cast<uint8_t*>(got.data()));
    for (int64_t r = 0; r < 12; r += 5) {
      RunDotRows(small, ab, bb, r, std::min<int64_t>(12, r + 5), false, 1,
                 reinterpret_cast<uint8_t*>(rows.data()));
    }
    EXPECT_EQ(rows, got);
  }
}

}  // namespace
}  // namespace seam::cpu
