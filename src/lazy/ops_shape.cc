// Data movement: reshape, transpose/permute, slice and concatenation.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace lazy {

NodePtr Reshape(const NodePtr& x, Ints dims) {
  if (SameDims(x->shape.dims, dims)) return x;
  return MakeNode(ir::Op::kReshape, {x}, {}, MakeShape(x->shape.dtype, dims));
}

NodePtr Transpose(const NodePtr& x, Ints permutation) {
  return MakeNode(ir::Op::kTranspose, {x}, {{"permutation", permutation}});
}

}  // namespace lazy

using lazy::NodeOf;
using lazy::NodePtr;

Tensor Tensor::reshape(std::vector<int64_t> shape) const {
  NodePtr x = NodeOf(*this, "reshape");
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      lazy::ThrowInvalid(absl::StrCat("reshape: bad target [", absl::StrJoin(shape, ","), "] for ",
                                      x->shape.ToString()));
    } else {
      known *= shape[i];
    }
  }
  int64_t total = x->shape.num_elements();
  if (infer >= 0) shape[infer] = known == 0 ? 0 : total / known;
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  if (count != total) {
    lazy::ThrowInvalid(absl::StrCat("reshape: ", x->shape.ToString(), " has ", total,
                                    " elements; the target [", absl::StrJoin(shape, ","), "] has ",
                                    count));
  }
  return lazy::Wrap(lazy::Reshape(x, shape));
}

Tensor Tensor::transpose() const {
  NodePtr x = NodeOf(*this, "transpose");
  if (x->shape.rank() != 2) {
    lazy::ThrowInvalid(absl::StrCat("transpose: needs a matrix, got ", x->shape.ToString()));
  }
  return lazy::Wrap(lazy::Transpose(x, {1, 0}));
}

Tensor Tensor::broadcast_to(std::vector<int64_t> shape) const {
  NodePtr x = NodeOf(*this, "broadcast_to");
  const std::vector<int64_t>& dims = x->shape.dims;
  bool ok = dims.size() <= shape.size();
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    int64_t target = shape[shape.size() - dims.size() + i];
    ok = dims[i] == target || dims[i] == 1;
  }
  if (!ok) {
    lazy::ThrowInvalid(absl::StrCat("broadcast_to: ", x->shape.ToString(),
                                    " cannot be broadcast to [", absl::StrJoin(shape, ","), "]"));
  }
  return lazy::Wrap(lazy::BroadcastTo(x, shape));
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  NodePtr x = NodeOf(*this, "transpose");
  int64_t rank = x->shape.rank();
  int64_t a = dim0 < 0 ? dim0 + rank : dim0;
  int64_t b = dim1 < 0 ? dim1 + rank : dim1;
  if (a < 0 || a >= rank || b < 0 || b >= rank) {
    lazy::ThrowInvalid(absl::StrCat("transpose: axes ", dim0, " and ", dim1,
                                    " are out of range for ", x->shape.ToString()));
  }
  if (a == b) return *this;
  std::vector<int64_t> order(rank);
  for (int64_t i = 0; i < rank; ++i) order[i] = i;
  std::swap(order[a], order[b]);
  return lazy::Wrap(lazy::Transpose(x, order));
}

Tensor Tensor::pad(const std::vector<int64_t>& low, const std::vector<int64_t>& high,
                   double value) const {
  NodePtr x = NodeOf(*this, "pad");
  if (static_cast<int64_t>(low.size()) != x->shape.rank() ||
      static_cast<int64_t>(high.size()) != x->shape.rank()) {
    lazy::ThrowInvalid(absl::StrCat("pad: low [", absl::StrJoin(low, ","), "] and high [",
                                    absl::StrJoin(high, ","), "] need one entry per dimension of ",
                                    x->shape.ToString()));
  }
  NodePtr fill = lazy::ConstantNode(lazy::ScalarLiteral(x->shape.dtype, value));
  return lazy::Wrap(lazy::MakeNode(
      ir::Op::kPad, {x, fill},
      {{"low", low}, {"high", high}, {"interior", std::vector<int64_t>(low.size(), 0)}}));
}

Tensor Tensor::permute(const std::vector<int64_t>& order) const {
  NodePtr x = NodeOf(*this, "permute");
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool ok = static_cast<int64_t>(order.size()) == x->shape.rank();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok) {
    lazy::ThrowInvalid(absl::StrCat("permute: [", absl::StrJoin(order, ","),
                                    "] is not a permutation of the axes of ", x->shape.ToString()));
  }
  return lazy::Wrap(lazy::Transpose(x, order));
}

Tensor Tensor::slice(int64_t axis, int64_t start, int64_t end, int64_t step) const {
  NodePtr x = NodeOf(*this, "slice");
  int64_t a = lazy::NormalizeAxes("slice", x->shape, {axis}).front();
  if (step < 1) {
    lazy::ThrowInvalid(absl::StrCat("slice: step ", step, " of [", start, ":", end, ":", step,
                                    "] on axis ", axis, " of ", x->shape.ToString(),
                                    " must be at least 1"));
  }
  // Python's rule, the same for start and end: a negative bound counts from the end, then
  // both are clamped into [0, dim]; an end at or before the start selects nothing.
  const int64_t dim = x->shape.dims[a];
  auto clamp = [dim](int64_t bound) {
    return std::clamp<int64_t>(bound < 0 ? bound + dim : bound, 0, dim);
  };
  start = clamp(start);
  end = std::max(start, clamp(end));
  int64_t rank = x->shape.rank();
  std::vector<int64_t> starts(rank, 0), limits = x->shape.dims, strides(rank, 1);
  starts[a] = start;
  limits[a] = end;
  strides[a] = step;
  return lazy::Wrap(lazy::MakeNode(ir::Op::kSlice, {x},
                                   {{"start", starts}, {"limit", limits}, {"stride", strides}}));
}

Tensor Tensor::cat(const std::vector<Tensor>& tensors, int64_t axis) {
  if (tensors.empty()) lazy::ThrowInvalid("cat: no tensors given");
  lazy::NodeList nodes;
  for (const Tensor& t : tensors) nodes.push_back(NodeOf(t, "cat"));
  int64_t a = lazy::NormalizeAxes("cat", nodes.front()->shape, {axis}).front();
  return lazy::Wrap(lazy::MakeNode(ir::Op::kConcatenate, std::move(nodes), {{"dimension", {a}}}));
}

}  // namespace seam
