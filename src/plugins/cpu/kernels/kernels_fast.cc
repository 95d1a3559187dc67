// Tile loops of the commonest float ops for the loop kernels, compiled three times (AVX-512,
// AVX2 and the baseline) with the best one picked at load time, so fused f32/f64 chains use the
// machine's wide vectors. Same results as kernels_elementwise.cc (maximum/minimum: NaN
// wins, +0 is larger than -0), written without branches so that they vectorize. Built with
// -ffp-contract=off (CMakeLists.txt): a multiply feeding an add must not become one FMA.
#include "src/plugins/cpu/kernels/kernels_fast.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>

#include "src/base/sanitizers.h"
#include "src/plugins/cpu/kernels/target_clones.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#define SEAM_HAVE_STREAM_STORES 1
#else
#define SEAM_HAVE_STREAM_STORES 0
#endif

// The chain kernels pass 32-byte vectors between inline helpers; GCC notes that their ABI
// differs with and without AVX, which does not matter for functions that are never called.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace seam::cpu {
namespace {

using ir::Op;

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
inline T Max(T a, T b) {
  T larger = a > b ? a : b;
  // Equal: the AND of the bit patterns is +0 when one of them is +0 (and a when equal).
  T equal =
      std::bit_cast<T>(static_cast<Bits<T>>(std::bit_cast<Bits<T>>(a) & std::bit_cast<Bits<T>>(b)));
  T m = a == b ? equal : larger;
  return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <typename T>
inline T Min(T a, T b) {
  T smaller = a < b ? a : b;
  // Equal: the OR of the bit patterns is -0 when one of them is -0.
  T equal =
      std::bit_cast<T>(static_cast<Bits<T>>(std::bit_cast<Bits<T>>(a) | std::bit_cast<Bits<T>>(b)));
  T m = a == b ? equal : smaller;
  return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <typename T, typename F>
inline void Zip(const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n, F f) {
  const T* x = reinterpret_cast<const T*>(a);
  const T* y = reinterpret_cast<const T*>(b);
  T* z = reinterpret_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
}

template <typename T>
inline bool BinaryT(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  switch (op) {
    case Op::kAdd:
      Zip<T>(a, b, out, n, [](T x, T y) { return x + y; });
      return true;
    case Op::kSubtract:
      Zip<T>(a, b, out, n, [](T x, T y) { return x - y; });
      return true;
    case Op::kMultiply:
      Zip<T>(a, b, out, n, [](T x, T y) { return x * y; });
      return true;
    case Op::kDivide:
      Zip<T>(a, b, out, n, [](T x, T y) { return x / y; });
      return true;
    case Op::kMaximum:
      Zip<T>(a, b, out, n, Max<T>);
      return true;
    case Op::kMinimum:
      Zip<T>(a, b, out, n, Min<T>);
      return true;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kAdd
#define SEAM_CASES_EXCEPT_kSubtract
#define SEAM_CASES_EXCEPT_kMultiply
#define SEAM_CASES_EXCEPT_kDivide
#define SEAM_CASES_EXCEPT_kMaximum
#define SEAM_CASES_EXCEPT_kMinimum
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kAdd
#undef SEAM_CASES_EXCEPT_kSubtract
#undef SEAM_CASES_EXCEPT_kMultiply
#undef SEAM_CASES_EXCEPT_kDivide
#undef SEAM_CASES_EXCEPT_kMaximum
#undef SEAM_CASES_EXCEPT_kMinimum
      break;
  }
  return false;
}

// Chains (FastChainF32/F64). Blocks of kVectors 32-byte vectors: the running value of a
// block stays in registers through all the steps, so a chain costs one pass over memory
// like a hand-written loop; each step is one switch per block, not per element.
constexpr int kVectors = 8;

template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(32)));
  typedef int32_t M __attribute__((vector_size(32)));
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(32)));
  typedef int64_t M __attribute__((vector_size(32)));
};

template <typename T>
constexpr int64_t kLanes = 32 / sizeof(T);
template <typename T>
constexpr int64_t kBlock = kVectors* kLanes<T>;

template <typename V>
inline V Load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}

// Max<T> and Min<T> above, lane by lane.
template <typename T>
inline typename Lanes<T>::V VMax(const typename Lanes<T>::V& a, const typename Lanes<T>::V& b) {
  using V = typename Lanes<T>::V;
  using M = typename Lanes<T>::M;
  const V nan = (V)(M{} + std::bit_cast<Bits<T>>(std::numeric_limits<T>::quiet_NaN()));
  V larger = a > b ? a : b;
  V equal = (V)((M)a & (M)b);
  V m = a == b ? equal : larger;
  return ((a != a) | (b != b)) ? nan : m;
}

