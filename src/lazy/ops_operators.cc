// The C++ operators of seam::Tensor: arithmetic with tensors and scalars, comparisons and
// compound assignment (include/seam/tensor.h says how a Scalar takes a tensor's dtype).
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using lazy::NodeOf;
using lazy::NodePtr;

std::string ScalarText(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::kFloat:
      return absl::StrCat(s.to_double(), " (a floating-point scalar)");
    case Scalar::Kind::kInt:
      return absl::StrCat(s.to_int(), " (an integer scalar)");
    case Scalar::Kind::kBool:
      return s.to_int() != 0 ? "true" : "false";
  }
  return "?";
}

// `s` as a node of the dtype of `like` (the tensor it meets), or an Error naming `op`.
NodePtr ScalarLike(const char* op, const NodePtr& like, const Scalar& s) {
  const ir::DType dtype = like->shape.dtype;
  const char* problem = nullptr;
  if (s.too_large()) {
    problem = "is too large for any tensor";
  } else if (dtype == ir::DType::kPred) {
    if (s.kind() != Scalar::Kind::kBool) problem = "is not a bool";
  } else if (s.kind() == Scalar::Kind::kBool) {
    problem = "is a bool, not a number";
  } else if (ir::IsInteger(dtype)) {
    if (s.kind() == Scalar::Kind::kFloat) {
      problem = "is not an integer (convert the tensor first, e.g. .to(DType::kFloat32))";
    } else if (dtype == ir::DType::kS32 && (s.to_int() < std::numeric_limits<int32_t>::min() ||
                                            s.to_int() > std::numeric_limits<int32_t>::max())) {
      problem = "does not fit int32";
    }
  }
  if (problem != nullptr) {
    lazy::ThrowInvalid(absl::StrCat(op, ": the scalar ", ScalarText(s), " ", problem,
                                    ", so it cannot be combined with ", like->shape.ToString()));
  }
  // Integers are exact for integer tensors (an int64 beyond 2^53 keeps every bit).
  if (ir::IsInteger(dtype)) return lazy::IntScalarNode(dtype, s.to_int());
  return lazy::ScalarNode(dtype, s.to_double());
}

Tensor Binary(ir::Op op, const char* name, const Tensor& a, const Tensor& b) {
  return lazy::Wrap(lazy::Elementwise(op, name, NodeOf(a, name), NodeOf(b, name)));
}

Tensor WithScalar(ir::Op op, const char* name, const Tensor& a, const Scalar& b) {
  NodePtr x = NodeOf(a, name);
  NodePtr y = ScalarLike(name, x, b);
  return lazy::Wrap(lazy::Elementwise(op, name, std::move(x), std::move(y)));
}

Tensor ScalarWith(ir::Op op, const char* name, const Scalar& a, const Tensor& b) {
  NodePtr y = NodeOf(b, name);
  NodePtr x = ScalarLike(name, y, a);
  return lazy::Wrap(lazy::Elementwise(op, name, std::move(x), std::move(y)));
}

// t <op>= value: the result replaces t only if it keeps t's shape and dtype.
Tensor& InPlace(Tensor& t, const Tensor& result, const char* op) {
  const NodePtr old_node = NodeOf(t, op);
  const NodePtr new_node = NodeOf(result, op);
  const ir::Shape& before = old_node->shape;
  const ir::Shape& after = new_node->shape;
  if (before != after) {
    lazy::ThrowInvalid(absl::StrCat(op, ": the result ", after.ToString(),
                                    " would not keep the tensor's shape and dtype ",
                                    before.ToString(),
                                    " (the other operand may broadcast to "
                                    "the tensor, not the tensor to it)"));
  }
  return t.assign(result);
}

}  // namespace

Tensor operator+(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kAdd, "add", a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kSubtract, "subtract", a, b);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kMultiply, "multiply", a, b);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kDivide, "divide", a, b);
}
Tensor operator+(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kAdd, "add", a, b); }
Tensor operator-(const Tensor& a, Scalar b) {
  return WithScalar(ir::Op::kSubtract, "subtract", a, b);
}
Tensor operator*(const Tensor& a, Scalar b) {
  return WithScalar(ir::Op::kMultiply, "multiply", a, b);
}
Tensor operator/(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kDivide, "divide", a, b); }
Tensor operator+(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kAdd, "add", a, b); }
Tensor operator-(Scalar a, const Tensor& b) {
  return ScalarWith(ir::Op::kSubtract, "subtract", a, b);
}
Tensor operator*(Scalar a, const Tensor& b) {
  return ScalarWith(ir::Op::kMultiply, "multiply", a, b);
}
Tensor operator/(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kDivide, "divide", a, b); }
Tensor operator-(const Tensor& a) { return a.neg(); }

Tensor maximum(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kMaximum, "maximum", a, b); }
Tensor minimum(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kMinimum, "minimum", a, b); }
Tensor pow(const Tensor& a, Scalar exponent) {
  return WithScalar(ir::Op::kPower, "pow", a, exponent);
}

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kEq, "eq", a, b); }
Tensor operator!=(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kNe, "ne", a, b); }
Tensor operator<(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kLt, "lt", a, b); }
Tensor operator<=(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kLe, "le", a, b); }
Tensor operator>(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kGt, "gt", a, b); }
Tensor operator>=(const Tensor& a, Scalar b) { return WithScalar(ir::Op::kGe, "ge", a, b); }
Tensor operator==(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kEq, "eq", a, b); }
Tensor operator!=(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kNe, "ne", a, b); }
Tensor operator<(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kLt, "lt", a, b); }
Tensor operator<=(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kLe, "le", a, b); }
Tensor operator>(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kGt, "gt", a, b); }
Tensor operator>=(Scalar a, const Tensor& b) { return ScalarWith(ir::Op::kGe, "ge", a, b); }

Tensor& Tensor::operator+=(const Tensor& other) { return InPlace(*this, *this + other, "+="); }
Tensor& Tensor::operator-=(const Tensor& other) { return InPlace(*this, *this - other, "-="); }
Tensor& Tensor::operator*=(const Tensor& other) { return InPlace(*this, *this * other, "*="); }
Tensor& Tensor::operator/=(const Tensor& other) { return InPlace(*this, *this / other, "/="); }
Tensor& Tensor::operator+=(Scalar other) { return InPlace(*this, *this + other, "+="); }
Tensor& Tensor::operator-=(Scalar other) { return InPlace(*this, *this - other, "-="); }
Tensor& Tensor::operator*=(Scalar other) { return InPlace(*this, *this * other, "*="); }
Tensor& Tensor::operator/=(Scalar other) { return InPlace(*this, *this / other, "/="); }

}  // namespace seam
