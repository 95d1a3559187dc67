// Layer and batch normalization (include/seam/nn.h), composed from reductions, broadcasting
// and rsqrt so that autodiff differentiates them like any other expression.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "seam/nn.h"

namespace seam::nn {
namespace {

std::string Described(const Tensor& t) {
  return absl::StrCat(dtype_name(t.dtype()), "[", absl::StrJoin(t.shape(), ","), "]");
}

void CheckFloat(const char* op, const Tensor& input) {
  const DType dtype = input.dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kBFloat16) {
    throw Error(
        ErrorCode::kInvalidArgument,
        absl::StrCat(op, ": the input must be a floating-point tensor, got ", Described(input)));
  }
}

// An optional affine tensor (or running statistic) must have `shape` and the input's dtype.
void CheckOperand(const char* op, const char* what, const Tensor& t,
                  const std::vector<int64_t>& shape, const Tensor& input) {
  if (!t.defined()) return;
  if (t.shape() != shape || t.dtype() != input.dtype()) {
    throw Error(
        ErrorCode::kInvalidArgument,
        absl::StrCat(op, ": ", what, " is ", Described(t), ", want ", dtype_name(input.dtype()),
                     "[", absl::StrJoin(shape, ","), "] for input ", Described(input)));
  }
}

// [C] -> [1, C, 1, ...] so that it broadcasts against an [N, C, ...] input of `rank`.
Tensor PerChannel(const Tensor& t, size_t rank) {
  std::vector<int64_t> shape(rank, 1);
  shape[1] = t.shape()[0];
  return t.reshape(shape);
}

Tensor Affine(Tensor y, const Tensor& weight, const Tensor& bias, size_t rank) {
  if (weight.defined()) y = y * PerChannel(weight, rank);
  if (bias.defined()) y = y + PerChannel(bias, rank);
  return y;
}

void CheckBatchNorm(const Tensor& input, const Tensor* running_mean, const Tensor* running_var,
                    const Tensor& weight, const Tensor& bias, bool training) {
  CheckFloat("batch_norm", input);
  if (input.shape().size() < 2) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("batch_norm: the input must be [N, C, ...] (rank 2 or more), got ",
                             Described(input)));
  }
  const std::vector<int64_t> channels = {input.shape()[1]};
  CheckOperand("batch_norm", "weight", weight, channels, input);
  CheckOperand("batch_norm", "bias", bias, channels, input);
  if ((running_mean == nullptr) != (running_var == nullptr)) {
    throw Error(ErrorCode::kInvalidArgument,
                "batch_norm: give both running_mean and running_var, or neither");
  }
  if (running_mean != nullptr) {
    CheckOperand("batch_norm", "running_mean", *running_mean, channels, input);
    CheckOperand("batch_norm", "running_var", *running_var, channels, input);
    if (!running_mean->defined() || !running_var->defined()) {
      throw Error(ErrorCode::kInvalidArgument, "batch_norm: a running statistic is undefined");
    }
  } else if (!training) {
    throw Error(ErrorCode::kInvalidArgument,
                "batch_norm: evaluation mode (training=false) needs running_mean and "
                "running_var");
  }
  if (training && input.numel() / channels[0] <= 1) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("batch_norm: training needs more than one value per channel, got "
                             "input ",
                             Described(input)));
  }
}

// bfloat16 is normalized in float32 and rounded once at the end (as PyTorch computes it):
// the mean and variance of many bfloat16 values would lose most of their bits.
Tensor Widened(const Tensor& t) {
  return t.defined() && t.dtype() == DType::kBFloat16 ? t.to(DType::kFloat32) : t;
}

Tensor Narrowed(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }

}  // namespace

Tensor layer_norm(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight, const Tensor& bias, double eps) {
  CheckFloat("layer_norm", input);
  const std::vector<int64_t>& shape = input.shape();
  const size_t k = normalized_shape.size();
  const bool fits = k >= 1 && k <= shape.size() &&
                    std::vector<int64_t>(shape.end() - static_cast<std::ptrdiff_t>(k),
                                         shape.end()) == normalized_shape;
  if (!fits) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("layer_norm: normalized_shape [", absl::StrJoin(normalized_shape, ","),
                             "] is not the trailing dims of input ", Described(input)));
  }
  CheckOperand("layer_norm", "weight", weight, normalized_shape, input);
  CheckOperand("layer_norm", "bias", bias, normalized_shape, input);
  std::vector<int64_t> axes;
  for (size_t i = shape.size() - k; i < shape.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  const Tensor x = Widened(input);
  const Tensor centered = x - x.mean(axes, /*keepdim=*/true);
  const Tensor var = (centered * centered).mean(axes, /*keepdim=*/true);
  Tensor y = centered * (var + eps).rsqrt();
  if (weight.defined()) y = y * Widened(weight);  // broadcasting aligns the trailing dims
  if (bias.defined()) y = y + Widened(bias);
  return Narrowed(y, input.dtype());
}

