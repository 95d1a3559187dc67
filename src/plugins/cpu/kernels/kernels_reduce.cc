// reduce_sum, reduce_product, reduce_max, reduce_min over any set of axes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "src/base/sanitizers.h"
#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/strided.h"
#include "src/plugins/cpu/kernels/target_clones.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace seam::cpu {
namespace {

using ir::DType;
using ir::Op;

// f32 sums over [outer, kept, inner] with rows of at least kLaneSumMinimumRow (a batch
// norm's statistics over a feature map) run in kSumLanes lanes per result: row position p
// (p < inner) of every row of a result goes to its lane p % kSumLanes, each lane adding
// its elements in increasing order of (outer index, p); after the result's last row the
// lanes fold in a fixed tree (FoldLanes), added to the reduction's initial value. The
// lanes are independent chains in vector registers, where one sum per result in index
// order is one dependent add per element. The order depends only on positions, never on
// where a range of ReduceRange starts or ends (the lanes live in ReduceCarry between
// ranges), so Reduce and ReduceRange give the same bits; every clone does the same IEEE
// additions (vector lanes are separate scalar adds).
using LaneVector = float __attribute__((vector_size(32)));
static_assert(kSumLanes == 32, "AddToLanes keeps four vectors of eight lanes");

// Adds row positions [start, start + n) (x points at position start) into lanes[p % 32].
// Inlined into its callers' clones.
inline __attribute__((always_inline)) void AddToLanes(const float* x, int64_t start, int64_t n,
                                                      float* lanes) {
  int64_t i = 0;
  for (; i < n && (start + i) % kSumLanes != 0; ++i) lanes[(start + i) % kSumLanes] += x[i];
  if (i + kSumLanes <= n) {
    LaneVector a[4];
    std::memcpy(a, lanes, sizeof(a));
    for (; i + kSumLanes <= n; i += kSumLanes) {
      LaneVector v[4];
      std::memcpy(v, x + i, sizeof(v));
      a[0] += v[0];
      a[1] += v[1];
      a[2] += v[2];
      a[3] += v[3];
    }
    std::memcpy(lanes, a, sizeof(a));
  }
  for (int64_t l = (start + i) % kSumLanes; i < n; ++i, ++l) lanes[l] += x[i];
}

// The lanes' sum: halves added lane by lane (16 + 16, 8 + 8, ...), a fixed tree.
inline float FoldLanes(const float* lanes) {
  float t[kSumLanes];
  std::memcpy(t, lanes, sizeof(t));
  for (int64_t step = kSumLanes / 2; step >= 1; step /= 2) {
    for (int64_t l = 0; l < step; ++l) t[l] = t[l] + t[l + step];
  }
  return t[0];
}

// Reduce's lane sums for results [first, last).
SEAM_KERNEL_CLONES void ReduceKeptMiddleLanes(const float* x, int64_t outer, int64_t kept,
                                              int64_t inner, int64_t first, int64_t last,
                                              float init, float* y) {
  for (int64_t k = first; k < last; ++k) {
    float lanes[kSumLanes] = {};
    for (int64_t o = 0; o < outer; ++o) AddToLanes(x + (o * kept + k) * inner, 0, inner, lanes);
    y[k] = init + FoldLanes(lanes);
  }
}

// The maximum (kMax) or minimum of n f32 values and `init`, as FloatMax/FloatMin folded in
// any order would give it: NaN if any value is NaN, else the extreme, with +0 above -0.
// Those rules make the result independent of the order, so vector lanes side by side
// (compares and blends, the NaNs only flagged) give the in-order fold's bits (a softmax's
// row maxima: about a tenth of the scalar fold's time). Equal values (+0 and -0 among them)
// combine their bits: AND for the maximum (+0 wins), OR for the minimum (-0 wins). A NaN
// `init` (a row cut by a range, NaN so far) stays in every lane, since every compare with
// it is false, and comes out as it went in: the quiet NaN.
// Inlined into the vector versions: a call from them into code without VEX encoding would
// pay the SSE/AVX transition on every instruction while the upper halves are dirty.
inline __attribute__((always_inline)) float ExtremeOfRowScalar(bool max, const float* x, int64_t n,
                                                               float init) {
  float result = init;
  for (int64_t i = 0; i < n; ++i) result = max ? FloatMax(result, x[i]) : FloatMin(result, x[i]);
  return result;
}

#if defined(__x86_64__)
// GCC 12's AVX-512 shuffles start their results from an uninitialized vector on purpose
// (_mm512_undefined_ps), which its -Wmaybe-uninitialized flags where they inline.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// acc's lanes replaced by v's where v is the extreme of the two (neither NaN), their bits
// combined where they are equal.
__attribute__((target("avx512f"), always_inline)) inline __m512 Extreme512(bool max, __m512 acc,
                                                                           __m512 v) {
  const __mmask16 wins =
      max ? _mm512_cmp_ps_mask(v, acc, _CMP_GT_OQ) : _mm512_cmp_ps_mask(v, acc, _CMP_LT_OQ);
  const __mmask16 equal = _mm512_cmp_ps_mask(v, acc, _CMP_EQ_OQ);
  const __m512i a = _mm512_castps_si512(acc), b = _mm512_castps_si512(v);
  const __m512 tie = _mm512_castsi512_ps(max ? _mm512_and_si512(a, b) : _mm512_or_si512(a, b));
  return _mm512_mask_mov_ps(_mm512_mask_mov_ps(acc, wins, v), equal, tie);
}

__attribute__((target("avx512f"))) float ExtremeOfRowAvx512(bool max, const float* x, int64_t n,
                                                            float init) {
  const __m512 start = _mm512_set1_ps(init);
  __m512 acc = start;
  __mmask16 nan = 0;
  for (int64_t i = 0; i < n; i += 16) {
    // The last vector reads only the row's elements; its other lanes are `init`.
    const __mmask16 in_row = n - i >= 16 ? 0xffff : static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 v = _mm512_mask_loadu_ps(start, in_row, x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    acc = Extreme512(max, acc, v);
  }
  // Lanes folded in halves: 256-bit halves, 128-bit quarters, pairs, neighbours.
  acc = Extreme512(max, acc, _mm512_shuffle_f32x4(acc, acc, 0x4e));
  acc = Extreme512(max, acc, _mm512_shuffle_f32x4(acc, acc, 0xb1));
  acc = Extreme512(max, acc, _mm512_permute_ps(acc, 0x4e));
  acc = Extreme512(max, acc, _mm512_permute_ps(acc, 0xb1));
  return nan != 0 ? std::numeric_limits<float>::quiet_NaN() : _mm512_cvtss_f32(acc);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

__attribute__((target("avx2"), always_inline)) inline __m256 Extreme256(bool max, __m256 acc,
                                                                        __m256 v) {
  const __m256 wins = max ? _mm256_cmp_ps(v, acc, _CMP_GT_OQ) : _mm256_cmp_ps(v, acc, _CMP_LT_OQ);
  const __m256 equal = _mm256_cmp_ps(v, acc, _CMP_EQ_OQ);
  const __m256 tie = max ? _mm256_and_ps(acc, v) : _mm256_or_ps(acc, v);
  return _mm256_blendv_ps(_mm256_blendv_ps(acc, v, wins), tie, equal);
}

__attribute__((target("avx2"))) float ExtremeOfRowAvx2(bool max, const float* x, int64_t n,
                                                       float init) {
  __m256 acc = _mm256_set1_ps(init);
  __m256 nan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    acc = Extreme256(max, acc, v);
  }
  acc = Extreme256(max, acc, _mm256_permute2f128_ps(acc, acc, 0x01));
  acc = Extreme256(max, acc, _mm256_permute_ps(acc, 0x4e));
  acc = Extreme256(max, acc, _mm256_permute_ps(acc, 0xb1));
  const float rest = ExtremeOfRowScalar(max, x + i, n - i, _mm256_cvtss_f32(acc));
  return _mm256_movemask_ps(nan) != 0 ? std::numeric_limits<float>::quiet_NaN() : rest;
}
#endif

int WidestExtremeLanes() {
#if defined(__x86_64__)
  static const int lanes = __builtin_cpu_supports("avx512f") ? 16
                           : __builtin_cpu_supports("avx2")  ? 8
                                                             : 1;
  return lanes;
#else
  return 1;
#endif
}

// The widest of the three this CPU runs; rows shorter than a vector (a small classifier's
// logits) fold one by one, which costs them less than a call and the lanes' fold.
float ExtremeOfRow(ir::Combiner combiner, const float* x, int64_t n, float init) {
  const bool max = combiner == ir::Combiner::kMax;
  if (n < 16) return ExtremeOfRowScalar(max, x, n, init);
#if defined(__x86_64__)
  const int lanes = WidestExtremeLanes();
  if (lanes == 16) return ExtremeOfRowAvx512(max, x, n, init);
  if (lanes == 8) return ExtremeOfRowAvx2(max, x, n, init);
#endif
  return ExtremeOfRowScalar(max, x, n, init);
}

bool IsExtreme(ir::Combiner combiner) {
  return combiner == ir::Combiner::kMax || combiner == ir::Combiner::kMin;
}

// The operand seen as [outer, reduced, inner] when the reduced axes are adjacent (or
// none): each result element folds its `reduced` inputs in increasing order, the order the
// general walk below uses, so both give the same bits. The inner loop runs over `inner`
// adjacent results at once (vectorizable); with inner == 1, over several rows at once.
template <typename E, typename Fold>
bool ReduceAdjacent(const ir::Shape& in_shape, const uint8_t* in,
                    const std::vector<int64_t>& axis_list, ir::Combiner combiner,
                    typename E::Compute init, Fold fold, uint8_t* out) {
  using C = typename E::Compute;
  absl::InlinedVector<int64_t, 8> axes(axis_list.begin(), axis_list.end());
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i) {
    if (axes[i] != axes[i - 1] + 1) return false;
  }
  const int64_t first = axes.empty() ? in_shape.rank() : axes.front();
  const int64_t last = axes.empty() ? in_shape.rank() - 1 : axes.back();
  int64_t outer = 1, reduced = 1, inner = 1;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    (d < first ? outer : d <= last ? reduced : inner) *= in_shape.dims[d];
  }
  const auto* x = reinterpret_cast<const typename E::Storage*>(in);
  auto* y = reinterpret_cast<typename E::Storage*>(out);
  if constexpr (std::is_same_v<E, Elem<DType::kF32>>) {
    if (inner == 1 && IsExtreme(combiner)) {
      for (int64_t o = 0; o < outer; ++o)
        y[o] = ExtremeOfRow(combiner, x + o * reduced, reduced, init);
      return true;
    }
  }
  if (inner == 1) {
    constexpr int64_t kRows = 8;
    int64_t o = 0;
    for (; o + kRows <= outer; o += kRows) {
      C acc[kRows];
      for (int64_t k = 0; k < kRows; ++k) acc[k] = init;
      for (int64_t r = 0; r < reduced; ++r) {
        for (int64_t k = 0; k < kRows; ++k)
          acc[k] = fold(acc[k], E::Load(x[(o + k) * reduced + r]));
      }
      for (int64_t k = 0; k < kRows; ++k) y[o + k] = E::Store(acc[k]);
    }
    for (; o < outer; ++o) {
      C acc = init;
      for (int64_t r = 0; r < reduced; ++r) acc = fold(acc, E::Load(x[o * reduced + r]));
      y[o] = E::Store(acc);
    }
    return true;
  }
  std::vector<C> acc(inner);
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), init);
    const auto* block = x + o * reduced * inner;
    for (int64_t r = 0; r < reduced; ++r) {
      const auto* row = block + r * inner;
      for (int64_t i = 0; i < inner; ++i) acc[i] = fold(acc[i], E::Load(row[i]));
    }
    for (int64_t i = 0; i < inner; ++i) y[o * inner + i] = E::Store(acc[i]);
  }
  return true;
}

