// Elementwise kernels: unary, binary, compare, select, convert.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"

namespace seam::cpu {
namespace {

using ir::DType;
using ir::Op;

template <typename E, typename F>
void Map(const uint8_t* in, uint8_t* out, int64_t n, F f) {
  const auto* x = reinterpret_cast<const typename E::Storage*>(in);
  auto* y = reinterpret_cast<typename E::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = E::Store(f(E::Load(x[i])));
}

template <typename E, typename F>
void Zip(const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n, F f) {
  const auto* x = reinterpret_cast<const typename E::Storage*>(a);
  const auto* y = reinterpret_cast<const typename E::Storage*>(b);
  auto* z = reinterpret_cast<typename E::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) z[i] = E::Store(f(E::Load(x[i]), E::Load(y[i])));
}

// Integer arithmetic wraps like two's complement hardware instead of being undefined.
template <typename T>
T Wrap(std::make_unsigned_t<T> v) {
  return static_cast<T>(v);
}
template <typename T>
using U = std::make_unsigned_t<T>;

template <typename T>
T IntDivide(T a, T b) {
  if (b == 0) return -1;
  if (a == std::numeric_limits<T>::min() && b == -1) return a;
  return a / b;
}

template <typename T>
T IntRemainder(T a, T b) {
  if (b == 0) return a;
  if (a == std::numeric_limits<T>::min() && b == -1) return 0;
  return a % b;
}

template <typename T>
T IntPower(T base, T exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == -1 ? (exponent % 2 == 0 ? 1 : -1) : 0;
  U<T> result = 1;
  U<T> square = static_cast<U<T>>(base);
  for (U<T> e = static_cast<U<T>>(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= square;
    square *= square;
  }
  return Wrap<T>(result);
}

template <typename E>
void UnaryFloat(Op op, const uint8_t* in, uint8_t* out, int64_t n) {
  using C = typename E::Compute;
  switch (op) {
    case Op::kNeg:
      return Map<E>(in, out, n, [](C x) { return -x; });
    case Op::kAbs:
      return Map<E>(in, out, n, [](C x) { return std::fabs(x); });
    case Op::kSign:
      return Map<E>(in, out, n, [](C x) -> C {
        if (std::isnan(x) || x == 0) return x;
        return x > 0 ? 1 : -1;
      });
    case Op::kExp:
      return Map<E>(in, out, n, [](C x) { return std::exp(x); });
    case Op::kLog:
      return Map<E>(in, out, n, [](C x) { return std::log(x); });
    case Op::kLog1p:
      return Map<E>(in, out, n, [](C x) { return std::log1p(x); });
    case Op::kTanh:
      return Map<E>(in, out, n, [](C x) { return std::tanh(x); });
    case Op::kLogistic:
      return Map<E>(in, out, n, [](C x) { return C(1) / (C(1) + std::exp(-x)); });
    case Op::kSqrt:
      return Map<E>(in, out, n, [](C x) { return std::sqrt(x); });
    case Op::kRsqrt:
      return Map<E>(in, out, n, [](C x) { return C(1) / std::sqrt(x); });
    case Op::kFloor:
      return Map<E>(in, out, n, [](C x) { return std::floor(x); });
    case Op::kCeil:
      return Map<E>(in, out, n, [](C x) { return std::ceil(x); });
    case Op::kErf:
      return Map<E>(in, out, n, [](C x) { return std::erf(x); });
    case Op::kNot:  // integers and pred only
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      return;  // not a float unary row: RunKernel sends none here
  }
}

template <typename E>
void UnaryInt(Op op, const uint8_t* in, uint8_t* out, int64_t n) {
  using T = typename E::Compute;
  switch (op) {
    case Op::kNeg:
      return Map<E>(in, out, n, [](T x) { return Wrap<T>(U<T>(0) - U<T>(x)); });
    case Op::kAbs:
      return Map<E>(in, out, n, [](T x) { return x < 0 ? Wrap<T>(U<T>(0) - U<T>(x)) : x; });
    case Op::kSign:
      return Map<E>(in, out, n, [](T x) { return static_cast<T>((x > 0) - (x < 0)); });
    case Op::kNot:
      return Map<E>(in, out, n, [](T x) { return static_cast<T>(~x); });
    // Floats only.
    case Op::kExp:
    case Op::kLog:
    case Op::kLog1p:
    case Op::kTanh:
    case Op::kLogistic:
    case Op::kSqrt:
    case Op::kRsqrt:
    case Op::kFloor:
    case Op::kCeil:
    case Op::kErf:
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      return;  // not an integer unary row: RunKernel sends none here
  }
}

template <typename E>
void CompareOp(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  using Pred = Elem<DType::kPred>;
  const auto* x = reinterpret_cast<const typename E::Storage*>(a);
  const auto* y = reinterpret_cast<const typename E::Storage*>(b);
  auto cmp = [&](auto f) {
    for (int64_t i = 0; i < n; ++i) out[i] = Pred::Store(f(E::Load(x[i]), E::Load(y[i])));
  };
  switch (op) {
    case Op::kEq:
      return cmp([](auto p, auto q) { return p == q; });
    case Op::kNe:
      return cmp([](auto p, auto q) { return p != q; });
    case Op::kLt:
      return cmp([](auto p, auto q) { return p < q; });
    case Op::kLe:
      return cmp([](auto p, auto q) { return p <= q; });
    case Op::kGt:
      return cmp([](auto p, auto q) { return p > q; });
    case Op::kGe:
      return cmp([](auto p, auto q) { return p >= q; });
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      return;  // not a compare row: the binary kernels send none here
  }
}

template <typename E>
void BinaryFloat(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  using C = typename E::Compute;
  switch (op) {
    case Op::kAdd:
      return Zip<E>(a, b, out, n, [](C x, C y) { return x + y; });
    case Op::kSubtract:
      return Zip<E>(a, b, out, n, [](C x, C y) { return x - y; });
    case Op::kMultiply:
      return Zip<E>(a, b, out, n, [](C x, C y) { return x * y; });
    case Op::kDivide:
      return Zip<E>(a, b, out, n, [](C x, C y) { return x / y; });
    case Op::kRemainder:
      return Zip<E>(a, b, out, n, [](C x, C y) { return std::fmod(x, y); });
    case Op::kPower:
      return Zip<E>(a, b, out, n, [](C x, C y) { return std::pow(x, y); });
    case Op::kMaximum:
      return Zip<E>(a, b, out, n, FloatMax<C>);
    case Op::kMinimum:
      return Zip<E>(a, b, out, n, FloatMin<C>);
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return CompareOp<E>(op, a, b, out, n);
    case Op::kAnd:  // integers and pred only
    case Op::kOr:
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      return;  // not a binary row: RunKernel sends none here
  }
}

template <typename E>
void BinaryInt(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  using T = typename E::Compute;
  switch (op) {
    case Op::kAdd:
      return Zip<E>(a, b, out, n, [](T x, T y) { return Wrap<T>(U<T>(x) + U<T>(y)); });
    case Op::kSubtract:
      return Zip<E>(a, b, out, n, [](T x, T y) { return Wrap<T>(U<T>(x) - U<T>(y)); });
    case Op::kMultiply:
      return Zip<E>(a, b, out, n, [](T x, T y) { return Wrap<T>(U<T>(x) * U<T>(y)); });
    case Op::kDivide:
      return Zip<E>(a, b, out, n, IntDivide<T>);
    case Op::kRemainder:
      return Zip<E>(a, b, out, n, IntRemainder<T>);
    case Op::kPower:
      return Zip<E>(a, b, out, n, IntPower<T>);
    case Op::kMaximum:
      return Zip<E>(a, b, out, n, [](T x, T y) { return x > y ? x : y; });
    case Op::kMinimum:
      return Zip<E>(a, b, out, n, [](T x, T y) { return x < y ? x : y; });
    case Op::kAnd:
      return Zip<E>(a, b, out, n, [](T x, T y) { return static_cast<T>(x & y); });
    case Op::kOr:
      return Zip<E>(a, b, out, n, [](T x, T y) { return static_cast<T>(x | y); });
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return CompareOp<E>(op, a, b, out, n);
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      return;  // not a binary row: RunKernel sends none here
  }
}

void BinaryPred(Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n) {
  using E = Elem<DType::kPred>;
  switch (op) {
    case Op::kAnd:
      return Zip<E>(a, b, out, n, [](bool x, bool y) { return x && y; });
    case Op::kOr:
      return Zip<E>(a, b, out, n, [](bool x, bool y) { return x || y; });
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return CompareOp<E>(op, a, b, out, n);
    // Numbers only.
    case Op::kAdd:
    case Op::kSubtract:
    case Op::kMultiply:
    case Op::kDivide:
    case Op::kRemainder:
    case Op::kPower:
    case Op::kMaximum:
    case Op::kMinimum:
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      return;  // not a pred binary row: RunKernel sends none here
  }
}

// The converted value of one element; see "convert" in docs/ir.md.
template <typename To, typename From>
typename To::Compute ConvertValue(typename From::Compute v) {
  using T = typename To::Compute;
  using F = typename From::Compute;
  if constexpr (std::is_same_v<T, bool>) {
    return v != F(0);
  } else if constexpr (std::is_floating_point_v<F> && std::is_integral_v<T>) {
    // Truncate toward zero, saturating; NaN is 0. max() as a double is exact for int32 and
    // 2^63 (one past the range) for int64, so >= is right for both.
    double d = v;
    if (std::isnan(d)) return 0;
    if (d >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    if (d <= static_cast<double>(std::numeric_limits<T>::min()))
      return std::numeric_limits<T>::min();
    return static_cast<T>(d);
  } else {
    // float <-> float rounds to nearest; int -> float rounds once; int -> int wraps.
    return static_cast<T>(v);
  }
}

template <typename From, typename To>
void ConvertLoop(const uint8_t* in, uint8_t* out, int64_t n) {
  const auto* x = reinterpret_cast<const typename From::Storage*>(in);
  auto* y = reinterpret_cast<typename To::Storage*>(out);
  for (int64_t i = 0; i < n; ++i) y[i] = To::Store(ConvertValue<To, From>(From::Load(x[i])));
}

template <typename From>
void ConvertFrom(DType to, const uint8_t* in, uint8_t* out, int64_t n) {
  switch (to) {
    case DType::kF32:
      return ConvertLoop<From, Elem<DType::kF32>>(in, out, n);
    case DType::kF64:
      return ConvertLoop<From, Elem<DType::kF64>>(in, out, n);
    case DType::kBF16:
      return ConvertLoop<From, Elem<DType::kBF16>>(in, out, n);
    case DType::kS32:
      return ConvertLoop<From, Elem<DType::kS32>>(in, out, n);
    case DType::kS64:
      return ConvertLoop<From, Elem<DType::kS64>>(in, out, n);
    case DType::kPred:
      return ConvertLoop<From, Elem<DType::kPred>>(in, out, n);
  }
}

}  // namespace

void Unary(Op op, DType dtype, const uint8_t* in, uint8_t* out, int64_t count) {
  switch (dtype) {
    case DType::kF32:
      if (FastUnaryF32(op, in, out, count)) return;
      return UnaryFloat<Elem<DType::kF32>>(op, in, out, count);
    case DType::kF64:
      return UnaryFloat<Elem<DType::kF64>>(op, in, out, count);
    case DType::kBF16:
      return UnaryFloat<Elem<DType::kBF16>>(op, in, out, count);
    case DType::kS32:
      return UnaryInt<Elem<DType::kS32>>(op, in, out, count);
    case DType::kS64:
      return UnaryInt<Elem<DType::kS64>>(op, in, out, count);
    case DType::kPred:
      return Map<Elem<DType::kPred>>(in, out, count, [](bool x) { return !x; });
  }
}

void Binary(Op op, DType dtype, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t count) {
  switch (dtype) {
    case DType::kF32:
      return BinaryFloat<Elem<DType::kF32>>(op, a, b, out, count);
    case DType::kF64:
      return BinaryFloat<Elem<DType::kF64>>(op, a, b, out, count);
    case DType::kBF16:
      return BinaryFloat<Elem<DType::kBF16>>(op, a, b, out, count);
    case DType::kS32:
      return BinaryInt<Elem<DType::kS32>>(op, a, b, out, count);
    case DType::kS64:
      return BinaryInt<Elem<DType::kS64>>(op, a, b, out, count);
    case DType::kPred:
      return BinaryPred(op, a, b, out, count);
  }
}

namespace {

// Moves whole elements as unsigned integers of their size: a branch-free loop the compiler
// vectorizes (relu's gradient is a select over every activation).
template <typename T>
void SelectT(const uint8_t* predicate, const uint8_t* on_true, const uint8_t* on_false,
             uint8_t* out, int64_t count) {
  const auto* t = reinterpret_cast<const T*>(on_true);
  const auto* f = reinterpret_cast<const T*>(on_false);
  auto* y = reinterpret_cast<T*>(out);
  for (int64_t i = 0; i < count; ++i) y[i] = predicate[i] != 0 ? t[i] : f[i];
}

}  // namespace

void Select(DType dtype, const uint8_t* predicate, const uint8_t* on_true, const uint8_t* on_false,
            uint8_t* out, int64_t count) {
  switch (ir::DTypeSize(dtype)) {
    case 1:
      return SelectT<uint8_t>(predicate, on_true, on_false, out, count);
    case 2:
      return SelectT<uint16_t>(predicate, on_true, on_false, out, count);
    case 4:
      return SelectT<uint32_t>(predicate, on_true, on_false, out, count);
    default:
      return SelectT<uint64_t>(predicate, on_true, on_false, out, count);
  }
}

void Convert(DType from, DType to, const uint8_t* in, uint8_t* out, int64_t count) {
  switch (from) {
    case DType::kF32:
      return ConvertFrom<Elem<DType::kF32>>(to, in, out, count);
    case DType::kF64:
      return ConvertFrom<Elem<DType::kF64>>(to, in, out, count);
    case DType::kBF16:
      return ConvertFrom<Elem<DType::kBF16>>(to, in, out, count);
    case DType::kS32:
      return ConvertFrom<Elem<DType::kS32>>(to, in, out, count);
    case DType::kS64:
      return ConvertFrom<Elem<DType::kS64>>(to, in, out, count);
    case DType::kPred:
      return ConvertFrom<Elem<DType::kPred>>(to, in, out, count);
  }
}

}  // namespace seam::cpu
