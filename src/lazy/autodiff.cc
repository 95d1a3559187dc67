// Reverse-mode gradients over the recorded graph: one vector-Jacobian rule per primitive the
// front end emits. The gradient is itself a lazy graph that shares the forward nodes.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/lazy/tensor_internal.h"

namespace seam {
namespace {

using lazy::Node;
using lazy::NodePtr;

// Leaves are identified by their value (several leaf nodes may hold one value); other
// nodes by themselves.
const void* Key(const Node* node) {
  return node->is_leaf() ? static_cast<const void*>(node->value.get()) : node;
}

NodePtr Add(const NodePtr& a, const NodePtr& b) { return lazy::MakeNode(ir::Op::kAdd, {a, b}, {}); }
NodePtr Mul(const NodePtr& a, const NodePtr& b) {
  return lazy::MakeNode(ir::Op::kMultiply, {a, b}, {});
}
NodePtr Div(const NodePtr& a, const NodePtr& b) { return lazy::MakeNode(ir::Op::kDivide, {a, b}, {}); }
NodePtr Neg(const NodePtr& a) { return lazy::Unary(ir::Op::kNeg, a); }
NodePtr Full(const NodePtr& like, double v) {
  return lazy::BroadcastTo(lazy::ConstantNode(lazy::ScalarLiteral(like->shape.dtype, v)),
                           like->shape.dims);
}

// Sums `g` (the shape of a broadcast's result) back to the broadcast's operand shape.
NodePtr Unbroadcast(const Node& node, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const std::vector<int64_t>& mapping = node.attrs.at("dims");
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < node.shape.rank(); ++d) {
    auto it = std::find(mapping.begin(), mapping.end(), d);
    if (it == mapping.end()) {
      axes.push_back(d);
    } else if (x->shape.dims[it - mapping.begin()] != node.shape.dims[d]) {
      axes.push_back(d);
    }
  }
  return lazy::Reshape(lazy::Reduce(ir::Op::kReduceSum, g, axes), x->shape.dims);
}

[[noreturn]] void NoRule(const Node& node) {
  std::vector<std::string> shapes;
  for (const NodePtr& operand : node.operands) shapes.push_back(operand->shape.ToString());
  lazy::ThrowInvalid(absl::StrCat("grad: ", std::string(ir::OpName(node.op)), " (operands ",
                                  absl::StrJoin(shapes, ", "), ") has no gradient rule"));
}

// The vector-Jacobian product of `node` for operand `i`, given the output's adjoint `g`.
NodePtr Vjp(const NodePtr& self, size_t i, const NodePtr& g) {
  const Node& node = *self;
  const auto& ops = node.operands;
  switch (node.op) {
    case ir::Op::kAdd: return g;
    case ir::Op::kSubtract: return i == 0 ? g : Neg(g);
    case ir::Op::kMultiply: return Mul(g, ops[1 - i]);
    case ir::Op::kDivide:
      return i == 0 ? Div(g, ops[1]) : Neg(Mul(g, Div(self, ops[1])));
    case ir::Op::kMaximum:
    case ir::Op::kMinimum: {
      // Ties go to the first operand.
      ir::Op cmp = node.op == ir::Op::kMaximum ? ir::Op::kGe : ir::Op::kLe;
      NodePtr first = lazy::MakeNode(cmp, {ops[0], ops[1]}, {});
      NodePtr zero = Full(g, 0);
      return i == 0 ? lazy::Select(first, g, zero) : lazy::Select(first, zero, g);
    }
    case ir::Op::kPower:
      if (i == 0) {  // b * a^(b-1): finite at a = 0, unlike b * a^b / a
        NodePtr b_minus_1 = lazy::MakeNode(ir::Op::kSubtract, {ops[1], Full(ops[1], 1)}, {});
        return Mul(g, Mul(ops[1], lazy::MakeNode(ir::Op::kPower, {ops[0], b_minus_1}, {})));
      }
      return Mul(g, Mul(self, lazy::Unary(ir::Op::kLog, ops[0])));
    case ir::Op::kNeg: return Neg(g);
    case ir::Op::kExp: return Mul(g, self);
    case ir::Op::kLog: return Div(g, ops[0]);
    case ir::Op::kTanh: return Mul(g, lazy::MakeNode(ir::Op::kSubtract, {Full(g, 1), Mul(self, self)}, {}));
    case ir::Op::kLogistic:
      return Mul(g, Mul(self, lazy::MakeNode(ir::Op::kSubtract, {Full(g, 1), self}, {})));
    case ir::Op::kSqrt: return Div(Mul(g, Full(g, 0.5)), self);
    case ir::Op::kConvert:
      if (!ir::IsFloat(ops[0]->shape.dtype)) NoRule(node);
      return lazy::Convert(g, ops[0]->shape.dtype);
    case ir::Op::kSelect:
      if (i == 0) NoRule(node);
      return i == 1 ? lazy::Select(ops[0], g, Full(g, 0)) : lazy::Select(ops[0], Full(g, 0), g);
    case ir::Op::kBroadcastInDim: return Unbroadcast(node, g);
    case ir::Op::kReshape: return lazy::Reshape(g, ops[0]->shape.dims);
    case ir::Op::kTranspose: {
      const std::vector<int64_t>& perm = node.attrs.at("permutation");
      std::vector<int64_t> inverse(perm.size());
      for (size_t k = 0; k < perm.size(); ++k) inverse[perm[k]] = static_cast<int64_t>(k);
      return lazy::Transpose(g, inverse);
    }
    case ir::Op::kSlice: {
      const auto& start = node.attrs.at("start");
      const auto& limit = node.attrs.at("limit");
      const auto& stride = node.attrs.at("stride");
      std::vector<int64_t> low, high, interior;
      for (size_t d = 0; d < start.size(); ++d) {
        int64_t n = node.shape.dims[d];
        int64_t last = n == 0 ? start[d] : start[d] + (n - 1) * stride[d] + 1;
        low.push_back(start[d]);
        high.push_back(ops[0]->shape.dims[d] - last);
        interior.push_back(n == 0 ? 0 : stride[d] - 1);
        (void)limit;
      }
      NodePtr zero = lazy::ConstantNode(lazy::ScalarLiteral(g->shape.dtype, 0));
      return lazy::MakeNode(ir::Op::kPad, {g, zero},
                            {{"low", low}, {"high", high}, {"interior", interior}});
    }
    case ir::Op::kConcatenate: {
      int64_t axis = node.attrs.at("dimension").front();
      int64_t offset = 0;
      for (size_t k = 0; k < i; ++k) offset += ops[k]->shape.dims[axis];
      std::vector<int64_t> starts(node.shape.rank(), 0), limits = node.shape.dims,
                                                         strides(node.shape.rank(), 1);
      starts[axis] = offset;
      limits[axis] = offset + ops[i]->shape.dims[axis];
      return lazy::MakeNode(ir::Op::kSlice, {g},
                            {{"start", starts}, {"limit", limits}, {"stride", strides}});
    }
    case ir::Op::kReduceSum:
    case ir::Op::kReduceMax: {
      const std::vector<int64_t>& axes = node.attrs.at("axes");
      std::vector<int64_t> mapping;
      for (int64_t d = 0; d < ops[0]->shape.rank(); ++d) {
        if (std::find(axes.begin(), axes.end(), d) == axes.end()) mapping.push_back(d);
      }
      NodePtr spread = lazy::BroadcastMapped(g, ops[0]->shape.dims, mapping);
      if (node.op == ir::Op::kReduceSum) return spread;
      NodePtr best = lazy::BroadcastMapped(self, ops[0]->shape.dims, mapping);
      NodePtr is_best = lazy::Convert(lazy::MakeNode(ir::Op::kEq, {ops[0], best}, {}),
                                      ops[0]->shape.dtype);
      return Mul(spread, is_best);
    }
    case ir::Op::kDotGeneral: {
      bool plain = node.attrs.at("lhs_batch").empty() && ops[0]->shape.rank() == 2 &&
                   ops[1]->shape.rank() == 2 &&
                   node.attrs.at("lhs_contracting") == std::vector<int64_t>{1} &&
                   node.attrs.at("rhs_contracting") == std::vector<int64_t>{0};
      if (!plain) NoRule(node);
      // d lhs = g . rhs^T ; d rhs = lhs^T . g, without materialized transposes.
      return i == 0 ? lazy::DotGeneral(g, ops[1], {1}, {1}) : lazy::DotGeneral(ops[0], g, {0}, {0});
    }
    default: NoRule(node);
  }
}

}  // namespace

