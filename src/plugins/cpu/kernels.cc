#include "src/plugins/cpu/kernels.h"

#include <cblas.h>

#include <cstring>

namespace seam::cpu {
namespace {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

// Visits every index of `dims` in row-major order, keeping `offset` = sum(index * strides)
// in step with it, and calls fn(linear_position, offset).
template <typename Fn>
void ForEachIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, Fn fn) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  std::vector<int64_t> index(dims.size(), 0);
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

template <typename T>
void Binary(ir::Op op, const T* a, const T* b, T* out, int64_t n) {
  switch (op) {
    case ir::Op::kAdd:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
      break;
    case ir::Op::kSubtract:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] - b[i];
      break;
    case ir::Op::kMultiply:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
      break;
    default:
      break;
  }
}

// Integer products wrap like two's complement hardware instead of being undefined.
template <>
void Binary<int32_t>(ir::Op op, const int32_t* a, const int32_t* b, int32_t* out, int64_t n) {
  auto u = [](int32_t v) { return static_cast<uint32_t>(v); };
  for (int64_t i = 0; i < n; ++i) {
    uint32_t r = op == ir::Op::kAdd        ? u(a[i]) + u(b[i])
                 : op == ir::Op::kSubtract ? u(a[i]) - u(b[i])
                                           : u(a[i]) * u(b[i]);
    out[i] = static_cast<int32_t>(r);
  }
}

template <typename T>
void Broadcast(const ir::Shape& in_shape, const T* in, const ir::Shape& out_shape,
               const std::vector<int64_t>& dims, T* out) {
  std::vector<int64_t> in_strides = RowMajorStrides(in_shape.dims);
  std::vector<int64_t> strides(out_shape.dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (in_shape.dims[i] != 1) strides[dims[i]] = in_strides[i];
  }
  ForEachIndex(out_shape.dims, strides, [&](int64_t pos, int64_t offset) { out[pos] = in[offset]; });
}

template <typename T>
void Reduce(const ir::Shape& in_shape, const T* in, const std::vector<int64_t>& axes, T* out,
            int64_t out_count) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    bool reduced = false;
    for (int64_t a : axes) reduced = reduced || a == d;
    if (!reduced) kept.push_back(in_shape.dims[d]);
  }
  std::vector<int64_t> kept_strides = RowMajorStrides(kept);
  std::vector<int64_t> strides(in_shape.dims.size(), 0);
  for (int64_t d = 0, k = 0; d < in_shape.rank(); ++d) {
    bool reduced = false;
    for (int64_t a : axes) reduced = reduced || a == d;
    if (!reduced) strides[d] = kept_strides[k++];
  }
  std::memset(out, 0, sizeof(T) * out_count);
  if constexpr (std::is_same_v<T, int32_t>) {
    ForEachIndex(in_shape.dims, strides, [&](int64_t pos, int64_t offset) {
      out[offset] = static_cast<int32_t>(static_cast<uint32_t>(out[offset]) +
                                         static_cast<uint32_t>(in[pos]));
    });
  } else {
    ForEachIndex(in_shape.dims, strides,
                 [&](int64_t pos, int64_t offset) { out[offset] += in[pos]; });
  }
}

}  // namespace

void ElementwiseBinary(ir::Op op, ir::DType dtype, const uint8_t* a, const uint8_t* b,
                       uint8_t* out, int64_t count) {
  if (dtype == ir::DType::kF32) {
    Binary(op, reinterpret_cast<const float*>(a), reinterpret_cast<const float*>(b),
           reinterpret_cast<float*>(out), count);
  } else {
    Binary(op, reinterpret_cast<const int32_t*>(a), reinterpret_cast<const int32_t*>(b),
           reinterpret_cast<int32_t*>(out), count);
  }
}

void Dot(ir::DType dtype, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out, int64_t m,
         int64_t k, int64_t n) {
  if (dtype == ir::DType::kF32) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
      std::memset(out, 0, sizeof(float) * m * n);
      return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0f,
                reinterpret_cast<const float*>(lhs), static_cast<blasint>(k),
                reinterpret_cast<const float*>(rhs), static_cast<blasint>(n), 0.0f,
                reinterpret_cast<float*>(out), static_cast<blasint>(n));
    return;
  }
  const auto* a = reinterpret_cast<const int32_t*>(lhs);
  const auto* b = reinterpret_cast<const int32_t*>(rhs);
  auto* c = reinterpret_cast<int32_t*>(out);
  std::vector<uint32_t> row(n);
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0u);
    for (int64_t p = 0; p < k; ++p) {
      uint32_t av = static_cast<uint32_t>(a[i * k + p]);
      for (int64_t j = 0; j < n; ++j) row[j] += av * static_cast<uint32_t>(b[p * n + j]);
    }
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<int32_t>(row[j]);
  }
}

void BroadcastInDim(const ir::Shape& in_shape, const uint8_t* in, const ir::Shape& out_shape,
                    const std::vector<int64_t>& dims, uint8_t* out) {
  if (in_shape.dtype == ir::DType::kF32) {
    Broadcast(in_shape, reinterpret_cast<const float*>(in), out_shape, dims,
              reinterpret_cast<float*>(out));
  } else {
    Broadcast(in_shape, reinterpret_cast<const int32_t*>(in), out_shape, dims,
              reinterpret_cast<int32_t*>(out));
  }
}

void ReduceSum(const ir::Shape& in_shape, const uint8_t* in, const std::vector<int64_t>& axes,
               uint8_t* out) {
  int64_t out_count = 1;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    bool reduced = false;
    for (int64_t a : axes) reduced = reduced || a == d;
    if (!reduced) out_count *= in_shape.dims[d];
  }
  if (in_shape.dtype == ir::DType::kF32) {
    Reduce(in_shape, reinterpret_cast<const float*>(in), axes, reinterpret_cast<float*>(out),
           out_count);
  } else {
    Reduce(in_shape, reinterpret_cast<const int32_t*>(in), axes, reinterpret_cast<int32_t*>(out),
           out_count);
  }
}

}  // namespace seam::cpu