// The kept axes as one block in the middle, [reduced_outer, kept, reduced_inner] (a batch
// norm's statistics over {0, 2, 3} of NCHW), or false. Each result element folds its inputs
// in row-major order, as the general walk below, so both give the same bits; several
// results fold at once (independent chains), and a range [first, last) of the kept block
// can run on its own thread.
bool KeptMiddle(const ir::Shape& in_shape, const std::vector<int64_t>& axes, int64_t* outer,
                int64_t* kept, int64_t* inner) {
  const int64_t rank = in_shape.rank();
  absl::InlinedVector<bool, 8> reduced(static_cast<size_t>(rank), false);  // no heap block per run
  for (int64_t a : axes) reduced[a] = true;
  // Every axis reduced (a loss's sum): [rows, 1, last dimension], so that a long f32 sum
  // runs in lanes (ReduceKeptMiddleLanes) instead of one chain of dependent adds; callers
  // take it for such sums only (FullLaneSum), other full reductions stay ReduceAdjacent's.
  if (rank >= 2 && std::all_of(reduced.begin(), reduced.end(), [](bool r) { return r; })) {
    *inner = in_shape.dims[rank - 1];
    *kept = 1;
    *outer = *inner > 0 ? in_shape.num_elements() / *inner : 0;
    return *outer > 0;
  }
  int64_t first = 0;
  while (first < rank && reduced[first]) ++first;
  int64_t last = first;
  while (last < rank && !reduced[last]) ++last;
  for (int64_t d = last; d < rank; ++d) {
    if (!reduced[d]) return false;
  }
  if (first == 0 || last == rank || first == last) return false;  // ReduceAdjacent's cases
  *outer = *kept = *inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    (d < first ? *outer : d < last ? *kept : *inner) *= in_shape.dims[d];
  }
  return true;
}

