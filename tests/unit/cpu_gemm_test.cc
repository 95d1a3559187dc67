// The CPU plugin's matrix products (src/plugins/cpu/kernels/gemm.h): each library, for every
// transpose pair, on odd sizes, with alpha and beta, and split over 1-3 kernel threads,
// against a double-precision loop within the f32 error bound of a k-term sum; which library
// `auto` picks; and SEAM_CPU_GEMM's values and errors, also through PJRT_Client_Create.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/onednn_splits.h"

namespace seam::cpu {
namespace {

struct Case {
  bool trans_a, trans_b;
  int64_t m, n, k;
};

std::vector<float> Random(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = dist(rng);
  return values;
}

// Restores the process-wide choices a test changes.
class GemmTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetGemmLibrary(GemmLibrary::kAuto);
    SetKernelThreads(0);
    unsetenv(kGemmVariable);
  }

  // Runs the case on `library` with `threads` kernel threads and checks every element of
  // C = alpha * op(A).op(B) + beta * C0 against the same sum in double precision.
  void Check(GemmLibrary library, const Case& c, int threads, float alpha, float beta) {
    SetGemmLibrary(library);
    SetKernelThreads(threads);
    const std::vector<float> a = Random(c.m * c.k, 1), b = Random(c.k * c.n, 2);
    const int64_t lda = c.trans_a ? c.m : c.k, ldb = c.trans_b ? c.k : c.n;
    std::vector<float> out = Random(c.m * c.n, 3);
    const std::vector<float> before = out;
    if (beta == 0) {
      // C's old values must not be read at all: NaN would survive a multiplication by 0.
      out.assign(out.size(), std::numeric_limits<float>::quiet_NaN());
    }
    Sgemm(c.trans_a, c.trans_b, c.m, c.n, c.k, alpha, a.data(), lda, b.data(), ldb, beta,
          out.data(), c.n);
    const std::string what = std::string(GemmLibraryName(library)) + " " + (c.trans_a ? "T" : "N") +
                             (c.trans_b ? "T" : "N") + " m=" + std::to_string(c.m) +
                             " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
                             " threads=" + std::to_string(threads);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < c.k; ++p) {
          const double x = a[c.trans_a ? p * lda + i : i * lda + p];
          const double y = b[c.trans_b ? j * ldb + p : p * ldb + j];
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        const double expected = alpha * sum + (beta == 0 ? 0.0 : beta * before[i * c.n + j]);
        const double bound =
            (c.k + 2) * std::numeric_limits<float>::epsilon() *
            (std::fabs(alpha) * magnitude + std::fabs(beta * before[i * c.n + j]) + 1e-30);
        ASSERT_NEAR(out[i * c.n + j], expected, bound) << what << " at (" << i << ", " << j << ")";
      }
    }
  }

  std::vector<GemmLibrary> Libraries() {
    std::vector<GemmLibrary> libraries = {GemmLibrary::kOpenBlas};
    if (OneDnnAvailable()) libraries.push_back(GemmLibrary::kOneDnn);
    return libraries;
  }
};

TEST_F(GemmTest, EveryLibraryAndTransposeMatchesTheDoubleSum) {
  const int64_t sizes[][3] = {{1, 1, 1}, {5, 7, 3}, {37, 19, 64}, {130, 70, 65}};
  for (GemmLibrary library : Libraries()) {
    for (const auto& s : sizes) {
      for (bool trans_a : {false, true}) {
        for (bool trans_b : {false, true}) {
          Case c{trans_a, trans_b, s[0], s[1], s[2]};
          Check(library, c, 1, 1.0f, 0.0f);
          Check(library, c, 1, -0.5f, 1.0f);  // an SGD step: w - lr * x^T.g
        }
      }
    }
  }
}

