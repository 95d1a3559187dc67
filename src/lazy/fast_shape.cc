#include "src/lazy/fast_shape.h"

#include "src/ir/shape.h"
#include "src/lazy/attributes.h"
#include "src/lazy/node_ops.h"

// Each shortcut gives the shape rule's result for the cases it takes (src/ir/shape_rules*.cc
// and InferShape's checks: arity, operand dtypes in the op's row of ops.def, no leaf
// fields) and leaves everything else to the rule. Operand shapes are valid: every node's
// shape passed its rule or came from a validated literal. tests/unit/make_node_test.cc
// compares each shortcut with the rule.
namespace seam::lazy {
namespace {

// The dtypes of each op's row of ops.def (ir::OpDTypes, here without a call).
constexpr ir::DTypeSet kOpDTypes[] = {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) ir::dtypes,
#include "src/ir/ops.def"
#undef SEAM_IR_OP
};

bool Accepts(ir::Op op, ir::DType dtype) {
  return ir::Contains(kOpDTypes[static_cast<size_t>(op)], dtype);
}

// ir::ValidateShape(shape).ok(), without building a status: a valid dtype, no negative
// dimension, and a byte size (zero dimensions skipped) that fits in int64.
bool ValidShape(const ir::Shape& shape) {
  if (static_cast<int>(shape.dtype) >= ir::kNumDTypes) return false;
  int64_t count = static_cast<int64_t>(ir::DTypeSize(shape.dtype));
  for (int64_t d : shape.dims) {
    if (d < 0 || (d != 0 && __builtin_mul_overflow(count, d, &count))) return false;
  }
  return true;
}

// The one attribute of an op that has exactly one, when it is named `name`.
const std::vector<int64_t>* Single(const ir::Attributes& attrs, std::string_view name) {
  if (attrs.size() != 1 || !SameName(attrs.begin()->first, name)) return nullptr;
  return &attrs.begin()->second;
}

// A matrix product of two matrices of one dtype, one contracting dimension each and no
// batch (matmul and its gradients): [lhs free, rhs free] when the contracted sizes agree.
bool MatrixProductShape(const NodeList& operands, const ir::Attributes& attrs, ir::Shape& out) {
  if (operands.size() != 2 || attrs.size() != 4) return false;
  const ir::Shape& lhs = operands[0]->shape;
  const ir::Shape& rhs = operands[1]->shape;
  if (lhs.rank() != 2 || rhs.rank() != 2 || lhs.dtype != rhs.dtype) return false;
  // A map's order: lhs_batch, lhs_contracting, rhs_batch, rhs_contracting.
  auto it = attrs.begin();
  const auto& lb = *it++;
  const auto& lc = *it++;
  const auto& rb = *it++;
  const auto& rc = *it;
  if (!SameName(lb.first, "lhs_batch") || !SameName(lc.first, "lhs_contracting") ||
      !SameName(rb.first, "rhs_batch") || !SameName(rc.first, "rhs_contracting") ||
      !lb.second.empty() || !rb.second.empty() || lc.second.size() != 1 || rc.second.size() != 1) {
    return false;
  }
  const int64_t l = lc.second[0], r = rc.second[0];
  if (l < 0 || l > 1 || r < 0 || r > 1 || lhs.dims[l] != rhs.dims[r]) return false;
  const int64_t dims[2] = {lhs.dims[1 - l], rhs.dims[1 - r]};
  out.dtype = lhs.dtype;
  SetDims(out.dims, dims);
  return true;
}

// broadcast_in_dim (every broadcast the front end inserts) with a valid mapping: the
// declared dimensions with the operand's dtype.
bool BroadcastShape(const NodeList& operands, const ir::Attributes& attrs, ir::Shape& declared,
                    ir::Shape& out) {
  const std::vector<int64_t>* mapping = Single(attrs, "dims");
  if (operands.size() != 1 || mapping == nullptr) return false;
  const ir::Shape& operand = operands[0]->shape;
  const std::vector<int64_t>& dims = *mapping;
  if (dims.size() != operand.dims.size()) return false;
  ir::Shape result{operand.dtype, std::move(declared.dims)};
  auto reject = [&] {
    declared.dims = std::move(result.dims);
    return false;
  };
  if (!ValidShape(result)) return reject();
  int64_t previous = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    if (d <= previous || d >= result.rank()) return reject();  // increasing, in range
    previous = d;
    if (operand.dims[i] != result.dims[d] && operand.dims[i] != 1) return reject();
  }
  out = std::move(result);
  return true;
}

// reshape to valid declared dimensions with the operand's element count: those dimensions
// with the operand's dtype.
bool ReshapeShape(const NodeList& operands, const ir::Attributes& attrs, ir::Shape& declared,
                  ir::Shape& out) {
  if (operands.size() != 1 || !attrs.empty()) return false;
  const ir::Shape& operand = operands[0]->shape;
  ir::Shape result{operand.dtype, std::move(declared.dims)};
  if (!ValidShape(result) || result.num_elements() != operand.num_elements()) {
    declared.dims = std::move(result.dims);
    return false;
  }
  out = std::move(result);
  return true;
}

