#include "src/lazy/autodiff_index.h"

#include <climits>
#include <cmath>
#include <vector>

#include "src/ir/gather.h"
#include "src/lazy/attributes.h"
#include "src/lazy/tensor_internal.h"

namespace seam::lazy {
namespace {

NodePtr Full(const NodePtr& like, double v) {
  return BroadcastTo(ConstantNode(ScalarLiteral(like->shape.dtype, v)), like->shape.dims);
}
NodePtr Mul(const NodePtr& a, const NodePtr& b) { return MakeNode(ir::Op::kMultiply, {a, b}, {}); }
NodePtr Bin(ir::Op op, const NodePtr& a, const NodePtr& b) { return MakeNode(op, {a, b}, {}); }

}  // namespace

NodePtr GatherVjp(const Node& node, const NodePtr& g) {
  const ir::Attributes& a = node.attrs();
  const NodePtr& operand = node.operands[0];
  return MakeNode(ir::Op::kScatterAdd, {Full(operand, 0), node.operands[1], g},
                  {{"update_window_dims", AttrValues(a, "offset_dims")},
                   {"inserted_window_dims", AttrValues(a, "collapsed_slice_dims")},
                   {"scatter_dims_to_operand_dims", AttrValues(a, "start_index_map")},
                   {"index_vector_dim", AttrValues(a, "index_vector_dim")}});
}

namespace {

// x (the operand's shape) read at the positions a scatter's updates go to: a gather with
// the scatter's indices and dimension numbers, so clamped indices read where they wrote.
NodePtr GatherAtUpdates(const Node& scatter, const NodePtr& x) {
  const ir::Attributes& a = scatter.attrs();
  const std::vector<int64_t>& window_dims = AttrValues(a, "update_window_dims");
  const std::vector<int64_t>& inserted = AttrValues(a, "inserted_window_dims");
  const ir::Shape& updates = scatter.operands[2]->shape;
  std::vector<int64_t> sizes;
  size_t next = 0;
  for (int64_t d = 0; d < scatter.shape.rank(); ++d) {
    bool is_inserted = false;
    for (int64_t k : inserted) is_inserted = is_inserted || k == d;
    sizes.push_back(is_inserted ? 1 : updates.dims[window_dims[next++]]);
  }
  return MakeNode(ir::Op::kGather, {x, scatter.operands[1]},
                  {{"offset_dims", window_dims},
                   {"collapsed_slice_dims", inserted},
                   {"start_index_map", AttrValues(a, "scatter_dims_to_operand_dims")},
                   {"index_vector_dim", AttrValues(a, "index_vector_dim")},
                   {"slice_sizes", sizes}});
}

NodePtr Zeros(ir::DType dtype, const std::vector<int64_t>& dims) {
  return BroadcastTo(ConstantNode(ScalarLiteral(dtype, 0)), dims);
}

}  // namespace

NodePtr ScatterAddVjp(const Node& node, size_t i, const NodePtr& g) {
  if (i == 0) return g;
  return GatherAtUpdates(node, g);
}

NodePtr ScatterReplaceVjp(const Node& node, size_t i, const NodePtr& g) {
  const NodePtr& updates = node.operands[2];
  if (i == 0) {  // g where no update landed: g with the same updates replaced by zeros
    return MakeNode(ir::Op::kScatterReplace,
                    {g, node.operands[1], Zeros(g->shape.dtype, updates->shape.dims)},
                    node.attrs());
  }
  const int64_t count = updates->shape.num_elements();
  if (count == 0) return Zeros(g->shape.dtype, updates->shape.dims);
  // Which update survives at each position: scatter every update's number (row-major in
  // the updates) with the same rule; an update whose number is read back is the last one
  // written there, the others were overwritten and get no gradient.
  const ir::DType id_type = count <= INT32_MAX ? ir::DType::kS32 : ir::DType::kS64;
  const NodePtr ids =
      Reshape(MakeNode(ir::Op::kIota, {}, {{"dimension", {0}}}, MakeShape(id_type, {count})),
              updates->shape.dims);
  const NodePtr none = BroadcastTo(ConstantNode(ScalarLiteral(id_type, -1)), node.shape.dims);
  const NodePtr last =
      MakeNode(ir::Op::kScatterReplace, {none, node.operands[1], ids}, node.attrs());
  const NodePtr survives = Bin(ir::Op::kEq, GatherAtUpdates(node, last), ids);
  return Select(survives, GatherAtUpdates(node, g), Zeros(g->shape.dtype, updates->shape.dims));
}

NodePtr ClampVjp(const Node& node, size_t i, const NodePtr& g) {
  const NodePtr& lo = node.operands[0];
  const NodePtr& x = node.operands[1];
  const NodePtr& hi = node.operands[2];
  const NodePtr inside = Bin(ir::Op::kAnd, Bin(ir::Op::kGe, x, lo), Bin(ir::Op::kLe, x, hi));
  const NodePtr below = Bin(ir::Op::kAnd, Bin(ir::Op::kLt, x, lo), Bin(ir::Op::kLe, lo, hi));
  NodePtr mask;
  if (i == 1) {
    mask = inside;
  } else if (i == 0) {
    mask = below;
  } else {
    mask = Unary(ir::Op::kNot, Bin(ir::Op::kOr, inside, below));
  }
  return Select(mask, g, Full(g, 0));
}

NodePtr ErfVjp(const Node& node, const NodePtr& g) {
  const NodePtr& x = node.operands[0];
  const NodePtr e = Unary(ir::Op::kExp, Unary(ir::Op::kNeg, Mul(x, x)));
  return Mul(g, Mul(Full(g, 2 / std::sqrt(M_PI)), e));
}

NodePtr CumsumVjp(const Node& node, const NodePtr& g) {
  const int64_t axis = AttrValues(node.attrs(), "axis")[0];
  const NodePtr running = MakeNode(ir::Op::kCumsum, {g}, {{"axis", {axis}}});
  const NodePtr total = Reduce(ir::Op::kReduceSum, g, {axis});
  std::vector<int64_t> mapping;
  for (int64_t d = 0; d < g->shape.rank(); ++d) {
    if (d != axis) mapping.push_back(d);
  }
  const NodePtr spread = BroadcastMapped(total, g->shape.dims, mapping);
  return Bin(ir::Op::kAdd, Bin(ir::Op::kSubtract, spread, running), g);
}

}  // namespace seam::lazy
