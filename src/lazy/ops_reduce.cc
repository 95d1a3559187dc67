// Reductions and the softmax composites (matmul is in ops_matmul.cc).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace lazy {

SmallInts NormalizeAxes(const char* op, const ir::Shape& shape, Ints axes) {
  SmallInts normalized;
  for (int64_t axis : axes) {
    int64_t a = axis < 0 ? axis + shape.rank() : axis;
    if (a < 0 || a >= shape.rank()) {
      ThrowInvalid(absl::StrCat(op, ": axis ", axis, " is out of range for ", shape.ToString()));
    }
    normalized.push_back(a);
  }
  std::sort(normalized.begin(), normalized.end());
  if (std::adjacent_find(normalized.begin(), normalized.end()) != normalized.end()) {
    ThrowInvalid(absl::StrCat(op, ": axes [", absl::StrJoin(axes, ","), "] repeat an axis"));
  }
  return normalized;
}

NodePtr Reduce(ir::Op op, const NodePtr& x, Ints sorted_axes) {
  return MakeNode(op, {x}, {{"axes", sorted_axes}});
}

NodePtr DotGeneral(const NodePtr& lhs, const NodePtr& rhs, Ints lhs_contracting,
                   Ints rhs_contracting, Ints lhs_batch, Ints rhs_batch) {
  return MakeNode(ir::Op::kDotGeneral, {lhs, rhs},
                  {{"lhs_batch", lhs_batch},
                   {"rhs_batch", rhs_batch},
                   {"lhs_contracting", lhs_contracting},
                   {"rhs_contracting", rhs_contracting}});
}

}  // namespace lazy

namespace {

using lazy::NodeOf;
using lazy::NodePtr;

std::vector<int64_t> AllAxes(const NodePtr& x) {
  std::vector<int64_t> axes(x->shape.rank());
  for (int64_t i = 0; i < x->shape.rank(); ++i) axes[i] = i;
  return axes;
}

// The reduced node, reshaped to keep size-1 dimensions when asked.
NodePtr ReduceKeep(ir::Op op, const char* name, const NodePtr& x, lazy::Ints axes, bool keepdim) {
  const lazy::SmallInts sorted = lazy::NormalizeAxes(name, x->shape, axes);
  if (op != ir::Op::kReduceSum && !ir::IsFloat(x->shape.dtype) && !ir::IsInteger(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(name, ": needs a numeric tensor, got ", x->shape.ToString()));
  }
  NodePtr reduced = lazy::Reduce(op, x, sorted);
  if (!keepdim) return reduced;
  lazy::SmallInts dims(x->shape.dims.begin(), x->shape.dims.end());
  for (int64_t a : sorted) dims[a] = 1;
  return lazy::Reshape(reduced, dims);
}

// The row maximum that softmax and log_softmax subtract for range (keepdim), as a constant
// for grad: the results do not depend on the value subtracted, so its exact gradient is
// zero, and differentiating it costs a mask of the input's size, a reduction and two
// passes (what the step computed before came out at rounding level, never exactly zero).
// libtorch and JAX do not differentiate it either.
NodePtr ShiftForRange(const NodePtr& x, int64_t axis) {
  NodePtr max = ReduceKeep(ir::Op::kReduceMax, "max", x, {axis}, true);
  // A fresh node (ReduceKeep's reshape), seen by nothing else yet.
  std::const_pointer_cast<lazy::Node>(max)->stops_gradient = true;
  return max;
}

// exp's check (UnaryFloat in ops_elementwise.cc), for the composites built on nodes.
void CheckFloat(const char* name, const NodePtr& x) {
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat(name, ": needs a float tensor, got ", x->shape.ToString()));
  }
}

}  // namespace

Tensor Tensor::sum() const { return sum(AllAxes(NodeOf(*this, "sum"))); }
Tensor Tensor::sum(const std::vector<int64_t>& axes, bool keepdim) const {
  return lazy::Wrap(ReduceKeep(ir::Op::kReduceSum, "sum", NodeOf(*this, "sum"), axes, keepdim));
}

