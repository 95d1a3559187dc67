// Fast paths for the pooling windows of convolutional networks (kernels_window.h): f32
// reduce_window_max and select_and_scatter whose window covers only the last two
// dimensions, without padding or dilation. They give the same bits as the general loops:
// max is exact in any order (FloatMax's NaN and signed-zero rules are kept), and where the
// windows do not overlap, each element of select_and_scatter's result receives at most one
// source value.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "src/base/sanitizers.h"
#include "src/plugins/cpu/kernels/kernels_window.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace seam::cpu {
namespace {

// The planes ([..., h, w] -> outer planes of h x w) and the two windowed dimensions, when
// the window has that form.
struct Planes {
  int64_t count = 0;  // the product of the leading dimensions
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  ir::WindowDim row, col;
};

bool PlanesOf(const std::vector<ir::WindowDim>& window, const std::vector<int64_t>& operand,
              Planes* p) {
  const size_t rank = window.size();
  if (rank < 2 || operand.size() != rank) return false;
  p->count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const ir::WindowDim& w = window[d];
    if (w.pad_low != 0 || w.pad_high != 0 || w.base_dilation != 1 || w.window_dilation != 1) {
      return false;
    }
    if (d + 2 < rank) {
      if (w.size != 1 || w.stride != 1) return false;
      p->count *= operand[d];
    }
  }
  p->row = window[rank - 2];
  p->col = window[rank - 1];
  p->in_h = operand[rank - 2];
  p->in_w = operand[rank - 1];
  if (p->row.size > p->in_h || p->col.size > p->in_w || p->row.size < 1 || p->col.size < 1) {
    return false;
  }
  p->out_h = (p->in_h - p->row.size) / p->row.stride + 1;
  p->out_w = (p->in_w - p->col.size) / p->col.stride + 1;
  return true;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// A key whose signed order is the floats' order, with -0 below +0 (FloatMax prefers +0).
int32_t OrderKey(uint32_t u) {
  return static_cast<int32_t>(u ^ (static_cast<uint32_t>(static_cast<int32_t>(u) >> 31) >> 1));
}

float FromKey(int32_t key) {
  const uint32_t k = static_cast<uint32_t>(key);
  const uint32_t u = k ^ (static_cast<uint32_t>(key >> 31) >> 1);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The row loops below come in an AVX2 and a default version (as kernels_fast.cc's).
#if SEAM_TSAN
#define SEAM_POOL_KERNEL
#else
#define SEAM_POOL_KERNEL __attribute__((target_clones("avx2", "default")))
#endif

// One result row of a 2x2, stride-2 max pool: rows r0 and r1 of the input.
SEAM_POOL_KERNEL void MaxRow2x2(const float* r0, const float* r1, float* y, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t u[4] = {Bits(r0[2 * j]), Bits(r0[2 * j + 1]), Bits(r1[2 * j]),
                           Bits(r1[2 * j + 1])};
    int32_t best = OrderKey(u[0]);
    uint32_t nan = 0;
    for (int t = 0; t < 4; ++t) {
      nan |= static_cast<uint32_t>((u[t] & 0x7fffffffu) > 0x7f800000u);
      const int32_t key = OrderKey(u[t]);
      best = key > best ? key : best;
    }
    const float m = FromKey(best);
    y[j] = nan != 0 ? std::numeric_limits<float>::quiet_NaN() : m;
  }
}

// One source row of a 2x2, stride-2 select_and_scatter: all four results of each window
// written (the selected one gets the source value, +0 added as the general loop does, the
// others +0). Selection and stores are masks on the bits, without branches, so that the
// loop vectorizes.
SEAM_POOL_KERNEL void ScatterRow2x2(const float* r0, const float* r1, const float* s, float* y0,
                                    float* y1, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const float a = r0[2 * j], b = r0[2 * j + 1], c = r1[2 * j], d = r1[2 * j + 1];
    const uint32_t to_b = 0u - static_cast<uint32_t>(!(a >= b));
    const float ab = to_b != 0 ? b : a;
    const uint32_t to_c = 0u - static_cast<uint32_t>(!(ab >= c));
    const float abc = to_c != 0 ? c : ab;
    const uint32_t to_d = 0u - static_cast<uint32_t>(!(abc >= d));
    const uint32_t v = Bits(0.0f + s[j]);
    const uint32_t keep_c = to_c & ~to_d, keep_b = to_b & ~to_c & ~to_d;
    const uint32_t keep_a = ~to_b & ~to_c & ~to_d;
    y0[2 * j] = FromBits(v & keep_a);
    y0[2 * j + 1] = FromBits(v & keep_b);
    y1[2 * j] = FromBits(v & keep_c);
    y1[2 * j + 1] = FromBits(v & to_d);
  }
}

#if defined(__x86_64__)
// AVX2 versions of the two row loops, eight windows at a time and the last few under a
// mask (a CNN's rows are short: 14 or 7 windows, which left the compiler's vector loop
// above mostly in its scalar remainder). Same selections, same bits.
#define SEAM_AVX2 __attribute__((target("avx2")))

// Lanes below n set (n may lie outside 0..8).
SEAM_AVX2 __m256i FirstLanes(int64_t n) {
  const int lanes = static_cast<int>(std::min<int64_t>(std::max<int64_t>(n, 0), 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The first `lanes` floats at p (all eight, or under a mask; the rest read as 0).
SEAM_AVX2 __m256 Load(const float* p, int64_t lanes) {
  return lanes >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, FirstLanes(lanes));
}

SEAM_AVX2 void Store(float* p, int64_t lanes, __m256 v) {
  if (lanes >= 8) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, FirstLanes(lanes), v);
  }
}

// Windows [0, n) of row r (n <= 8): each window's first and second element, in lane order
// [0 1 4 5 | 2 3 6 7] (shuffle_ps works within 128-bit halves).
SEAM_AVX2 void LoadPairs(const float* r, int64_t n, __m256* first, __m256* second) {
  const __m256 lo = Load(r, 2 * n), hi = Load(r + 8, 2 * n - 8);
  *first = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  *second = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}

// The n 2x2 windows (n <= 8) from window j of rows r0 and r1: w[0], w[1] the top row's
// elements, w[2], w[3] the bottom row's, in LoadPairs' lane order.
SEAM_AVX2 void LoadWindows(const float* r0, const float* r1, int64_t j, int64_t n, __m256* w) {
  LoadPairs(r0 + 2 * j, n, &w[0], &w[1]);
  LoadPairs(r1 + 2 * j, n, &w[2], &w[3]);
}

// Between natural lane order and LoadPairs' order (the swap is its own inverse).
SEAM_AVX2 __m256 SwapMiddle(__m256 v) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
}