Tensor batch_norm(const Tensor& input, Tensor* running_mean, Tensor* running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  CheckBatchNorm(input, running_mean, running_var, weight, bias, training);
  const size_t rank = input.shape().size();
  const DType dtype = input.dtype();
  const Tensor x = Widened(input);
  if (!training) {
    const Tensor y = (x - PerChannel(Widened(*running_mean), rank)) *
                     (PerChannel(Widened(*running_var), rank) + eps).rsqrt();
    return Narrowed(Affine(y, Widened(weight), Widened(bias), rank), dtype);
  }
  std::vector<int64_t> axes = {0};
  for (size_t i = 2; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  const Tensor mean = x.mean(axes, /*keepdim=*/true);
  const Tensor centered = x - mean;
  const Tensor var = (centered * centered).mean(axes, /*keepdim=*/true);
  if (running_mean != nullptr) {
    const int64_t channels = input.shape()[1];
    const double n = static_cast<double>(input.numel()) / static_cast<double>(channels);
    const Tensor new_mean =
        Widened(*running_mean) * (1.0 - momentum) + mean.reshape({channels}) * momentum;
    const Tensor new_var = Widened(*running_var) * (1.0 - momentum) +
                           var.reshape({channels}) * (momentum * n / (n - 1.0));
    running_mean->assign(Narrowed(new_mean, dtype));
    running_var->assign(Narrowed(new_var, dtype));
  }
  return Narrowed(Affine(centered * (var + eps).rsqrt(), Widened(weight), Widened(bias), rank),
                  dtype);
}

LayerNorm::LayerNorm(std::vector<int64_t> normalized_shape_in, double eps, DType dtype)
    : normalized_shape(std::move(normalized_shape_in)), eps(eps) {
  for (int64_t d : normalized_shape) {
    if (d <= 0) {
      throw Error(
          ErrorCode::kInvalidArgument,
          absl::StrCat("LayerNorm: normalized_shape [", absl::StrJoin(normalized_shape, ","),
                       "] has a size ", d, " (each must be positive)"));
    }
  }
  weight = Tensor::ones(normalized_shape, dtype);
  bias = Tensor::zeros(normalized_shape, dtype);
}

Tensor LayerNorm::forward(const Tensor& x) const {
  return layer_norm(x, normalized_shape, weight, bias, eps);
}

std::vector<NamedParameter> LayerNorm::named_parameters() {
  return {{"weight", &weight, false}, {"bias", &bias, false}};
}

BatchNorm2d::BatchNorm2d(int64_t num_features, double eps, double momentum, DType dtype)
    : num_features(num_features), eps(eps), momentum(momentum) {
  if (num_features <= 0) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("BatchNorm2d: num_features must be positive, got ", num_features));
  }
  weight = Tensor::ones({num_features}, dtype);
  bias = Tensor::zeros({num_features}, dtype);
  running_mean = Tensor::zeros({num_features}, dtype);
  running_var = Tensor::ones({num_features}, dtype);
  num_batches_tracked = Tensor::zeros({}, DType::kInt64);
}

Tensor BatchNorm2d::forward(const Tensor& x) const {
  if (x.shape().size() != 4) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("BatchNorm2d: the input must be NCHW (rank 4), got ", Described(x)));
  }
  if (x.shape()[1] != num_features) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("BatchNorm2d: the input ", Described(x), " has ", x.shape()[1],
                             " channels, the module has num_features=", num_features));
  }
  const bool training = is_training();
  Tensor y = batch_norm(x, &running_mean, &running_var, weight, bias, training, momentum, eps);
  if (training) num_batches_tracked.assign(num_batches_tracked + 1);
  return y;
}

std::vector<NamedParameter> BatchNorm2d::named_parameters() {
  return {{"weight", &weight, false}, {"bias", &bias, false}};
}

std::vector<NamedParameter> BatchNorm2d::named_buffers() {
  return {{"running_mean", &running_mean, false},
          {"running_var", &running_var, false},
          {"num_batches_tracked", &num_batches_tracked, false}};
}

}  // namespace seam::nn
