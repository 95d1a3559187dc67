#include "src/plugins/cpu/kernels/kernels_gather.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "src/ir/bf16.h"
#include "src/ir/gather.h"

namespace seam::cpu {
namespace {

using ir::DType;

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

bool Has(const std::vector<int64_t>& list, int64_t value) {
  for (int64_t v : list) {
    if (v == value) return true;
  }
  return false;
}

// Walks the index vectors of `indices` in row-major order of its batch dimensions; for
// each, `visit(batch_index, start)` gets the position in the batch dimensions and the
// clamped element offset of the slice's first element in the operand.
struct IndexWalk {
  const ir::Shape& indices_shape;
  const uint8_t* indices;
  int64_t index_vector_dim;
  const std::vector<int64_t>& index_map;  // vector entry k -> operand dimension
  const std::vector<int64_t>& operand_dims;
  const std::vector<int64_t>& slice;  // the slice's extent along each operand dimension

  int64_t Entry(int64_t at) const {
    if (indices_shape.dtype == DType::kS32) {
      int32_t v;
      std::memcpy(&v, indices + at * 4, 4);
      return v;
    }
    int64_t v;
    std::memcpy(&v, indices + at * 8, 8);
    return v;
  }

  template <typename Visit>
  void Run(Visit&& visit) const {
    const std::vector<int64_t> batch_dims = ir::IndexBatchDims(indices_shape, index_vector_dim);
    const std::vector<int64_t> istrides = Strides(indices_shape.dims);
    const int64_t vector_stride =
        index_vector_dim == indices_shape.rank() ? 0 : istrides[index_vector_dim];
    const std::vector<int64_t> ostrides = Strides(operand_dims);
    int64_t count = 1;
    for (int64_t d : batch_dims) count *= indices_shape.dims[d];
    std::vector<int64_t> at(batch_dims.size(), 0);
    for (int64_t b = 0; b < count; ++b) {
      int64_t base = 0;
      for (size_t j = 0; j < at.size(); ++j) base += at[j] * istrides[batch_dims[j]];
      int64_t start = 0;
      for (size_t k = 0; k < index_map.size(); ++k) {
        const int64_t d = index_map[k];
        const int64_t s = Entry(base + static_cast<int64_t>(k) * vector_stride);
        start += ir::ClampStart(s, operand_dims[d], slice[d]) * ostrides[d];
      }
      visit(at, start);
      for (size_t j = at.size(); j-- > 0;) {
        if (++at[j] < indices_shape.dims[batch_dims[j]]) break;
        at[j] = 0;
      }
    }
  }
};

// Calls row(operand_offset, other_offset) for every row of a slice of extents `slice`
// (the last operand dimension forms the rows); other_strides gives, per operand dimension,
// the stride of the matching dimension of the other array (the result or the updates).
template <typename Row>
void ForEachRow(const std::vector<int64_t>& slice, const std::vector<int64_t>& operand_strides,
                const std::vector<int64_t>& other_strides, Row&& row) {
  const size_t rank = slice.size();
  for (int64_t s : slice) {
    if (s == 0) return;
  }
  if (rank == 0) return row(0, 0);
  absl::InlinedVector<int64_t, 6> at(rank - 1, 0);
  while (true) {
    int64_t a = 0, b = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      a += at[d] * operand_strides[d];
      b += at[d] * other_strides[d];
    }
    row(a, b);
    size_t d = rank - 1;
    while (d-- > 0) {
      if (++at[d] < slice[d]) break;
      at[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) return;
  }
}

// to[k] += from[k * stride] for k < n, in the dtype's arithmetic: floats in order (bf16 in
// f32, rounded after each addition), integers wrapping.
template <typename T>
void AddRowTyped(const uint8_t* from, int64_t stride, uint8_t* to, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    T a, b;
    std::memcpy(&a, to + k * sizeof(T), sizeof(T));
    std::memcpy(&b, from + k * stride * sizeof(T), sizeof(T));
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      a = static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      a += b;
    }
    std::memcpy(to + k * sizeof(T), &a, sizeof(T));
  }
}

void AddRow(DType dtype, const uint8_t* from, int64_t stride, uint8_t* to, int64_t n) {
  switch (dtype) {
    case DType::kF32:
      return AddRowTyped<float>(from, stride, to, n);
    case DType::kF64:
      return AddRowTyped<double>(from, stride, to, n);
    case DType::kS32:
      return AddRowTyped<int32_t>(from, stride, to, n);
    case DType::kBF16:
      for (int64_t k = 0; k < n; ++k) {
        uint16_t a, b;
        std::memcpy(&a, to + k * 2, 2);
        std::memcpy(&b, from + k * stride * 2, 2);
        a = ir::FloatToBF16(ir::BF16ToFloat(a) + ir::BF16ToFloat(b));
        std::memcpy(to + k * 2, &a, 2);
      }
      return;
    default:  // s64 (scatter_add's shape rule admits numeric dtypes only)
      return AddRowTyped<int64_t>(from, stride, to, n);
  }
}

}  // namespace

