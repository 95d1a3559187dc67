// Node-level operations of the lazy front end: building checked nodes (no broadcasting
// unless named so), scalars and literals, and the errors thrown to the user. Nothing here
// knows seam::Tensor, so the step machinery may use it; the files implementing the public
// API wrap the nodes into tensors (src/lazy/tensor_internal.h). Implemented by
// src/lazy/tensor.cc and the ops_*.cc files.
#ifndef SEAM_LAZY_NODE_OPS_H_
#define SEAM_LAZY_NODE_OPS_H_

#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "src/lazy/attributes.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

[[noreturn]] void Throw(const absl::Status& status);
[[noreturn]] void ThrowInvalid(const std::string& message);

// While alive, an error thrown through Throw or ThrowInvalid names the user's operation
// instead of the internal one that raised it: "softmax(axis=5) on f32[4,3]: axis 5 is out of
// range for f32[4,3]", not "max: ...". Composites (softmax, gelu, cross_entropy) open one;
// the outermost scope on a thread wins. Nothing is formatted unless an error is thrown.
class UserOpScope {
 public:
  // `input` must outlive the scope; `arg` (optional) names one integer argument.
  UserOpScope(const char* op, const ir::Shape& input, const char* arg = nullptr, int64_t value = 0);
  ~UserOpScope();
  UserOpScope(const UserOpScope&) = delete;
  UserOpScope& operator=(const UserOpScope&) = delete;

 private:
  bool outermost_;
};

// A node checked by the IR's shape rules; `declared` gives the result for ops whose shape
// is part of the call (broadcast_in_dim, reshape, convert, iota). The attributes become
// the node's shared set (src/lazy/attributes.h).
NodePtr MakeNode(ir::Op op, NodeList operands, std::initializer_list<Attr> attrs,
                 ir::Shape declared = {});
NodePtr MakeNode(ir::Op op, NodeList operands, const ir::Attributes& attrs,
                 ir::Shape declared = {});
// MakeNode for a binary op without attributes (what numpy-broadcast ops record once their
// operands agree): the operand list is built in the node itself.
NodePtr MakeBinaryNode(ir::Op op, NodePtr x, NodePtr y);
NodePtr ConstantNode(ir::Literal literal);
NodePtr DataLeaf(ir::Literal literal);
// A scalar of `dtype`: an IR constant for 0 and +-1, program data otherwise. The data
// leaves are shared: while a graph of this thread holds the leaf of an equal scalar (same
// dtype, same value), that leaf is returned (one parameter per value in a step's program).
NodePtr ScalarNode(ir::DType dtype, double value);
// The same, always as data (0 and +-1 too), shared as above: for values that change from
// step to step, such as an optimizer's hyperparameters, so that the program does not.
NodePtr DataScalarNode(ir::DType dtype, double value);
// The same for an integer: exact for s64 and for s32 values in range (others go through
// double, as ScalarNode).
NodePtr IntScalarNode(ir::DType dtype, int64_t value);
ir::Literal ScalarLiteral(ir::DType dtype, double value);
ir::Literal FullLiteral(ir::DType dtype, absl::Span<const int64_t> dims, double value);
ir::Literal FullIntLiteral(ir::DType dtype, absl::Span<const int64_t> dims, int64_t value);

// Dimension or axis lists by reference: a vector, an array, an inlined vector or a braced
// list (which lives until the end of the call's full expression).
using Ints = absl::Span<const int64_t>;
// Dimension lists built on the stack by the ops (a shape has few dimensions).
using SmallInts = absl::InlinedVector<int64_t, 6>;

// Node-level operations (no broadcasting unless named so); used by the public API and by
// the gradient rules.
NodePtr BroadcastTo(const NodePtr& node, Ints dims);
NodePtr BroadcastMapped(const NodePtr& node, Ints dims, Ints mapping);
NodePtr Elementwise(ir::Op op, const char* name, NodePtr x, NodePtr y);  // numpy broadcast
NodePtr Unary(ir::Op op, const NodePtr& x);
NodePtr Reshape(const NodePtr& x, Ints dims);
NodePtr Transpose(const NodePtr& x, Ints permutation);
NodePtr Reduce(ir::Op op, const NodePtr& x, Ints sorted_axes);
NodePtr Convert(const NodePtr& x, ir::DType dtype);
NodePtr Select(const NodePtr& p, const NodePtr& a, const NodePtr& b);  // same shapes
NodePtr Where(const NodePtr& p, const NodePtr& a, const NodePtr& b);   // broadcasting
NodePtr DotGeneral(const NodePtr& lhs, const NodePtr& rhs, Ints lhs_contracting,
                   Ints rhs_contracting, Ints lhs_batch = {}, Ints rhs_batch = {});

// Full index vectors for an index along `axis` (torch.gather / scatter, take_along_axis):
// for `index` (s32 or s64) of rank r, the [*index.shape, r] array whose vector at position
// p is p with entry `axis` replaced by index[p] (iotas concatenated with the index).
NodePtr AlongAxisIndexVectors(const NodePtr& index, int64_t axis);

// A shape of `dtype` and `dims`, its dimension buffer taken as SetDims does.
ir::Shape MakeShape(ir::DType dtype, Ints dims);

// Whether two dimension lists are equal, compared inline (std::vector's == calls memcmp,
// which costs more than the compare for the few dimensions of a shape).
inline bool SameDims(Ints a, Ints b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// Sorted, checked axes (negative ones count from the end); `op` names the caller in errors.
SmallInts NormalizeAxes(const char* op, const ir::Shape& shape, Ints axes);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_NODE_OPS_H_
