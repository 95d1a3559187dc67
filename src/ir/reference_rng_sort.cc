#include "src/ir/reference_rng_sort.h"

#include <cmath>

#include "src/ir/philox.h"

namespace seam::ir::reference {

std::vector<int64_t> RngBits(DType dtype, int64_t count, int64_t key, int64_t counter_lo,
                             int64_t counter_hi) {
  std::vector<int64_t> out(count);
  const bool wide = dtype == DType::kS64;
  const int64_t per_block = wide ? 2 : 4;
  for (int64_t e = 0; e < count; ++e) {
    const uint64_t block = static_cast<uint64_t>(e / per_block);
    const PhiloxBlock words =
        Philox4x32(PhiloxCounterOf(counter_lo, counter_hi, block), PhiloxKeyOf(key));
    const int64_t slot = e % per_block;
    if (wide) {
      const uint64_t bits = words[2 * slot] | (static_cast<uint64_t>(words[2 * slot + 1]) << 32);
      out[e] = static_cast<int64_t>(bits);
    } else {
      out[e] = static_cast<int32_t>(words[slot]);
    }
  }
  return out;
}

namespace {

// Element a sorts strictly before element b by value: ascending with NaN above everything
// (NaNs equal to each other), or the reverse of that order when descending.
bool Precedes(const std::vector<double>& f, const std::vector<int64_t>& i, int64_t a, int64_t b,
              bool descending) {
  if (descending) std::swap(a, b);
  if (!f.empty()) {
    if (std::isnan(f[a])) return false;
    if (std::isnan(f[b])) return true;
    return f[a] < f[b];
  }
  return i[a] < i[b];
}

}  // namespace

std::vector<int64_t> Argsort(const Shape& shape, int64_t axis, bool descending,
                             const std::vector<double>& f, const std::vector<int64_t>& i) {
  int64_t outer = 1, extent = shape.dims[axis], inner = 1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d < axis) outer *= shape.dims[d];
    if (d > axis) inner *= shape.dims[d];
  }
  std::vector<int64_t> out(shape.num_elements());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * extent * inner + in;
      for (int64_t j = 0; j < extent; ++j) {
        // j's sorted position: the elements before it by value, and the equal ones before
        // it by position (stability).
        int64_t rank = 0;
        for (int64_t k = 0; k < extent; ++k) {
          const int64_t a = base + k * inner, b = base + j * inner;
          const bool equal = !Precedes(f, i, a, b, descending) && !Precedes(f, i, b, a, descending);
          if (Precedes(f, i, a, b, descending) || (equal && k < j)) ++rank;
        }
        out[base + rank * inner] = j;
      }
    }
  }
  return out;
}

}  // namespace seam::ir::reference
