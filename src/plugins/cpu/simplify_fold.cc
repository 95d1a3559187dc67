// Constant folding: an instruction whose operands are all constants is computed at compile
// time by the same kernels that would compute it at run time, so the folded bytes are the
// run-time bytes.
#include <cstring>
#include <utility>

#include "src/plugins/cpu/kernels.h"
#include "src/plugins/cpu/simplify_internal.h"

namespace seam::cpu {
namespace {

// Ops left alone: leaves, generators whose result is larger than their input (folding them
// would only turn a cheap loop into a large constant) and collectives.
bool Foldable(ir::Op op) {
  switch (op) {
    case ir::Op::kParameter:
    case ir::Op::kConstant:
    case ir::Op::kIota:
    case ir::Op::kBroadcastInDim:
    case ir::Op::kAllReduceSum:
    case ir::Op::kAllReduceMax:
    case ir::Op::kAllReduceMin:
      return false;
    default:
      return true;
  }
}

}  // namespace

ir::Literal EvaluateWithKernels(const ir::Instruction& inst,
                                const std::vector<const ir::Literal*>& operands) {
  if (inst.op == ir::Op::kConstant) return inst.literal;
  ir::Literal result;
  result.shape = inst.shape;
  result.bytes.assign(inst.shape.byte_size(), 0);
  uint8_t* out = result.bytes.data();
  std::vector<const uint8_t*> in;
  for (const ir::Literal* operand : operands) in.push_back(operand->bytes.data());
  auto shape = [&](size_t k) -> const ir::Shape& { return operands[k]->shape; };
  auto attr = [&](const char* name) -> const std::vector<int64_t>& { return inst.attrs.at(name); };
  const int64_t count = inst.shape.num_elements();
  switch (inst.op) {
    case ir::Op::kParameter:
    case ir::Op::kConstant:
      break;
    case ir::Op::kIota:
      Iota(inst.shape, attr("dimension")[0], out);
      break;
    case ir::Op::kNeg:
    case ir::Op::kAbs:
    case ir::Op::kSign:
    case ir::Op::kExp:
    case ir::Op::kLog:
    case ir::Op::kLog1p:
    case ir::Op::kTanh:
    case ir::Op::kLogistic:
    case ir::Op::kSqrt:
    case ir::Op::kRsqrt:
    case ir::Op::kFloor:
    case ir::Op::kCeil:
    case ir::Op::kNot:
      Unary(inst.op, inst.shape.dtype, in[0], out, count);
      break;
    case ir::Op::kAdd:
    case ir::Op::kSubtract:
    case ir::Op::kMultiply:
    case ir::Op::kDivide:
    case ir::Op::kRemainder:
    case ir::Op::kPower:
    case ir::Op::kMaximum:
    case ir::Op::kMinimum:
    case ir::Op::kAnd:
    case ir::Op::kOr:
    case ir::Op::kEq:
    case ir::Op::kNe:
    case ir::Op::kLt:
    case ir::Op::kLe:
    case ir::Op::kGt:
    case ir::Op::kGe:
      Binary(inst.op, shape(0).dtype, in[0], in[1], out, count);
      break;
    case ir::Op::kSelect:
      Select(inst.shape.dtype, in[0], in[1], in[2], out, count);
      break;
    case ir::Op::kConvert:
      Convert(shape(0).dtype, inst.shape.dtype, in[0], out, count);
      break;
    case ir::Op::kBroadcastInDim:
      BroadcastInDim(shape(0), in[0], inst.shape, attr("dims"), out);
      break;
    case ir::Op::kReshape:
    case ir::Op::kAllReduceSum:
    case ir::Op::kAllReduceMax:
    case ir::Op::kAllReduceMin:
      // A reshape keeps the bytes; a lone replica's all_reduce is its own value.
      if (!result.bytes.empty()) std::memcpy(out, in[0], result.bytes.size());
      break;
    case ir::Op::kTranspose:
      Transpose(shape(0), in[0], attr("permutation"), out);
      break;
    case ir::Op::kSlice:
      Slice(shape(0), in[0], inst.shape, attr("start"), attr("stride"), out);
      break;
    case ir::Op::kConcatenate: {
      std::vector<ir::Shape> shapes;
      for (size_t k = 0; k < operands.size(); ++k) shapes.push_back(shape(k));
      Concatenate(shapes, in, attr("dimension")[0], out);
      break;
    }
    case ir::Op::kPad:
      Pad(shape(0), in[0], in[1], inst.shape, attr("low"), attr("interior"), out);
      break;
    case ir::Op::kReduceSum:
    case ir::Op::kReduceProduct:
    case ir::Op::kReduceMax:
    case ir::Op::kReduceMin:
      Reduce(inst.op, shape(0), in[0], attr("axes"), out);
      break;
    case ir::Op::kDotGeneral:
      DotGeneral(shape(0), in[0], shape(1), in[1],
                 DotDimensions{attr("lhs_batch"), attr("rhs_batch"), attr("lhs_contracting"),
                               attr("rhs_contracting")},
                 out);
      break;
  }
  return result;
}

std::optional<int> FoldConstant(Rewriter& rewriter, const ir::Instruction& inst) {
  if (!Foldable(inst.op)) return std::nullopt;
  if (inst.shape.num_elements() > rewriter.options().max_fold_elements) return std::nullopt;
  std::vector<const ir::Literal*> operands;
  for (int operand : inst.operands) {
    const ir::Instruction& source = rewriter.at(operand);
    if (source.op != ir::Op::kConstant) return std::nullopt;
    operands.push_back(&source.literal);
  }
  ir::Instruction folded;
  folded.op = ir::Op::kConstant;
  folded.shape = inst.shape;
  folded.literal = EvaluateWithKernels(inst, operands);
  return rewriter.Emit(std::move(folded));
}

}  // namespace seam::cpu
