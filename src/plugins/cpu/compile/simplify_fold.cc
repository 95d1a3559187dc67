// Constant folding: an instruction whose operands are all constants is computed at compile
// time by the same kernels that would compute it at run time, so the folded bytes are the
// run-time bytes.
#include <cstring>
#include <utility>

#include "src/plugins/cpu/compile/simplify_internal.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

// Ops left alone: those whose result is not a function of their operands (ops.def's
// effect: random bits, collectives), leaves, and generators whose result is larger than
// their input (folding them would only turn a cheap loop into a large constant).
bool Foldable(ir::Op op) {
  switch (ir::OpEffect(op)) {
    case ir::Effect::kRandom:
    case ir::Effect::kCollective:
      return false;
    case ir::Effect::kPure:
      break;
  }
  return op != ir::Op::kParameter && op != ir::Op::kConstant && op != ir::Op::kIota &&
         op != ir::Op::kBroadcastInDim;
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
  in.reserve(operands.size());
  for (const ir::Literal* operand : operands) in.push_back(operand->bytes.data());
  RunKernel(
      inst, [&](size_t k) -> const ir::Shape& { return operands[k]->shape; }, in, out);
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