// A reduction over valid, strictly increasing axes: the other dimensions.
bool ReduceShape(ir::Op op, const NodeList& operands, const ir::Attributes& attrs, ir::Shape& out) {
  const std::vector<int64_t>* axes = Single(attrs, "axes");
  if (operands.size() != 1 || axes == nullptr) return false;
  const ir::Shape& operand = operands[0]->shape;
  if (!Accepts(op, operand.dtype)) return false;
  const int64_t rank = operand.rank();
  int64_t previous = -1;
  for (int64_t a : *axes) {
    if (a <= previous || a >= rank) return false;  // in range and strictly increasing
    previous = a;
  }
  constexpr int64_t kMaxKept = 8;
  if (rank - static_cast<int64_t>(axes->size()) > kMaxKept) return false;
  int64_t kept[kMaxKept];
  size_t count = 0, next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (next < axes->size() && (*axes)[next] == d) {
      ++next;
    } else {
      kept[count++] = operand.dims[d];
    }
  }
  out.dtype = operand.dtype;
  SetDims(out.dims, std::span<const int64_t>(kept, count));
  return true;
}

// convert and select: the declared dtype with the operand's dimensions, or the values'
// shape under a pred predicate.
bool ConvertOrSelectShape(ir::Op op, const NodeList& operands, const ir::Shape& declared,
                          ir::Shape& out) {
  const ir::Shape& first = operands[0]->shape;
  if (op == ir::Op::kConvert) {
    // Only when that shape is valid (its byte size may overflow where the operand's did not).
    if (operands.size() != 1 || static_cast<int>(declared.dtype) >= ir::kNumDTypes) {
      return false;
    }
    int64_t bytes = static_cast<int64_t>(ir::DTypeSize(declared.dtype));
    for (int64_t d : first.dims) {
      if (d != 0 && __builtin_mul_overflow(bytes, d, &bytes)) return false;
    }
    out.dtype = declared.dtype;
    SetDims(out.dims, first.dims);
    return true;
  }
  if (op != ir::Op::kSelect) return false;
  // A pred predicate and two values of one shape, all with the same dimensions.
  if (operands.size() != 3 || first.dtype != ir::DType::kPred) return false;
  const ir::Shape& value = operands[1]->shape;
  const ir::Shape& other = operands[2]->shape;
  if (other.dtype != value.dtype || !SameDims(first.dims, value.dims) ||
      !SameDims(other.dims, value.dims)) {
    return false;
  }
  out.dtype = value.dtype;
  SetDims(out.dims, value.dims);
  return true;
}

// Elementwise ops (unary, binary and compare rows of ops.def, and convert, select) whose
// operands agree.
bool ElementwiseShape(ir::Op op, const NodeList& operands, const ir::Attributes& attrs,
                      const ir::Shape& declared, ir::Shape& out) {
  if (!attrs.empty() || operands.empty()) return false;
  const ir::Shape& first = operands[0]->shape;
  size_t arity = 2;
  ir::DType dtype = first.dtype;
  switch (ir::OpElementwiseKind(op)) {
    case ir::ElementwiseKind::kUnary:
      arity = 1;
      break;
    case ir::ElementwiseKind::kBinary:
      break;
    case ir::ElementwiseKind::kCompare:
      dtype = ir::DType::kPred;
      break;
    case ir::ElementwiseKind::kNone:
      return ConvertOrSelectShape(op, operands, declared, out);
  }
  if (operands.size() != arity || !Accepts(op, first.dtype)) return false;
  if (arity == 2 &&
      (operands[1]->shape.dtype != first.dtype || !SameDims(operands[1]->shape.dims, first.dims))) {
    return false;
  }
  out.dtype = dtype;
  SetDims(out.dims, first.dims);
  return true;
}

}  // namespace

bool FastShape(ir::Op op, const NodeList& operands, const ir::Attributes& attrs,
               ir::Shape& declared, ir::Shape& out) {
  switch (op) {
    case ir::Op::kDotGeneral:
      return MatrixProductShape(operands, attrs, out);
    case ir::Op::kBroadcastInDim:
      return BroadcastShape(operands, attrs, declared, out);
    case ir::Op::kReshape:
      return ReshapeShape(operands, attrs, declared, out);
    case ir::Op::kReduceSum:
    case ir::Op::kReduceProduct:
    case ir::Op::kReduceMax:
    case ir::Op::kReduceMin:
      return ReduceShape(op, operands, attrs, out);
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kDotGeneral
#define SEAM_CASES_EXCEPT_kBroadcastInDim
#define SEAM_CASES_EXCEPT_kReshape
#define SEAM_CASES_EXCEPT_kReduceSum
#define SEAM_CASES_EXCEPT_kReduceProduct
#define SEAM_CASES_EXCEPT_kReduceMax
#define SEAM_CASES_EXCEPT_kReduceMin
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kDotGeneral
#undef SEAM_CASES_EXCEPT_kBroadcastInDim
#undef SEAM_CASES_EXCEPT_kReshape
#undef SEAM_CASES_EXCEPT_kReduceSum
#undef SEAM_CASES_EXCEPT_kReduceProduct
#undef SEAM_CASES_EXCEPT_kReduceMax
#undef SEAM_CASES_EXCEPT_kReduceMin
      break;
  }
  return ElementwiseShape(op, operands, attrs, declared, out);
}

}  // namespace seam::lazy