// Products above kSplitMinimumWork are split by rows (while every thread gets a 16-row
// block, or m >= n) or else by columns, in blocks of 16; odd extents leave a short last
// block. 45 rows go by rows on 2 threads and by columns on 3; 20 rows always by columns.
// Every transpose pair, 1 to 3 threads.
TEST_F(GemmTest, SplitProductsMatchOnEveryThreadCount) {
  const Case shapes[] = {
      {false, false, 301, 130, 120}, {false, false, 45, 611, 160}, {false, false, 20, 1400, 160}};
  static_assert(301.0 * 130 * 120 >= kSplitMinimumWork && 45.0 * 611 * 160 >= kSplitMinimumWork &&
                20.0 * 1400 * 160 >= kSplitMinimumWork);
  for (GemmLibrary library : Libraries()) {
    for (Case c : shapes) {
      for (bool trans_a : {false, true}) {
        for (bool trans_b : {false, true}) {
          c.trans_a = trans_a;
          c.trans_b = trans_b;
          for (int threads : {1, 2, 3}) Check(library, c, threads, -0.25f, 1.0f);
        }
      }
    }
  }
}

// C = A.B^T (+ C) on oneDNN runs on its matmul primitive from kOneDnnMinimumWork on, one kept
// per shape (gemm.h; the smaller shapes stay on dnnl_sgemm): with leading dimensions wider
// than the rows, beta 0 (C never read) and 1, split over 1 and 2 kernel threads, each shape
// run twice with new values (the second run reuses the kept primitive), against the
// double-precision sum; C's padding untouched.
TEST_F(GemmTest, TransposedRhsOnOneDnnMatchesTheDoubleSumAndUsesTheMatmulPrimitive) {
  if (!OneDnnAvailable()) GTEST_SKIP() << "this build has no oneDNN";
  SetGemmLibrary(GemmLibrary::kOneDnn);
  const int64_t before = OneDnnMatmulRuns();
  const int64_t shapes[][3] = {{5, 7, 3}, {37, 19, 64}, {301, 130, 120}};
  static_assert(301.0 * 130 * 120 / 2 >= kOneDnnMinimumWork);  // also each half on 2 threads
  unsigned seed = 10;
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2], lda = k + 3, ldb = k + 5, ldc = n + 2;
    for (int threads : {1, 2}) {
      SetKernelThreads(threads);
      for (float beta : {0.0f, 1.0f, 0.0f, 1.0f}) {
        const std::vector<float> a = Random(m * lda, ++seed), b = Random(n * ldb, ++seed);
        const std::vector<float> start = Random(m * ldc, ++seed);
        std::vector<float> out = start;
        if (beta == 0) {
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) out[i * ldc + j] = std::nanf("");
          }
        }
        Sgemm(false, true, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, beta, out.data(), ldc);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            if (j >= n) {  // the padding of C is left as it was
              ASSERT_EQ(out[i * ldc + j], start[i * ldc + j]) << "padding at " << i << ", " << j;
              continue;
            }
            double sum = beta * start[i * ldc + j], magnitude = std::fabs(sum);
            for (int64_t p = 0; p < k; ++p) {
              const double x = a[i * lda + p], y = b[j * ldb + p];
              sum += x * y;
              magnitude += std::fabs(x * y);
            }
            const double bound = (k + 2) * std::numeric_limits<float>::epsilon() * magnitude;
            ASSERT_NEAR(out[i * ldc + j], sum, bound)
                << "m=" << m << " n=" << n << " k=" << k << " beta=" << beta
                << " threads=" << threads << " at (" << i << ", " << j << ")";
          }
        }
      }
    }
  }
  EXPECT_GT(OneDnnMatmulRuns(), before) << "no product ran on oneDNN's matmul primitive";
}