// Whether a reduction of every axis is an f32 sum whose rows (the last dimension) are long
// enough for the lanes: it then goes through KeptMiddle as [rows, 1, last dimension].
bool FullLaneSum(const ir::Shape& in_shape, const std::vector<int64_t>& axes,
                 ir::Combiner combiner) {
  const int64_t rank = in_shape.rank();
  return in_shape.dtype == DType::kF32 && combiner == ir::Combiner::kSum && rank >= 2 &&
         static_cast<int64_t>(axes.size()) == rank && in_shape.dims[rank - 1] >= kLaneSumMinimumRow;
}

#if defined(__x86_64__)
// Eight f32 sums (acc[j] over row[j], `inner` elements each), each adding its row's
// elements in index order, as the scalar loop does: eight rows of eight are transposed so
// that lane j of each vector holds row j, and the vectors are added in index order. Fewer
// rows: repeat one, and ignore those lanes' sums.
__attribute__((target("avx2"))) void SumEightRowsAvx2(const float* const* row, int64_t inner,
                                                      float* acc) {
  __m256 a = _mm256_loadu_ps(acc);
  int64_t i = 0;
  for (; i + 8 <= inner; i += 8) {
    __m256 r[8];
    for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(row[j] + i);
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s0, s4, 0x20));  // element i of each row
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s1, s5, 0x20));
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s2, s6, 0x20));
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s3, s7, 0x20));
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s0, s4, 0x31));  // element i + 4
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s1, s5, 0x31));
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s2, s6, 0x31));
    a = _mm256_add_ps(a, _mm256_permute2f128_ps(s3, s7, 0x31));
  }
  _mm256_storeu_ps(acc, a);
  for (; i < inner; ++i) {
    for (int j = 0; j < 8; ++j) acc[j] += row[j][i];
  }
}

bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}
#endif

template <typename E, typename Fold>
void ReduceKeptMiddle(const uint8_t* in, int64_t outer, int64_t kept, int64_t inner, int64_t first,
                      int64_t last, typename E::Compute init, Fold fold, bool f32_sum,
                      uint8_t* out) {
  using C = typename E::Compute;
  const auto* x = reinterpret_cast<const typename E::Storage*>(in);
  auto* y = reinterpret_cast<typename E::Storage*>(out);
  if constexpr (std::is_same_v<E, Elem<DType::kF32>>) {
    if (f32_sum && inner >= kLaneSumMinimumRow) {
      return ReduceKeptMiddleLanes(x, outer, kept, inner, first, last, init, y);
    }
  }
  constexpr int64_t kChains = 8;
  for (int64_t k0 = first; k0 < last; k0 += kChains) {
    const int64_t n = std::min(kChains, last - k0);
    C acc[kChains];
    for (int64_t j = 0; j < kChains; ++j) acc[j] = init;
    for (int64_t o = 0; o < outer; ++o) {
      const auto* block = x + (o * kept + k0) * inner;
#if defined(__x86_64__)
      if constexpr (std::is_same_v<E, Elem<DType::kF32>>) {
        if (n == kChains && f32_sum && HaveAvx2()) {
          const float* rows[kChains];
          for (int64_t j = 0; j < kChains; ++j) rows[j] = block + j * inner;
          SumEightRowsAvx2(rows, inner, acc);
          continue;
        }
      }
#endif
      if (n == kChains) {
        for (int64_t i = 0; i < inner; ++i) {
          for (int64_t j = 0; j < kChains; ++j)
            acc[j] = fold(acc[j], E::Load(block[j * inner + i]));
        }
      } else {
        for (int64_t j = 0; j < n; ++j) {
          for (int64_t i = 0; i < inner; ++i) acc[j] = fold(acc[j], E::Load(block[j * inner + i]));
        }
      }
    }
    for (int64_t j = 0; j < n; ++j) y[k0 + j] = E::Store(acc[j]);
  }
}