Tensor Tensor::mean() const { return mean(AllAxes(NodeOf(*this, "mean"))); }
Tensor Tensor::mean(const std::vector<int64_t>& axes, bool keepdim) const {
  NodePtr x = NodeOf(*this, "mean");
  if (!ir::IsFloat(x->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat("mean: needs a float tensor, got ", x->shape.ToString()));
  }
  int64_t count = 1;
  for (int64_t a : lazy::NormalizeAxes("mean", x->shape, axes)) count *= x->shape.dims[a];
  // bfloat16 is averaged in float32 and rounded once, as PyTorch does: a count such as 257
  // has no bfloat16 value, and dividing by a rounded one would bias every mean.
  const ir::DType dtype = x->shape.dtype;
  const ir::DType compute = dtype == ir::DType::kBF16 ? ir::DType::kF32 : dtype;
  NodePtr total = ReduceKeep(ir::Op::kReduceSum, "mean", lazy::Convert(x, compute), axes, keepdim);
  // The divisor is a shape property, so it is a program constant.
  NodePtr divisor = lazy::ConstantNode(lazy::ScalarLiteral(compute, static_cast<double>(count)));
  return lazy::Wrap(
      lazy::Convert(lazy::Elementwise(ir::Op::kDivide, "mean", total, divisor), dtype));
}

Tensor Tensor::max() const { return max(AllAxes(NodeOf(*this, "max"))); }
Tensor Tensor::max(const std::vector<int64_t>& axes, bool keepdim) const {
  return lazy::Wrap(ReduceKeep(ir::Op::kReduceMax, "max", NodeOf(*this, "max"), axes, keepdim));
}

Tensor Tensor::min() const { return min(AllAxes(NodeOf(*this, "min"))); }
Tensor Tensor::min(const std::vector<int64_t>& axes, bool keepdim) const {
  return lazy::Wrap(ReduceKeep(ir::Op::kReduceMin, "min", NodeOf(*this, "min"), axes, keepdim));
}

Tensor Tensor::prod() const { return prod(AllAxes(NodeOf(*this, "prod"))); }
Tensor Tensor::prod(const std::vector<int64_t>& axes, bool keepdim) const {
  return lazy::Wrap(
      ReduceKeep(ir::Op::kReduceProduct, "prod", NodeOf(*this, "prod"), axes, keepdim));
}

Tensor Tensor::argmax(int64_t axis) const {
  // The IR's argmax (s64, the first NaN wins) converted to the int32 this API returns.
  NodePtr x = NodeOf(*this, "argmax");
  int64_t a = lazy::NormalizeAxes("argmax", x->shape, {axis}).front();
  NodePtr index = lazy::MakeNode(ir::Op::kArgMax, {x}, {{"axis", {a}}});
  return lazy::Wrap(lazy::Convert(index, ir::DType::kS32));
}

// Both built on nodes (one tensor handle for the result, not one per intermediate), with
// the errors of the tensor operations they are made of.
Tensor Tensor::log_softmax(int64_t axis) const {
  NodePtr x = NodeOf(*this, "log_softmax");
  lazy::UserOpScope scope("log_softmax", x->shape, "axis", axis);
  NodePtr shifted = lazy::Elementwise(ir::Op::kSubtract, "subtract", x, ShiftForRange(x, axis));
  CheckFloat("exp", shifted);
  NodePtr total =
      ReduceKeep(ir::Op::kReduceSum, "sum", lazy::Unary(ir::Op::kExp, shifted), {axis}, true);
  return lazy::Wrap(
      lazy::Elementwise(ir::Op::kSubtract, "subtract", shifted, lazy::Unary(ir::Op::kLog, total)));
}

Tensor Tensor::softmax(int64_t axis) const {
  NodePtr x = NodeOf(*this, "softmax");
  lazy::UserOpScope scope("softmax", x->shape, "axis", axis);
  NodePtr shifted = lazy::Elementwise(ir::Op::kSubtract, "subtract", x, ShiftForRange(x, axis));
  CheckFloat("exp", shifted);
  NodePtr e = lazy::Unary(ir::Op::kExp, shifted);
  return lazy::Wrap(lazy::Elementwise(ir::Op::kDivide, "divide", e,
                                      ReduceKeep(ir::Op::kReduceSum, "sum", e, {axis}, true)));
}

}  // namespace seam