// OrderKey and FromKey on eight lanes (the mapping is its own inverse).
SEAM_AVX2 __m256i Keys(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  return _mm256_xor_si256(u, _mm256_srli_epi32(_mm256_srai_epi32(u, 31), 1));
}

SEAM_AVX2 __m256i IsNan(__m256 v) {
  const __m256i magnitude = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fffffff));
  return _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
}

SEAM_AVX2 void MaxRow2x2Avx2(const float* r0, const float* r1, float* y, int64_t n) {
  const __m256 quiet_nan = _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN());
  for (int64_t j = 0; j < n; j += 8) {
    const int64_t m = std::min<int64_t>(8, n - j);
    __m256 w[4];
    LoadWindows(r0, r1, j, m, w);
    const __m256i best = _mm256_max_epi32(_mm256_max_epi32(Keys(w[0]), Keys(w[1])),
                                          _mm256_max_epi32(Keys(w[2]), Keys(w[3])));
    const __m256i nan = _mm256_or_si256(_mm256_or_si256(IsNan(w[0]), IsNan(w[1])),
                                        _mm256_or_si256(IsNan(w[2]), IsNan(w[3])));
    const __m256 largest = _mm256_castsi256_ps(Keys(_mm256_castsi256_ps(best)));
    Store(y + j, m, SwapMiddle(_mm256_blendv_ps(largest, quiet_nan, _mm256_castsi256_ps(nan))));
  }
}

