// nn::dropout and the nn::Dropout module (include/seam/nn.h, docs/frontend.md "Random
// numbers"): inverted dropout from the default generator's uniform draws (seam::rand), so
// the mask is program data of the step and its gradient is the same mask times the scale.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "seam/nn.h"

namespace seam::nn {

Tensor dropout(const Tensor& x, double p, bool training) {
  if (!(p >= 0 && p < 1)) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("dropout: p=", p,
                             " is outside [0, 1) (the probability of zeroing "
                             "an element)"));
  }
  if (!x.defined()) throw Error(ErrorCode::kInvalidArgument, "dropout: tensor is undefined");
  const DType dtype = x.dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64 && dtype != DType::kBFloat16) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("dropout: needs a float tensor, got ", dtype_name(dtype)));
  }
  if (!training || p == 0) return x;
  // Keep where u >= p (probability 1 - p); u is float32 for float32 and bfloat16 inputs
  // (bfloat16's 8 bits would round p), float64 for float64.
  const DType udtype = dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  const Tensor keep = rand(x.shape(), udtype) >= Scalar(p);
  return where(keep, x * Scalar(1.0 / (1.0 - p)), Tensor::zeros({}, dtype));
}

Dropout::Dropout(double p) : p(p) {
  if (!(p >= 0 && p < 1)) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("Dropout: p=", p,
                             " is outside [0, 1) (the probability of zeroing "
                             "an element)"));
  }
}

Tensor Dropout::forward(const Tensor& x) const { return dropout(x, p, is_training()); }

}  // namespace seam::nn
