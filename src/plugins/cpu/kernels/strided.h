// Index arithmetic over dense row-major arrays, shared by the CPU kernels.
#ifndef SEAM_PLUGINS_CPU_STRIDED_H_
#define SEAM_PLUGINS_CPU_STRIDED_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace seam::cpu {

inline std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

// Visits every index of `dims` in row-major order, keeping `offset` = sum(index * strides)
// in step with it, and calls fn(linear_position, offset).
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides, Fn fn) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  absl::InlinedVector<int64_t, 8> index(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t pos = 0; pos < count; ++pos) {
    fn(pos, offset);
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (dims[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_STRIDED_H_
