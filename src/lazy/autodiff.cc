// Reverse-mode gradients over the recorded graph: one vector-Jacobian rule per primitive the
// front end emits. The gradient is itself a lazy graph that shares the forward nodes.
#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "src/lazy/autodiff_index.h"
#include "src/lazy/autodiff_window.h"
#include "src/lazy/replicated.h"
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
NodePtr Div(const NodePtr& a, const NodePtr& b) {
  return lazy::MakeNode(ir::Op::kDivide, {a, b}, {});
}
NodePtr Neg(const NodePtr& a) { return lazy::Unary(ir::Op::kNeg, a); }
NodePtr Full(const NodePtr& like, double v) {
  return lazy::BroadcastTo(lazy::ConstantNode(lazy::ScalarLiteral(like->shape.dtype, v)),
                           like->shape.dims);
}

// Sums `g` (the shape of a broadcast's result) back to the broadcast's operand shape.
NodePtr Unbroadcast(const Node& node, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const std::vector<int64_t>& mapping = lazy::AttrValues(node.attrs(), "dims");
  lazy::SmallInts axes;
  for (int64_t d = 0; d < node.shape.rank(); ++d) {
    auto it = std::find(mapping.begin(), mapping.end(), d);
    // Dimensions the broadcast added, and those it stretched from 1.
    if (it == mapping.end() || x->shape.dims[it - mapping.begin()] != node.shape.dims[d]) {
      axes.push_back(d);
    }
  }
  return lazy::Reshape(lazy::Reduce(ir::Op::kReduceSum, g, axes), x->shape.dims);
}

