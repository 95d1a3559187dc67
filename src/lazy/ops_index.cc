// Tensor::erf, cumsum, argmin and seam::clamp (include/seam/tensor.h): one IR op each
// (erf, cumsum, argmin, clamp); gradients in src/lazy/autodiff_index.cc.
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

}  // namespace

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