std::vector<Tensor> grad(const Tensor& loss, const std::vector<Tensor>& params) {
  NodePtr root = lazy::NodeOf(loss, "grad");
  if (root->shape.rank() != 0 || !ir::IsFloat(root->shape.dtype)) {
    lazy::ThrowInvalid(absl::StrCat("grad: the loss must be a float scalar, got ",
                                    root->shape.ToString()));
  }
  std::vector<NodePtr> param_nodes;
  absl::flat_hash_set<const void*> wanted;
  for (const Tensor& p : params) {
    param_nodes.push_back(lazy::NodeOf(p, "grad"));
    wanted.insert(Key(param_nodes.back().get()));
  }

  // Post-order of the graph (iterative), then which nodes lead to a wanted parameter.
  std::vector<NodePtr> order;
  absl::flat_hash_set<const Node*> seen;
  std::vector<std::pair<NodePtr, size_t>> stack{{root, 0}};
  seen.insert(root.get());
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (!wanted.count(Key(node.get())) && next < node->operands.size()) {
      const NodePtr& operand = node->operands[next++];
      if (seen.insert(operand.get()).second) stack.emplace_back(operand, 0);
      continue;
    }
    order.push_back(node);
    stack.pop_back();
  }
  absl::flat_hash_set<const Node*> needed;
  for (const NodePtr& node : order) {
    bool need = wanted.count(Key(node.get())) > 0;
    for (const NodePtr& operand : node->operands) need = need || needed.count(operand.get());
    if (need) needed.insert(node.get());
  }

  absl::flat_hash_map<const void*, NodePtr> adjoint;
  adjoint[Key(root.get())] = Full(root, 1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const NodePtr& node = *it;
    auto found = adjoint.find(Key(node.get()));
    if (found == adjoint.end() || wanted.count(Key(node.get()))) continue;
    NodePtr g = found->second;
    for (size_t i = 0; i < node->operands.size(); ++i) {
      const NodePtr& operand = node->operands[i];
      // Only float values carry gradients (a select's predicate, indices, labels do not).
      if (!needed.count(operand.get()) || !ir::IsFloat(operand->shape.dtype)) continue;
      NodePtr contribution = Vjp(node, i, g);
      auto [slot, inserted] = adjoint.emplace(Key(operand.get()), contribution);
      if (!inserted) slot->second = Add(slot->second, contribution);
    }
  }

  std::vector<Tensor> grads;
  for (size_t k = 0; k < params.size(); ++k) {
    auto found = adjoint.find(Key(param_nodes[k].get()));
    if (found == adjoint.end()) {
      lazy::ThrowInvalid(absl::StrCat("grad: parameter ", k, " (", param_nodes[k]->shape.ToString(),
                                      ") is not in the graph of the loss (a synced loss is a plain value: take grad before "
                                      "reading or syncing it)"));
    }
    grads.push_back(lazy::Wrap(found->second));
  }
  return grads;
}

}  // namespace seam
