#include "src/plugins/cpu/kernels/kernels_axis.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "src/plugins/cpu/kernels/element_types.h"

namespace seam::cpu {
namespace {

using ir::DType;
using ir::Op;

struct AxisLoop {
  int64_t outer = 1, extent = 1, inner = 1;
  AxisLoop(const ir::Shape& shape, int64_t axis) {
    for (int64_t d = 0; d < shape.rank(); ++d) {
      (d < axis ? outer : d == axis ? extent : inner) *= shape.dims[d];
    }
  }
};

template <typename E>
typename E::Compute LoadAt(const uint8_t* p, int64_t k) {
  typename E::Storage v;
  std::memcpy(&v, p + k * sizeof(v), sizeof(v));
  return E::Load(v);
}

template <typename E>
void StoreAt(uint8_t* p, int64_t k, typename E::Compute c) {
  const typename E::Storage v = E::Store(c);
  std::memcpy(p + k * sizeof(v), &v, sizeof(v));
}

template <DType D>
void ArgReduceTyped(bool max, const AxisLoop& loop, const uint8_t* in, uint8_t* out) {
  using E = Elem<D>;
  using C = typename E::Compute;
  for (int64_t o = 0; o < loop.outer; ++o) {
    for (int64_t i = 0; i < loop.inner; ++i) {
      const int64_t base = o * loop.extent * loop.inner + i;
      C best_value = LoadAt<E>(in, base);
      int64_t best = 0;
      for (int64_t k = 1; k < loop.extent; ++k) {
        const C c = LoadAt<E>(in, base + k * loop.inner);
        bool better = max ? c > best_value : c < best_value;
        if constexpr (std::is_floating_point_v<C>) {
          if (std::isnan(best_value))
            better = false;
          else if (std::isnan(c))
            better = true;
        }
        if (better) {
          best = k;
          best_value = c;
        }
      }
      std::memcpy(out + (o * loop.inner + i) * 8, &best, 8);
    }
  }
}

template <DType D>
void CumsumTyped(const AxisLoop& loop, const uint8_t* in, uint8_t* out) {
  using E = Elem<D>;
  using C = typename E::Compute;
  for (int64_t o = 0; o < loop.outer; ++o) {
    const int64_t row = o * loop.extent * loop.inner;
    for (int64_t i = 0; i < loop.inner; ++i) {
      C sum = C(0);
      for (int64_t k = 0; k < loop.extent; ++k) {
        const int64_t at = row + k * loop.inner + i;
        if constexpr (std::is_integral_v<C>) {
          using U = std::make_unsigned_t<C>;
          sum = static_cast<C>(static_cast<U>(sum) + static_cast<U>(LoadAt<E>(in, at)));
        } else {
          // Round the running sum to the dtype each step (bf16 stores and reloads).
          sum = E::Load(E::Store(sum + LoadAt<E>(in, at)));
        }
        StoreAt<E>(out, at, sum);
      }
    }
  }
}

template <typename Fn>
void ForNumeric(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kF64:
      return fn.template operator()<DType::kF64>();
    case DType::kBF16:
      return fn.template operator()<DType::kBF16>();
    case DType::kS32:
      return fn.template operator()<DType::kS32>();
    case DType::kS64:
      return fn.template operator()<DType::kS64>();
    default:
      return fn.template operator()<DType::kF32>();
  }
}

}  // namespace

void ArgReduce(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
               uint8_t* out) {
  const AxisLoop loop(in_shape, inst.attrs.at("axis")[0]);
  const bool max = inst.op == Op::kArgMax;
  ForNumeric(in_shape.dtype, [&]<DType D>() { ArgReduceTyped<D>(max, loop, in, out); });
}

void Cumsum(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
            uint8_t* out) {
  const AxisLoop loop(in_shape, inst.attrs.at("axis")[0]);
  ForNumeric(in_shape.dtype, [&]<DType D>() { CumsumTyped<D>(loop, in, out); });
}

}  // namespace seam::cpu
