// matmul with NumPy/PyTorch semantics, lowered to one dot_general: rank-1 operands are
// promoted (a vector on the left is a row, on the right a column, and the added dimension
// is removed from the result); dimensions before the last two are batch dimensions and
// broadcast against each other.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using lazy::NodeOf;
using lazy::NodePtr;

[[noreturn]] void Mismatch(const NodePtr& lhs, const NodePtr& rhs, const std::string& why) {
  lazy::ThrowInvalid(absl::StrCat("matmul: shapes ", lhs->shape.ToString(), " and ",
                                  rhs->shape.ToString(), " do not match (", why, ")"));
}

// NumPy broadcasting of the batch dimensions (aligned at the end).
std::vector<int64_t> BroadcastBatch(const NodePtr& lhs, const NodePtr& rhs,
                                    const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1) Mismatch(lhs, rhs, "their batch dimensions do not broadcast");
    dims[i] = x == 1 ? y : x;
  }
  return dims;
}

std::vector<int64_t> Append(std::vector<int64_t> dims, std::initializer_list<int64_t> more) {
  dims.insert(dims.end(), more);
  return dims;
}

}  // namespace

Tensor Tensor::matmul(const Tensor& other) const {
  const NodePtr lhs = NodeOf(*this, "matmul");
  const NodePtr rhs = NodeOf(other, "matmul");
  const int64_t lr = lhs->shape.rank(), rr = rhs->shape.rank();
  if (lr == 0 || rr == 0) Mismatch(lhs, rhs, "matmul needs operands of rank >= 1");
  if (lhs->shape.dtype != rhs->shape.dtype) Mismatch(lhs, rhs, "the element types differ");
  const int64_t k = lhs->shape.dims[lr - 1];
  const int64_t rhs_k = rhs->shape.dims[rr == 1 ? 0 : rr - 2];
  if (k != rhs_k) {
    Mismatch(lhs, rhs,
             absl::StrCat("[..., m, k] x [..., k, n]: k is ", k, " on the left and ", rhs_k,
                          " on the right"));
  }
  if (lr == 1 && rr == 1) return lazy::Wrap(lazy::DotGeneral(lhs, rhs, {0}, {0}));

  NodePtr a = lr == 1 ? lazy::Reshape(lhs, {1, k}) : lhs;
  NodePtr b = rr == 1 ? lazy::Reshape(rhs, {k, 1}) : rhs;
  const int64_t ar = a->shape.rank(), br = b->shape.rank();
  NodePtr product;
  if (br == 2) {
    // No batch on the right: lhs's leading dimensions are free dimensions of the product,
    // which comes out as [..., m, n] already, without broadcasting rhs.
    product = lazy::DotGeneral(a, b, {ar - 1}, {0});
  } else {
    std::vector<int64_t> a_batch(a->shape.dims.begin(), a->shape.dims.end() - 2);
    std::vector<int64_t> b_batch(b->shape.dims.begin(), b->shape.dims.end() - 2);
    std::vector<int64_t> batch = BroadcastBatch(lhs, rhs, a_batch, b_batch);
    const int64_t m = a->shape.dims[ar - 2], n = b->shape.dims[br - 1];
    a = lazy::BroadcastTo(a, Append(batch, {m, k}));
    b = lazy::BroadcastTo(b, Append(batch, {k, n}));
    const auto nb = static_cast<int64_t>(batch.size());
    std::vector<int64_t> batch_axes(batch.size());
    for (int64_t i = 0; i < nb; ++i) batch_axes[i] = i;
    product = lazy::DotGeneral(a, b, {nb + 1}, {nb}, batch_axes, batch_axes);
  }
  if (lr == 1 || rr == 1) {
    // Drop the dimension the promotion added: m (second to last) or n (last).
    std::vector<int64_t> dims = product->shape.dims;
    dims.erase(dims.end() - (lr == 1 ? 2 : 1));
    product = lazy::Reshape(product, dims);
  }
  return lazy::Wrap(product);
}

Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }

}  // namespace seam