lazy::SmallInts FreeDims(const ir::Shape& shape, lazy::Ints batch, lazy::Ints contracting) {
  lazy::SmallInts free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// The adjoint of operand i (x) of a dot_general, whose adjoint g has the dimensions
// [batch, lhs free, rhs free]: g contracted with the other operand (y) over y's free
// dimensions gives x's batch, free and contracting dimensions in some order, which one
// transpose (skipped when it is the identity) puts back into x's order. For a plain 2-D
// product this is g . rhs^T and lhs^T . g with no transpose.
NodePtr DotVjp(const Node& node, size_t i, const NodePtr& g) {
  const NodePtr& x = node.operands[i];
  const NodePtr& y = node.operands[1 - i];
  const ir::Attributes& attrs = node.attrs();
  const std::vector<int64_t>& lhs_batch = lazy::AttrValues(attrs, "lhs_batch");
  const std::vector<int64_t>& rhs_batch = lazy::AttrValues(attrs, "rhs_batch");
  const std::vector<int64_t>& lhs_contracting = lazy::AttrValues(attrs, "lhs_contracting");
  const std::vector<int64_t>& rhs_contracting = lazy::AttrValues(attrs, "rhs_contracting");
  const std::vector<int64_t>& xb = i == 0 ? lhs_batch : rhs_batch;
  const std::vector<int64_t>& xc = i == 0 ? lhs_contracting : rhs_contracting;
  const std::vector<int64_t>& yb = i == 0 ? rhs_batch : lhs_batch;
  const std::vector<int64_t>& yc = i == 0 ? rhs_contracting : lhs_contracting;
  const auto nb = static_cast<int64_t>(xb.size());
  const lazy::SmallInts x_free = FreeDims(x->shape, xb, xc);
  const lazy::SmallInts y_free = FreeDims(y->shape, yb, yc);
  const auto nx = static_cast<int64_t>(x_free.size());
  const auto ny = static_cast<int64_t>(y_free.size());
  lazy::SmallInts g_batch(nb), g_y;  // g's batch dims; g's dims that are y's free dims
  for (int64_t j = 0; j < nb; ++j) g_batch[j] = j;
  for (int64_t j = 0; j < ny; ++j) g_y.push_back(i == 0 ? nb + nx + j : nb + j);
  // r = [batch, x free, y's contracting dims ascending] (g first) or
  //     [batch, y's contracting dims ascending, x free] (y first). The lhs's adjoint takes
  // the first and the rhs's the second, unless only the other order needs no transpose
  // (a weight kept [out, in] and used as x . w^T: its adjoint is g^T . x, already [out, in]).
  lazy::SmallInts sorted_yc(yc.begin(), yc.end());
  std::sort(sorted_yc.begin(), sorted_yc.end());
  auto perm_for = [&](bool g_first) {
    lazy::SmallInts perm(x->shape.rank());
    for (int64_t j = 0; j < nb; ++j) perm[xb[j]] = j;
    for (int64_t j = 0; j < nx; ++j) {
      perm[x_free[j]] = g_first ? nb + j : nb + static_cast<int64_t>(yc.size()) + j;
    }
    for (size_t j = 0; j < xc.size(); ++j) {
      int64_t rank = std::find(sorted_yc.begin(), sorted_yc.end(), yc[j]) - sorted_yc.begin();
      perm[xc[j]] = g_first ? nb + nx + rank : nb + rank;
    }
    return perm;
  };
  auto is_identity = [](const lazy::SmallInts& perm) {
    for (size_t d = 0; d < perm.size(); ++d) {
      if (perm[d] != static_cast<int64_t>(d)) return false;
    }
    return true;
  };
  bool g_first = i == 0;
  lazy::SmallInts perm = perm_for(g_first);
  if (!is_identity(perm) && is_identity(perm_for(!g_first))) {
    g_first = !g_first;
    perm = perm_for(g_first);
  }
  NodePtr r = g_first ? lazy::DotGeneral(g, y, g_y, y_free, g_batch, yb)
                      : lazy::DotGeneral(y, g, y_free, g_y, yb, g_batch);
  return is_identity(perm) ? r : lazy::Transpose(r, perm);
}

[[noreturn]] void NoRule(const Node& node);

// The adjoint of a pad's operand: the part of g that came from the operand. Without
// interior padding that is g padded by the negated amounts (cropping what was added, and
// zero-filling what a negative amount had cropped); with it, a strided slice.
NodePtr PadVjp(const Node& node, const NodePtr& g) {
  const auto& low = node.attrs().at("low");
  const auto& high = node.attrs().at("high");
  const auto& interior = node.attrs().at("interior");
  NodePtr zero = lazy::ConstantNode(lazy::ScalarLiteral(g->shape.dtype, 0));
  bool plain = std::all_of(interior.begin(), interior.end(), [](int64_t v) { return v == 0; });
  if (plain) {
    std::vector<int64_t> neg_low, neg_high;
    for (size_t d = 0; d < low.size(); ++d) {
      neg_low.push_back(-low[d]);
      neg_high.push_back(-high[d]);
    }
    return lazy::MakeNode(ir::Op::kPad, {g, zero},
                          {{"low", neg_low}, {"high", neg_high}, {"interior", interior}});
  }
  bool outward = std::all_of(low.begin(), low.end(), [](int64_t v) { return v >= 0; }) &&
                 std::all_of(high.begin(), high.end(), [](int64_t v) { return v >= 0; });
  if (!outward) NoRule(node);
  std::vector<int64_t> limit, stride;
  for (size_t d = 0; d < low.size(); ++d) {
    limit.push_back(node.shape.dims[d] - high[d]);
    stride.push_back(interior[d] + 1);
  }
  return lazy::MakeNode(ir::Op::kSlice, {g},
                        {{"start", low}, {"limit", limit}, {"stride", stride}});
}

[[noreturn]] void NoRule(const Node& node) {
  std::vector<std::string> shapes;
  for (const NodePtr& operand : node.operands) shapes.push_back(operand->shape.ToString());
  lazy::ThrowInvalid(absl::StrCat("grad: ", std::string(ir::OpName(node.op)), " (operands ",
                                  absl::StrJoin(shapes, ", "), ") has no gradient rule"));
}

// Ties go to the first operand.
NodePtr MinMaxVjp(const Node& node, size_t i, const NodePtr& g) {
  ir::Op cmp = node.op == ir::Op::kMaximum ? ir::Op::kGe : ir::Op::kLe;
  NodePtr first = lazy::MakeNode(cmp, {node.operands[0], node.operands[1]}, {});
  NodePtr zero = Full(g, 0);
  return i == 0 ? lazy::Select(first, g, zero) : lazy::Select(first, zero, g);
}

NodePtr TransposeVjp(const Node& node, const NodePtr& g) {
  const std::vector<int64_t>& perm = lazy::AttrValues(node.attrs(), "permutation");
  lazy::SmallInts inverse(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inverse[perm[k]] = static_cast<int64_t>(k);
  return lazy::Transpose(g, inverse);
}

// The adjoint of a slice: g padded back to the operand's shape with zeros.
NodePtr SliceVjp(const Node& node, const NodePtr& g) {
  const auto& start = node.attrs().at("start");
  const auto& stride = node.attrs().at("stride");
  std::vector<int64_t> low, high, interior;
  for (size_t d = 0; d < start.size(); ++d) {
    int64_t n = node.shape.dims[d];
    int64_t last = n == 0 ? start[d] : start[d] + (n - 1) * stride[d] + 1;
    low.push_back(start[d]);
    high.push_back(node.operands[0]->shape.dims[d] - last);
    interior.push_back(n == 0 ? 0 : stride[d] - 1);
  }
  NodePtr zero = lazy::ConstantNode(lazy::ScalarLiteral(g->shape.dtype, 0));
  return lazy::MakeNode(ir::Op::kPad, {g, zero},
                        {{"low", low}, {"high", high}, {"interior", interior}});
}

// Operand i's part of g.
NodePtr ConcatenateVjp(const Node& node, size_t i, const NodePtr& g) {
  const auto& ops = node.operands;
  int64_t axis = node.attrs().at("dimension").front();
  int64_t offset = 0;
  for (size_t k = 0; k < i; ++k) offset += ops[k]->shape.dims[axis];
  std::vector<int64_t> starts(node.shape.rank(), 0), limits = node.shape.dims,
                                                     strides(node.shape.rank(), 1);
  starts[axis] = offset;
  limits[axis] = offset + ops[i]->shape.dims[axis];
  return lazy::MakeNode(ir::Op::kSlice, {g},
                        {{"start", starts}, {"limit", limits}, {"stride", strides}});
}

NodePtr ReduceVjp(const NodePtr& self, const NodePtr& g) {
  const Node& node = *self;
  const NodePtr& x = node.operands[0];
  const std::vector<int64_t>& axes = lazy::AttrValues(node.attrs(), "axes");
  lazy::SmallInts mapping;
  for (int64_t d = 0; d < x->shape.rank(); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) mapping.push_back(d);
  }
  NodePtr spread = lazy::BroadcastMapped(g, x->shape.dims, mapping);
  if (node.op == ir::Op::kReduceSum) return spread;
  if (node.op == ir::Op::kReduceProduct) {  // prod / x: not finite where x is 0
    return Mul(spread, Div(lazy::BroadcastMapped(self, x->shape.dims, mapping), x));
  }
  NodePtr best = lazy::BroadcastMapped(self, x->shape.dims, mapping);
  NodePtr is_best = lazy::Convert(lazy::MakeNode(ir::Op::kEq, {x, best}, {}), x->shape.dtype);
  return Mul(spread, is_best);
}

// Vjp of the unary and binary rows of ops.def.
NodePtr ElementwiseVjp(const NodePtr& self, size_t i, const NodePtr& g) {
  const Node& node = *self;
  const auto& ops = node.operands;
  switch (node.op) {
    case ir::Op::kAdd:
      return g;
    case ir::Op::kSubtract:
      return i == 0 ? g : Neg(g);
    case ir::Op::kMultiply:
      return Mul(g, ops[1 - i]);
    case ir::Op::kDivide:
      return i == 0 ? Div(g, ops[1]) : Neg(Mul(g, Div(self, ops[1])));
    case ir::Op::kMaximum:
    case ir::Op::kMinimum:
      return MinMaxVjp(node, i, g);
    case ir::Op::kPower:
      if (i == 0) {  // b * a^(b-1): finite at a = 0, unlike b * a^b / a
        NodePtr b_minus_1 = lazy::MakeNode(ir::Op::kSubtract, {ops[1], Full(ops[1], 1)}, {});
        return Mul(g, Mul(ops[1], lazy::MakeNode(ir::Op::kPower, {ops[0], b_minus_1}, {})));
      }
      return Mul(g, Mul(self, lazy::Unary(ir::Op::kLog, ops[0])));
    case ir::Op::kNeg:
      return Neg(g);
    case ir::Op::kExp:
      return Mul(g, self);
    case ir::Op::kLog:
      return Div(g, ops[0]);
    case ir::Op::kTanh:
      return Mul(g, lazy::MakeNode(ir::Op::kSubtract, {Full(g, 1), Mul(self, self)}, {}));
    case ir::Op::kLogistic:
      return Mul(g, Mul(self, lazy::MakeNode(ir::Op::kSubtract, {Full(g, 1), self}, {})));
    case ir::Op::kSqrt:
      return Div(Mul(g, Full(g, 0.5)), self);
    case ir::Op::kRsqrt:
      return Mul(g, Mul(Full(g, -0.5), Mul(self, Mul(self, self))));
    case ir::Op::kAbs:
      return Mul(g, lazy::Unary(ir::Op::kSign, ops[0]));
    case ir::Op::kLog1p:
      return Div(g, Add(ops[0], Full(g, 1)));
    case ir::Op::kSign:
    case ir::Op::kFloor:
    case ir::Op::kCeil:
      return Full(g, 0);  // piecewise constant
    case ir::Op::kRemainder:
      // a - trunc(a / b) * b: d/da = 1, d/db = -trunc(a / b) = -(a - result) / b.
      if (i == 0) return g;
      return Neg(Mul(g, Div(lazy::MakeNode(ir::Op::kSubtract, {ops[0], self}, {}), ops[1])));
    case ir::Op::kErf:
      return lazy::ErfVjp(node, g);
    case ir::Op::kNot:  // booleans and bits: no derivative
    case ir::Op::kAnd:
    case ir::Op::kOr:
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#include "src/ir/op_cases.inc"
      NoRule(node);
  }
  NoRule(node);
}

// The vector-Jacobian product of `node` for operand `i`, given the output's adjoint `g`.
NodePtr Vjp(const NodePtr& self, size_t i, const NodePtr& g) {
  const Node& node = *self;
  const auto& ops = node.operands;
  switch (node.op) {
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
    return ElementwiseVjp(self, i, g);
    case ir::Op::kPad:
      return PadVjp(node, g);
    case ir::Op::kConvert:
      if (!ir::IsFloat(ops[0]->shape.dtype)) NoRule(node);
      return lazy::Convert(g, ops[0]->shape.dtype);
    case ir::Op::kSelect:
      if (i == 0) NoRule(node);
      return i == 1 ? lazy::Select(ops[0], g, Full(g, 0)) : lazy::Select(ops[0], Full(g, 0), g);
    case ir::Op::kBroadcastInDim:
      return Unbroadcast(node, g);
    case ir::Op::kReshape:
      return lazy::Reshape(g, ops[0]->shape.dims);
    case ir::Op::kTranspose:
      return TransposeVjp(node, g);
    case ir::Op::kSlice:
      return SliceVjp(node, g);
    case ir::Op::kConcatenate:
      return ConcatenateVjp(node, i, g);
    case ir::Op::kReduceSum:
    case ir::Op::kReduceProduct:
    case ir::Op::kReduceMin:
    case ir::Op::kReduceMax:
      return ReduceVjp(self, g);
    case ir::Op::kDotGeneral:
      return DotVjp(node, i, g);
    case ir::Op::kConvolution:
      return lazy::ConvolutionVjp(node, i, g);
    case ir::Op::kReduceWindowSum:
    case ir::Op::kReduceWindowMax:
    case ir::Op::kReduceWindowMin:
      return lazy::ReduceWindowVjp(node, g);
    case ir::Op::kSelectAndScatter:
      return lazy::SelectAndScatterVjp(node, i, g);
    case ir::Op::kGather:
      return lazy::GatherVjp(node, g);
    case ir::Op::kScatterAdd:
      return lazy::ScatterAddVjp(node, i, g);
    case ir::Op::kScatterReplace:
      return lazy::ScatterReplaceVjp(node, i, g);
    case ir::Op::kClamp:
      return lazy::ClampVjp(node, i, g);
    case ir::Op::kCumsum:
      return lazy::CumsumVjp(node, g);
    case ir::Op::kAllReduceSum:
      // The sum over replicas of every replica's loss: each replica's input reaches every
      // replica's output.
      return lazy::AllReduceNode(ir::Op::kAllReduceSum, g);
    case ir::Op::kAllReduceMax:
    case ir::Op::kAllReduceMin: {
      NodePtr is_best =
          lazy::Convert(lazy::MakeNode(ir::Op::kEq, {ops[0], self}, {}), ops[0]->shape.dtype);
      return Mul(lazy::AllReduceNode(ir::Op::kAllReduceSum, g), is_best);
    }
    // Constant in their operands, or pieces of data that have no derivative (indices,
    // booleans): grad() stops at them with an error naming the op.
    case ir::Op::kParameter:
    case ir::Op::kConstant:
    case ir::Op::kIota:
    case ir::Op::kArgMax:
    case ir::Op::kArgMin:
    case ir::Op::kArgsort:
    case ir::Op::kRngBitGenerator:
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      NoRule(node);
  }
  NoRule(node);
}

}  // namespace

