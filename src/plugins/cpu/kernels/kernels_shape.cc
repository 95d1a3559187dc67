// Data movement kernels (broadcast, transpose, slice, concatenate, pad) and iota. They
// move whole elements, so all but iota dispatch on the element size alone.
#include <algorithm>
#include <cstring>

#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/strided.h"
#include "src/plugins/cpu/kernels/target_clones.h"

namespace seam::cpu {
namespace {

// dst[r * cols + c] = src[r + c * step] for r < rows, c < cols, in tiles of kTile x kTile:
// each tile reads kTile runs of kTile contiguous elements and writes kTile runs of kTile.
template <typename T>
void TransposeTiles(const T* src, int64_t rows, int64_t cols, int64_t step, T* dst) {
  constexpr int64_t kTile = 16;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = std::min(rows, r0 + kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = std::min(cols, c0 + kTile);
      for (int64_t c = c0; c < c1; ++c) {
        const T* column = src + c * step;
        for (int64_t r = r0; r < r1; ++r) dst[r * cols + c] = column[r];
      }
    }
  }
}

// The plan's result, one run along its innermost dimension per outer index: a block copy
// where that dimension is contiguous in the operand, a fill where it is broadcast (stride 0),
// a strided loop otherwise; broadcasts and row slices then cost about a memcpy.
template <typename T>
void GatherT(const GatherPlan& plan, const uint8_t* in, uint8_t* out) {
  const T* x = reinterpret_cast<const T*>(in) + plan.base;
  T* y = reinterpret_cast<T*>(out);
  if (plan.dims.empty()) {
    y[0] = x[0];
    return;
  }
  const int64_t inner = plan.dims.back();
  const int64_t step = plan.strides.back();
  if (inner == 0) return;
  auto row = [&](int64_t pos, int64_t offset) {
    T* dst = y + pos * inner;
    const T* src = x + offset;
    if (step == 1) {
      std::memcpy(dst, src, static_cast<size_t>(inner) * sizeof(T));
    } else if (step == 0) {
      std::fill(dst, dst + inner, *src);
    } else {
      for (int64_t i = 0; i < inner; ++i) dst[i] = src[i * step];
    }
  };
  const size_t outer = plan.dims.size() - 1;
  if (outer >= 1 && step > 1 && plan.strides[outer - 1] == 1 && plan.dims[outer - 1] >= 8) {
    // A transpose of the last two dimensions: the innermost result dimension walks the
    // operand with a stride and the one before it is the operand's contiguous one. Copied in
    // square tiles, so that reads and writes both stay within a few cache lines.
    const int64_t rows = plan.dims[outer - 1];
    ForEachIndex(absl::MakeConstSpan(plan.dims.data(), outer - 1),
                 absl::MakeConstSpan(plan.strides.data(), outer - 1),
                 [&](int64_t pos, int64_t offset) {
                   TransposeTiles(x + offset, rows, inner, step, y + pos * rows * inner);
                 });
    return;
  }
  if (step == 1 && inner * static_cast<int64_t>(sizeof(T)) <= 256 && outer >= 1) {
    // Short contiguous rows (a head split's or merge's 32 floats), a run of them along the
    // last outer dimension per call, each copied by a plain loop: a library call and an index
    // step per row cost about as much as the copy.
    const int64_t rows = plan.dims[outer - 1], row_step = plan.strides[outer - 1];
    ForEachIndex(absl::MakeConstSpan(plan.dims.data(), outer - 1),
                 absl::MakeConstSpan(plan.strides.data(), outer - 1),
                 [&](int64_t pos, int64_t offset) {
                   T* dst = y + pos * rows * inner;
                   const T* src = x + offset;
                   for (int64_t r = 0; r < rows; ++r, dst += inner, src += row_step) {
                     for (int64_t i = 0; i < inner; ++i) dst[i] = src[i];
                   }
                 });
    return;
  }
  ForEachIndex(absl::MakeConstSpan(plan.dims.data(), outer),
               absl::MakeConstSpan(plan.strides.data(), outer), row);
}

// The plan of a gather over `dims` (a result's dimensions) with these operand strides.
GatherPlan MakeGatherPlan(ir::DType dtype, int64_t base, const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& strides) {
  GatherPlan plan;
  plan.element_bytes = static_cast<int>(ir::DTypeSize(dtype));
  plan.base = base;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 0) {
      plan.dims = {0};
      plan.strides = {0};
      return plan;
    }
    if (dims[d] == 1) continue;
    // The previous kept dimension walks the operand on from this one: one dimension.
    if (!plan.dims.empty() && plan.strides.back() == strides[d] * dims[d]) {
      plan.dims.back() *= dims[d];
      plan.strides.back() = strides[d];
      continue;
    }
    plan.dims.push_back(dims[d]);
    plan.strides.push_back(strides[d]);
  }
  return plan;
}

