// Gradient rules of the windowed ops (autodiff_window.h). With k the kernel size, d its
// dilation, s the stride, pl/ph the padding, n the input size and m the result size of a
// spatial dimension, and k' = (k - 1) * d + 1 the dilated kernel:
//   input adjoint  = the result adjoint, dilated by s and padded by (k' - 1 - pl) low and
//                    n - (m - 1) * s - 1 - pl high... (below), convolved with the kernel
//                    flipped in space and with input and output features swapped per group;
//   kernel adjoint = the input, its batch taken as the features, convolved with the result
//                    adjoint as the kernel (dilated by s), at stride d;
//   max pool       = select_and_scatter of the adjoint onto the input;
//   min pool       = the same onto the negated input (its first maximum is the first minimum);
//   sum pool       = the adjoint, dilated by s and padded as for the input adjoint, summed
//                    over windows of k (dilation d) at stride 1;
//   select_and_scatter = for its source, the adjoint read at each window's selection, found
//                    by replaying the selection tap by tap over strided slices; none for the
//                    operand that only selects.
#include "src/lazy/autodiff_window.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/ir/window.h"
#include "src/lazy/tensor_internal.h"

namespace seam::lazy {
namespace {

[[noreturn]] void Unsupported(const Node& node, const std::string& why) {
  ThrowInvalid(absl::StrCat("grad: ", std::string(ir::OpName(node.op)), " ", node.shape.ToString(),
                            " has no gradient rule for ", why));
}

// The next tap of a window in row-major order; false after the last.
bool NextTap(const std::vector<int64_t>& sizes, std::vector<int64_t>& tap) {
  for (size_t d = tap.size(); d-- > 0;) {
    if (++tap[d] < sizes[d]) return true;
    tap[d] = 0;
  }
  return false;
}

std::vector<int64_t> Iota(int64_t first, int64_t count) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < count; ++i) v.push_back(first + i);
  return v;
}

// The padding that makes a stride-1 window pass of the dilated kernel over the result
// adjoint (dilated by the stride) give back the input's size n: low k' - 1 - pl, high
// n + k' - 1 - ((m - 1) * s + 1) - low.
std::pair<int64_t, int64_t> TransposePadding(const ir::WindowDim& w, int64_t n, int64_t m) {
  const int64_t extent = (w.size - 1) * w.window_dilation + 1;
  const int64_t low = extent - 1 - w.pad_low;
  const int64_t high = n + extent - 1 - ((m - 1) * w.stride + 1) - low;
  return {low, high};
}

// x reversed along dimension `dim` (a concatenation of its unit slices, last first: exact
// for every value, and the IR needs no reverse op).
NodePtr Flip(const NodePtr& x, int64_t dim) {
  const int64_t n = x->shape.dims[dim];
  if (n <= 1) return x;
  NodeList slices;
  for (int64_t i = n - 1; i >= 0; --i) {
    std::vector<int64_t> start(x->shape.rank(), 0), limit = x->shape.dims,
                                                    stride(x->shape.rank(), 1);
    start[dim] = i;
    limit[dim] = i + 1;
    slices.push_back(
        MakeNode(ir::Op::kSlice, {x}, {{"start", start}, {"limit", limit}, {"stride", stride}}));
  }
  return MakeNode(ir::Op::kConcatenate, slices, {{"dimension", {dim}}});
}

ir::Attributes ConvAttributes(int64_t spatial, int64_t groups) {
  ir::Attributes a;
  a["input_batch_dim"] = {0};
  a["input_feature_dim"] = {1};
  a["input_spatial_dims"] = Iota(2, spatial);
  a["kernel_output_feature_dim"] = {0};
  a["kernel_input_feature_dim"] = {1};
  a["kernel_spatial_dims"] = Iota(2, spatial);
  a["output_batch_dim"] = {0};
  a["output_feature_dim"] = {1};
  a["output_spatial_dims"] = Iota(2, spatial);
  a["feature_group_count"] = {groups};
  a["lhs_dilation"] = std::vector<int64_t>(spatial, 1);
  a["rhs_dilation"] = std::vector<int64_t>(spatial, 1);
  a["window_strides"] = std::vector<int64_t>(spatial, 1);
  a["padding_low"] = std::vector<int64_t>(spatial, 0);
  a["padding_high"] = std::vector<int64_t>(spatial, 0);
  return a;
}