namespace {

// The keys of the wanted parameters: a few, compared in place; many, hashed.
class KeySet {
 public:
  void Insert(const void* key) {
    if (set_.empty() && small_.size() < kSmall) {
      small_.push_back(key);
      return;
    }
    set_.insert(small_.begin(), small_.end());
    small_.clear();
    set_.insert(key);
  }
  bool Contains(const void* key) const {
    if (!set_.empty()) return set_.contains(key);
    for (const void* k : small_) {
      if (k == key) return true;
    }
    return false;
  }

 private:
  static constexpr size_t kSmall = 16;
  absl::InlinedVector<const void*, kSmall> small_;
  absl::flat_hash_set<const void*> set_;
};

// The graph of a loss in post-order, as grad walks it. A key (a leaf's value, or another
// node itself) is numbered by the position of its first node. The walk does not enter
// wanted nodes; every other node's operands come before it.
struct GradGraph {
  struct Position {
    const NodePtr* node;  // kept alive by the loss's node
    int slot;             // its key's number
    int operand_begin;    // into operands
    bool wanted;          // its key is a wanted parameter's
    bool needed;          // it leads to a wanted parameter
  };
  std::vector<Position> order;
  std::vector<int> operands;  // positions; none for wanted nodes
  struct Frame {
    const NodePtr* node;
    size_t next;
    bool wanted;
  };
  std::vector<Frame> stack;
  std::vector<NodePtr> adjoint;  // per key number
  std::vector<int> param_slots;  // per parameter: its key number, -1 if not in the graph
  // Scratch of this thread's calls, kept for the next (clear() keeps the capacity).
  bool in_use = false;
  void Clear() {
    adjoint.clear();
    param_slots.clear();
    order.clear();
    operands.clear();
    stack.clear();
  }
};

// Walks the graph of `root` into `graph`, marking nodes and values in place (one walk at a
// time: lazy::GraphMarks), and sets each parameter's key number.
void WalkForGrad(const NodePtr& root, const std::vector<NodePtr>& param_nodes, const KeySet& wanted,
                 GradGraph& graph) {
  lazy::GraphMarks marks;
  const uint64_t epoch = marks.epoch();
  auto push = [&](const NodePtr& node) {
    node->walk_epoch = epoch;
    node->walk_index = -1;  // until it has a position
    graph.stack.push_back({&node, 0, wanted.Contains(Key(node.get()))});
  };
  push(root);
  while (!graph.stack.empty()) {
    GradGraph::Frame& frame = graph.stack.back();
    const Node& node = **frame.node;
    if (!frame.wanted && frame.next < node.operands.size()) {
      const NodePtr& operand = node.operands[frame.next++];
      if (operand->walk_epoch != epoch) push(operand);  // `frame` is not used after this
      continue;
    }
    const int position = static_cast<int>(graph.order.size());
    node.walk_index = position;
    int slot = position;
    if (node.is_leaf()) {
      lazy::DeviceValue& value = *node.value;
      if (value.walk_epoch != epoch) {
        value.walk_epoch = epoch;
        value.walk_index = position;
      }
      slot = value.walk_index;
    }
    graph.order.push_back(
        {frame.node, slot, static_cast<int>(graph.operands.size()), frame.wanted, false});
    if (!frame.wanted) {
      for (const NodePtr& operand : node.operands) graph.operands.push_back(operand->walk_index);
    }
    graph.stack.pop_back();
  }
  for (const NodePtr& p : param_nodes) {
    int slot = -1;
    if (p->is_leaf()) {
      if (p->value->walk_epoch == epoch) slot = p->value->walk_index;
    } else if (p->walk_epoch == epoch) {
      slot = p->walk_index;
    }
    graph.param_slots.push_back(slot);
  }
}

}  // namespace

