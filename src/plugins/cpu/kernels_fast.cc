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

}  // namespace

__attribute__((target_clones("avx2", "default"))) bool FastBinaryF32(
    Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  return BinaryT<float>(op, a, b, out, n);
}

__attribute__((target_clones("avx2", "default"))) bool FastBinaryF64(
    Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  return BinaryT<double>(op, a, b, out, n);
}

}  // namespace seam::cpu