// Accumulates in the compute type (float for bf16), one accumulator per result element,
// walking the operand once in row-major order.
template <typename E, typename Fold>
void ReduceWith(const ir::Shape& in_shape, const uint8_t* in, const std::vector<int64_t>& axes,
                ir::Combiner combiner, typename E::Compute init, Fold fold, uint8_t* out) {
  using C = typename E::Compute;
  const bool sum = combiner == ir::Combiner::kSum;
  const bool full_lanes = FullLaneSum(in_shape, axes, combiner);
  if (!full_lanes && ReduceAdjacent<E>(in_shape, in, axes, combiner, init, fold, out)) return;
  int64_t outer = 1, kept_block = 1, inner = 1;
  if (KeptMiddle(in_shape, axes, &outer, &kept_block, &inner)) {
    const int64_t count = outer * kept_block * inner;
    auto body = [&](int64_t first, int64_t last) {
      ReduceKeptMiddle<E>(in, outer, kept_block, inner, first, last, init, fold, sum, out);
    };
    if (count < kParallelMinimumElements || KernelThreads() <= 1 || kept_block < 2) {
      body(0, kept_block);
    } else {
      ParallelFor(kept_block, body);
    }
    return;
  }
  std::vector<int64_t> kept;
  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t a : axes) reduced[a] = true;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    if (!reduced[d]) kept.push_back(in_shape.dims[d]);
  }
  std::vector<int64_t> kept_strides = RowMajorStrides(kept);
  std::vector<int64_t> strides(in_shape.rank(), 0);
  for (int64_t d = 0, k = 0; d < in_shape.rank(); ++d) {
    if (!reduced[d]) strides[d] = kept_strides[k++];
  }
  int64_t out_count = 1;
  for (int64_t d : kept) out_count *= d;
  std::vector<C> acc(out_count, init);
  const auto* x = reinterpret_cast<const typename E::Storage*>(in);
  ForEachIndex(in_shape.dims, strides, [&](int64_t pos, int64_t offset) {
    acc[offset] = fold(acc[offset], E::Load(x[pos]));
  });
  auto* y = reinterpret_cast<typename E::Storage*>(out);
  for (int64_t i = 0; i < out_count; ++i) y[i] = E::Store(acc[i]);
}

// The fold of the op's combiner (ops.def), from its identity.
template <typename E>
void ReduceT(Op op, const ir::Shape& in_shape, const uint8_t* in, const std::vector<int64_t>& axes,
             uint8_t* out) {
  using C = typename E::Compute;
  const ir::Combiner combiner = ir::ReductionOf(op);
  auto run = [&](auto fold) {
    ReduceWith<E>(in_shape, in, axes, combiner, ir::ReductionIdentity<C>(combiner), fold, out);
  };
  if constexpr (std::is_floating_point_v<C>) {
    switch (combiner) {
      case ir::Combiner::kSum:
        return run([](C a, C b) { return a + b; });
      case ir::Combiner::kProduct:
        return run([](C a, C b) { return a * b; });
      case ir::Combiner::kMax:
        return run(FloatMax<C>);
      case ir::Combiner::kMin:
        return run(FloatMin<C>);
      case ir::Combiner::kNone:
        return;  // not a reduction: RunKernel sends none
    }
  } else {
    // Integer sums and products wrap like two's complement hardware.
    using U = std::make_unsigned_t<C>;
    switch (combiner) {
      case ir::Combiner::kSum:
        return run([](C a, C b) { return static_cast<C>(U(a) + U(b)); });
      case ir::Combiner::kProduct:
        return run([](C a, C b) { return static_cast<C>(U(a) * U(b)); });
      case ir::Combiner::kMax:
        return run([](C a, C b) { return a > b ? a : b; });
      case ir::Combiner::kMin:
        return run([](C a, C b) { return a < b ? a : b; });
      case ir::Combiner::kNone:
        return;  // not a reduction: RunKernel sends none
    }
  }
}

