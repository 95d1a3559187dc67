#include "src/plugins/cpu/kernels/panel_gemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define SEAM_PANEL_GEMM 1
// GCC 12's AVX-512 intrinsics start some results from an uninitialized vector on purpose
// (_mm512_undefined_ps) and its -Wuninitialized flags them where they inline.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#else
#define SEAM_PANEL_GEMM 0
#endif

namespace seam::cpu {

#if SEAM_PANEL_GEMM
namespace {

#define SEAM_PANEL_TARGET __attribute__((target("avx512f,fma")))

constexpr int64_t kLanes = 16;
constexpr int kMaxVectors = 4;  // 16-column vectors of C per register tile
// Rows of C per register tile for 1 to kMaxVectors vectors: 24 accumulators or fewer (and
// B's vectors and the broadcast beside them in the 32 registers).
constexpr int kRowsFor[kMaxVectors] = {12, 12, 8, 6};
constexpr int kMaxRows = 12;

// Rows [0, MR) and vectors [0, NV) of C from A's rows (a(i, p) = a[i * a_row + p * a_col])
// and the packed B (row p at bp + p * ldp): acc[i][v] = sum over p of a(i, p) * B[p, v], in
// order. The last vector writes only the lanes of `last`.
template <int MR, int NV>
SEAM_PANEL_TARGET void Tile(int64_t k, const float* a, int64_t a_row, int64_t a_col,
                            const float* bp, int64_t ldp, float alpha, bool accumulate, float* c,
                            int64_t ldc, __mmask16 last) {
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < k; ++p) {
    __m512 b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = _mm512_loadu_ps(bp + p * ldp + v * kLanes);
    const float* ap = a + p * a_col;
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const __m512 x = _mm512_set1_ps(ap[i * a_row]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(x, b[v], acc[i][v]);
    }
  }
  const __m512 scale = _mm512_set1_ps(alpha);
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __mmask16 lanes = v == NV - 1 ? last : static_cast<__mmask16>(0xffff);
      float* to = c + i * ldc + v * kLanes;
      __m512 out = alpha == 1.0F ? acc[i][v] : _mm512_mul_ps(scale, acc[i][v]);
      if (accumulate) out = _mm512_add_ps(_mm512_maskz_loadu_ps(lanes, to), out);
      _mm512_mask_storeu_ps(to, lanes, out);
    }
  }
}

using TileFunction = void (*)(int64_t, const float*, int64_t, int64_t, const float*, int64_t, float,
                              bool, float*, int64_t, __mmask16);

template <int NV, int... MR>
constexpr std::array<TileFunction, sizeof...(MR)> TilesOfWidth(std::integer_sequence<int, MR...>) {
  return {&Tile<MR + 1, NV>...};
}

// kTiles[nv - 1][mr - 1]: the tile of mr rows and nv vectors.
const std::array<std::array<TileFunction, kMaxRows>, kMaxVectors> kTiles = {
    TilesOfWidth<1>(std::make_integer_sequence<int, kMaxRows>{}),
    TilesOfWidth<2>(std::make_integer_sequence<int, kMaxRows>{}),
    TilesOfWidth<3>(std::make_integer_sequence<int, kMaxRows>{}),
    TilesOfWidth<4>(std::make_integer_sequence<int, kMaxRows>{})};

// dst[p][j] = src[j][p] for a 16 x 16 block (src rows lds apart, dst rows ldd apart): the
// usual three rounds of shuffles on sixteen registers.
SEAM_PANEL_TARGET void Transpose16(const float* src, int64_t lds, float* dst, int64_t ldd) {
  __m512 r[16], t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * lds);
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 8; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 8], 0x88);
    t[i + 8] = _mm512_shuffle_f32x4(r[i], r[i + 8], 0xdd);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 4], 0x88);
    r[i + 4] = _mm512_shuffle_f32x4(t[i], t[i + 4], 0xdd);
    r[i + 8] = _mm512_shuffle_f32x4(t[i + 8], t[i + 12], 0x88);
    r[i + 12] = _mm512_shuffle_f32x4(t[i + 8], t[i + 12], 0xdd);
  }
  // Column c of src is now in r[kRow[c]], its 128-bit lanes holding rows 0-3, 8-11, 4-7 and
  // 12-15: the middle two are swapped on the way out.
  static constexpr int kRow[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) {
    _mm512_storeu_ps(dst + i * ldd, _mm512_shuffle_f32x4(r[kRow[i]], r[kRow[i]], 0xd8));
  }
}

