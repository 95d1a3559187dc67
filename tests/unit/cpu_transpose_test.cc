// The CPU plugin's transpose kernel (kernels_shape.cc) against the definition out[i] =
// in[permuted i], element by element, for every element size and for permutations that take
// the tiled path (the last two dimensions swapped, with or without batch dimensions, sizes
// that are not multiples of the tile) and ones that do not.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

struct Case {
  ir::DType dtype;
  std::vector<int64_t> dims, permutation;
};

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

TEST(CpuTransposeTest, EveryElementLandsWhereThePermutationSays) {
  const Case cases[] = {
      {ir::DType::kF32, {37, 21}, {1, 0}},
      {ir::DType::kF32, {16, 16}, {1, 0}},
      {ir::DType::kF32, {8, 1000}, {1, 0}},
      {ir::DType::kF64, {3, 17, 40}, {0, 2, 1}},
      {ir::DType::kBF16, {2, 3, 19, 23}, {0, 1, 3, 2}},
      {ir::DType::kPred, {33, 20}, {1, 0}},
      {ir::DType::kS32, {4, 9, 7}, {2, 0, 1}},
      {ir::DType::kS64, {5, 6, 7}, {1, 0, 2}},
      {ir::DType::kF32, {7, 5}, {1, 0}},  // fewer than 8 rows: the plain loop
  };
  for (const Case& c : cases) {
    const size_t size = ir::DTypeSize(c.dtype);
    const int64_t count =
        std::accumulate(c.dims.begin(), c.dims.end(), int64_t{1}, std::multiplies<>());
    // Element k holds the bytes of k (truncated to the element size, so wrapped for pred).
    std::vector<uint8_t> in(static_cast<size_t>(count) * size);
    for (int64_t k = 0; k < count; ++k) {
      const uint64_t value = static_cast<uint64_t>(k) * 2654435761u;
      std::memcpy(in.data() + k * size, &value, size);
    }
    std::vector<uint8_t> out(in.size(), 0xAB);
    ir::Shape shape{c.dtype, c.dims};
    Transpose(shape, in.data(), c.permutation, out.data());
    std::vector<int64_t> out_dims;
    for (int64_t p : c.permutation) out_dims.push_back(c.dims[p]);
    const std::vector<int64_t> in_strides = Strides(c.dims);
    std::vector<int64_t> index(out_dims.size(), 0);
    for (int64_t k = 0; k < count; ++k) {
      int64_t source = 0;
      for (size_t d = 0; d < index.size(); ++d) source += index[d] * in_strides[c.permutation[d]];
      ASSERT_EQ(std::memcmp(out.data() + k * size, in.data() + source * size, size), 0)
          << ir::DTypeName(c.dtype) << "[" << absl::StrJoin(c.dims, ",") << "] permutation {"
          << absl::StrJoin(c.permutation, ",") << "} element " << k;
      for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
  }
}

}  // namespace
}  // namespace seam::cpu