// The kernel adjoint: dw[o, c, t] = sum over b, y of g[b, o, y] * x[b, group(o) * C/G + c,
// y * s + t * d - pl]. The input's batch becomes the feature dimension (group-major, so
// that group g's features are its own channels' batch copies), its channels within a group
// the batch; g is the kernel, its batch the input feature; the strides become the kernel
// dilation and the kernel dilation the stride.
NodePtr KernelAdjoint(const Node& node, const ir::ConvolutionLayout& c, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const NodePtr& w = node.operands[1];
  const int64_t spatial = static_cast<int64_t>(c.window.size());
  const int64_t groups = c.feature_groups;
  const int64_t batch = x->shape.dims[0], channels = x->shape.dims[1];
  NodePtr lhs = x;
  if (groups > 1) {
    std::vector<int64_t> split = {batch, groups, channels / groups};
    std::vector<int64_t> merged = {groups * batch, channels / groups};
    std::vector<int64_t> perm = {1, 0, 2};
    for (int64_t d = 0; d < spatial; ++d) {
      split.push_back(x->shape.dims[2 + d]);
      merged.push_back(x->shape.dims[2 + d]);
      perm.push_back(3 + d);
    }
    lhs = Reshape(Transpose(Reshape(x, split), perm), merged);
  }
  ir::Attributes a = ConvAttributes(spatial, groups);
  a["input_batch_dim"] = {1};
  a["input_feature_dim"] = {0};
  a["kernel_input_feature_dim"] = {0};
  a["kernel_output_feature_dim"] = {1};
  a["output_batch_dim"] = {1};
  a["output_feature_dim"] = {0};
  for (int64_t d = 0; d < spatial; ++d) {
    const ir::WindowDim& win = c.window[d];
    const int64_t n = x->shape.dims[2 + d], m = node.shape.dims[2 + d];
    const int64_t extent = (w->shape.dims[2 + d] - 1) * win.window_dilation + 1;
    a["window_strides"][d] = win.window_dilation;
    a["rhs_dilation"][d] = win.stride;
    a["padding_low"][d] = win.pad_low;
    a["padding_high"][d] = ((m - 1) * win.stride + 1) - n + extent - win.pad_low - 1;
  }
  return MakeNode(ir::Op::kConvolution, {lhs, g}, a);
}

// The input adjoint: g dilated by the strides, padded, convolved with the flipped kernel
// whose features are swapped within each group ([G * C/G, O/G, taps...]).
NodePtr InputAdjoint(const Node& node, const ir::ConvolutionLayout& c, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const NodePtr& w = node.operands[1];
  const int64_t spatial = static_cast<int64_t>(c.window.size());
  const int64_t groups = c.feature_groups;
  const int64_t out = w->shape.dims[0], group_in = w->shape.dims[1];
  NodePtr kernel = w;
  for (int64_t d = 0; d < spatial; ++d) kernel = Flip(kernel, 2 + d);
  ir::Attributes a = ConvAttributes(spatial, groups);
  if (groups > 1) {
    std::vector<int64_t> split = {groups, out / groups, group_in};
    std::vector<int64_t> merged = {groups * group_in, out / groups};
    std::vector<int64_t> perm = {0, 2, 1};
    for (int64_t d = 0; d < spatial; ++d) {
      split.push_back(w->shape.dims[2 + d]);
      merged.push_back(w->shape.dims[2 + d]);
      perm.push_back(3 + d);
    }
    kernel = Reshape(Transpose(Reshape(kernel, split), perm), merged);
  } else {
    a["kernel_output_feature_dim"] = {1};
    a["kernel_input_feature_dim"] = {0};
  }
  for (int64_t d = 0; d < spatial; ++d) {
    ir::WindowDim win = c.window[d];
    win.size = w->shape.dims[2 + d];
    const auto [low, high] = TransposePadding(win, x->shape.dims[2 + d], node.shape.dims[2 + d]);
    a["lhs_dilation"][d] = win.stride;
    a["rhs_dilation"][d] = win.window_dilation;
    a["padding_low"][d] = low;
    a["padding_high"][d] = high;
  }
  return MakeNode(ir::Op::kConvolution, {g, kernel}, a);
}

}  // namespace

NodePtr ConvolutionVjp(const Node& node, size_t i, const NodePtr& g) {
  const ir::ConvolutionLayout c =
      ir::ConvolutionLayoutOf(ir::Instruction{node.op, {}, node.shape, node.attrs(), -1, {}});
  const int64_t spatial = static_cast<int64_t>(c.window.size());
  const std::vector<int64_t> in_order = Iota(2, spatial);
  if (c.input_batch != 0 || c.input_feature != 1 || c.input_spatial != in_order ||
      c.kernel_output_feature != 0 || c.kernel_input_feature != 1 || c.kernel_spatial != in_order ||
      c.output_batch != 0 || c.output_feature != 1 || c.output_spatial != in_order) {
    Unsupported(node, "dimension numbers other than NCHW input and result, OIHW kernel");
  }
  for (const ir::WindowDim& w : c.window) {
    if (w.base_dilation != 1) Unsupported(node, "lhs_dilation other than 1");
  }
  return i == 0 ? InputAdjoint(node, c, g) : KernelAdjoint(node, c, g);
}

