// nn::conv2d, max_pool2d, min_pool2d and avg_pool2d (include/seam/nn.h): NCHW tensors,
// PyTorch's layouts and defaults, each one IR op (convolution, reduce_window_max,
// reduce_window_min, reduce_window_sum);
// their gradients are src/lazy/autodiff_window.cc. docs/frontend.md, "Convolution and
// pooling".
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/nn.h"
#include "src/lazy/tensor_internal.h"

namespace seam::nn {
namespace {

using Pair = std::array<int64_t, 2>;

std::string Str(const Pair& p) { return absl::StrCat(p[0], "x", p[1]); }

void CheckAtLeast(const char* op, const char* what, const Pair& p, int64_t minimum) {
  if (p[0] < minimum || p[1] < minimum) {
    lazy::ThrowInvalid(absl::StrCat(op, ": ", what, " ", Str(p), " must be >= ", minimum));
  }
}

lazy::NodePtr Input4d(const char* op, const Tensor& input) {
  lazy::NodePtr x = lazy::NodeOf(input, op);
  if (x->shape.rank() != 4) {
    lazy::ThrowInvalid(absl::StrCat(op, ": input must be [n, c, h, w], got ", x->shape.ToString()));
  }
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(op, ": input ", x->shape.ToString(),
                                    " must have a floating-point element type"));
  }
  return x;
}

// The dilated window must fit the padded input in both spatial dimensions.
void CheckFits(const char* op, const char* window_name, const ir::Shape& input, const Pair& window,
               const Pair& dilation, const Pair& padding) {
  const Pair size = {input.dims[2], input.dims[3]};
  const Pair extent = {(window[0] - 1) * dilation[0] + 1, (window[1] - 1) * dilation[1] + 1};
  const Pair padded = {size[0] + 2 * padding[0], size[1] + 2 * padding[1]};
  if (extent[0] > padded[0] || extent[1] > padded[1]) {
    const bool dilated = dilation[0] != 1 || dilation[1] != 1;
    lazy::ThrowInvalid(absl::StrCat(op, ": the ", Str(window), " ", window_name,
                                    dilated ? absl::StrCat(" (dilated: ", Str(extent), ")") : "",
                                    " is larger than the padded input ", Str(padded), " (input ",
                                    Str(size), ", padding ", Str(padding), ")"));
  }
}

ir::Attributes WindowAttributes(const Pair& kernel, const Pair& stride, const Pair& padding,
                                bool dilations) {
  ir::Attributes a = {{"window_dimensions", {1, 1, kernel[0], kernel[1]}},
                      {"window_strides", {1, 1, stride[0], stride[1]}},
                      {"padding_low", {0, 0, padding[0], padding[1]}},
                      {"padding_high", {0, 0, padding[0], padding[1]}}};
  if (dilations) {
    a["base_dilation"] = {1, 1, 1, 1};
    a["window_dilation"] = {1, 1, 1, 1};
  }
  return a;
}

// The pooling window's checks; returns the stride (the window where 0 was given).
Pair CheckPool(const char* op, const lazy::NodePtr& x, const Pair& kernel, Pair stride,
               const Pair& padding) {
  if (stride[0] == 0 && stride[1] == 0) stride = kernel;
  CheckAtLeast(op, "kernel_size", kernel, 1);
  CheckAtLeast(op, "stride", stride, 1);
  CheckAtLeast(op, "padding", padding, 0);
  if (2 * padding[0] > kernel[0] || 2 * padding[1] > kernel[1]) {
    lazy::ThrowInvalid(absl::StrCat(op, ": padding ", Str(padding),
                                    " must be at most half the kernel_size ", Str(kernel)));
  }
  CheckFits(op, "window", x->shape, kernel, {1, 1}, padding);
  return stride;
}

