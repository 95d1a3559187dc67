// Direct loops for convolution, reduce_window_* and select_and_scatter (kernels_window.h).
#include "src/plugins/cpu/kernels/kernels_window.h"

#include <algorithm>
#include <limits>

#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/kernels/strided.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

using ir::DType;
using ir::WindowDim;

// Per dimension, for every (window position, tap) pair, the input element read, or -1 for
// padding and dilation holes: table[pos * size + tap].
std::vector<std::vector<int64_t>> SourceTables(const std::vector<WindowDim>& window,
                                               const std::vector<int64_t>& in_size,
                                               const std::vector<int64_t>& out_size) {
  std::vector<std::vector<int64_t>> tables(window.size());
  for (size_t d = 0; d < window.size(); ++d) {
    for (int64_t pos = 0; pos < out_size[d]; ++pos) {
      for (int64_t tap = 0; tap < window[d].size; ++tap) {
        tables[d].push_back(ir::WindowSource(window[d], in_size[d], pos, tap));
      }
    }
  }
  return tables;
}

// Row-major unravel of `linear` over `dims` into `index`.
void Unravel(int64_t linear, const std::vector<int64_t>& dims, std::vector<int64_t>& index) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    index[d] = dims[d] == 0 ? 0 : linear % dims[d];
    linear = dims[d] == 0 ? 0 : linear / dims[d];
  }
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> TapSizes(const std::vector<WindowDim>& window) {
  std::vector<int64_t> sizes;
  sizes.reserve(window.size());
  for (const WindowDim& w : window) sizes.push_back(w.size);
  return sizes;
}

template <DType D>
void ConvolutionTyped(const ConvGeometry& g, const uint8_t* lhs_bytes, const uint8_t* rhs_bytes,
                      uint8_t* out_bytes) {
  using E = Elem<D>;
  using T = typename E::Storage;
  using Acc = std::conditional_t<D == DType::kF64, double, float>;
  const T* lhs = reinterpret_cast<const T*>(lhs_bytes);
  const T* rhs = reinterpret_cast<const T*>(rhs_bytes);
  T* out = reinterpret_cast<T*>(out_bytes);
  const size_t spatial = g.window.size();
  const std::vector<std::vector<int64_t>> tables = SourceTables(g.window, g.in_size, g.out_size);
  const std::vector<int64_t> tap_sizes = TapSizes(g.window);
  const int64_t positions = Product(g.out_size);
  const int64_t taps = Product(tap_sizes);
  const int64_t features = g.groups * g.group_out;
  auto body = [&](int64_t first, int64_t last) {
    std::vector<int64_t> pos(spatial), tap(spatial);
    for (int64_t task = first; task < last; ++task) {
      const int64_t b = task / features;
      const int64_t f = task % features;
      const int64_t group = f / g.group_out;
      const T* lhs_group = lhs + b * g.lhs_batch_stride + group * g.group_in * g.lhs_feature_stride;
      const T* rhs_feature = rhs + f * g.rhs_out_stride;
      T* out_feature = out + b * g.out_batch_stride + f * g.out_feature_stride;
      for (int64_t p = 0; p < positions; ++p) {
        Unravel(p, g.out_size, pos);
        int64_t out_offset = 0;
        for (size_t i = 0; i < spatial; ++i) out_offset += pos[i] * g.out_spatial_stride[i];
        Acc acc = 0;
        for (int64_t t = 0; t < taps; ++t) {
          Unravel(t, tap_sizes, tap);
          int64_t in_offset = 0, k_offset = 0;
          bool inside = true;
          for (size_t i = 0; i < spatial && inside; ++i) {
            const int64_t x = tables[i][pos[i] * g.window[i].size + tap[i]];
            inside = x >= 0;
            in_offset += x * g.lhs_spatial_stride[i];
            k_offset += tap[i] * g.rhs_spatial_stride[i];
          }
          if (!inside) continue;
          const T* l = lhs_group + in_offset;
          const T* r = rhs_feature + k_offset;
          for (int64_t c = 0; c < g.group_in; ++c) {
            acc += static_cast<Acc>(E::Load(l[c * g.lhs_feature_stride])) *
                   static_cast<Acc>(E::Load(r[c * g.rhs_in_stride]));
          }
        }
        out_feature[out_offset] = E::Store(static_cast<typename E::Compute>(acc));
      }
    }
  };
  const int64_t tasks = g.batch * features;
  if (tasks * positions * taps * g.group_in < kParallelMinimumElements) {
    body(0, tasks);
  } else {
    ParallelFor(tasks, body);
  }
}