namespace lazy {

std::vector<Tensor> Gradients(const char* caller, const Tensor& loss,
                              const std::vector<Tensor>& params) {
  NodePtr root = lazy::NodeOf(loss, caller);
  if (root->shape.rank() != 0 || !ir::IsFloat(root->shape.dtype)) {
    lazy::ThrowInvalid(
        absl::StrCat(caller, ": the loss must be a float scalar, got ", root->shape.ToString()));
  }
  if (root->is_leaf() && root->operands.empty() && !params.empty()) {
    lazy::ThrowInvalid(absl::StrCat(
        caller, ": the loss ", root->shape.ToString(),
        " has no recorded operations (it was synced or read, or made from data), so nothing "
        "has a gradient: compute the gradients before syncing or reading the loss"));
  }
  std::vector<NodePtr> param_nodes;
  param_nodes.reserve(params.size());
  KeySet wanted;
  for (const Tensor& p : params) {
    param_nodes.push_back(lazy::NodeOf(p, caller));
    wanted.Insert(Key(param_nodes.back().get()));
  }

  thread_local GradGraph scratch;
  GradGraph local;
  GradGraph& graph = scratch.in_use ? local : scratch;
  graph.in_use = true;
  absl::Cleanup release = [&graph] {
    graph.Clear();
    graph.in_use = false;
  };
  WalkForGrad(root, param_nodes, wanted, graph);

  // Which nodes lead to a wanted parameter, then the adjoints from the root down. A wanted
  // node's operands were not walked; every other node's are its operands' positions.
  std::vector<GradGraph::Position>& order = graph.order;
  const size_t count = order.size();
  auto operands_of = [&](size_t i) {
    const int begin = order[i].operand_begin;
    const int end =
        i + 1 < count ? order[i + 1].operand_begin : static_cast<int>(graph.operands.size());
    return absl::Span<const int>(graph.operands.data() + begin, end - begin);
  };
  for (size_t i = 0; i < count; ++i) {
    bool need = order[i].wanted;
    if (!need && (*order[i].node)->stops_gradient) {
      order[i].needed = false;  // a constant for grad: nothing flows into its operands
      continue;
    }
    for (int position : operands_of(i)) {
      if (need) break;
      need = order[position].needed;
    }
    order[i].needed = need;
  }
  std::vector<NodePtr>& adjoint = graph.adjoint;
  adjoint.resize(count);
  adjoint[order[count - 1].slot] = Full(root, 1);
  for (size_t i = count; i-- > 0;) {
    if (order[i].wanted || adjoint[order[i].slot] == nullptr) continue;
    const NodePtr& node = *order[i].node;
    NodePtr g = adjoint[order[i].slot];
    const absl::Span<const int> positions = operands_of(i);
    for (size_t k = 0; k < node->operands.size(); ++k) {
      const int position = positions[k];
      // Only float values carry gradients (a select's predicate, indices, labels do not).
      if (!order[position].needed || !ir::IsFloat(node->operands[k]->shape.dtype)) continue;
      NodePtr contribution = Vjp(node, k, g);
      NodePtr& sum = adjoint[order[position].slot];
      sum = sum == nullptr ? std::move(contribution) : Add(sum, contribution);
    }
  }

  std::vector<Tensor> grads;
  grads.reserve(params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const int slot = graph.param_slots[k];
    if (slot < 0 || adjoint[slot] == nullptr) {
      lazy::ThrowInvalid(absl::StrCat(
          caller, ": parameter ", k, " (", param_nodes[k]->shape.ToString(),
          ") is not used by the loss: the loss does not depend on it (leave it out of the "
          "parameters, or use it in the computation of the loss)"));
    }
    grads.push_back(lazy::Wrap(adjoint[slot]));
  }
  return grads;
}

}  // namespace lazy

std::vector<Tensor> grad(const Tensor& loss, const std::vector<Tensor>& params) {
  return lazy::Gradients("grad", loss, params);
}

}  // namespace seam