template <typename E>
void IotaT(const ir::Shape& shape, int64_t dimension, uint8_t* out) {
  auto* y = reinterpret_cast<typename E::Storage*>(out);
  // Position along `dimension` = (linear / inner) % dims[dimension].
  int64_t inner = 1;
  for (int64_t d = dimension + 1; d < shape.rank(); ++d) inner *= shape.dims[d];
  int64_t extent = shape.dims[dimension];
  int64_t count = shape.num_elements();
  for (int64_t i = 0; i < count; ++i) {
    y[i] = E::Store(static_cast<typename E::Compute>((i / inner) % extent));
  }
}

// `count` elements of `size` bytes, each the bytes at `value`: a memset when they are all
// zero bytes (the usual padding value), doubling copies otherwise.
void FillWith(const uint8_t* value, size_t size, uint8_t* out, int64_t count) {
  if (count <= 0) return;
  const size_t total = static_cast<size_t>(count) * size;
  if (std::all_of(value, value + size, [](uint8_t b) { return b == 0; })) {
    std::memset(out, 0, total);
    return;
  }
  std::memcpy(out, value, size);
  for (size_t done = size; done < total; done *= 2) {
    std::memcpy(out + done, out, std::min(done, total - done));
  }
}

// Pad without interior padding (the output already filled): the operand's part that lands
// inside the result is copied in runs. The run covers the innermost dimension that is
// padded or cropped and every dimension after it (they are unpadded, so the run is
// contiguous on both sides); the dimensions before it are walked. Low padding is negative
// where the operand is cropped.
void CopyIntoPadded(const std::vector<int64_t>& in_dims, const std::vector<int64_t>& out_dims,
                    const std::vector<int64_t>& low, size_t size, const uint8_t* in, uint8_t* out) {
  const auto rank = static_cast<int64_t>(in_dims.size());
  if (rank == 0) {
    std::memcpy(out, in, size);
    return;
  }
  std::vector<int64_t> first(rank), last(rank);  // operand index range kept, [first, last)
  for (int64_t d = 0; d < rank; ++d) {
    first[d] = std::max<int64_t>(0, -low[d]);
    last[d] = std::min(in_dims[d], out_dims[d] - low[d]);
    if (last[d] <= first[d]) return;
  }
  int64_t k = rank - 1;  // the run's outermost dimension
  while (k > 0 && low[k] == 0 && in_dims[k] == out_dims[k]) --k;
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  const size_t run = static_cast<size_t>((last[k] - first[k]) * in_strides[k]) * size;
  std::vector<int64_t> index(first.begin(), first.begin() + k);
  while (true) {
    int64_t from = first[k] * in_strides[k];
    int64_t to = (first[k] + low[k]) * out_strides[k];
    for (int64_t d = 0; d < k; ++d) {
      from += index[d] * in_strides[d];
      to += (index[d] + low[d]) * out_strides[d];
    }
    std::memcpy(out + to * static_cast<int64_t>(size), in + from * static_cast<int64_t>(size), run);
    int64_t d = k - 1;
    for (; d >= 0; --d) {
      if (++index[d] < last[d]) break;
      index[d] = first[d];
    }
    if (d < 0) return;
  }
}

}  // namespace

GatherPlan PlanBroadcast(const ir::Shape& in_shape, const ir::Shape& out_shape,
                         const std::vector<int64_t>& dims) {
  std::vector<int64_t> in_strides = RowMajorStrides(in_shape.dims);
  std::vector<int64_t> strides(out_shape.dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (in_shape.dims[i] != 1) strides[dims[i]] = in_strides[i];
  }
  return MakeGatherPlan(in_shape.dtype, 0, out_shape.dims, strides);
}

GatherPlan PlanTranspose(const ir::Shape& in_shape, const std::vector<int64_t>& permutation) {
  std::vector<int64_t> in_strides = RowMajorStrides(in_shape.dims);
  std::vector<int64_t> out_dims, strides;
  for (int64_t p : permutation) {
    out_dims.push_back(in_shape.dims[p]);
    strides.push_back(in_strides[p]);
  }
  return MakeGatherPlan(in_shape.dtype, 0, out_dims, strides);
}

SEAM_KERNEL_CLONES void Gather(const GatherPlan& plan, const uint8_t* in, uint8_t* out) {
  switch (plan.element_bytes) {
    case 1:
      return GatherT<uint8_t>(plan, in, out);
    case 2:
      return GatherT<uint16_t>(plan, in, out);
    case 4:
      return GatherT<uint32_t>(plan, in, out);
    default:
      return GatherT<uint64_t>(plan, in, out);
  }
}

