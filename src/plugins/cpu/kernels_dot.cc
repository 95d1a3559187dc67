// dot_general. Both operands are brought to the layout [batch, rows, contracting] x
// [batch, contracting, cols] (copying through a scratch buffer only when the given layout
// is neither that nor its transpose); f32 and f64 then go to gemm (gemm.h: OpenBLAS or
// oneDNN) once per batch, the other dtypes to a plain loop.
#include <cblas.h>  // blasint: the products' size limit

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "src/plugins/cpu/element_types.h"
#include "src/plugins/cpu/gemm.h"
#include "src/plugins/cpu/kernels.h"

namespace seam::cpu {
namespace {

using ir::DType;

// A dimension list of one operand (never longer than its rank): kept on the stack, since
// this runs at every dot of every run and small steps run many small dots.
using DimList = absl::InlinedVector<int64_t, 8>;
using Dims = absl::Span<const int64_t>;

DimList Concat(std::initializer_list<Dims> parts) {
  DimList out;
  for (Dims part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

bool IsIdentity(Dims permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

int64_t Product(const ir::Shape& shape, Dims dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape.dims[d];
  return n;
}

bool Contains(Dims dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

// The dimensions that are neither batch nor contracting, in order.
DimList FreeDims(const ir::Shape& shape, Dims batch, Dims contracting) {
  DimList free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) free.push_back(d);
  }
  return free;
}

// One operand as gemm sees it: `data` in the canonical order, or transposed when
// `transposed` is set (then the two inner dimensions are swapped in memory).
struct Operand {
  const uint8_t* data = nullptr;
  bool transposed = false;
  std::vector<uint8_t> scratch;
};

// `canonical` and `swapped` are the operand's dimension orders that give the canonical
// layout and its transpose. `allow_swapped` is false where the consumer cannot use it.
void Arrange(const ir::Shape& shape, const uint8_t* data, Dims canonical, Dims swapped,
             bool allow_swapped, Operand* operand) {
  if (IsIdentity(canonical)) {
    operand->data = data;
  } else if (allow_swapped && IsIdentity(swapped)) {
    operand->data = data;
    operand->transposed = true;
  } else {
    operand->scratch.resize(shape.byte_size());
    Transpose(shape, data, std::vector<int64_t>(canonical.begin(), canonical.end()),
              operand->scratch.data());
    operand->data = operand->scratch.data();
  }
}

// Integer products wrap (so they accumulate unsigned); pred is an OR of ANDs.
template <typename C>
struct DotAccumulator {
  using type = C;
};
template <>
struct DotAccumulator<int32_t> {
  using type = uint32_t;
};
template <>
struct DotAccumulator<int64_t> {
  using type = uint64_t;
};

template <typename E>
void LoopDot(const uint8_t* a_bytes, const uint8_t* b_bytes, uint8_t* c_bytes, int64_t batches,
             int64_t m, int64_t k, int64_t n) {
  using C = typename E::Compute;
  using Acc = typename DotAccumulator<C>::type;
  const auto* a = reinterpret_cast<const typename E::Storage*>(a_bytes);
  const auto* b = reinterpret_cast<const typename E::Storage*>(b_bytes);
  auto* c = reinterpret_cast<typename E::Storage*>(c_bytes);
  std::vector<Acc> row(n);
  for (int64_t batch = 0; batch < batches; ++batch) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), Acc{});
      for (int64_t p = 0; p < k; ++p) {
        Acc av = static_cast<Acc>(E::Load(a[i * k + p]));
        const auto* b_row = b + p * n;
        for (int64_t j = 0; j < n; ++j) {
          if constexpr (std::is_same_v<Acc, bool>) {
            row[j] = row[j] || (av && E::Load(b_row[j]));
          } else {
            row[j] += av * static_cast<Acc>(E::Load(b_row[j]));
          }
        }
      }
      for (int64_t j = 0; j < n; ++j) c[i * n + j] = E::Store(static_cast<C>(row[j]));
    }
    a += m * k;
    b += k * n;
    c += m * n;
  }
}

// C = alpha * A.B + beta * C (beta is 0 or 1 here), through gemm.h.
void Gemm(float, const Operand& a, const Operand& b, uint8_t* c, int64_t m, int64_t k, int64_t n,
          double alpha, double beta) {
  Sgemm(a.transposed, b.transposed, m, n, k, static_cast<float>(alpha),
        reinterpret_cast<const float*>(a.data), a.transposed ? m : k,
        reinterpret_cast<const float*>(b.data), b.transposed ? k : n, static_cast<float>(beta),
        reinterpret_cast<float*>(c), n);
}