void ReduceOnOneThread(Op op, const ir::Shape& in_shape, const uint8_t* in,
                       const std::vector<int64_t>& axes, uint8_t* out) {
  switch (in_shape.dtype) {
    case DType::kF32:
      return ReduceT<Elem<DType::kF32>>(op, in_shape, in, axes, out);
    case DType::kF64:
      return ReduceT<Elem<DType::kF64>>(op, in_shape, in, axes, out);
    case DType::kBF16:
      return ReduceT<Elem<DType::kBF16>>(op, in_shape, in, axes, out);
    case DType::kS32:
      return ReduceT<Elem<DType::kS32>>(op, in_shape, in, axes, out);
    case DType::kS64:
      return ReduceT<Elem<DType::kS64>>(op, in_shape, in, axes, out);
    case DType::kPred:
      return;  // not a reduce dtype (ops.def); the verifier rejects it
  }
}

// ReduceRange for one float type: positions [first, last) of the operand seen as
// [outer, reduced, inner], a stretch of one row (`inner` adjacent positions) at a time.
template <typename T, typename Fold>
void FoldRange(const T* x, int64_t reduced, int64_t inner, int64_t first, int64_t last, T init,
               Fold fold, ir::Combiner combiner, T* y) {
  const bool sum = combiner == ir::Combiner::kSum;
  int64_t pos = first;
  while (pos < last) {
    const int64_t row = pos / inner;
    const int64_t r = row % reduced, o = row / reduced;
    if constexpr (std::is_same_v<T, float>) {
      if (inner == 1 && IsExtreme(combiner)) {
        // The rest of this row in the range, lanes side by side (the same bits in any order).
        const int64_t end = std::min(last, pos + (reduced - r));
        y[o] = ExtremeOfRow(combiner, x + pos, end - pos, r == 0 ? init : y[o]);
        pos = end;
        continue;
      }
    }
    if (inner == 1) {
      // Whole rows, eight at a time (independent sums, as in ReduceAdjacent).
      constexpr int64_t kRows = 8;
      if (r == 0 && last - pos >= kRows * reduced) {
        T acc[kRows];
        for (int64_t k = 0; k < kRows; ++k) acc[k] = init;
#if defined(__x86_64__)
        // f32 sums (softmax's and layer norm's row sums): the eight rows transposed into
        // vector lanes, each still added in index order (the same bits).
        if constexpr (std::is_same_v<T, float>) {
          if (sum && HaveAvx2()) {
            const float* row_of[kRows];
            for (int64_t k = 0; k < kRows; ++k) row_of[k] = x + pos + k * reduced;
            SumEightRowsAvx2(row_of, reduced, acc);
            for (int64_t k = 0; k < kRows; ++k) y[o + k] = acc[k];
            pos += kRows * reduced;
            continue;
          }
        }
#endif
        for (int64_t j = 0; j < reduced; ++j) {
          for (int64_t k = 0; k < kRows; ++k) acc[k] = fold(acc[k], x[pos + k * reduced + j]);
        }
        for (int64_t k = 0; k < kRows; ++k) y[o + k] = acc[k];
        pos += kRows * reduced;
        continue;
      }
      // Consecutive positions fold into the same result until its row of `reduced` ends.
      const int64_t end = std::min(last, pos + (reduced - r));
      T acc = r == 0 ? init : y[o];
      for (; pos < end; ++pos) acc = fold(acc, x[pos]);
      y[o] = acc;
      continue;
    }
    const int64_t begin = pos - row * inner;
    const int64_t end = std::min(inner, begin + (last - pos));
    const T* in = x + row * inner;
    T* out = y + o * inner;
    if (r == 0) {
      for (int64_t i = begin; i < end; ++i) out[i] = fold(init, in[i]);
    } else {
      for (int64_t i = begin; i < end; ++i) out[i] = fold(out[i], in[i]);
    }
    pos += end - begin;
  }
}

