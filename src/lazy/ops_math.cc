// The remaining elementwise IR primitives (abs, sign, log1p, rsqrt, floor, ceil, remainder,
// ne/le/ge, and/or/not) and the gelu composite.
#include "absl/strings/str_cat.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using lazy::NodeOf;
using lazy::NodePtr;

Tensor Unary(ir::Op op, const char* name, const Tensor& t, bool (*accepts)(ir::DType),
             const char* kind) {
  NodePtr x = NodeOf(t, name);
  if (!accepts(x->shape.dtype)) {
    lazy::ThrowInvalid(
        absl::StrCat(name, ": needs a ", kind, " tensor, got ", x->shape.ToString()));
  }
  return lazy::Wrap(lazy::Unary(op, x));
}

bool IsNumeric(ir::DType dtype) { return ir::IsFloat(dtype) || ir::IsInteger(dtype); }
bool IsPred(ir::DType dtype) { return dtype == ir::DType::kPred; }

Tensor Binary(ir::Op op, const char* name, const Tensor& a, const Tensor& b) {
  return lazy::Wrap(lazy::Elementwise(op, name, NodeOf(a, name), NodeOf(b, name)));
}

Tensor Logical(ir::Op op, const char* name, const Tensor& a, const Tensor& b) {
  NodePtr x = NodeOf(a, name);
  NodePtr y = NodeOf(b, name);
  if (!IsPred(x->shape.dtype) || !IsPred(y->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(name, ": needs bool tensors, got ", x->shape.ToString(),
                                    " and ", y->shape.ToString()));
  }
  return lazy::Wrap(lazy::Elementwise(op, name, x, y));
}

}  // namespace

Tensor Tensor::rsqrt() const { return Unary(ir::Op::kRsqrt, "rsqrt", *this, ir::IsFloat, "float"); }
Tensor Tensor::abs() const { return Unary(ir::Op::kAbs, "abs", *this, IsNumeric, "numeric"); }
Tensor Tensor::sign() const { return Unary(ir::Op::kSign, "sign", *this, IsNumeric, "numeric"); }
Tensor Tensor::log1p() const { return Unary(ir::Op::kLog1p, "log1p", *this, ir::IsFloat, "float"); }
Tensor Tensor::floor() const { return Unary(ir::Op::kFloor, "floor", *this, ir::IsFloat, "float"); }
Tensor Tensor::ceil() const { return Unary(ir::Op::kCeil, "ceil", *this, ir::IsFloat, "float"); }
Tensor Tensor::logical_not() const {
  return Unary(ir::Op::kNot, "logical_not", *this, IsPred, "bool");
}

Tensor Tensor::gelu() const {
  NodePtr x = NodeOf(*this, "gelu");
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat("gelu: needs a float tensor, got ", x->shape.ToString()));
  }
  // Shape-independent constants of the formula are program constants, not data.
  auto constant = [&](double v) {
    return lazy::Wrap(lazy::ConstantNode(lazy::ScalarLiteral(x->shape.dtype, v)));
  };
  const Tensor& t = *this;
  Tensor inner = constant(0.7978845608028654) * (t + constant(0.044715) * t * t * t);
  return constant(0.5) * t * (inner.tanh() + constant(1.0));
}

Tensor ne(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kNe, "ne", a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kLe, "le", a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kGe, "ge", a, b); }
Tensor fmod(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kRemainder, "fmod", a, b); }
Tensor logical_and(const Tensor& a, const Tensor& b) {
  return Logical(ir::Op::kAnd, "logical_and", a, b);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return Logical(ir::Op::kOr, "logical_or", a, b);
}

}  // namespace seam