// |A|^T.|B| by OpenBLAS: for each element of A^T.B, the sum of its terms' magnitudes.
std::vector<float> MagnitudesOfTransposedLhs(int64_t m, int64_t n, int64_t k,
                                             const std::vector<float>& a, int64_t lda,
                                             const std::vector<float>& b, int64_t ldb) {
  std::vector<float> abs_a(a.size()), abs_b(b.size()), out(m * n);
  std::transform(a.begin(), a.end(), abs_a.begin(), [](float x) { return std::fabs(x); });
  std::transform(b.begin(), b.end(), abs_b.begin(), [](float x) { return std::fabs(x); });
  SetGemmLibrary(GemmLibrary::kOpenBlas);
  Sgemm(true, false, m, n, k, 1.0f, abs_a.data(), lda, abs_b.data(), ldb, 0.0f, out.data(), n);
  return out;
}

// C = A^T.B (+ C), A stored [k, m], runs on the primitive where OnMatmulPrimitive says (a
// weight gradient's shape: n 256, m 4n, k 1024; a split over 2 threads calls it for each
// half of 2048 rows); other A^T.B shapes stay on dnnl_sgemm. Against OpenBLAS's product
// (these are too large for a double-precision sum in the sanitizer pass), within the sum of
// both products' rounding bounds; C's padding untouched; beta 0 never reads C.
TEST_F(GemmTest, TransposedLhsOnOneDnnTakesThePrimitiveForNarrowResults) {
  if (!OneDnnAvailable()) GTEST_SKIP() << "this build has no oneDNN";
  struct Run {
    int64_t m, n, k;
    int threads;
    bool primitive;  // every call (both halves on 2 threads) on the primitive
  };
  const Run runs[] = {{1024, 256, 1024, 1, true},  {2048, 256, 1024, 2, true},
                      {1024, 256, 1024, 2, false},  // halves of 512 rows: m < 4n
                      {1040, 260, 1024, 1, false},  // n not a multiple of 64
                      {1024, 256, 960, 1, false},   // k < 1024
                      {4096, 1024, 1024, 1, false}};
  unsigned seed = 40;
  for (const Run& r : runs) {
    const int64_t lda = r.m + 3, ldb = r.n + 5, ldc = r.n + 2;
    const std::vector<float> a = Random(r.k * lda, ++seed), b = Random(r.k * ldb, ++seed);
    std::vector<float> expected(r.m * r.n);
    SetGemmLibrary(GemmLibrary::kOpenBlas);
    Sgemm(true, false, r.m, r.n, r.k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, expected.data(),
          r.n);
    const std::vector<float> magnitude = MagnitudesOfTransposedLhs(r.m, r.n, r.k, a, lda, b, ldb);
    for (float beta : {0.0f, 1.0f}) {
      const std::vector<float> start = Random(r.m * ldc, ++seed);
      std::vector<float> out = start;
      if (beta == 0) {
        for (int64_t i = 0; i < r.m; ++i) {
          for (int64_t j = 0; j < r.n; ++j) out[i * ldc + j] = std::nanf("");
        }
      }
      SetGemmLibrary(GemmLibrary::kOneDnn);
      SetKernelThreads(r.threads);
      const int64_t before = OneDnnMatmulRuns();
      Sgemm(true, false, r.m, r.n, r.k, 1.0f, a.data(), lda, b.data(), ldb, beta, out.data(), ldc);
      const std::string what =
          "m=" + std::to_string(r.m) + " n=" + std::to_string(r.n) + " k=" + std::to_string(r.k) +
          " threads=" + std::to_string(r.threads) + " beta=" + std::to_string(beta);
      EXPECT_EQ(OneDnnMatmulRuns() - before, r.primitive ? r.threads : 0) << what;
      for (int64_t i = 0; i < r.m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          if (j >= r.n) {
            ASSERT_EQ(out[i * ldc + j], start[i * ldc + j]) << what << " padding at " << i;
            continue;
          }
          const double sum = expected[i * r.n + j] + beta * start[i * ldc + j];
          const double bound = 2.0 * (r.k + 2) * std::numeric_limits<float>::epsilon() *
                               (magnitude[i * r.n + j] + std::fabs(start[i * ldc + j]));
          ASSERT_NEAR(out[i * ldc + j], sum, bound) << what << " at (" << i << ", " << j << ")";
        }
      }
    }
  }
}