template <typename T>
inline typename Lanes<T>::V VMin(const typename Lanes<T>::V& a, const typename Lanes<T>::V& b) {
  using V = typename Lanes<T>::V;
  using M = typename Lanes<T>::M;
  const V nan = (V)(M{} + std::bit_cast<Bits<T>>(std::numeric_limits<T>::quiet_NaN()));
  V smaller = a < b ? a : b;
  V equal = (V)((M)a | (M)b);
  V m = a == b ? equal : smaller;
  return ((a != a) | (b != b)) ? nan : m;
}

// v[j] = f(v[j], m[j]), f(m[j], v[j]) or f(v[j], v[j]) over the block's vectors.
template <typename T, ChainShape kShape, typename F>
inline void Apply(typename Lanes<T>::V (&v)[kVectors], const T* m, F f) {
  using V = typename Lanes<T>::V;
#pragma GCC unroll 8
  for (int j = 0; j < kVectors; ++j) {
    if constexpr (kShape == ChainShape::kLeft) {
      v[j] = f(v[j], Load<V>(m + j * kLanes<T>));
    } else if constexpr (kShape == ChainShape::kRight) {
      v[j] = f(Load<V>(m + j * kLanes<T>), v[j]);
    } else {
      v[j] = f(v[j], v[j]);
    }
  }
}

// The ops in code order: code = 3 * index + shape.
constexpr Op kChainOps[] = {Op::kAdd,    Op::kSubtract, Op::kMultiply,
                            Op::kDivide, Op::kMaximum,  Op::kMinimum};

#define SEAM_CHAIN_CASES(index, f)         \
  case 3 * (index):                        \
    Apply<T, ChainShape::kLeft>(v, m, f);  \
    break;                                 \
  case 3 * (index) + 1:                    \
    Apply<T, ChainShape::kRight>(v, m, f); \
    break;                                 \
  case 3 * (index) + 2:                    \
    Apply<T, ChainShape::kBoth>(v, m, f);  \
    break;

// Stores a 32-byte vector at `to`: plainly, or (kStream) as two 16-byte non-temporal
// stores, which bypass the cache (`to` 16-byte aligned). SSE2 stores, so that the baseline
// clone has them too; the AVX2 clone's are as fast as one 32-byte store here (measured).
template <bool kStream, typename V>
inline void Store(void* to, const V& v) {
#if SEAM_HAVE_STREAM_STORES
  if constexpr (kStream) {
    // Halves by shuffles, not through memory: taking v's address would keep the whole
    // block of vectors on the stack instead of in registers.
    typedef long long Quad __attribute__((vector_size(32)));
    const Quad q = (Quad)v;
    _mm_stream_si128(static_cast<__m128i*>(to), (__m128i)__builtin_shufflevector(q, q, 0, 1));
    _mm_stream_si128(static_cast<__m128i*>(to) + 1, (__m128i)__builtin_shufflevector(q, q, 2, 3));
    return;
  }
#endif
  std::memcpy(to, &v, sizeof(V));
}

// The whole blocks of [0, n); returns how many elements they cover.
template <typename T, bool kStream = false>
inline int64_t ChainBlocks(const ChainStep* steps, int count, const uint8_t* const* operands,
                           uint8_t* out, int64_t n) {
  using V = typename Lanes<T>::V;
  auto in = [operands](int k) { return reinterpret_cast<const T*>(operands[k]); };
  T* z = reinterpret_cast<T*>(out);
  int64_t i = 0;
  for (; i + kBlock<T> <= n; i += kBlock<T>) {
    V v[kVectors];
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) v[j] = Load<V>(in(0) + i + j * kLanes<T>);
    for (int s = 0; s < count; ++s) {
      const T* m = in(steps[s].operand) + i;
      switch (steps[s].code) {
        SEAM_CHAIN_CASES(0, [](const V& x, const V& y) { return x + y; })
        SEAM_CHAIN_CASES(1, [](const V& x, const V& y) { return x - y; })
        SEAM_CHAIN_CASES(2, [](const V& x, const V& y) { return x * y; })
        SEAM_CHAIN_CASES(3, [](const V& x, const V& y) { return x / y; })
        SEAM_CHAIN_CASES(4, VMax<T>)
        SEAM_CHAIN_CASES(5, VMin<T>)
        default:
          break;
      }
    }
#pragma GCC unroll 8
    for (int j = 0; j < kVectors; ++j) Store<kStream>(z + i + j * kLanes<T>, v[j]);
  }
  return i;
}

