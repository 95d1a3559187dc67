// Tensor::erf, cumsum, argmin, scatter and seam::clamp (include/seam/tensor.h): one IR op
// each (erf, cumsum, argmin, scatter_replace, clamp); gradients in
// src/lazy/autodiff_index.cc.
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using lazy::NodeOf;
using lazy::NodePtr;

bool IsNumeric(ir::DType dtype) { return ir::IsFloat(dtype) || ir::IsInteger(dtype); }

NodePtr Numeric(const Tensor& t, const char* name) {
  NodePtr x = NodeOf(t, name);
  if (!IsNumeric(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(name, ": needs a numeric tensor, got ", x->shape.ToString()));
  }
  return x;
}

// A bound of clamp: the same dtype as x, broadcast to x's shape (it may not grow x).
NodePtr Bound(const char* which, const NodePtr& x, const Tensor& bound) {
  NodePtr b = NodeOf(bound, "clamp");
  if (b->shape.dtype != x->shape.dtype) {
    lazy::ThrowInvalid(absl::StrCat("clamp: the ", which, " ", b->shape.ToString(),
                                    " must have the element type of the input ",
                                    x->shape.ToString()));
  }
  return lazy::BroadcastTo(b, x->shape.dims);
}

// The first `dims` elements of x along every dimension.
NodePtr Head(const NodePtr& x, const std::vector<int64_t>& dims) {
  if (lazy::SameDims(x->shape.dims, dims)) return x;
  return lazy::MakeNode(ir::Op::kSlice, {x},
                        {{"start", std::vector<int64_t>(dims.size(), 0)},
                         {"limit", dims},
                         {"stride", std::vector<int64_t>(dims.size(), 1)}});
}

// scatter's operands checked against torch.scatter's rules; returns the normalized axis.
int64_t CheckScatter(const NodePtr& x, int64_t axis, const NodePtr& index, const NodePtr& src) {
  const ir::DType index_type = index->shape.dtype;
  if (index_type != ir::DType::kS32 && index_type != ir::DType::kS64) {
    lazy::ThrowInvalid(absl::StrCat("scatter: index must be int32 or int64, got ",
                                    dtype_name(lazy::FromIr(index_type)), " (",
                                    index->shape.ToString(), ")"));
  }
  if (src->shape.dtype != x->shape.dtype) {
    lazy::ThrowInvalid(absl::StrCat("scatter: src ", src->shape.ToString(),
                                    " must have the element type of the input ",
                                    x->shape.ToString()));
  }
  const int64_t rank = x->shape.rank();
  if (index->shape.rank() != rank || src->shape.rank() != rank) {
    lazy::ThrowInvalid(absl::StrCat("scatter: index ", index->shape.ToString(), " and src ",
                                    src->shape.ToString(), " must have the rank of the input ",
                                    x->shape.ToString(), " (", rank, ")"));
  }
  const int64_t a = lazy::NormalizeAxes("scatter", x->shape, {axis}).front();
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = index->shape.dims[d];
    if (n > src->shape.dims[d] || (d != a && n > x->shape.dims[d])) {
      const bool by_src = n > src->shape.dims[d];
      lazy::ThrowInvalid(absl::StrCat("scatter: index ", index->shape.ToString(),
                                      " is larger than ", by_src ? "src " : "the input ",
                                      (by_src ? src : x)->shape.ToString(), " along dimension ", d,
                                      " (", n, " > ", (by_src ? src : x)->shape.dims[d], ")"));
    }
  }
  if (x->shape.dims[a] == 0 && index->shape.num_elements() > 0) {
    lazy::ThrowInvalid(absl::StrCat("scatter: axis ", axis, " of the input ", x->shape.ToString(),
                                    " is empty, so index ", index->shape.ToString(),
                                    " has nowhere to write"));
  }
  return a;
}

}  // namespace

namespace lazy {

NodePtr AlongAxisIndexVectors(const NodePtr& index, int64_t axis) {
  const int64_t rank = index->shape.rank();
  const std::vector<int64_t>& dims = index->shape.dims;
  std::vector<int64_t> one_more = dims;
  one_more.push_back(1);
  NodeList parts;
  for (int64_t d = 0; d < rank; ++d) {
    NodePtr part = d == axis ? index
                             : MakeNode(ir::Op::kIota, {}, {{"dimension", {d}}},
                                        MakeShape(index->shape.dtype, dims));
    parts.push_back(Reshape(part, one_more));
  }
  return MakeNode(ir::Op::kConcatenate, std::move(parts), {{"dimension", {rank}}});
}

}  // namespace lazy

Tensor Tensor::scatter(int64_t axis, const Tensor& index, const Tensor& src) const {
  NodePtr x = NodeOf(*this, "scatter");
  NodePtr ids = NodeOf(index, "scatter");
  NodePtr values = NodeOf(src, "scatter");
  const int64_t a = CheckScatter(x, axis, ids, values);
  if (ids->shape.num_elements() == 0) return *this;
  const int64_t rank = x->shape.rank();
  std::vector<int64_t> all_dims;
  for (int64_t d = 0; d < rank; ++d) all_dims.push_back(d);
  return lazy::Wrap(
      lazy::MakeNode(ir::Op::kScatterReplace,
                     {x, lazy::AlongAxisIndexVectors(ids, a), Head(values, ids->shape.dims)},
                     {{"update_window_dims", {}},
                      {"inserted_window_dims", all_dims},
                      {"scatter_dims_to_operand_dims", all_dims},
                      {"index_vector_dim", {rank}}}));
}

Tensor Tensor::erf() const {
  NodePtr x = NodeOf(*this, "erf");
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat("erf: needs a float tensor, got ", x->shape.ToString()));
  }
  return lazy::Wrap(lazy::Unary(ir::Op::kErf, x));
}

Tensor Tensor::cumsum(int64_t axis) const {
  NodePtr x = Numeric(*this, "cumsum");
  const int64_t a = lazy::NormalizeAxes("cumsum", x->shape, {axis}).front();
  return lazy::Wrap(lazy::MakeNode(ir::Op::kCumsum, {x}, {{"axis", {a}}}));
}

Tensor Tensor::argmin(int64_t axis) const {
  NodePtr x = Numeric(*this, "argmin");
  const int64_t a = lazy::NormalizeAxes("argmin", x->shape, {axis}).front();
  NodePtr index = lazy::MakeNode(ir::Op::kArgMin, {x}, {{"axis", {a}}});
  return lazy::Wrap(lazy::Convert(index, ir::DType::kS32));
}

Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max) {
  NodePtr v = Numeric(x, "clamp");
  return lazy::Wrap(
      lazy::MakeNode(ir::Op::kClamp, {Bound("minimum", v, min), v, Bound("maximum", v, max)}, {}));
}

Tensor clamp(const Tensor& x, Scalar min, Scalar max) {
  NodePtr v = Numeric(x, "clamp");
  const ir::DType dtype = v->shape.dtype;
  return clamp(x, Tensor::full({}, min, lazy::FromIr(dtype)),
               Tensor::full({}, max, lazy::FromIr(dtype)));
}

}  // namespace seam
