// ConvolutionGemm (kernels_window.h): a convolution as one matrix product per (batch
// element, feature group). The patches of the input (zeros for padding and dilation
// holes) are copied into a [positions, group_in * taps] matrix, the group's kernel into a
// [group_in * taps, group_out] matrix, and gemm.h multiplies them; the product is written
// back in the result's layout. Serves every attribute combination at BLAS speed.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels_window.h"

namespace seam::cpu {
namespace {

using ir::DType;

// Per spatial dimension, for every (position, tap), the input element read or -1.
std::vector<std::vector<int64_t>> Tables(const ConvGeometry& g) {
  std::vector<std::vector<int64_t>> tables(g.window.size());
  for (size_t d = 0; d < g.window.size(); ++d) {
    for (int64_t pos = 0; pos < g.out_size[d]; ++pos) {
      for (int64_t tap = 0; tap < g.window[d].size; ++tap) {
        tables[d].push_back(ir::WindowSource(g.window[d], g.in_size[d], pos, tap));
      }
    }
  }
  return tables;
}

// Row-major offsets of every combination of per-dimension steps: offsets[i] is
// sum_d index_d(i) * strides[d] over `sizes`.
std::vector<int64_t> Offsets(const std::vector<int64_t>& sizes,
                             const std::vector<int64_t>& strides) {
  std::vector<int64_t> offsets = {0};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(sizes[d]));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(base + i * strides[d]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

template <DType D, typename C>
void Gemm(int64_t m, int64_t n, int64_t k, const C* a, const C* b, C* c) {
  if constexpr (std::is_same_v<C, double>) {
    Dgemm(false, false, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
  } else {
    Sgemm(false, false, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
  }
}

template <DType D>
void ConvolutionGemmTyped(const ConvGeometry& g, const uint8_t* lhs_bytes, const uint8_t* rhs_bytes,
                          uint8_t* out_bytes) {
  using E = Elem<D>;
  using T = typename E::Storage;
  using C = std::conditional_t<D == DType::kF64, double, float>;
  const T* lhs = reinterpret_cast<const T*>(lhs_bytes);
  const T* rhs = reinterpret_cast<const T*>(rhs_bytes);
  T* out = reinterpret_cast<T*>(out_bytes);
  const size_t spatial = g.window.size();
  std::vector<int64_t> taps_sizes;
  for (const ir::WindowDim& w : g.window) taps_sizes.push_back(w.size);
  const std::vector<int64_t> tap_offsets = Offsets(taps_sizes, g.rhs_spatial_stride);
  const std::vector<int64_t> out_offsets = Offsets(g.out_size, g.out_spatial_stride);
  const int64_t taps = static_cast<int64_t>(tap_offsets.size());
  const int64_t positions = static_cast<int64_t>(out_offsets.size());
  const int64_t depth = g.group_in * taps;
  if (positions == 0 || g.group_out == 0 || g.batch == 0) return;
  const std::vector<std::vector<int64_t>> tables = Tables(g);
  // For every (position, tap): the input offset, or -1 (padding or a hole).
  std::vector<int64_t> source(static_cast<size_t>(positions * taps));
  {
    std::vector<int64_t> pos(spatial, 0), tap(spatial, 0);
    for (int64_t p = 0; p < positions; ++p) {
      for (int64_t t = 0; t < taps; ++t) {
        int64_t rest = t, offset = 0;
        bool inside = true;
        for (int64_t d = static_cast<int64_t>(spatial) - 1; d >= 0; --d) {
          tap[d] = rest % taps_sizes[d];
          rest /= taps_sizes[d];
        }
        for (size_t d = 0; d < spatial && inside; ++d) {
          const int64_t x = tables[d][pos[d] * g.window[d].size + tap[d]];
          inside = x >= 0;
          offset += x * g.lhs_spatial_stride[d];
        }
        source[static_cast<size_t>(p * taps + t)] = inside ? offset : -1;
      }
      for (int64_t d = static_cast<int64_t>(spatial) - 1; d >= 0; --d) {
        if (++pos[d] < g.out_size[d]) break;
        pos[d] = 0;
      }
    }
  }
  std::vector<C> patches(static_cast<size_t>(positions * depth));
  std::vector<C> kernel(static_cast<size_t>(depth * g.group_out));
  std::vector<C> product(static_cast<size_t>(positions * g.group_out));
  for (int64_t group = 0; group < g.groups; ++group) {
    for (int64_t c = 0; c < g.group_in; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        for (int64_t o = 0; o < g.group_out; ++o) {
          const int64_t f = group * g.group_out + o;
          kernel[static_cast<size_t>((c * taps + t) * g.group_out + o)] =
              E::Load(rhs[c * g.rhs_in_stride + f * g.rhs_out_stride + tap_offsets[t]]);
        }
      }
    }
    for (int64_t b = 0; b < g.batch; ++b) {
      const T* in = lhs + b * g.lhs_batch_stride + group * g.group_in * g.lhs_feature_stride;
      for (int64_t p = 0; p < positions; ++p) {
        C* row = patches.data() + p * depth;
        const int64_t* src = source.data() + p * taps;
        for (int64_t c = 0; c < g.group_in; ++c) {
          const T* channel = in + c * g.lhs_feature_stride;
          for (int64_t t = 0; t < taps; ++t) {
            row[c * taps + t] = src[t] < 0 ? C(0) : static_cast<C>(E::Load(channel[src[t]]));
          }
        }
      }
      if (depth == 0) {
        std::fill(product.begin(), product.end(), C(0));
      } else {
        Gemm<D>(positions, g.group_out, depth, patches.data(), kernel.data(), product.data());
      }
      T* dst = out + b * g.out_batch_stride + group * g.group_out * g.out_feature_stride;
      for (int64_t p = 0; p < positions; ++p) {
        for (int64_t o = 0; o < g.group_out; ++o) {
          dst[o * g.out_feature_stride + out_offsets[p]] =
              E::Store(static_cast<typename E::Compute>(product[p * g.group_out + o]));
        }
      }
    }
  }
}

}  // namespace

bool ConvolutionGemmFits(const ConvGeometry& g) {
  int64_t taps = 1, positions = 1;
  for (size_t d = 0; d < g.window.size(); ++d) {
    taps *= g.window[d].size;
    positions *= g.out_size[d];
  }
  constexpr int64_t kBlasMax = std::numeric_limits<blasint>::max();
  return g.group_in * taps <= kBlasMax && positions <= kBlasMax && g.group_out <= kBlasMax &&
         positions * g.group_in * taps <= (int64_t{1} << 27);
}

void ConvolutionGemm(const ConvGeometry& g, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out) {
  switch (g.dtype) {
    case DType::kF64:
      return ConvolutionGemmTyped<DType::kF64>(g, lhs, rhs, out);
    case DType::kBF16:
      return ConvolutionGemmTyped<DType::kBF16>(g, lhs, rhs, out);
    default:
      return ConvolutionGemmTyped<DType::kF32>(g, lhs, rhs, out);
  }
}

}  // namespace seam::cpu
