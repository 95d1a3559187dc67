#include "src/plugins/cpu/kernels/small_gemm.h"

#include <cstring>

#include "src/plugins/cpu/kernels/target_clones.h"

namespace seam::cpu {
namespace {

// L lanes of T: a GCC vector (one AVX register of 32 bytes or less; the default version of
// the kernel splits it into SSE halves), or T itself for one lane.
template <typename T, int L>
struct Lanes {
  typedef T type __attribute__((vector_size(L * sizeof(T))));
};
template <typename T>
struct Lanes<T, 1> {
  using type = T;
};

// Rows [0, MR) and columns [0, W) of the result in MR x R vectors of L lanes kept in
// registers (MR x R independent sums hide the adds' latency; each B load serves MR rows):
// acc = sum_p a(i, p) * b[p, 0:W] with b row-major [k, .] (ldb apart). `a_row` and `a_col`
// are A's strides for i and p.
template <typename T, int MR, int W>
inline void Tile(int64_t k, T alpha, const T* a, int64_t a_row, int64_t a_col, const T* b,
                 int64_t ldb, bool accumulate, T* c, int64_t ldc) {
  constexpr int L = W * sizeof(T) <= 32 ? W : static_cast<int>(32 / sizeof(T));
  constexpr int R = W / L;
  using V = typename Lanes<T, L>::type;
  V acc[MR][R];
  V v[R];
  for (int r = 0; r < R; ++r) std::memcpy(&v[r], b + r * L, sizeof(V));
  for (int i = 0; i < MR; ++i) {
    const T a0 = a[i * a_row];
    for (int r = 0; r < R; ++r) acc[i][r] = a0 * v[r];
  }
  for (int64_t p = 1; p < k; ++p) {
    const T* b_p = b + p * ldb;
    for (int r = 0; r < R; ++r) std::memcpy(&v[r], b_p + r * L, sizeof(V));
    for (int i = 0; i < MR; ++i) {
      const T ap = a[i * a_row + p * a_col];
      for (int r = 0; r < R; ++r) acc[i][r] += ap * v[r];
    }
  }
  for (int i = 0; i < MR; ++i) {
    T* c_i = c + i * ldc;
    for (int r = 0; r < R; ++r) {
      V out;
      if (accumulate) {
        std::memcpy(&out, c_i + r * L, sizeof(V));
        out += alpha * acc[i][r];
      } else {
        out = alpha == T{1} ? acc[i][r] : alpha * acc[i][r];
      }
      std::memcpy(c_i + r * L, &out, sizeof(V));
    }
  }
}

// Columns [0, W) of every row: four rows at a time, then one.
template <typename T, int W>
inline void ColumnBlock(int64_t m, int64_t k, T alpha, const T* a, int64_t a_row, int64_t a_col,
                        const T* b, int64_t ldb, bool accumulate, T* c, int64_t ldc) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    Tile<T, 4, W>(k, alpha, a + i * a_row, a_row, a_col, b, ldb, accumulate, c + i * ldc, ldc);
  }
  for (; i < m; ++i) {
    Tile<T, 1, W>(k, alpha, a + i * a_row, a_row, a_col, b, ldb, accumulate, c + i * ldc, ldc);
  }
}

// The whole result, 16 columns at a time and then 8, 4 and single ones.
template <typename T>
inline void RowsTimesMatrix(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_row,
                            int64_t a_col, const T* b, int64_t ldb, bool accumulate, T* c,
                            int64_t ldc) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    ColumnBlock<T, 16>(m, k, alpha, a, a_row, a_col, b + j, ldb, accumulate, c + j, ldc);
  }
  if (j + 8 <= n) {
    ColumnBlock<T, 8>(m, k, alpha, a, a_row, a_col, b + j, ldb, accumulate, c + j, ldc);
    j += 8;
  }
  if (j + 4 <= n) {
    ColumnBlock<T, 4>(m, k, alpha, a, a_row, a_col, b + j, ldb, accumulate, c + j, ldc);
    j += 4;
  }
  for (; j < n; ++j) {
    ColumnBlock<T, 1>(m, k, alpha, a, a_row, a_col, b + j, ldb, accumulate, c + j, ldc);
  }
}

template <typename T>
inline void SmallGemmT(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                       const T* a, int64_t lda, const T* b, int64_t ldb, bool accumulate, T* c,
                       int64_t ldc) {
  const int64_t a_row = trans_a ? 1 : lda;
  const int64_t a_col = trans_a ? lda : 1;
  if (!trans_b) {
    RowsTimesMatrix(m, n, k, alpha, a, a_row, a_col, b, ldb, accumulate, c, ldc);
    return;
  }
  // B is stored [n, k]: its transpose, row-major [k, n], on the stack (n * k is small).
  T b_t[kSmallGemmMaximumWork];
  for (int64_t p = 0; p < k; ++p) {
    T* row = b_t + p * n;
    for (int64_t j = 0; j < n; ++j) row[j] = b[j * ldb + p];
  }
  RowsTimesMatrix(m, n, k, alpha, a, a_row, a_col, b_t, n, accumulate, c, ldc);
}

}  // namespace

SEAM_KERNEL_CLONES void SmallSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                                   float alpha, const float* a, int64_t lda, const float* b,
                                   int64_t ldb, bool accumulate, float* c, int64_t ldc) {
  SmallGemmT(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, accumulate, c, ldc);
}

SEAM_KERNEL_CLONES void SmallDgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                                   double alpha, const double* a, int64_t lda, const double* b,
                                   int64_t ldb, bool accumulate, double* c, int64_t ldc) {
  SmallGemmT(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, accumulate, c, ldc);
}

}  // namespace seam::cpu
