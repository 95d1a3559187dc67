// How the CPU kernels store and compute each dtype: Elem<D>::Storage is the element in
// memory, Elem<D>::Compute the type arithmetic is done in (bf16 computes in float, pred
// in bool). Dispatch from a runtime DType to these happens in each kernel .cc file.
#ifndef SEAM_PLUGINS_CPU_ELEMENT_TYPES_H_
#define SEAM_PLUGINS_CPU_ELEMENT_TYPES_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "src/ir/bf16.h"
#include "src/ir/dtype.h"

namespace seam::cpu {

template <ir::DType D>
struct Elem;

template <typename S, typename C>
struct PlainElem {
  using Storage = S;
  using Compute = C;
  static C Load(S v) { return v; }
  static S Store(C v) { return v; }
};

template <>
struct Elem<ir::DType::kF32> : PlainElem<float, float> {};
template <>
struct Elem<ir::DType::kF64> : PlainElem<double, double> {};
template <>
struct Elem<ir::DType::kS32> : PlainElem<int32_t, int32_t> {};
template <>
struct Elem<ir::DType::kS64> : PlainElem<int64_t, int64_t> {};

template <>
struct Elem<ir::DType::kBF16> {
  using Storage = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return ir::BF16ToFloat(v); }
  static uint16_t Store(float v) { return ir::FloatToBF16(v); }
};

// Any non-zero byte reads as true (a host buffer may hold other bytes); writes are 0 or 1.
template <>
struct Elem<ir::DType::kPred> {
  using Storage = uint8_t;
  using Compute = bool;
  static bool Load(uint8_t v) { return v != 0; }
  static uint8_t Store(bool v) { return v ? 1 : 0; }
};

// maximum/minimum of floats: NaN wins, and +0 counts as larger than -0.
template <typename T>
T FloatMax(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename T>
T FloatMin(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_ELEMENT_TYPES_H_