void BroadcastInDim(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
                    const std::vector<int64_t>& dims, uint8_t* out) {
  Gather(PlanBroadcast(in_shape, out_shape, dims), in, out);
}

void Transpose(const ir::Shape& in_shape, const uint8_t* in,
               const std::vector<int64_t>& permutation, uint8_t* out) {
  Gather(PlanTranspose(in_shape, permutation), in, out);
}

void Slice(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
           const std::vector<int64_t>& start, const std::vector<int64_t>& stride, uint8_t* out) {
  if (out_shape.num_elements() == 0) return;
  std::vector<int64_t> in_strides = RowMajorStrides(in_shape.dims);
  std::vector<int64_t> strides(in_strides.size());
  int64_t base = 0;
  for (size_t d = 0; d < in_strides.size(); ++d) {
    base += start[d] * in_strides[d];
    strides[d] = in_strides[d] * stride[d];
  }
  Gather(MakeGatherPlan(in_shape.dtype, base, out_shape.dims, strides), in, out);
}

void Concatenate(const std::vector<ir::Shape>& in_shapes, const std::vector<const uint8_t*>& ins,
                 int64_t dimension, uint8_t* out) {
  // Seen as [outer, chunk_i] blocks: each outer index takes one chunk of every operand.
  size_t size = ir::DTypeSize(in_shapes[0].dtype);
  int64_t outer = 1;
  for (int64_t d = 0; d < dimension; ++d) outer *= in_shapes[0].dims[d];
  std::vector<size_t> chunk_bytes;
  for (const ir::Shape& shape : in_shapes) {
    int64_t elements = 1;
    for (int64_t d = dimension; d < shape.rank(); ++d) elements *= shape.dims[d];
    chunk_bytes.push_back(static_cast<size_t>(elements) * size);
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < ins.size(); ++i) {
      if (chunk_bytes[i] == 0) continue;
      std::memcpy(out, ins[i] + o * chunk_bytes[i], chunk_bytes[i]);
      out += chunk_bytes[i];
    }
  }
}

void Pad(const ir::Shape& in_shape, const uint8_t* in, const uint8_t* value,
         const ir::Shape& out_shape, const std::vector<int64_t>& low,
         const std::vector<int64_t>& interior, uint8_t* out) {
  size_t size = ir::DTypeSize(in_shape.dtype);
  int64_t out_count = out_shape.num_elements();
  FillWith(value, size, out, out_count);
  int64_t in_count = in_shape.num_elements();
  if (in_count == 0 || out_count == 0) return;
  if (std::all_of(interior.begin(), interior.end(), [](int64_t i) { return i == 0; })) {
    return CopyIntoPadded(in_shape.dims, out_shape.dims, low, size, in, out);
  }
  // Walk the operand's indices; element index[d] lands at low[d] + index[d] * (interior[d]+1)
  // and is dropped when that falls outside the result (negative padding crops).
  std::vector<int64_t> out_strides = RowMajorStrides(out_shape.dims);
  std::vector<int64_t> index(in_shape.rank(), 0);
  for (int64_t i = 0; i < in_count; ++i) {
    int64_t offset = 0;
    bool inside = true;
    for (int64_t d = 0; d < in_shape.rank() && inside; ++d) {
      // 128-bit: huge interior padding cancelled by negative high padding is valid IR.
      __int128 position = low[d] + static_cast<__int128>(index[d]) * (interior[d] + __int128{1});
      inside = position >= 0 && position < out_shape.dims[d];
      if (inside) offset += static_cast<int64_t>(position) * out_strides[d];
    }
    if (inside) std::memcpy(out + offset * size, in + i * size, size);
    for (int64_t d = in_shape.rank() - 1; d >= 0; --d) {
      if (++index[d] < in_shape.dims[d]) break;
      index[d] = 0;
    }
  }
}

void Iota(const ir::Shape& out_shape, int64_t dimension, uint8_t* out) {
  if (out_shape.num_elements() == 0) return;
  switch (out_shape.dtype) {
    case ir::DType::kF32:
      return IotaT<Elem<ir::DType::kF32>>(out_shape, dimension, out);
    case ir::DType::kF64:
      return IotaT<Elem<ir::DType::kF64>>(out_shape, dimension, out);
    case ir::DType::kBF16:
      return IotaT<Elem<ir::DType::kBF16>>(out_shape, dimension, out);
    case ir::DType::kS32:
      return IotaT<Elem<ir::DType::kS32>>(out_shape, dimension, out);
    case ir::DType::kS64:
      return IotaT<Elem<ir::DType::kS64>>(out_shape, dimension, out);
    case ir::DType::kPred:
      return IotaT<Elem<ir::DType::kPred>>(out_shape, dimension, out);
  }
}

}  // namespace seam::cpu