// op(B) for B stored [n, k] (rows ldb apart): packed[p][j] = b[j][p], 16 x 16 blocks in
// registers, the edges element by element, columns n to ldp zero.
void PackTransposed(const float* b, int64_t ldb, int64_t n, int64_t k, float* packed, int64_t ldp) {
  const int64_t n16 = n / 16 * 16, k16 = k / 16 * 16;
  for (int64_t j = 0; j < n16; j += 16) {
    for (int64_t p = 0; p < k16; p += 16)
      Transpose16(b + j * ldb + p, ldb, packed + p * ldp + j, ldp);
  }
  for (int64_t p = 0; p < k; ++p) {
    float* row = packed + p * ldp;
    const int64_t from = p < k16 ? n16 : 0;
    for (int64_t j = from; j < n; ++j) row[j] = b[j * ldb + p];
    std::fill(row + n, row + ldp, 0.0F);
  }
}

}  // namespace

bool PanelGemmAvailable() {
  static const bool available = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return available;
}

void PanelSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, bool accumulate, float* c,
                int64_t ldc) {
  if (m <= 0) return;
  // op(B) as k rows of ldp floats. A plain B whose rows are whole vectors and whose span
  // (k rows of ldb floats) fits in kInPlaceSpanBytes is read where it is: the tiles load
  // only whole vectors of its n columns, and a span that size stays in a core's L1 however
  // its stride maps onto the cache's sets (a head's slice of [seq, heads * dim], 128 rows
  // 1 KiB apart, fell on a sixteenth of the L1's sets and was no faster in place: some
  // products up to 7% slower). Else it is packed, the columns past n zero, so that the last
  // vector's load stays inside the buffer. The copy took about 30% of the kernel's time on
  // attention's causal strips (32 rows of C against up to 128 rows of B, one call each).
  constexpr int64_t kInPlaceSpanBytes = int64_t{32} << 10;
  const bool in_place = !trans_b && n % kLanes == 0 &&
                        k * ldb * static_cast<int64_t>(sizeof(float)) <= kInPlaceSpanBytes;
  const int64_t ldp = in_place ? ldb : (n + kLanes - 1) / kLanes * kLanes;
  thread_local std::vector<float> packed;
  const float* bp = b;
  if (!in_place) {
    packed.resize(static_cast<size_t>(k * ldp));
    float* to = packed.data();
    bp = to;
    if (trans_b) {
      PackTransposed(b, ldb, n, k, to, ldp);
    } else {
      for (int64_t p = 0; p < k; ++p) {
        float* row = to + p * ldp;
        std::memcpy(row, b + p * ldb, sizeof(float) * static_cast<size_t>(n));
        std::fill(row + n, row + ldp, 0.0F);
      }
    }
  }
  const int64_t a_row = trans_a ? 1 : lda, a_col = trans_a ? lda : 1;
  constexpr int64_t kPanel = kLanes * kMaxVectors;
  for (int64_t j0 = 0; j0 < n; j0 += kPanel) {
    const int64_t width = std::min(kPanel, n - j0);
    const int vectors = static_cast<int>((width + kLanes - 1) / kLanes);
    const int tail = static_cast<int>(width - (vectors - 1) * kLanes);  // 1 to 16
    const auto last = static_cast<__mmask16>((1U << tail) - 1U);
    const auto& tiles = kTiles[vectors - 1];
    const int64_t block = kRowsFor[vectors - 1];
    for (int64_t i = 0; i < m; i += block) {
      const int rows = static_cast<int>(std::min<int64_t>(block, m - i));
      tiles[rows - 1](k, a + i * a_row, a_row, a_col, bp + j0, ldp, alpha, accumulate,
                      c + i * ldc + j0, ldc, last);
    }
  }
}

#else  // not x86-64: gemm.h never calls PanelSgemm

bool PanelGemmAvailable() { return false; }

void PanelSgemm(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                int64_t, bool, float*, int64_t) {}

#endif

}  // namespace seam::cpu