// ReduceRange over [outer, kept, inner] (KeptMiddle): positions [first, last), a row of
// `inner` (one result's inputs from one outer index) at a time; eight whole rows of
// consecutive results at once where the range holds them. Results keep their partial
// value in `y` between ranges; a result starts from `init` at its first input.
// The lane sums' ReduceRange: a stretch of one row at a time into its result's lanes in
// `carry` (cleared at the result's first position), folded into the result at its last.
void FoldRangeLanes(const float* x, int64_t outer, int64_t kept, int64_t inner, int64_t first,
                    int64_t last, float init, ReduceCarry* carry, float* y) {
  if (carry->lanes.size() < static_cast<size_t>(kept * kSumLanes)) {
    carry->lanes.resize(kept * kSumLanes);
  }
  // The position's row, place in it, result and outer index, worked out once (divisions
  // cost more than a short row's adds) and then stepped a row at a time.
  int64_t i = first % inner, k = (first / inner) % kept, o = first / inner / kept;
  for (int64_t pos = first; pos < last;) {
    const int64_t n = std::min(last - pos, inner - i);
    float* lanes = carry->lanes.data() + k * kSumLanes;
    if (o == 0 && i == 0) std::fill(lanes, lanes + kSumLanes, 0.0f);
    AddToLanes(x + pos, i, n, lanes);
    pos += n;
    if (i + n < inner) break;  // the range ends inside this row
    if (o == outer - 1) y[k] = init + FoldLanes(lanes);
    i = 0;
    if (++k == kept) {
      k = 0;
      ++o;
    }
  }
}

template <typename T, typename Fold>
void FoldRangeKept(const T* x, int64_t kept, int64_t inner, int64_t first, int64_t last, T init,
                   Fold fold, bool sum, T* y) {
  constexpr int64_t kChains = 8;
  int64_t pos = first;
  while (pos < last) {
    const int64_t row = pos / inner, i = pos % inner;
    const int64_t k = row % kept, o = row / kept;
    // Whole rows of consecutive results (up to eight, within one outer index) fold side by
    // side: independent chains.
    const int64_t rows = i != 0 ? 0 : std::min({kChains, kept - k, (last - pos) / inner});
    if (rows >= 2) {
      T acc[kChains];
      for (int64_t j = 0; j < kChains; ++j) acc[j] = o == 0 || j >= rows ? init : y[k + j];
#if defined(__x86_64__)
      if constexpr (std::is_same_v<T, float>) {
        if (sum && HaveAvx2()) {
          const float* row_of[kChains];
          for (int64_t j = 0; j < kChains; ++j) row_of[j] = x + pos + (j < rows ? j : 0) * inner;
          SumEightRowsAvx2(row_of, inner, acc);
          for (int64_t j = 0; j < rows; ++j) y[k + j] = acc[j];
          pos += rows * inner;
          continue;
        }
      }
#endif
      if (rows == kChains) {
        for (int64_t c = 0; c < inner; ++c) {
          for (int64_t j = 0; j < kChains; ++j) acc[j] = fold(acc[j], x[pos + j * inner + c]);
        }
      } else {
        for (int64_t c = 0; c < inner; ++c) {
          for (int64_t j = 0; j < rows; ++j) acc[j] = fold(acc[j], x[pos + j * inner + c]);
        }
      }
      for (int64_t j = 0; j < rows; ++j) y[k + j] = acc[j];
      pos += rows * inner;
      continue;
    }
    const int64_t end = std::min(last, pos + (inner - i));
    T acc = o == 0 && i == 0 ? init : y[k];
    for (; pos < end; ++pos) acc = fold(acc, x[pos]);
    y[k] = acc;
  }
}

template <typename T>
void ReduceRangeT(const ReduceRangePlan& plan, const uint8_t* in, int64_t first, int64_t last,
                  uint8_t* out, ReduceCarry* carry) {
  const auto* x = reinterpret_cast<const T*>(in);
  auto* y = reinterpret_cast<T*>(out);
  const ir::Combiner combiner = plan.combiner;
  const T init = ir::ReductionIdentity<T>(combiner);
  const bool sum = combiner == ir::Combiner::kSum;
  if constexpr (std::is_same_v<T, float>) {
    if (plan.lanes) {
      return FoldRangeLanes(x, plan.kept_outer, plan.kept, plan.kept_inner, first, last, init,
                            carry, y);
    }
  }
  auto run = [&](auto fold) {
    if (plan.middle) {
      FoldRangeKept<T>(x, plan.kept, plan.kept_inner, first, last, init, fold, sum, y);
    } else {
      FoldRange<T>(x, plan.reduced, plan.inner, first, last, init, fold, combiner, y);
    }
  };
  switch (combiner) {
    case ir::Combiner::kSum:
      return run([](T a, T b) { return a + b; });
    case ir::Combiner::kProduct:
      return run([](T a, T b) { return a * b; });
    case ir::Combiner::kMax:
      return run(FloatMax<T>);
    case ir::Combiner::kMin:
      return run(FloatMin<T>);
    case ir::Combiner::kNone:
      return;  // not a reduction: the callers send none
  }
}

}  // namespace