// Stores the 2m floats of one result row's windows from their first and second elements
// (LoadPairs' lane order).
SEAM_AVX2 void StorePairs(float* y, int64_t m, __m256 first, __m256 second) {
  Store(y, 2 * m, _mm256_unpacklo_ps(first, second));
  Store(y + 8, 2 * m - 8, _mm256_unpackhi_ps(first, second));
}

SEAM_AVX2 void ScatterRow2x2Avx2(const float* r0, const float* r1, const float* s, float* y0,
                                 float* y1, int64_t n) {
  const __m256 ones = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
  for (int64_t j = 0; j < n; j += 8) {
    const int64_t m = std::min<int64_t>(8, n - j);
    __m256 w[4];
    LoadWindows(r0, r1, j, m, w);
    const __m256 &a = w[0], &b = w[1], &c = w[2], &d = w[3];
    const __m256 v = SwapMiddle(_mm256_add_ps(_mm256_setzero_ps(), Load(s + j, m)));
    const __m256 to_b = _mm256_xor_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ), ones);
    const __m256 ab = _mm256_blendv_ps(a, b, to_b);
    const __m256 to_c = _mm256_xor_ps(_mm256_cmp_ps(ab, c, _CMP_GE_OQ), ones);
    const __m256 abc = _mm256_blendv_ps(ab, c, to_c);
    const __m256 to_d = _mm256_xor_ps(_mm256_cmp_ps(abc, d, _CMP_GE_OQ), ones);
    const __m256 keep_c = _mm256_andnot_ps(to_d, to_c);
    const __m256 keep_b = _mm256_andnot_ps(_mm256_or_ps(to_c, to_d), to_b);
    const __m256 keep_a = _mm256_andnot_ps(_mm256_or_ps(_mm256_or_ps(to_b, to_c), to_d), ones);
    StorePairs(y0 + 2 * j, m, _mm256_and_ps(v, keep_a), _mm256_and_ps(v, keep_b));
    StorePairs(y1 + 2 * j, m, _mm256_and_ps(v, keep_c), _mm256_and_ps(v, to_d));
  }
}

#undef SEAM_AVX2
#endif

using RowLoop = void (*)(const float*, const float*, float*, int64_t);
using ScatterLoop = void (*)(const float*, const float*, const float*, float*, float*, int64_t);

// The row loops this CPU runs.
#if defined(__x86_64__)
bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2") != 0;
  return have;
}
RowLoop MaxRow() { return HaveAvx2() ? MaxRow2x2Avx2 : MaxRow2x2; }
ScatterLoop ScatterRow() { return HaveAvx2() ? ScatterRow2x2Avx2 : ScatterRow2x2; }
#else
RowLoop MaxRow() { return MaxRow2x2; }
ScatterLoop ScatterRow() { return ScatterRow2x2; }
#endif

bool Is2x2(const Planes& p) {
  return p.row.size == 2 && p.col.size == 2 && p.row.stride == 2 && p.col.stride == 2;
}

void MaxPlanes(const Planes& p, const float* in, float* out, int64_t first, int64_t last) {
  const int64_t kh = p.row.size, kw = p.col.size, sh = p.row.stride, sw = p.col.stride;
  for (int64_t plane = first; plane < last; ++plane) {
    const float* x = in + plane * p.in_h * p.in_w;
    float* y = out + plane * p.out_h * p.out_w;
    if (Is2x2(p)) {
      const RowLoop row = MaxRow();
      for (int64_t i = 0; i < p.out_h; ++i) {
        row(x + 2 * i * p.in_w, x + (2 * i + 1) * p.in_w, y + i * p.out_w, p.out_w);
      }
      continue;
    }
    for (int64_t i = 0; i < p.out_h; ++i) {
      float* y_row = y + i * p.out_w;
      for (int64_t j = 0; j < p.out_w; ++j) {
        int32_t best = std::numeric_limits<int32_t>::min();  // below every float's key
        uint32_t nan = 0;
        for (int64_t ti = 0; ti < kh; ++ti) {
          const float* x_row = x + (i * sh + ti) * p.in_w + j * sw;
          for (int64_t tj = 0; tj < kw; ++tj) {
            const uint32_t u = Bits(x_row[tj]);
            nan |= static_cast<uint32_t>((u & 0x7fffffffu) > 0x7f800000u);
            const int32_t key = OrderKey(u);
            best = key > best ? key : best;
          }
        }
        y_row[j] = nan != 0 ? std::numeric_limits<float>::quiet_NaN() : FromKey(best);
      }
    }
  }
}

