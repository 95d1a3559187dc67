// Tensor::sort and Tensor::topk (include/seam/tensor.h): one IR argsort for the indices and
// a gather of the values through them, so the values' gradient is gather's (a scatter-add
// into the input's positions) and the int64 indices carry none.
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using lazy::NodePtr;

// x's elements at `index` (s64, x's shape except along `axis`): out[..., j, ...] =
// x[..., index[..., j, ...], ...] (numpy take_along_axis), as one gather.
NodePtr TakeAlongAxis(const NodePtr& x, const NodePtr& index, int64_t axis) {
  const int64_t rank = x->shape.rank();
  std::vector<int64_t> all_dims;
  for (int64_t d = 0; d < rank; ++d) all_dims.push_back(d);
  return lazy::MakeNode(ir::Op::kGather, {x, lazy::AlongAxisIndexVectors(index, axis)},
                        {{"offset_dims", {}},
                         {"collapsed_slice_dims", all_dims},
                         {"start_index_map", all_dims},
                         {"index_vector_dim", {rank}},
                         {"slice_sizes", std::vector<int64_t>(rank, 1)}});
}

NodePtr Sortable(const Tensor& t, const char* name) {
  NodePtr x = lazy::NodeOf(t, name);
  if (!ir::IsFloat(x->shape.dtype) && !ir::IsInteger(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(name, ": needs a numeric tensor, got ", x->shape.ToString()));
  }
  return x;
}

// The first k elements along `axis`.
NodePtr Head(const NodePtr& x, int64_t axis, int64_t k) {
  if (k == x->shape.dims[axis]) return x;
  std::vector<int64_t> start(x->shape.rank(), 0), stride(x->shape.rank(), 1);
  std::vector<int64_t> limit = x->shape.dims;
  limit[axis] = k;
  return lazy::MakeNode(ir::Op::kSlice, {x},
                        {{"start", start}, {"limit", limit}, {"stride", stride}});
}

SortResult SortAlong(const NodePtr& x, int64_t axis, bool descending, int64_t k) {
  NodePtr index = Head(lazy::MakeNode(ir::Op::kArgsort, {x},
                                      {{"axis", {axis}}, {"descending", {descending ? 1 : 0}}}),
                       axis, k);
  // Nothing to gather from an empty input (gather's slices of 1 would not fit it).
  NodePtr values = x->shape.num_elements() == 0 ? Head(x, axis, k) : TakeAlongAxis(x, index, axis);
  return {lazy::Wrap(values), lazy::Wrap(index)};
}

}  // namespace

SortResult Tensor::sort(int64_t axis, bool descending) const {
  NodePtr x = Sortable(*this, "sort");
  const int64_t a = lazy::NormalizeAxes("sort", x->shape, {axis}).front();
  return SortAlong(x, a, descending, x->shape.dims[a]);
}

SortResult Tensor::topk(int64_t k, int64_t axis) const {
  NodePtr x = Sortable(*this, "topk");
  const int64_t a = lazy::NormalizeAxes("topk", x->shape, {axis}).front();
  if (k < 0 || k > x->shape.dims[a]) {
    lazy::ThrowInvalid(absl::StrCat("topk: k=", k, " is outside [0, ", x->shape.dims[a],
                                    "], the size of axis ", axis, " of ", x->shape.ToString()));
  }
  return SortAlong(x, a, /*descending=*/true, k);
}

}  // namespace seam