// C = A.op(B) + bias on the matmul primitive's bias argument (RowBiasSgemm), B stored
// [n, k] (trans_b) and [k, n]: against the double-precision sum plus the bias, C's padding
// untouched, on 1 and 2 kernel threads and on the calling thread alone; the rows computed in
// two calls are the bits of one call.
TEST_F(GemmTest, RowBiasMatchesTheDoubleSumAndSplitsExactly) {
  if (!RowBiasSgemmAvailable()) GTEST_SKIP() << "this build has no oneDNN";
  SetGemmLibrary(GemmLibrary::kAuto);
  for (bool trans_b : {true, false}) {
    SCOPED_TRACE(trans_b ? "B stored [n, k]" : "B stored [k, n]");
    const int64_t m = 301, n = 130, k = 120, lda = k + 3, ldc = n + 2;
    const int64_t ldb = trans_b ? k + 5 : n + 5;
    const std::vector<float> a = Random(m * lda, 41), bias = Random(n, 43);
    const std::vector<float> b = Random((trans_b ? n : k) * ldb, 42);
    const std::vector<float> start = Random(m * ldc, 44);
    const auto b_at = [&](int64_t p, int64_t j) {
      return trans_b ? b[j * ldb + p] : b[p * ldb + j];
    };
    std::vector<float> whole;
    for (int threads : {1, 2}) {
      for (bool on_this_thread : {false, true}) {
        SetKernelThreads(threads);
        std::vector<float> out = start;
        RowBiasSgemm(on_this_thread, trans_b, m, n, k, a.data(), lda, b.data(), ldb, bias.data(),
                     out.data(), ldc);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            if (j >= n) {
              ASSERT_EQ(out[i * ldc + j], start[i * ldc + j]) << "padding at " << i << ", " << j;
              continue;
            }
            double sum = bias[j], magnitude = std::fabs(sum);
            for (int64_t p = 0; p < k; ++p) {
              const double x = a[i * lda + p], y = b_at(p, j);
              sum += x * y;
              magnitude += std::fabs(x * y);
            }
            const double bound = (k + 2) * std::numeric_limits<float>::epsilon() * magnitude;
            ASSERT_NEAR(out[i * ldc + j], sum, bound) << "at (" << i << ", " << j << ")";
          }
        }
        if (whole.empty()) whole = out;
      }
    }
    SetKernelThreads(0);
    // Rows [0, 160) and [160, 301) in two calls, as a product epilogue's parts run.
    std::vector<float> parts = start;
    RowBiasSgemm(true, trans_b, 160, n, k, a.data(), lda, b.data(), ldb, bias.data(), parts.data(),
                 ldc);
    RowBiasSgemm(true, trans_b, m - 160, n, k, a.data() + 160 * lda, lda, b.data(), ldb,
                 bias.data(), parts.data() + 160 * ldc, ldc);
    if (seam::testing::OneDnnSplitsKeepTheBits()) {
      EXPECT_EQ(parts, whole);
    } else {
      // The whole was checked against the double sum above; the parts within its rounding.
      for (size_t e = 0; e < whole.size(); ++e) {
        ASSERT_NEAR(parts[e], whole[e], 1e-5 * (1.0 + std::fabs(whole[e]))) << "element " << e;
      }
      std::cout << "[ note ] no AVX-512: oneDNN's parts are compared within rounding, not "
                   "bit for bit\n";
    }
  }
}