// select `ge` in tap order, as the general loop: the first tap, then any later one that
// the best so far is not >= (a larger value, or a NaN on either side).
void ScatterPlanes(const Planes& p, const float* operand, const float* source, float* out,
                   int64_t first, int64_t last) {
  const int64_t kh = p.row.size, kw = p.col.size, sh = p.row.stride, sw = p.col.stride;
  const int64_t plane_size = p.in_h * p.in_w;
  for (int64_t plane = first; plane < last; ++plane) {
    const float* x = operand + plane * plane_size;
    const float* s = source + plane * p.out_h * p.out_w;
    float* y = out + plane * plane_size;
    const bool covered = p.out_h * sh == p.in_h && p.out_w * sw == p.in_w;
    if (Is2x2(p) && covered) {
      const ScatterLoop row = ScatterRow();
      for (int64_t i = 0; i < p.out_h; ++i) {
        const int64_t r0 = 2 * i * p.in_w, r1 = r0 + p.in_w;
        row(x + r0, x + r1, s + i * p.out_w, y + r0, y + r1, p.out_w);
      }
      continue;
    }
    std::memset(y, 0, static_cast<size_t>(plane_size) * sizeof(float));
    for (int64_t i = 0; i < p.out_h; ++i) {
      for (int64_t j = 0; j < p.out_w; ++j) {
        int64_t selected = (i * sh) * p.in_w + j * sw;
        float best = x[selected];
        for (int64_t ti = 0; ti < kh; ++ti) {
          for (int64_t tj = ti == 0 ? 1 : 0; tj < kw; ++tj) {
            const int64_t at = (i * sh + ti) * p.in_w + j * sw + tj;
            if (!(best >= x[at])) {
              best = x[at];
              selected = at;
            }
          }
        }
        y[selected] = 0.0f + s[i * p.out_w + j];  // +0 + -0 is +0, as the general loop's sum
      }
    }
  }
}

}  // namespace

bool ReduceWindowMaxFast(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
                         uint8_t* out) {
  Planes p;
  if (inst.op != ir::Op::kReduceWindowMax || in_shape.dtype != ir::DType::kF32 ||
      !PlanesOf(ir::WindowOf(inst), in_shape.dims, &p)) {
    return false;
  }
  const auto* x = reinterpret_cast<const float*>(in);
  auto* y = reinterpret_cast<float*>(out);
  auto body = [&](int64_t first, int64_t last) { MaxPlanes(p, x, y, first, last); };
  if (in_shape.num_elements() < kParallelMinimumElements) {
    body(0, p.count);
  } else {
    ParallelFor(p.count, body);
  }
  return true;
}

bool SelectAndScatterFast(const ir::Instruction& inst, const ir::Shape& operand_shape,
                          const uint8_t* operand, const uint8_t* source, uint8_t* out) {
  Planes p;
  if (operand_shape.dtype != ir::DType::kF32 ||
      !PlanesOf(ir::WindowOf(inst), operand_shape.dims, &p) || p.row.stride < p.row.size ||
      p.col.stride < p.col.size) {
    return false;  // overlapping windows add several values into one element
  }
  const auto* x = reinterpret_cast<const float*>(operand);
  const auto* s = reinterpret_cast<const float*>(source);
  auto* y = reinterpret_cast<float*>(out);
  auto body = [&](int64_t first, int64_t last) { ScatterPlanes(p, x, s, y, first, last); };
  if (operand_shape.num_elements() < kParallelMinimumElements) {
    body(0, p.count);
  } else {
    ParallelFor(p.count, body);
  }
  return true;
}

}  // namespace seam::cpu