NodePtr ReduceWindowVjp(const Node& node, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const std::vector<ir::WindowDim> window =
      ir::WindowOf(ir::Instruction{node.op, {}, node.shape, node.attrs(), -1, {}});
  for (const ir::WindowDim& w : window) {
    if (w.base_dilation != 1 || w.window_dilation != 1) Unsupported(node, "dilated windows");
  }
  const ir::Attributes& attrs = node.attrs();
  if (node.op == ir::Op::kReduceWindowMax || node.op == ir::Op::kReduceWindowMin) {
    const NodePtr selector = node.op == ir::Op::kReduceWindowMax ? x : Unary(ir::Op::kNeg, x);
    return MakeNode(ir::Op::kSelectAndScatter, {selector, g},
                    {{"window_dimensions", AttrValues(attrs, "window_dimensions")},
                     {"window_strides", AttrValues(attrs, "window_strides")},
                     {"padding_low", AttrValues(attrs, "padding_low")},
                     {"padding_high", AttrValues(attrs, "padding_high")}});
  }
  if (node.op != ir::Op::kReduceWindowSum) Unsupported(node, "this reduction");
  std::vector<int64_t> low, high, interior, ones(window.size(), 1), zeros(window.size(), 0);
  for (size_t d = 0; d < window.size(); ++d) {
    const auto [l, h] = TransposePadding(window[d], x->shape.dims[d], node.shape.dims[d]);
    low.push_back(l);
    high.push_back(h);
    interior.push_back(window[d].stride - 1);
  }
  NodePtr zero = ConstantNode(ScalarLiteral(g->shape.dtype, 0));
  NodePtr padded =
      MakeNode(ir::Op::kPad, {g, zero}, {{"low", low}, {"high", high}, {"interior", interior}});
  return MakeNode(ir::Op::kReduceWindowSum, {padded},
                  {{"window_dimensions", AttrValues(attrs, "window_dimensions")},
                   {"window_strides", ones},
                   {"padding_low", zeros},
                   {"padding_high", zeros},
                   {"base_dilation", ones},
                   {"window_dilation", ones}});
}

NodePtr SelectAndScatterVjp(const Node& node, size_t i, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const NodePtr& source = node.operands[1];
  if (i == 0 || source->shape.num_elements() == 0) {
    const NodePtr& like = i == 0 ? x : source;
    return BroadcastTo(ConstantNode(ScalarLiteral(like->shape.dtype, 0)), like->shape.dims);
  }
  const ir::Attributes& attrs = node.attrs();
  const std::vector<int64_t>& sizes = AttrValues(attrs, "window_dimensions");
  const std::vector<int64_t>& strides = AttrValues(attrs, "window_strides");
  const std::vector<int64_t>& low = AttrValues(attrs, "padding_low");
  const std::vector<int64_t>& high = AttrValues(attrs, "padding_high");
  const std::vector<int64_t> interior(sizes.size(), 0);
  const bool padded = std::any_of(low.begin(), low.end(), [](int64_t v) { return v != 0; }) ||
                      std::any_of(high.begin(), high.end(), [](int64_t v) { return v != 0; });
  auto pad = [&](const NodePtr& v, double fill) {
    if (!padded) return v;
    NodePtr value = ConstantNode(ScalarLiteral(v->shape.dtype, fill));
    return MakeNode(ir::Op::kPad, {v, value},
                    {{"low", low}, {"high", high}, {"interior", interior}});
  };
  const NodePtr xp = pad(x, 0), gp = pad(g, 0);
  const std::vector<int64_t>& windows = source->shape.dims;
  std::vector<int64_t> tap(sizes.size(), 0);
  auto at_tap = [&](const NodePtr& v) {
    std::vector<int64_t> limit;
    for (size_t d = 0; d < tap.size(); ++d) {
      limit.push_back(tap[d] + (windows[d] - 1) * strides[d] + 1);
    }
    return MakeNode(ir::Op::kSlice, {v}, {{"start", tap}, {"limit", limit}, {"stride", strides}});
  };
  // Where a tap reads the operand rather than padding (padding is never selected), and
  // whether some tap so far has.
  NodePtr inside, any;
  if (padded) {
    inside = pad(BroadcastTo(ConstantNode(ScalarLiteral(ir::DType::kPred, 1)), x->shape.dims), 0);
    any = at_tap(inside);
  }
  // The selection as select_and_scatter makes it: the first tap that reads the operand, then
  // each later one unless selected >= candidate.
  NodePtr best = at_tap(xp), picked = at_tap(gp);
  while (NextTap(sizes, tap)) {
    const NodePtr candidate = at_tap(xp);
    NodePtr take = Unary(ir::Op::kNot, MakeNode(ir::Op::kGe, {best, candidate}, {}));
    if (padded) {
      const NodePtr valid = at_tap(inside);
      take = MakeNode(ir::Op::kAnd,
                      {valid, MakeNode(ir::Op::kOr, {Unary(ir::Op::kNot, any), take}, {})}, {});
      any = MakeNode(ir::Op::kOr, {any, valid}, {});
    }
    best = Select(take, candidate, best);
    picked = Select(take, at_tap(gp), picked);
  }
  if (!padded) return picked;
  return Select(any, picked, BroadcastTo(ConstantNode(ScalarLiteral(g->shape.dtype, 0)), windows));
}

}  // namespace seam::lazy