// The taps of every window of a reduce_window or select_and_scatter, worked out once: per
// dimension, for each window position, the operand index of each tap (or -1) and whether
// all of them are valid. A window valid in every dimension (the common case away from the
// borders) reads base + fast_taps[t]; the others check each tap.
class WindowWalk {
 public:
  WindowWalk(const std::vector<WindowDim>& window, const std::vector<int64_t>& operand,
             const std::vector<int64_t>& windows)
      : window_(window), windows_(windows), strides_(RowMajorStrides(operand)) {
    tables_ = SourceTables(window, operand, windows);
    const size_t rank = window.size();
    inside_.resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      for (int64_t pos = 0; pos < windows[d]; ++pos) {
        bool all = true;
        for (int64_t t = 0; t < window[d].size; ++t) all = all && Source(d, pos, t) >= 0;
        inside_[d].push_back(all ? 1 : 0);
      }
    }
    const std::vector<int64_t> sizes = TapSizes(window);
    taps_ = Product(sizes);
    std::vector<int64_t> tap(rank);
    for (int64_t t = 0; t < taps_; ++t) {
      Unravel(t, sizes, tap);
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) {
        offset += tap[d] * (window[d].window_dilation / window[d].base_dilation) * strides_[d];
      }
      fast_taps_.push_back(offset);
      tap_index_.insert(tap_index_.end(), tap.begin(), tap.end());
    }
  }

  int64_t positions() const { return Product(windows_); }
  const std::vector<int64_t>& windows() const { return windows_; }
  // Whether every tap of position `pos` along dimension d is valid, and the operand offset
  // contribution of its first tap there.
  bool Inside(size_t d, int64_t pos) const { return inside_[d][pos] != 0; }
  int64_t First(size_t d, int64_t pos) const { return Source(d, pos, 0) * strides_[d]; }
  const std::vector<int64_t>& fast_taps() const { return fast_taps_; }

  // fn(offset) for each valid tap of window `pos`, in row-major tap order.
  template <typename Fn>
  void ForTaps(const std::vector<int64_t>& pos, Fn&& fn) const {
    const size_t rank = window_.size();
    bool inside = true;
    int64_t base = 0;
    for (size_t d = 0; d < rank && inside; ++d) {
      inside = inside_[d][pos[d]];
      base += Source(d, pos[d], 0) * strides_[d];
    }
    if (inside) {
      for (int64_t offset : fast_taps_) fn(base + offset);
      return;
    }
    for (int64_t t = 0; t < taps_; ++t) {
      const int64_t* tap = tap_index_.data() + t * static_cast<int64_t>(rank);
      int64_t offset = 0;
      bool valid = true;
      for (size_t d = 0; d < rank && valid; ++d) {
        const int64_t x = Source(d, pos[d], tap[d]);
        valid = x >= 0;
        offset += x * strides_[d];
      }
      if (valid) fn(offset);
    }
  }

 private:
  int64_t Source(size_t d, int64_t pos, int64_t tap) const {
    return tables_[d][pos * window_[d].size + tap];
  }

  std::vector<WindowDim> window_;
  std::vector<int64_t> windows_, strides_;
  std::vector<std::vector<int64_t>> tables_;
  std::vector<std::vector<uint8_t>> inside_;
  int64_t taps_ = 1;
  std::vector<int64_t> fast_taps_, tap_index_;
};

// Steps a row-major index over `dims` forward by one.
void Next(const std::vector<int64_t>& dims, std::vector<int64_t>& index) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++index[d] < dims[d]) return;
    index[d] = 0;
  }
}