// max_pool2d and min_pool2d: one reduce_window_max or reduce_window_min.
Tensor ExtremePool(const char* name, ir::Op op, const Tensor& input, const Pair& kernel,
                   Pair stride, const Pair& padding) {
  lazy::NodePtr x = Input4d(name, input);
  stride = CheckPool(name, x, kernel, stride, padding);
  return lazy::Wrap(lazy::MakeNode(op, {x}, WindowAttributes(kernel, stride, padding, true)));
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dOptions& options) {
  lazy::NodePtr x = Input4d("conv2d", input);
  lazy::NodePtr w = lazy::NodeOf(weight, "conv2d");
  if (w->shape.rank() != 4) {
    lazy::ThrowInvalid(
        absl::StrCat("conv2d: weight must be [out_channels, in_channels / groups, "
                     "kh, kw], got ",
                     w->shape.ToString()));
  }
  if (w->shape.dtype != x->shape.dtype) {
    lazy::ThrowInvalid(absl::StrCat("conv2d: input ", x->shape.ToString(), " and weight ",
                                    w->shape.ToString(), " have different element types"));
  }
  const int64_t groups = options.groups;
  const int64_t channels = x->shape.dims[1], out = w->shape.dims[0];
  if (groups < 1 || channels % groups != 0 || out % groups != 0) {
    lazy::ThrowInvalid(absl::StrCat("conv2d: groups=", groups,
                                    " must be >= 1 and divide both the input's ", channels,
                                    " channels and the weight's ", out, " output channels"));
  }
  if (w->shape.dims[1] * groups != channels) {
    lazy::ThrowInvalid(absl::StrCat("conv2d: input ", x->shape.ToString(), " has ", channels,
                                    " channels, weight ", w->shape.ToString(), " expects ",
                                    w->shape.dims[1], " * groups=", groups, " = ",
                                    w->shape.dims[1] * groups));
  }
  CheckAtLeast("conv2d", "stride", options.stride, 1);
  CheckAtLeast("conv2d", "dilation", options.dilation, 1);
  CheckAtLeast("conv2d", "padding", options.padding, 0);
  CheckFits("conv2d", "kernel", x->shape, {w->shape.dims[2], w->shape.dims[3]}, options.dilation,
            options.padding);
  const Pair& s = options.stride;
  const Pair& p = options.padding;
  const Pair& d = options.dilation;
  return lazy::Wrap(lazy::MakeNode(ir::Op::kConvolution, {x, w},
                                   {{"input_batch_dim", {0}},
                                    {"input_feature_dim", {1}},
                                    {"input_spatial_dims", {2, 3}},
                                    {"kernel_output_feature_dim", {0}},
                                    {"kernel_input_feature_dim", {1}},
                                    {"kernel_spatial_dims", {2, 3}},
                                    {"output_batch_dim", {0}},
                                    {"output_feature_dim", {1}},
                                    {"output_spatial_dims", {2, 3}},
                                    {"feature_group_count", {groups}},
                                    {"window_strides", {s[0], s[1]}},
                                    {"padding_low", {p[0], p[1]}},
                                    {"padding_high", {p[0], p[1]}},
                                    {"lhs_dilation", {1, 1}},
                                    {"rhs_dilation", {d[0], d[1]}}}));
}

Tensor max_pool2d(const Tensor& input, std::array<int64_t, 2> kernel_size,
                  std::array<int64_t, 2> stride, std::array<int64_t, 2> padding) {
  return ExtremePool("max_pool2d", ir::Op::kReduceWindowMax, input, kernel_size, stride, padding);
}

Tensor min_pool2d(const Tensor& input, std::array<int64_t, 2> kernel_size,
                  std::array<int64_t, 2> stride, std::array<int64_t, 2> padding) {
  return ExtremePool("min_pool2d", ir::Op::kReduceWindowMin, input, kernel_size, stride, padding);
}

Tensor avg_pool2d(const Tensor& input, std::array<int64_t, 2> kernel_size,
                  std::array<int64_t, 2> stride, std::array<int64_t, 2> padding) {
  lazy::NodePtr x = Input4d("avg_pool2d", input);
  stride = CheckPool("avg_pool2d", x, kernel_size, stride, padding);
  lazy::NodePtr sum = lazy::MakeNode(ir::Op::kReduceWindowSum, {x},
                                     WindowAttributes(kernel_size, stride, padding, true));
  const double count = static_cast<double>(kernel_size[0] * kernel_size[1]);
  lazy::NodePtr scale = lazy::BroadcastTo(
      lazy::ConstantNode(lazy::ScalarLiteral(x->shape.dtype, 1.0 / count)), sum->shape.dims);
  return lazy::Wrap(lazy::MakeNode(ir::Op::kMultiply, {sum, scale}, {}));
}

Conv2d::Conv2d(int64_t in, int64_t out, std::array<int64_t, 2> kernel_size, uint64_t seed,
               const Conv2dOptions& conv_options, DType dtype)
    : options(conv_options) {
  const int64_t groups = options.groups;
  if (in < 1 || out < 1 || groups < 1 || in % groups != 0 || out % groups != 0 ||
      kernel_size[0] < 1 || kernel_size[1] < 1) {
    lazy::ThrowInvalid(absl::StrCat("Conv2d: in=", in, " and out=", out,
                                    " must be >= 1 and divisible by groups=", groups,
                                    ", kernel_size ", Str(kernel_size), " >= 1x1"));
  }
  const int64_t fan_in = in / groups * kernel_size[0] * kernel_size[1];
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  weight = Tensor::uniform({out, in / groups, kernel_size[0], kernel_size[1]}, -bound, bound, seed,
                           dtype);
  bias = Tensor::uniform({out}, -bound, bound, seed ^ 0x9e3779b97f4a7c15ull, dtype);
}

Tensor Conv2d::forward(const Tensor& x) const {
  return conv2d(x, weight, options) + bias.reshape({1, bias.shape()[0], 1, 1});
}

std::vector<NamedParameter> Conv2d::named_parameters() {
  return {{"weight", &weight, false}, {"bias", &bias, false}};
}

}  // namespace seam::nn
