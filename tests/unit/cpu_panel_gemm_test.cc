// panel_gemm.h: PanelSgemm against the in-order sum it promises (every shape, transpose,
// alpha and accumulate; nothing written past a row's n columns; a plain B of whole vectors,
// n = 16, 64, 128, is read in place with its leading dimension), the same bits however the
// rows are split; which dot plans take it (PanelGemmChosen); and RunDot, RunDotAccumulate
// and RunDotRows on a panel plan against the same plan on the libraries, a thread split and
// a row split giving the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/panel_gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0F, 2.0F);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  int64_t m, n, k;
  bool trans_a, trans_b, accumulate;
  float alpha;
};

// C as PanelSgemm defines it: per element, +0 then one fused multiply-add per p in order,
// alpha applied once (a multiply, skipped for 1), then the old C added.
std::vector<float> Expected(const Case& c, const std::vector<float>& a, int64_t lda,
                            const std::vector<float>& b, int64_t ldb, std::vector<float> out,
                            int64_t ldc) {
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      float sum = 0.0F;
      for (int64_t p = 0; p < c.k; ++p) {
        const float x = c.trans_a ? a[p * lda + i] : a[i * lda + p];
        const float y = c.trans_b ? b[j * ldb + p] : b[p * ldb + j];
        sum = std::fma(x, y, sum);
      }
      if (c.alpha != 1.0F) sum = c.alpha * sum;
      float& to = out[i * ldc + j];
      to = c.accumulate ? to + sum : sum;
    }
  }
  return out;
}