template <DType D>
void ReduceWindowTyped(const ir::Instruction& inst, const ir::Shape& in_shape,
                       const uint8_t* in_bytes, uint8_t* out_bytes) {
  using E = Elem<D>;
  using T = typename E::Storage;
  const T* in = reinterpret_cast<const T*>(in_bytes);
  T* out = reinterpret_cast<T*>(out_bytes);
  const std::vector<WindowDim> window = ir::WindowOf(inst);
  const WindowWalk walk(window, in_shape.dims, inst.shape.dims);
  const ir::Combiner combiner = ir::ReductionOf(inst.op);
  const double identity = ir::ReductionIdentity<double>(combiner);
  const int64_t count = inst.shape.num_elements();
  const int64_t work = count * std::max<int64_t>(Product(TapSizes(window)), 1);
  auto fold = [&](auto&& combine, int64_t k, const std::vector<int64_t>& pos, bool inside,
                  int64_t base) {
    double acc = identity;
    if (inside) {
      for (int64_t offset : walk.fast_taps()) {
        acc = combine(acc, static_cast<double>(E::Load(in[base + offset])));
      }
    } else {
      walk.ForTaps(pos, [&](int64_t offset) {
        acc = combine(acc, static_cast<double>(E::Load(in[offset])));
      });
    }
    out[k] = E::Store(static_cast<typename E::Compute>(acc));
  };
  const size_t rank = window.size();
  const int64_t width = rank == 0 ? 1 : inst.shape.dims[rank - 1];
  // One row (the last dimension) at a time: the outer dimensions' part of the check and of
  // the offset is shared by the row.
  auto rows = [&](auto&& combine, int64_t first, int64_t last) {
    std::vector<int64_t> pos(rank, 0);
    for (int64_t row = first; row < last; ++row) {
      Unravel(row * width, inst.shape.dims, pos);
      bool outer_inside = true;
      int64_t outer_base = 0;
      for (size_t d = 0; d + 1 < rank; ++d) {
        outer_inside = outer_inside && walk.Inside(d, pos[d]);
        outer_base += walk.First(d, pos[d]);
      }
      for (int64_t j = 0; j < width; ++j) {
        if (rank > 0) pos[rank - 1] = j;
        const bool inside = outer_inside && (rank == 0 || walk.Inside(rank - 1, j));
        const int64_t base = rank == 0 ? 0 : outer_base + walk.First(rank - 1, j);
        fold(combine, row * width + j, pos, inside, inside ? base : 0);
      }
    }
  };
  auto run = [&](auto&& combine) {
    const int64_t row_count = width == 0 ? 0 : count / width;
    auto body = [&](int64_t first, int64_t last) { rows(combine, first, last); };
    if (work < kParallelMinimumElements) {
      body(0, row_count);
    } else {
      ParallelFor(row_count, body);
    }
  };
  switch (combiner) {
    case ir::Combiner::kSum:
      return run([](double a, double b) { return a + b; });
    case ir::Combiner::kProduct:
      return run([](double a, double b) { return a * b; });
    case ir::Combiner::kMax:
      return run([](double a, double b) { return FloatMax(a, b); });
    case ir::Combiner::kMin:
      return run([](double a, double b) { return FloatMin(a, b); });
    case ir::Combiner::kNone:
      return;  // not a reduce_window row: RunKernel sends none
  }
}

