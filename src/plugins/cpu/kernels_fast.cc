// Tile loops of the commonest float ops for the loop kernels, compiled twice (AVX2 and the
// baseline) with the better one picked at load time, so fused f32/f64 chains use the
// machine's wide vectors. Same results as kernels_elementwise.cc (maximum/minimum: NaN
// wins, +0 is larger than -0), written without branches so that they vectorize.
#include <bit>
#include <cstdint>
#include <limits>

#include "src/plugins/cpu/fast_kernels.h"

namespace seam::cpu {
namespace {

using ir::Op;

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T>
inline T Max(T a, T b) {
  T larger = a > b ? a : b;
  // Equal: the AND of the bit patterns is +0 when one of them is +0 (and a when equal).
  T equal = std::bit_cast<T>(static_cast<Bits<T>>(std::bit_cast<Bits<T>>(a) &
                                                  std::bit_cast<Bits<T>>(b)));
  T m = a == b ? equal : larger;
  return (a != a || b != b) ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <typename T>
inline T Min(T a, T b) {
  T smaller = a < b ? a : b;
  // Equal: the OR of the bit patterns is -0 when one of them is -0.
  T equal = std::bit_cast<T>(static_cast<Bits<T>>(std::bit_cast<Bits<T>>(a) |
                                                  std::bit_cast<Bits<T>>(b)));
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
    default:
      return false;
  }
}

// z = g(f(x, y), w), g(w, f(x, y)) or g(f(x, y), f(x, y)): one pass instead of two.
template <typename T, typename F, typename G>
inline void Zip3(PairShape shape, const uint8_t* a, const uint8_t* b, const uint8_t* c,
                 uint8_t* out, int64_t n, F f, G g) {
  const T* x = reinterpret_cast<const T*>(a);
  const T* y = reinterpret_cast<const T*>(b);
  const T* w = reinterpret_cast<const T*>(c);
  T* z = reinterpret_cast<T*>(out);
  switch (shape) {
    case PairShape::kLeft:
      for (int64_t i = 0; i < n; ++i) z[i] = g(f(x[i], y[i]), w[i]);
      return;
    case PairShape::kRight:
      for (int64_t i = 0; i < n; ++i) z[i] = g(w[i], f(x[i], y[i]));
      return;
    case PairShape::kBoth:
      for (int64_t i = 0; i < n; ++i) {
        T v = f(x[i], y[i]);
        z[i] = g(v, v);
      }
      return;
  }
}

// Calls fn with the lambda of `op`; false for an op without one.
template <typename T, typename Fn>
inline bool WithOp(Op op, Fn fn) {
  switch (op) {
    case Op::kAdd:
      fn([](T x, T y) { return x + y; });
      return true;
    case Op::kSubtract:
      fn([](T x, T y) { return x - y; });
      return true;
    case Op::kMultiply:
      fn([](T x, T y) { return x * y; });
      return true;
    case Op::kDivide:
      fn([](T x, T y) { return x / y; });
      return true;
    case Op::kMaximum:
      fn([](T x, T y) { return Max<T>(x, y); });
      return true;
    case Op::kMinimum:
      fn([](T x, T y) { return Min<T>(x, y); });
      return true;
    default:
      return false;
  }
}

template <typename T>
inline bool PairT(Op first, Op second, PairShape shape, const uint8_t* a, const uint8_t* b,
                  const uint8_t* c, uint8_t* out, int64_t n) {
  bool done = false;
  WithOp<T>(first, [&](auto f) {
    done = WithOp<T>(second, [&](auto g) { Zip3<T>(shape, a, b, c, out, n, f, g); });
  });
  return done;
}

}  // namespace

bool IsFastBinary(Op op) {
  switch (op) {
    case Op::kAdd:
    case Op::kSubtract:
    case Op::kMultiply:
    case Op::kDivide:
    case Op::kMaximum:
    case Op::kMinimum:
      return true;
    default:
      return false;
  }
}

__attribute__((target_clones("avx2", "default"), flatten)) bool FastPairF32(
    Op first, Op second, PairShape shape, const uint8_t* a, const uint8_t* b,
    const uint8_t* c, uint8_t* out, int64_t n) {
  return PairT<float>(first, second, shape, a, b, c, out, n);
}

__attribute__((target_clones("avx2", "default"), flatten)) bool FastPairF64(
    Op first, Op second, PairShape shape, const uint8_t* a, const uint8_t* b,
    const uint8_t* c, uint8_t* out, int64_t n) {
  return PairT<double>(first, second, shape, a, b, c, out, n);
}

__attribute__((target_clones("avx2", "default"), flatten)) bool FastBinaryF32(
    Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  return BinaryT<float>(op, a, b, out, n);
}

__attribute__((target_clones("avx2", "default"), flatten)) bool FastBinaryF64(
    Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  return BinaryT<double>(op, a, b, out, n);
}

}  // namespace seam::cpu