void Gather(const ir::Instruction& inst, const ir::Shape& operand_shape, const uint8_t* operand,
            const ir::Shape& indices_shape, const uint8_t* indices, uint8_t* out) {
  const ir::GatherDims g = ir::GatherDimsOf(inst);
  const size_t esize = ir::DTypeSize(operand_shape.dtype);
  const std::vector<int64_t> rstrides = Strides(inst.shape.dims);
  const std::vector<int64_t> ostrides = Strides(operand_shape.dims);
  // Per operand dimension, the result stride its offset walks (0 for collapsed ones).
  std::vector<int64_t> slice_strides(operand_shape.rank(), 0);
  std::vector<int64_t> batch_positions;
  for (int64_t d = 0, next = 0; d < operand_shape.rank(); ++d) {
    if (!Has(g.collapsed_slice_dims, d)) slice_strides[d] = rstrides[g.offset_dims[next++]];
  }
  for (int64_t d = 0; d < inst.shape.rank(); ++d) {
    if (!Has(g.offset_dims, d)) batch_positions.push_back(d);
  }
  const int64_t rank = operand_shape.rank();
  const int64_t row = rank == 0 ? 1 : g.slice_sizes[rank - 1];
  const bool contiguous = rank == 0 || slice_strides[rank - 1] == 1 || row == 1;
  const int64_t last_stride = rank == 0 ? 0 : slice_strides[rank - 1];
  IndexWalk walk{indices_shape,      indices,      g.index_vector_dim, g.start_index_map,
                 operand_shape.dims, g.slice_sizes};
  walk.Run([&](const std::vector<int64_t>& at, int64_t start) {
    int64_t base = 0;
    for (size_t j = 0; j < at.size(); ++j) base += at[j] * rstrides[batch_positions[j]];
    ForEachRow(g.slice_sizes, ostrides, slice_strides, [&](int64_t a, int64_t b) {
      const uint8_t* from = operand + (start + a) * esize;
      uint8_t* to = out + (base + b) * esize;
      if (contiguous) {
        std::memcpy(to, from, row * esize);
        return;
      }
      for (int64_t k = 0; k < row; ++k)
        std::memcpy(to + k * last_stride * esize, from + k * esize, esize);
    });
  });
}

void Scatter(const ir::Instruction& inst, const ir::Shape& operand_shape, const uint8_t* operand,
             const ir::Shape& indices_shape, const uint8_t* indices, const ir::Shape& updates_shape,
             const uint8_t* updates, uint8_t* out) {
  const ir::ScatterDims s = ir::ScatterDimsOf(inst);
  const size_t esize = ir::DTypeSize(operand_shape.dtype);
  if (operand_shape.num_elements() > 0) {
    std::memcpy(out, operand, operand_shape.num_elements() * esize);
  }
  const std::vector<int64_t> ustrides = Strides(updates_shape.dims);
  const std::vector<int64_t> ostrides = Strides(operand_shape.dims);
  std::vector<int64_t> window(operand_shape.rank(), 1), window_strides(operand_shape.rank(), 0);
  std::vector<int64_t> batch_positions;
  for (int64_t d = 0, next = 0; d < operand_shape.rank(); ++d) {
    if (Has(s.inserted_window_dims, d)) continue;
    const int64_t u = s.update_window_dims[next++];
    window[d] = updates_shape.dims[u];
    window_strides[d] = ustrides[u];
  }
  for (int64_t d = 0; d < updates_shape.rank(); ++d) {
    if (!Has(s.update_window_dims, d)) batch_positions.push_back(d);
  }
  const int64_t rank = operand_shape.rank();
  const int64_t row = rank == 0 ? 1 : window[rank - 1];
  const int64_t last_stride = rank == 0 ? 0 : window_strides[rank - 1];
  const bool add = inst.op == ir::Op::kScatterAdd;
  IndexWalk walk{indices_shape,      indices, s.index_vector_dim, s.scatter_dims_to_operand_dims,
                 operand_shape.dims, window};
  walk.Run([&](const std::vector<int64_t>& at, int64_t start) {
    int64_t base = 0;
    for (size_t j = 0; j < at.size(); ++j) base += at[j] * ustrides[batch_positions[j]];
    ForEachRow(window, ostrides, window_strides, [&](int64_t a, int64_t b) {
      uint8_t* to = out + (start + a) * esize;
      const uint8_t* from = updates + (base + b) * esize;
      if (!add && (last_stride == 1 || row == 1)) {
        std::memcpy(to, from, row * esize);
        return;
      }
      if (add) return AddRow(operand_shape.dtype, from, last_stride, to, row);
      for (int64_t k = 0; k < row; ++k) {
        std::memcpy(to + k * esize, from + k * last_stride * esize, esize);
      }
    });
  });
}

}  // namespace seam::cpu
