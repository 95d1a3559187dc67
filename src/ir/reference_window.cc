#include "src/ir/reference_window.h"

#include <cmath>
#include <limits>

#include "src/ir/reference_scalar.h"
#include "src/ir/window.h"

namespace seam::ir::reference {

Index Unravel(int64_t linear, const std::vector<int64_t>& dims) {
  Index index(dims.size());
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    index[d] = linear % dims[d];
    linear /= dims[d];
  }
  return index;
}

int64_t Ravel(const Index& index, const std::vector<int64_t>& dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

namespace {

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The operand element tap `tap` of window `position` reads (row-major), or -1 for padding
// and dilation holes.
int64_t Source(const std::vector<WindowDim>& window, const Shape& in, const Index& position,
               const Index& tap) {
  Index at(position.size());
  for (size_t d = 0; d < position.size(); ++d) {
    at[d] = WindowSource(window[d], in.dims[d], position[d], tap[d]);
    if (at[d] < 0) return -1;
  }
  return Ravel(at, in.dims);
}

std::vector<int64_t> Sizes(const std::vector<WindowDim>& window) {
  std::vector<int64_t> sizes;
  sizes.reserve(window.size());
  for (const WindowDim& w : window) sizes.push_back(w.size);
  return sizes;
}

}  // namespace

// out[b, f, y] = sum over c < C/G and taps t of lhs[b, g * C/G + c, x(y, t)] * rhs[c, f, t],
// where g = f / (O/G) is the group of output feature f.
std::vector<double> Convolution(const Instruction& inst, const Shape& lhs_shape,
                                const std::vector<double>& lhs, const Shape& rhs_shape,
                                const std::vector<double>& rhs) {
  ConvolutionLayout c = ConvolutionLayoutOf(inst);
  const size_t spatial = c.window.size();
  for (size_t i = 0; i < spatial; ++i) c.window[i].size = rhs_shape.dims[c.kernel_spatial[i]];
  const std::vector<int64_t> taps = Sizes(c.window);
  const int64_t group_in = rhs_shape.dims[c.kernel_input_feature];
  const int64_t group_out = rhs_shape.dims[c.kernel_output_feature] / c.feature_groups;
  std::vector<double> out(inst.shape.num_elements(), 0.0);
  Index li(lhs_shape.rank()), ri(rhs_shape.rank());
  for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
    const Index o = Unravel(k, inst.shape.dims);
    const int64_t feature = o[c.output_feature];
    const int64_t group = feature / group_out;
    li[c.input_batch] = o[c.output_batch];
    ri[c.kernel_output_feature] = feature;
    double sum = 0;
    for (int64_t ci = 0; ci < group_in; ++ci) {
      li[c.input_feature] = group * group_in + ci;
      ri[c.kernel_input_feature] = ci;
      for (int64_t t = 0; t < Count(taps); ++t) {
        const Index tap = Unravel(t, taps);
        bool inside = true;
        for (size_t i = 0; i < spatial && inside; ++i) {
          const int64_t d = c.input_spatial[i];
          li[d] = WindowSource(c.window[i], lhs_shape.dims[d], o[c.output_spatial[i]], tap[i]);
          inside = li[d] >= 0;
          ri[c.kernel_spatial[i]] = tap[i];
        }
        if (inside) sum += lhs[Ravel(li, lhs_shape.dims)] * rhs[Ravel(ri, rhs_shape.dims)];
      }
    }
    out[k] = sum;
  }
  return out;
}

// Padding and dilation holes hold the reduction's identity, so they are skipped.
std::vector<double> ReduceWindow(const Instruction& inst, const Shape& in_shape,
                                 const std::vector<double>& in) {
  const std::vector<WindowDim> window = WindowOf(inst);
  const std::vector<int64_t> taps = Sizes(window);
  const Combiner combiner = ReductionOf(inst.op);
  std::vector<double> out(inst.shape.num_elements(), ReductionIdentity<double>(combiner));
  for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
    const Index position = Unravel(k, inst.shape.dims);
    for (int64_t t = 0; t < Count(taps); ++t) {
      const int64_t s = Source(window, in_shape, position, Unravel(t, taps));
      if (s < 0) continue;
      switch (combiner) {
        case Combiner::kSum:
          out[k] += in[s];
          break;
        case Combiner::kProduct:
          out[k] *= in[s];
          break;
        case Combiner::kMax:
          out[k] = FloatBinary(Op::kMaximum, out[k], in[s]);
          break;
        case Combiner::kMin:
          out[k] = FloatBinary(Op::kMinimum, out[k], in[s]);
          break;
        case Combiner::kNone:
          break;  // not a reduce_window row: EvaluateOne sends none
      }
    }
  }
  return out;
}

// Windows in row-major order; within a window the taps in row-major order, skipping
// padding: the first tap is selected, and a later tap replaces the selection unless
// selected >= candidate (StableHLO's select with `ge`). The source value is added at the
// selection; a window entirely in padding selects nothing.
std::vector<double> SelectAndScatter(const Instruction& inst, const Shape& operand_shape,
                                     const std::vector<double>& operand,
                                     const std::vector<double>& source) {
  const std::vector<WindowDim> window = WindowOf(inst);
  const std::vector<int64_t> taps = Sizes(window);
  std::vector<int64_t> windows;
  for (size_t d = 0; d < window.size(); ++d) {
    windows.push_back(static_cast<int64_t>(WindowCount(window[d], operand_shape.dims[d])));
  }
  std::vector<double> out(operand_shape.num_elements(), 0.0);
  for (int64_t k = 0; k < static_cast<int64_t>(source.size()); ++k) {
    const Index position = Unravel(k, windows);
    int64_t selected = -1;
    for (int64_t t = 0; t < Count(taps); ++t) {
      const int64_t s = Source(window, operand_shape, position, Unravel(t, taps));
      if (s < 0) continue;
      if (selected < 0 || !(operand[selected] >= operand[s])) selected = s;
    }
    if (selected >= 0) out[selected] += source[k];
  }
  return out;
}

}  // namespace seam::ir::reference