// An AVX-512, an AVX2 and a default version, picked at load time as kernels_fast.cc's:
// the loops folding whole rows of results at once (leading-axis sums, the maxima's
// NaN-aware compares) take the widest vectors; each result's fold order is the same in
// every version, so are the bits.
#if SEAM_TSAN
#define SEAM_REDUCE_KERNEL
#elif defined(__clang__)
#define SEAM_REDUCE_KERNEL __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SEAM_REDUCE_KERNEL __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif

float ExtremeOfRowAt(int lanes, bool max, const float* x, int64_t n, float init) {
#if defined(__x86_64__)
  if (lanes == 16 && WidestExtremeLanes() >= 16) return ExtremeOfRowAvx512(max, x, n, init);
  if (lanes == 8 && WidestExtremeLanes() >= 8) return ExtremeOfRowAvx2(max, x, n, init);
#endif
  return ExtremeOfRowScalar(max, x, n, init);
}

ReduceRangePlan PlanReduceRange(Op op, const ir::Shape& in_shape,
                                const std::vector<int64_t>& axes) {
  ReduceRangePlan plan;
  plan.combiner = ir::ReductionOf(op);
  plan.f32 = in_shape.dtype == DType::kF32;
  int64_t first_axis = in_shape.rank(), last_axis = in_shape.rank() - 1;
  if (!axes.empty()) {
    first_axis = *std::min_element(axes.begin(), axes.end());
    last_axis = *std::max_element(axes.begin(), axes.end());
  }
  for (int64_t d = first_axis; d < in_shape.rank(); ++d) {
    (d <= last_axis ? plan.reduced : plan.inner) *= in_shape.dims[d];
  }
  const bool full = static_cast<int64_t>(axes.size()) == in_shape.rank();
  plan.middle = (!full || FullLaneSum(in_shape, axes, plan.combiner)) &&
                KeptMiddle(in_shape, axes, &plan.kept_outer, &plan.kept, &plan.kept_inner);
  plan.lanes = plan.middle && plan.f32 && plan.combiner == ir::Combiner::kSum &&
               plan.kept_inner >= kLaneSumMinimumRow;
  return plan;
}

SEAM_REDUCE_KERNEL void RunReduceRange(const ReduceRangePlan& plan, const uint8_t* in,
                                       int64_t first, int64_t last, uint8_t* out,
                                       ReduceCarry* carry) {
  if (first >= last) return;
  if (plan.f32) return ReduceRangeT<float>(plan, in, first, last, out, carry);
  return ReduceRangeT<double>(plan, in, first, last, out, carry);
}

void ReduceRange(Op op, const ir::Shape& in_shape, const uint8_t* in,
                 const std::vector<int64_t>& axes, int64_t first, int64_t last, uint8_t* out,
                 ReduceCarry* carry) {
  RunReduceRange(PlanReduceRange(op, in_shape, axes), in, first, last, out, carry);
}

// A large reduction that keeps dimension 0 is split along it over the kernel threads: each
// slice writes its own results and every result accumulates in the same order as on one
// thread, so the bits do not depend on the thread count.
void Reduce(Op op, const ir::Shape& in_shape, const uint8_t* in, const std::vector<int64_t>& axes,
            uint8_t* out) {
  const int64_t count = in_shape.num_elements();
  const bool keeps_first = in_shape.rank() > 0 && (axes.empty() || axes[0] != 0);
  if (!keeps_first || count < kParallelMinimumElements || in_shape.dims[0] < 2 ||
      KernelThreads() <= 1) {
    return ReduceOnOneThread(op, in_shape, in, axes, out);
  }
  const int64_t rows = in_shape.dims[0];
  const size_t bytes = ir::DTypeSize(in_shape.dtype);
  const int64_t in_row = count / rows;
  int64_t out_row = 1;
  for (int64_t d = 1; d < in_shape.rank(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) out_row *= in_shape.dims[d];
  }
  ParallelFor(rows, [&](int64_t begin, int64_t end) {
    ir::Shape slice = in_shape;
    slice.dims[0] = end - begin;
    ReduceOnOneThread(op, slice, in + begin * in_row * bytes, axes, out + begin * out_row * bytes);
  });
}

}  // namespace seam::cpu