#undef SEAM_CHAIN_CASES

// The last n < kBlock elements: copied into zero-padded blocks, run as one whole block
// (the same code, so the same values), and the n results copied out.
template <typename T>
void ChainTail(const ChainStep* steps, int count, const uint8_t* const* operands, int num_operands,
               uint8_t* out, int64_t n) {
  alignas(32) T staging[kMaxChainOperands + 1][kBlock<T>];
  const uint8_t* staged[kMaxChainOperands] = {};
  for (int k = 0; k < num_operands; ++k) {
    std::memcpy(staging[k], operands[k], n * sizeof(T));
    std::memset(staging[k] + n, 0, (kBlock<T> - n) * sizeof(T));
    staged[k] = reinterpret_cast<const uint8_t*>(staging[k]);
  }
  uint8_t* result = reinterpret_cast<uint8_t*>(staging[kMaxChainOperands]);
  ChainBlocks<T>(steps, count, staged, result, kBlock<T>);
  std::memcpy(out, result, n * sizeof(T));
}

template <typename T>
inline void ChainT(const ChainStep* steps, int count, const uint8_t* const* operands,
                   int num_operands, uint8_t* out, int64_t n, bool stream) {
  const bool streamed =
      stream && SEAM_HAVE_STREAM_STORES && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  const int64_t done = streamed ? ChainBlocks<T, true>(steps, count, operands, out, n)
                                : ChainBlocks<T>(steps, count, operands, out, n);
  if (done == n) return;
  const uint8_t* rest[kMaxChainOperands];
  for (int k = 0; k < num_operands; ++k) rest[k] = operands[k] + done * sizeof(T);
  ChainTail<T>(steps, count, rest, num_operands, out + done * sizeof(T), n - done);
}

}  // namespace

void StreamFence() {
#if SEAM_HAVE_STREAM_STORES
  _mm_sfence();
#endif
}

bool IsFastBinary(Op op) {
  switch (op) {
    case Op::kAdd:
    case Op::kSubtract:
    case Op::kMultiply:
    case Op::kDivide:
    case Op::kMaximum:
    case Op::kMinimum:
      return true;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kAdd
#define SEAM_CASES_EXCEPT_kSubtract
#define SEAM_CASES_EXCEPT_kMultiply
#define SEAM_CASES_EXCEPT_kDivide
#define SEAM_CASES_EXCEPT_kMaximum
#define SEAM_CASES_EXCEPT_kMinimum
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kAdd
#undef SEAM_CASES_EXCEPT_kSubtract
#undef SEAM_CASES_EXCEPT_kMultiply
#undef SEAM_CASES_EXCEPT_kDivide
#undef SEAM_CASES_EXCEPT_kMaximum
#undef SEAM_CASES_EXCEPT_kMinimum
      break;
  }
  return false;
}

// The entry points come in an AVX-512, an AVX2 and a default version (target_clones.h).
#define SEAM_FAST_KERNEL SEAM_KERNEL_CLONES

ChainStep MakeChainStep(Op op, ChainShape shape, int operand) {
  ChainStep step;
  for (size_t index = 0; index < std::size(kChainOps); ++index) {
    if (kChainOps[index] == op) step.code = static_cast<uint8_t>(3 * index);
  }
  step.code = static_cast<uint8_t>(step.code + static_cast<int>(shape));
  step.operand = static_cast<uint8_t>(shape == ChainShape::kBoth ? 0 : operand);
  return step;
}

SEAM_FAST_KERNEL void FastChainF32(const ChainStep* steps, int count,
                                   const uint8_t* const* operands, int num_operands, uint8_t* out,
                                   int64_t n, bool stream) {
  ChainT<float>(steps, count, operands, num_operands, out, n, stream);
}

SEAM_FAST_KERNEL void FastChainF64(const ChainStep* steps, int count,
                                   const uint8_t* const* operands, int num_operands, uint8_t* out,
                                   int64_t n, bool stream) {
  ChainT<double>(steps, count, operands, num_operands, out, n, stream);
}

SEAM_FAST_KERNEL bool FastBinaryF32(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out,
                                    int64_t n) {
  return BinaryT<float>(op, a, b, out, n);
}

SEAM_FAST_KERNEL bool FastBinaryF64(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out,
                                    int64_t n) {
  return BinaryT<double>(op, a, b, out, n);
}

}  // namespace seam::cpu
