// The parameter-free layers of include/seam/nn.h (flatten, Flatten, ReLU, MaxPool2d,
// AvgPool2d): PyTorch's module names over functions seam already has, so a model is written
// as a Sequential of named layers instead of lambdas.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "seam/nn.h"

namespace seam::nn {

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (!x.defined()) throw Error(ErrorCode::kInvalidArgument, "flatten: tensor is undefined");
  const std::vector<int64_t>& shape = x.shape();
  if (shape.empty()) return x.reshape({1});  // torch.flatten of a scalar
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t start = start_dim < 0 ? start_dim + rank : start_dim;
  const int64_t end = end_dim < 0 ? end_dim + rank : end_dim;
  if (start < 0 || start >= rank || end < 0 || end >= rank || start > end) {
    throw Error(ErrorCode::kInvalidArgument,
                absl::StrCat("flatten: start_dim=", start_dim, " and end_dim=", end_dim,
                             " do not name dimensions in order of a tensor of shape [",
                             absl::StrJoin(shape, ", "), "] (rank ", rank, ")"));
  }
  std::vector<int64_t> out(shape.begin(), shape.begin() + start);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= shape[d];
  out.push_back(merged);
  out.insert(out.end(), shape.begin() + end + 1, shape.end());
  return x.reshape(out);
}

Tensor Flatten::forward(const Tensor& x) const { return flatten(x, start_dim, end_dim); }

Tensor ReLU::forward(const Tensor& x) const { return x.relu(); }

Tensor MaxPool2d::forward(const Tensor& x) const {
  return max_pool2d(x, kernel_size, stride, padding);
}

Tensor AvgPool2d::forward(const Tensor& x) const {
  return avg_pool2d(x, kernel_size, stride, padding);
}

}  // namespace seam::nn