void Gemm(double, const Operand& a, const Operand& b, uint8_t* c, int64_t m, int64_t k, int64_t n,
          double alpha, double beta) {
  Dgemm(a.transposed, b.transposed, m, n, k, alpha, reinterpret_cast<const double*>(a.data),
        a.transposed ? m : k, reinterpret_cast<const double*>(b.data), b.transposed ? k : n, beta,
        reinterpret_cast<double*>(c), n);
}

// out = lhs.rhs; with `accumulate`, out += alpha * lhs.rhs instead (f32 and f64 only).
template <typename E>
void DotT(const ir::Shape& lhs_shape, const uint8_t* lhs, const ir::Shape& rhs_shape,
          const uint8_t* rhs, const DotDimensions& dims, uint8_t* out, bool accumulate = false,
          double alpha = 1) {
  DimList lhs_free = FreeDims(lhs_shape, dims.lhs_batch, dims.lhs_contracting);
  DimList rhs_free = FreeDims(rhs_shape, dims.rhs_batch, dims.rhs_contracting);
  int64_t batches = Product(lhs_shape, dims.lhs_batch);
  int64_t m = Product(lhs_shape, lhs_free);
  int64_t k = Product(lhs_shape, dims.lhs_contracting);
  int64_t n = Product(rhs_shape, rhs_free);
  size_t size = sizeof(typename E::Storage);
  if (batches * m * n == 0) return;
  if (k == 0 && accumulate) return;  // adds nothing
  if (k == 0) {
    // An empty sum: zeros (false for pred), whatever gemm would make of it.
    std::memset(out, 0, static_cast<size_t>(batches * m * n) * size);
    return;
  }
  constexpr bool kBlas =
      std::is_same_v<typename E::Storage, float> || std::is_same_v<typename E::Storage, double>;
  constexpr int64_t kBlasMax = std::numeric_limits<blasint>::max();
  bool blas = kBlas && m <= kBlasMax && n <= kBlasMax && k <= kBlasMax;
  Operand a, b;
  Arrange(lhs_shape, lhs, Concat({dims.lhs_batch, lhs_free, dims.lhs_contracting}),
          Concat({dims.lhs_batch, dims.lhs_contracting, lhs_free}), blas, &a);
  Arrange(rhs_shape, rhs, Concat({dims.rhs_batch, dims.rhs_contracting, rhs_free}),
          Concat({dims.rhs_batch, rhs_free, dims.rhs_contracting}), blas, &b);
  if constexpr (kBlas) {
    if (blas) {
      Operand a_batch{a.data, a.transposed, {}};
      Operand b_batch{b.data, b.transposed, {}};
      for (int64_t i = 0; i < batches; ++i) {
        Gemm(typename E::Storage{}, a_batch, b_batch, out + i * m * n * size, m, k, n, alpha,
             accumulate ? 1.0 : 0.0);
        a_batch.data += m * k * size;
        b_batch.data += k * n * size;
      }
      return;
    }
  }
  LoopDot<E>(a.data, b.data, out, batches, m, k, n);
}

}  // namespace

void DotGeneralAccumulate(const ir::Shape& lhs_shape, const uint8_t* lhs,
                          const ir::Shape& rhs_shape, const uint8_t* rhs, const DotDimensions& dims,
                          double alpha, uint8_t* out) {
  // FindDotUpdates only matches f32 and f64 products within BLAS's sizes.
  if (lhs_shape.dtype == DType::kF32) {
    return DotT<Elem<DType::kF32>>(lhs_shape, lhs, rhs_shape, rhs, dims, out, true, alpha);
  }
  return DotT<Elem<DType::kF64>>(lhs_shape, lhs, rhs_shape, rhs, dims, out, true, alpha);
}

void DotGeneral(const ir::Shape& lhs_shape, const uint8_t* lhs, const ir::Shape& rhs_shape,
                const uint8_t* rhs, const DotDimensions& dims, uint8_t* out) {
  switch (lhs_shape.dtype) {
    case DType::kF32:
      return DotT<Elem<DType::kF32>>(lhs_shape, lhs, rhs_shape, rhs, dims, out);
    case DType::kF64:
      return DotT<Elem<DType::kF64>>(lhs_shape, lhs, rhs_shape, rhs, dims, out);
    case DType::kBF16:
      return DotT<Elem<DType::kBF16>>(lhs_shape, lhs, rhs_shape, rhs, dims, out);
    case DType::kS32:
      return DotT<Elem<DType::kS32>>(lhs_shape, lhs, rhs_shape, rhs, dims, out);
    case DType::kS64:
      return DotT<Elem<DType::kS64>>(lhs_shape, lhs, rhs_shape, rhs, dims, out);
    case DType::kPred:
      return DotT<Elem<DType::kPred>>(lhs_shape, lhs, rhs_shape, rhs, dims, out);
  }
}

}  // namespace seam::cpu