TEST_F(GemmTest, AutoPicksOneDnnOnlyForLargeProductsOnAvx512) {
  // Where OpenBLAS runs generic kernels every f32 product goes to oneDNN
  // (cpu_blas_core_test); this test is about the rule on a fitting OpenBLAS.
  if (ThisGemmHost().blas_generic) GTEST_SKIP() << "OpenBLAS runs generic kernels here";
  SetGemmLibrary(GemmLibrary::kAuto);
  EXPECT_EQ(SgemmLibraryFor(4, 16, 16), GemmLibrary::kOpenBlas);
  EXPECT_EQ(SgemmLibraryFor(64, 10, 128), GemmLibrary::kOpenBlas);  // 81920 multiply-adds
  const GemmLibrary large = OneDnnHasAvx512() ? GemmLibrary::kOneDnn : GemmLibrary::kOpenBlas;
  EXPECT_EQ(SgemmLibraryFor(64, 128, 784), large);
  EXPECT_EQ(SgemmLibraryFor(128, 128, 64), large);  // exactly kOneDnnMinimumWork
  EXPECT_EQ(SgemmLibraryFor(128, 128, 63), GemmLibrary::kOpenBlas);
  SetGemmLibrary(GemmLibrary::kOpenBlas);
  EXPECT_EQ(SgemmLibraryFor(512, 4096, 4096), GemmLibrary::kOpenBlas);
  if (OneDnnAvailable()) {
    SetGemmLibrary(GemmLibrary::kOneDnn);
    EXPECT_EQ(SgemmLibraryFor(1, 1, 1), GemmLibrary::kOneDnn);
  }
}

TEST_F(GemmTest, TheVariableNamesEachLibraryAndRefusesOthers) {
  unsetenv(kGemmVariable);
  EXPECT_EQ(GemmLibraryFromEnvironment().value(), GemmLibrary::kAuto);
  for (GemmLibrary library : {GemmLibrary::kAuto, GemmLibrary::kOpenBlas}) {
    setenv(kGemmVariable, std::string(GemmLibraryName(library)).c_str(), 1);
    EXPECT_EQ(GemmLibraryFromEnvironment().value(), library);
  }
  setenv(kGemmVariable, "onednn", 1);
  absl::StatusOr<GemmLibrary> onednn = GemmLibraryFromEnvironment();
  if (OneDnnAvailable()) {
    EXPECT_EQ(onednn.value(), GemmLibrary::kOneDnn);
  } else {
    ASSERT_FALSE(onednn.ok());
    EXPECT_NE(onednn.status().message().find("libdnnl-dev"), std::string::npos);
  }
  setenv(kGemmVariable, "mkl", 1);
  absl::StatusOr<GemmLibrary> bad = GemmLibraryFromEnvironment();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("SEAM_CPU_GEMM"), std::string::npos) << bad.status();
  EXPECT_NE(bad.status().message().find("'mkl'"), std::string::npos) << bad.status();
}

// Through the C ABI: a bad value fails client creation with that message; a good one sets
// the process-wide choice.
TEST_F(GemmTest, ClientCreationReadsTheVariable) {
  const PJRT_Api* api = GetCpuPjrtApi();
  setenv(kGemmVariable, "fastest", 1);
  PJRT_Client_Create_Args create{};
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  PJRT_Error* error = api->PJRT_Client_Create(&create);
  ASSERT_NE(error, nullptr);
  PJRT_Error_Message_Args message{};
  message.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE;
  message.error = error;
  api->PJRT_Error_Message(&message);
  const std::string text(message.message, message.message_size);
  EXPECT_NE(text.find("SEAM_CPU_GEMM must be auto, openblas or onednn, got 'fastest'"),
            std::string::npos)
      << text;
  PJRT_Error_Destroy_Args destroy{};
  destroy.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE;
  destroy.error = error;
  api->PJRT_Error_Destroy(&destroy);

  setenv(kGemmVariable, "openblas", 1);
  create = {};
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  ASSERT_EQ(api->PJRT_Client_Create(&create), nullptr);
  EXPECT_EQ(GetGemmLibrary(), GemmLibrary::kOpenBlas);
  PJRT_Client_Destroy_Args client_destroy{};
  client_destroy.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE;
  client_destroy.client = create.client;
  EXPECT_EQ(api->PJRT_Client_Destroy(&client_destroy), nullptr);
}

}  // namespace
}  // namespace seam::cpu