template <DType D>
void SelectAndScatterTyped(const ir::Instruction& inst, const ir::Shape& operand_shape,
                           const uint8_t* operand_bytes, const uint8_t* source_bytes,
                           uint8_t* out_bytes) {
  using E = Elem<D>;
  using T = typename E::Storage;
  const T* operand = reinterpret_cast<const T*>(operand_bytes);
  const T* source = reinterpret_cast<const T*>(source_bytes);
  T* out = reinterpret_cast<T*>(out_bytes);
  const std::vector<WindowDim> window = ir::WindowOf(inst);
  std::vector<int64_t> windows;
  for (size_t d = 0; d < window.size(); ++d) {
    windows.push_back(static_cast<int64_t>(ir::WindowCount(window[d], operand_shape.dims[d])));
  }
  const WindowWalk walk(window, operand_shape.dims, windows);
  std::vector<double> sums(operand_shape.num_elements(), 0.0);
  std::vector<int64_t> pos(window.size(), 0);
  const int64_t positions = walk.positions();
  for (int64_t k = 0; k < positions; ++k, Next(windows, pos)) {
    int64_t selected = -1;
    double best = 0;
    walk.ForTaps(pos, [&](int64_t offset) {
      const double v = static_cast<double>(E::Load(operand[offset]));
      if (selected < 0 || !(best >= v)) {
        selected = offset;
        best = v;
      }
    });
    if (selected >= 0) sums[selected] += static_cast<double>(E::Load(source[k]));
  }
  for (size_t i = 0; i < sums.size(); ++i) {
    out[i] = E::Store(static_cast<typename E::Compute>(sums[i]));
  }
}

// Calls fn.template operator()<D>() for the float dtype `dtype`.
template <typename Fn>
void ForFloat(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kF64:
      return fn.template operator()<DType::kF64>();
    case DType::kBF16:
      return fn.template operator()<DType::kBF16>();
    default:
      return fn.template operator()<DType::kF32>();
  }
}

}  // namespace

ConvGeometry ConvGeometryOf(const ir::Instruction& conv, const ir::Shape& lhs,
                            const ir::Shape& rhs) {
  const ir::ConvolutionLayout c = ir::ConvolutionLayoutOf(conv);
  const std::vector<int64_t> ls = RowMajorStrides(lhs.dims);
  const std::vector<int64_t> rs = RowMajorStrides(rhs.dims);
  const std::vector<int64_t> os = RowMajorStrides(conv.shape.dims);
  ConvGeometry g;
  g.dtype = lhs.dtype;
  g.batch = lhs.dims[c.input_batch];
  g.groups = c.feature_groups;
  g.group_in = rhs.dims[c.kernel_input_feature];
  g.group_out = rhs.dims[c.kernel_output_feature] / c.feature_groups;
  g.lhs_batch_stride = ls[c.input_batch];
  g.lhs_feature_stride = ls[c.input_feature];
  g.rhs_in_stride = rs[c.kernel_input_feature];
  g.rhs_out_stride = rs[c.kernel_output_feature];
  g.out_batch_stride = os[c.output_batch];
  g.out_feature_stride = os[c.output_feature];
  g.window = c.window;
  for (size_t i = 0; i < c.window.size(); ++i) {
    g.lhs_spatial_stride.push_back(ls[c.input_spatial[i]]);
    g.rhs_spatial_stride.push_back(rs[c.kernel_spatial[i]]);
    g.out_spatial_stride.push_back(os[c.output_spatial[i]]);
    g.in_size.push_back(lhs.dims[c.input_spatial[i]]);
    g.out_size.push_back(conv.shape.dims[c.output_spatial[i]]);
    g.window[i].size = rhs.dims[c.kernel_spatial[i]];
  }
  return g;
}

void ConvolutionDirect(const ConvGeometry& g, const uint8_t* lhs, const uint8_t* rhs,
                       uint8_t* out) {
  ForFloat(g.dtype, [&]<DType D>() { ConvolutionTyped<D>(g, lhs, rhs, out); });
}

void ReduceWindow(const ir::Instruction& inst, const ir::Shape& in_shape, const uint8_t* in,
                  uint8_t* out) {
  if (ReduceWindowMaxFast(inst, in_shape, in, out)) return;
  ForFloat(in_shape.dtype, [&]<DType D>() { ReduceWindowTyped<D>(inst, in_shape, in, out); });
}

void SelectAndScatter(const ir::Instruction& inst, const ir::Shape& operand_shape,
                      const uint8_t* operand, const uint8_t* source, uint8_t* out) {
  if (SelectAndScatterFast(inst, operand_shape, operand, source, out)) return;
  ForFloat(operand_shape.dtype,
           [&]<DType D>() { SelectAndScatterTyped<D>(inst, operand_shape, operand, source, out); });
}

}  // namespace seam::cpu
