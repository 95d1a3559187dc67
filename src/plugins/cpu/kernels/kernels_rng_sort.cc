#include "src/plugins/cpu/kernels/kernels_rng_sort.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "src/ir/philox.h"
#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

using ir::DType;

int64_t LoadS64(const uint8_t* p, int64_t k) {
  int64_t v;
  std::memcpy(&v, p + k * 8, 8);
  return v;
}

// Sorts lanes [begin, end) (lane = o * inner + i); each lane writes only its own indices.
template <DType D>
void ArgsortLanes(int64_t begin, int64_t end, int64_t extent, int64_t inner, bool descending,
                  const uint8_t* in, uint8_t* out) {
  using E = Elem<D>;
  using C = typename E::Compute;
  std::vector<C> lane(extent);
  std::vector<int64_t> order(extent);
  // Ascending with NaN above everything; descending is the same order reversed (the swap),
  // and stable_sort keeps equal elements in their input order either way.
  auto less = [&](int64_t a, int64_t b) {
    if (descending) std::swap(a, b);
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(lane[a])) return false;
      if (std::isnan(lane[b])) return true;
    }
    return lane[a] < lane[b];
  };
  for (int64_t l = begin; l < end; ++l) {
    const int64_t base = (l / inner) * extent * inner + l % inner;
    for (int64_t k = 0; k < extent; ++k) {
      typename E::Storage v;
      std::memcpy(&v, in + (base + k * inner) * sizeof(v), sizeof(v));
      lane[k] = E::Load(v);
    }
    std::iota(order.begin(), order.end(), int64_t{0});
    std::stable_sort(order.begin(), order.end(), less);
    for (int64_t k = 0; k < extent; ++k) std::memcpy(out + (base + k * inner) * 8, &order[k], 8);
  }
}

template <DType D>
void ArgsortTyped(int64_t outer, int64_t extent, int64_t inner, bool descending, const uint8_t* in,
                  uint8_t* out) {
  auto run = [&](int64_t begin, int64_t end) {
    ArgsortLanes<D>(begin, end, extent, inner, descending, in, out);
  };
  if (outer * extent * inner < kParallelMinimumElements) return run(0, outer * inner);
  ParallelFor(outer * inner, run);
}

}  // namespace

void RngBitGenerator(const ir::Shape& result, const uint8_t* key, const uint8_t* counter,
                     uint8_t* out) {
  const int64_t count = result.num_elements();
  const ir::PhiloxKey k = ir::PhiloxKeyOf(LoadS64(key, 0));
  const int64_t lo = LoadS64(counter, 0), hi = LoadS64(counter, 1);
  // s32: 4 elements (16 bytes) per block; s64: 2 elements, each word 2j low, 2j+1 high,
  // which is the block's 16 bytes in little-endian order either way.
  // Each block writes only its own 16 bytes, so any split over threads gives the same bits.
  const int64_t bytes = count * static_cast<int64_t>(ir::DTypeSize(result.dtype));
  const int64_t blocks = (bytes + 15) / 16;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t block = begin; block < end; ++block) {
      const ir::PhiloxBlock words =
          ir::Philox4x32(ir::PhiloxCounterOf(lo, hi, static_cast<uint64_t>(block)), k);
      uint8_t raw[16];
      for (int w = 0; w < 4; ++w) {
        for (int b = 0; b < 4; ++b) raw[4 * w + b] = static_cast<uint8_t>(words[w] >> (8 * b));
      }
      const int64_t at = block * 16;
      std::memcpy(out + at, raw, static_cast<size_t>(std::min<int64_t>(16, bytes - at)));
    }
  };
  if (count < kParallelMinimumElements) return run(0, blocks);
  ParallelFor(blocks, run);
}

void Argsort(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
             uint8_t* out) {
  const int64_t axis = inst.attrs.at("axis")[0];
  const bool descending = inst.attrs.at("descending")[0] != 0;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    if (d < axis) outer *= in_shape.dims[d];
    if (d > axis) inner *= in_shape.dims[d];
  }
  const int64_t extent = in_shape.dims[axis];
  if (in_shape.num_elements() == 0) return;
  switch (in_shape.dtype) {
    case DType::kF32:
      return ArgsortTyped<DType::kF32>(outer, extent, inner, descending, in, out);
    case DType::kF64:
      return ArgsortTyped<DType::kF64>(outer, extent, inner, descending, in, out);
    case DType::kBF16:
      return ArgsortTyped<DType::kBF16>(outer, extent, inner, descending, in, out);
    case DType::kS32:
      return ArgsortTyped<DType::kS32>(outer, extent, inner, descending, in, out);
    case DType::kS64:
    case DType::kPred:  // argsort's row admits numeric dtypes only
      return ArgsortTyped<DType::kS64>(outer, extent, inner, descending, in, out);
  }
}

}  // namespace seam::cpu