TEST(PanelGemmTest, EveryElementIsTheInOrderSum) {
  if (!PanelGemmAvailable()) GTEST_SKIP() << "this machine has no AVX-512F and FMA";
  int cases = 0;
  for (int64_t m : {1, 5, 6, 7, 12, 13, 33}) {
    for (int64_t n : {1, 15, 16, 17, 33, 64, 65, 100, 128}) {
      for (int64_t k : {1, 3, 16, 17, 33, 128}) {
        for (int flags = 0; flags < 8; ++flags) {
          const Case c{m,
                       n,
                       k,
                       (flags & 1) != 0,
                       (flags & 2) != 0,
                       (flags & 4) != 0,
                       flags == 5 ? 0.5F : 1.0F};
          // Leading dimensions past the matrices' widths: padding that must stay untouched.
          const int64_t lda = (c.trans_a ? m : k) + 3, ldb = (c.trans_b ? k : n) + 5, ldc = n + 7;
          const std::vector<float> a = Random(static_cast<size_t>((c.trans_a ? k : m) * lda), 1);
          const std::vector<float> b = Random(static_cast<size_t>((c.trans_b ? n : k) * ldb), 2);
          std::vector<float> got = Random(static_cast<size_t>(m * ldc), 3);
          const std::vector<float> want = Expected(c, a, lda, b, ldb, got, ldc);
          PanelSgemm(c.trans_a, c.trans_b, m, n, k, c.alpha, a.data(), lda, b.data(), ldb,
                     c.accumulate, got.data(), ldc);
          ASSERT_EQ(got, want) << "m " << m << " n " << n << " k " << k << " flags " << flags;
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 7 * 9 * 6 * 8);
}

TEST(PanelGemmTest, RowSplitsGiveTheSameBits) {
  if (!PanelGemmAvailable()) GTEST_SKIP() << "this machine has no AVX-512F and FMA";
  const int64_t m = 50, n = 70, k = 40;
  const std::vector<float> a = Random(m * k, 4), b = Random(n * k, 5);
  std::vector<float> whole(m * n), parts(m * n);
  PanelSgemm(false, true, m, n, k, 1.0F, a.data(), k, b.data(), k, false, whole.data(), n);
  for (int64_t r = 0; r < m; r += 7) {
    const int64_t rows = std::min<int64_t>(7, m - r);
    PanelSgemm(false, true, rows, n, k, 1.0F, a.data() + r * k, k, b.data(), k, false,
               parts.data() + r * n, n);
  }
  EXPECT_EQ(parts, whole);
}

ir::Shape F32(std::vector<int64_t> dims) { return ir::Shape{ir::DType::kF32, std::move(dims)}; }

TEST(PanelGemmTest, PlansTakeItForAttentionSizedProducts) {
  const bool available = PanelGemmAvailable();
  // q.k^T per batch: [64, 32] . [64, 32]^T (B transposed).
  const DotDimensions scores{{0}, {0}, {2}, {2}};
  EXPECT_EQ(PlanDot(F32({8, 64, 32}), F32({8, 64, 32}), scores).panel, available);
  // p.v with 64 columns, B plain.
  const DotDimensions values{{0}, {0}, {2}, {1}};
  EXPECT_EQ(PlanDot(F32({8, 64, 64}), F32({8, 64, 64}), values).panel, available);
  // 2^20 multiply-adds per batch (the transformer block's 128-position heads) and more: the
  // libraries.
  EXPECT_FALSE(PlanDot(F32({8, 128, 128}), F32({8, 128, 64}), values).panel);
  EXPECT_FALSE(PlanDot(F32({8, 128, 64}), F32({8, 128, 64}), scores).panel);
  EXPECT_EQ(PlanDot(F32({8, 127, 64}), F32({8, 128, 64}), scores).panel, available);
  // Plain B of 32 or 16 columns (whole vectors, read in place): yes; 24 columns, 2048 rows,
  // 129 columns, a contraction of 129, f64, small: no.
  EXPECT_EQ(PlanDot(F32({8, 64, 64}), F32({8, 64, 32}), values).panel, available);
  EXPECT_EQ(PlanDot(F32({8, 64, 64}), F32({8, 64, 16}), values).panel, available);
  EXPECT_FALSE(PlanDot(F32({8, 64, 64}), F32({8, 64, 24}), values).panel);
  EXPECT_FALSE(PlanDot(F32({2048, 128}), F32({128, 128}), DotDimensions{{}, {}, {1}, {1}}).panel);
  EXPECT_FALSE(PlanDot(F32({8, 64, 32}), F32({8, 129, 32}), scores).panel);
  EXPECT_FALSE(PlanDot(F32({8, 64, 129}), F32({8, 64, 129}), scores).panel);
  EXPECT_FALSE(PlanDot(ir::Shape{ir::DType::kF64, {8, 64, 32}},
                       ir::Shape{ir::DType::kF64, {8, 64, 32}}, scores)
                   .panel);
  EXPECT_FALSE(PlanDot(F32({3, 16, 32}), F32({3, 16, 32}), scores).panel);  // SmallGemmFits
}

// The panel plan against the library plan (within rounding: other sums), then its own
// splits: threads over batches and RunDotRows over rows, bit for bit.
TEST(PanelGemmTest, RunDotMatchesTheLibrariesAndSplitsExactly) {
  if (!PanelGemmAvailable()) GTEST_SKIP() << "this machine has no AVX-512F and FMA";
  for (const DotDimensions& dims :
       {DotDimensions{{0}, {0}, {2}, {2}}, DotDimensions{{0}, {0}, {1}, {1}},
        DotDimensions{{0}, {0}, {2}, {1}}}) {
    const ir::Shape lhs = F32({6, 40, 40}), rhs = F32({6, 40, 40});
    DotPlan panel = PlanDot(lhs, rhs, dims);
    ASSERT_TRUE(panel.panel);
    DotPlan library = panel;
    library.panel = false;
    const size_t count = 6 * 40 * 40;
    const std::vector<float> a = Random(count, 6), b = Random(count, 7);
    const auto* ab = reinterpret_cast<const uint8_t*>(a.data());
    const auto* bb = reinterpret_cast<const uint8_t*>(b.data());
    std::vector<float> got(count), want(count), rows(count), threaded(count);
    RunDot(panel, ab, bb, reinterpret_cast<uint8_t*>(got.data()));
    RunDot(library, ab, bb, reinterpret_cast<uint8_t*>(want.data()));
    for (size_t i = 0; i < count; ++i) ASSERT_NEAR(got[i], want[i], 2e-4F) << i;
    SetKernelThreads(2);
    RunDot(panel, ab, bb, reinterpret_cast<uint8_t*>(threaded.data()));
    SetKernelThreads(0);
    EXPECT_EQ(threaded, got);
    RunDotAccumulate(panel, ab, bb, -0.5, reinterpret_cast<uint8_t*>(got.data()));
    RunDotAccumulate(library, ab, bb, -0.5, reinterpret_cast<uint8_t*>(want.data()));
    for (size_t i = 0; i < count; ++i) ASSERT_NEAR(got[i], want[i], 2e-4F) << i;
    ASSERT_TRUE(DotRowsSupported(panel));
    RunDot(panel, ab, bb, reinterpret_cast<uint8_t*>(got.data()));
    for (int64_t r = 0; r < 240; r += 13) {
      RunDotRows(panel, ab, bb, r, std::min<int64_t>(240, r + 13), false, 1,
                 reinterpret_cast<uint8_t*>(rows.data()));
    }
    EXPECT_EQ(rows, got);
  }
}

}  // namespace
}  // namespace seam::cpu
