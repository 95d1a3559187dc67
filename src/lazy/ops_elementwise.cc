// Elementwise operations: numpy broadcasting, unary math, comparisons (the C++ operators
// and scalar operands are in ops_operators.cc).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace lazy {

NodePtr BroadcastMapped(const NodePtr& node, Ints dims, Ints mapping) {
  return MakeNode(ir::Op::kBroadcastInDim, {node}, {{"dims", mapping}},
                  MakeShape(node->shape.dtype, dims));
}

NodePtr BroadcastTo(const NodePtr& node, Ints dims) {
  if (SameDims(node->shape.dims, dims)) return node;
  // Filled by push_back: a sized constructor would zero the elements with a memset call.
  SmallInts mapping;
  const size_t rank = node->shape.dims.size();
  int64_t offset = static_cast<int64_t>(dims.size() - rank);
  for (size_t i = 0; i < rank; ++i) mapping.push_back(offset + static_cast<int64_t>(i));
  return BroadcastMapped(node, dims, mapping);
}

namespace {

// numpy broadcasting: align trailing dimensions; a size-1 dimension stretches.
SmallInts BroadcastDims(const char* name, const ir::Shape& x, const ir::Shape& y) {
  const auto& xd = x.dims;
  const auto& yd = y.dims;
  size_t rank = std::max(xd.size(), yd.size());
  SmallInts dims;
  for (size_t i = 0; i < rank; ++i) {
    int64_t xs = i < rank - xd.size() ? 1 : xd[i - (rank - xd.size())];
    int64_t ys = i < rank - yd.size() ? 1 : yd[i - (rank - yd.size())];
    if (xs != ys && xs != 1 && ys != 1) {
      ThrowInvalid(absl::StrCat(name, ": shapes ", x.ToString(), " and ", y.ToString(),
                                " cannot be broadcast together"));
    }
    dims.push_back(xs == 1 ? ys : xs);
  }
  return dims;
}

}  // namespace

NodePtr Elementwise(ir::Op op, const char* name, NodePtr x, NodePtr y) {
  if (x->shape.dtype != y->shape.dtype) {
    ThrowInvalid(absl::StrCat(name, ": element types differ: ", x->shape.ToString(), " and ",
                              y->shape.ToString(), " (", dtype_name(FromIr(x->shape.dtype)),
                              " and ", dtype_name(FromIr(y->shape.dtype)),
                              "; convert one with .to())"));
  }
  if (SameDims(x->shape.dims, y->shape.dims)) {
    return MakeBinaryNode(op, std::move(x), std::move(y));
  }
  const SmallInts dims = BroadcastDims(name, x->shape, y->shape);
  return MakeNode(op, {BroadcastTo(x, dims), BroadcastTo(y, dims)}, {});
}

NodePtr Where(const NodePtr& p, const NodePtr& a, const NodePtr& b) {
  if (p->shape.dtype != ir::DType::kPred || a->shape.dtype != b->shape.dtype) {
    ThrowInvalid(absl::StrCat("where: want a bool condition and two values of one dtype, got ",
                              p->shape.ToString(), ", ", a->shape.ToString(), " and ",
                              b->shape.ToString()));
  }
  const ir::Shape joint = MakeShape(a->shape.dtype, BroadcastDims("where", a->shape, b->shape));
  const SmallInts dims = BroadcastDims("where", p->shape, joint);
  return Select(BroadcastTo(p, dims), BroadcastTo(a, dims), BroadcastTo(b, dims));
}

NodePtr Unary(ir::Op op, const NodePtr& x) { return MakeNode(op, {x}, {}); }

NodePtr Convert(const NodePtr& x, ir::DType dtype) {
  if (x->shape.dtype == dtype) return x;
  // Only the dtype is declared: convert's result has the operand's dimensions.
  ir::Shape declared;
  declared.dtype = dtype;
  return MakeNode(ir::Op::kConvert, {x}, {}, std::move(declared));
}

NodePtr Select(const NodePtr& p, const NodePtr& a, const NodePtr& b) {
  return MakeNode(ir::Op::kSelect, {p, a, b}, {});
}

}  // namespace lazy

namespace {

using lazy::NodeOf;
using lazy::NodePtr;

Tensor Binary(ir::Op op, const char* name, const Tensor& a, const Tensor& b) {
  return lazy::Wrap(lazy::Elementwise(op, name, NodeOf(a, name), NodeOf(b, name)));
}

NodePtr ScalarFor(const Tensor& like, float value, const char* name) {
  return lazy::ScalarNode(NodeOf(like, name)->shape.dtype, value);
}

Tensor UnaryFloat(ir::Op op, const char* name, const Tensor& t) {
  NodePtr x = NodeOf(t, name);
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(name, ": needs a float tensor, got ", x->shape.ToString()));
  }
  return lazy::Wrap(lazy::Unary(op, x));
}

}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kMaximum, "maximum", a, b);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return Binary(ir::Op::kMinimum, "minimum", a, b);
}
Tensor pow(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kPower, "pow", a, b); }
Tensor eq(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kEq, "eq", a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kLt, "lt", a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return Binary(ir::Op::kGt, "gt", a, b); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return lazy::Wrap(lazy::Where(NodeOf(cond, "where"), NodeOf(a, "where"), NodeOf(b, "where")));
}

Tensor Tensor::neg() const {
  NodePtr x = NodeOf(*this, "neg");
  return lazy::Wrap(lazy::Unary(ir::Op::kNeg, x));
}
Tensor Tensor::exp() const { return UnaryFloat(ir::Op::kExp, "exp", *this); }
Tensor Tensor::log() const { return UnaryFloat(ir::Op::kLog, "log", *this); }
Tensor Tensor::tanh() const { return UnaryFloat(ir::Op::kTanh, "tanh", *this); }
Tensor Tensor::sigmoid() const { return UnaryFloat(ir::Op::kLogistic, "sigmoid", *this); }
Tensor Tensor::sqrt() const { return UnaryFloat(ir::Op::kSqrt, "sqrt", *this); }
Tensor Tensor::relu() const {
  NodePtr x = NodeOf(*this, "relu");
  return lazy::Wrap(lazy::Elementwise(ir::Op::kMaximum, "relu", x, ScalarFor(*this, 0, "relu")));
}

Tensor Tensor::to(DType dtype) const {
  NodePtr node = NodeOf(*this, "to");
  // The tensor itself when it has the dtype already (as torch.Tensor.to): another handle to
  // the same tensor, not a new one (assign gives a handle a new tensor, so the copy keeps
  // the value it had).
  if (node->shape.dtype == lazy::ToIr(dtype)) return *this;
  return lazy::Wrap(lazy::Convert(node, lazy::ToIr(dtype)));
}

}  // namespace seam
