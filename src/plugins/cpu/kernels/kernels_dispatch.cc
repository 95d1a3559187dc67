// The one switch from an IR instruction to its kernel, shared by the executable (for
// instructions outside fusion groups) and by constant folding (so folded bytes are the
// bytes a run would compute).
#include <cstring>

#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/kernels_axis.h"
#include "src/plugins/cpu/kernels/kernels_gather.h"
#include "src/plugins/cpu/kernels/kernels_rng_sort.h"
#include "src/plugins/cpu/kernels/kernels_window.h"

namespace seam::cpu {
namespace {

void Copy(const uint8_t* in, uint8_t* out, size_t size) {
  if (size > 0) std::memcpy(out, in, size);
}

}  // namespace

void RunKernel(const ir::Instruction& inst,
               absl::FunctionRef<const ir::Shape&(size_t)> operand_shape,
               const std::vector<const uint8_t*>& in, uint8_t* out) {
  auto attr = [&](const char* name) -> const std::vector<int64_t>& { return inst.attrs.at(name); };
  int64_t count = inst.shape.num_elements();
  switch (inst.op) {
    case ir::Op::kParameter:
      return;
    case ir::Op::kConstant:
      return Copy(inst.literal.bytes.data(), out, inst.literal.bytes.size());
    case ir::Op::kIota:
      return Iota(inst.shape, attr("dimension")[0], out);
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return Unary(inst.op, inst.shape.dtype, in[0], out, count);
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return Binary(inst.op, operand_shape(0).dtype, in[0], in[1], out, count);
    case ir::Op::kSelect:
      return Select(inst.shape.dtype, in[0], in[1], in[2], out, count);
    case ir::Op::kConvert:
      return Convert(operand_shape(0).dtype, inst.shape.dtype, in[0], out, count);
    case ir::Op::kBroadcastInDim:
      return BroadcastInDim(operand_shape(0), in[0], inst.shape, attr("dims"), out);
    case ir::Op::kReshape:
      return Copy(in[0], out, inst.shape.byte_size());
    case ir::Op::kTranspose:
      return Transpose(operand_shape(0), in[0], attr("permutation"), out);
    case ir::Op::kSlice:
      return Slice(operand_shape(0), in[0], inst.shape, attr("start"), attr("stride"), out);
    case ir::Op::kConcatenate: {
      std::vector<ir::Shape> shapes;
      for (size_t k = 0; k < in.size(); ++k) shapes.push_back(operand_shape(k));
      return Concatenate(shapes, in, attr("dimension")[0], out);
    }
    case ir::Op::kPad:
      return Pad(operand_shape(0), in[0], in[1], inst.shape, attr("low"), attr("interior"), out);
    case ir::Op::kReduceSum:
    case ir::Op::kReduceProduct:
    case ir::Op::kReduceMax:
    case ir::Op::kReduceMin:
      return Reduce(inst.op, operand_shape(0), in[0], attr("axes"), out);
    case ir::Op::kDotGeneral:
      return DotGeneral(operand_shape(0), in[0], operand_shape(1), in[1], DotDimensionsOf(inst),
                        out);
    case ir::Op::kConvolution:
      // Dense operands: the plan can always fall back, so Run always finishes.
      ConvolutionPlan(inst, operand_shape(0), operand_shape(1)).Run(in[0], in[1], out);
      return;
    case ir::Op::kReduceWindowSum:
    case ir::Op::kReduceWindowMax:
    case ir::Op::kReduceWindowMin:
      return ReduceWindow(inst, operand_shape(0), in[0], out);
    case ir::Op::kSelectAndScatter:
      return SelectAndScatter(inst, operand_shape(0), in[0], in[1], out);
    case ir::Op::kArgMax:
    case ir::Op::kArgMin:
      return ArgReduce(inst, operand_shape(0), in[0], out);
    case ir::Op::kCumsum:
      return Cumsum(inst, operand_shape(0), in[0], out);
    case ir::Op::kClamp:
      // maximum then minimum, in place: the same NaN and signed-zero rules as those ops.
      Binary(ir::Op::kMaximum, inst.shape.dtype, in[1], in[0], out, count);
      return Binary(ir::Op::kMinimum, inst.shape.dtype, out, in[2], out, count);
    case ir::Op::kGather:
      return Gather(inst, operand_shape(0), in[0], operand_shape(1), in[1], out);
    case ir::Op::kScatterAdd:
    case ir::Op::kScatterReplace:
      return Scatter(inst, operand_shape(0), in[0], operand_shape(1), in[1], operand_shape(2),
                     in[2], out);
    case ir::Op::kRngBitGenerator:
      return RngBitGenerator(inst.shape, in[0], in[1], out);
    case ir::Op::kArgsort:
      return Argsort(inst, operand_shape(0), in[0], out);
    case ir::Op::kAllReduceSum:
    case ir::Op::kAllReduceMax:
    case ir::Op::kAllReduceMin:
      // Executable::Run meets the other replicas; alone, a replica's reduction is its own
      // value.
      return Copy(in[0], out, inst.shape.byte_size());
  }
}

}  // namespace seam::cpu
