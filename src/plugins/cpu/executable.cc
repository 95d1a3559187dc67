#include "src/plugins/cpu/executable.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels.h"
#include "src/plugins/cpu/simplify.h"

namespace seam::cpu {
namespace {

void Copy(const uint8_t* in, uint8_t* out, size_t size) {
  if (size > 0) std::memcpy(out, in, size);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const Executable>> Executable::Compile(std::string_view ir_text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(ir_text);
  if (!program.ok()) return program.status();
  absl::StatusOr<ir::Program> simplified = Simplify(*program);
  if (!simplified.ok()) return simplified.status();
  return std::shared_ptr<const Executable>(new Executable(*std::move(simplified)));
}

Executable::Executable(ir::Program program)
    : program_(std::move(program)),
      parameter_shapes_(program_.ParameterShapes()),
      result_shapes_(program_.ResultShapes()) {
  const int n = static_cast<int>(program_.instructions.size());
  last_use_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    for (int operand : program_.instructions[i].operands) last_use_[operand] = i;
  }
  for (int r : program_.results) last_use_[r] = n;
}

void Executable::RunInstruction(const ir::Instruction& inst, const std::vector<const uint8_t*>& in,
                                uint8_t* out) const {
  auto shape = [&](int k) -> const ir::Shape& {
    return program_.instructions[inst.operands[k]].shape;
  };
  auto attr = [&](const char* name) -> const std::vector<int64_t>& { return inst.attrs.at(name); };
  int64_t count = inst.shape.num_elements();
  switch (inst.op) {
    case ir::Op::kParameter:
      return;
    case ir::Op::kConstant:
      return Copy(inst.literal.bytes.data(), out, inst.literal.bytes.size());
    case ir::Op::kIota:
      return Iota(inst.shape, attr("dimension")[0], out);
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
      return Unary(inst.op, inst.shape.dtype, in[0], out, count);
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
      return Binary(inst.op, shape(0).dtype, in[0], in[1], out, count);
    case ir::Op::kSelect:
      return Select(inst.shape.dtype, in[0], in[1], in[2], out, count);
    case ir::Op::kConvert:
      return Convert(shape(0).dtype, inst.shape.dtype, in[0], out, count);
    case ir::Op::kBroadcastInDim:
      return BroadcastInDim(shape(0), in[0], inst.shape, attr("dims"), out);
    case ir::Op::kReshape:
      return Copy(in[0], out, inst.shape.byte_size());
    case ir::Op::kTranspose:
      return Transpose(shape(0), in[0], attr("permutation"), out);
    case ir::Op::kSlice:
      return Slice(shape(0), in[0], inst.shape, attr("start"), attr("stride"), out);
    case ir::Op::kConcatenate: {
      std::vector<ir::Shape> shapes;
      for (size_t k = 0; k < inst.operands.size(); ++k) shapes.push_back(shape(k));
      return Concatenate(shapes, in, attr("dimension")[0], out);
    }
    case ir::Op::kPad:
      return Pad(shape(0), in[0], in[1], inst.shape, attr("low"), attr("interior"), out);
    case ir::Op::kReduceSum:
    case ir::Op::kReduceProduct:
    case ir::Op::kReduceMax:
    case ir::Op::kReduceMin:
      return Reduce(inst.op, shape(0), in[0], attr("axes"), out);
    case ir::Op::kDotGeneral:
      return DotGeneral(shape(0), in[0], shape(1), in[1],
                        DotDimensions{attr("lhs_batch"), attr("rhs_batch"), attr("lhs_contracting"),
                                      attr("rhs_contracting")},
                        out);
    case ir::Op::kAllReduceSum:
    case ir::Op::kAllReduceMax:
    case ir::Op::kAllReduceMin:
      // Run() meets the other replicas; alone, a replica's reduction is its own value.
      return Copy(in[0], out, inst.shape.byte_size());
  }
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceMemory>>> Executable::Run(
    const std::vector<std::shared_ptr<DeviceMemory>>& inputs, int64_t replica,
    Rendezvous* rendezvous) const {
  const int n = static_cast<int>(program_.instructions.size());
  std::vector<std::shared_ptr<DeviceMemory>> values(n);
  std::vector<const uint8_t*> operands;
  for (int i = 0; i < n; ++i) {
    const ir::Instruction& inst = program_.instructions[i];
    if (inst.op == ir::Op::kParameter) {
      values[i] = inputs[inst.parameter_index];
    } else {
      operands.clear();
      for (int o : inst.operands) operands.push_back(values[o]->data());
      auto out = std::make_shared<DeviceMemory>(inst.shape.byte_size());
      std::vector<int64_t> group;
      if (ir::IsAllReduce(inst.op) && rendezvous != nullptr) group = GroupOf(inst, replica);
      if (group.size() > 1) {
        absl::Status status =
            rendezvous->AllReduce(i, inst.op, inst.shape.dtype, group, replica, operands[0],
                                  out->data(), inst.shape.num_elements());
        if (!status.ok()) return status;
      } else {
        RunInstruction(inst, operands, out->data());
      }
      values[i] = std::move(out);
    }
    for (int operand_index : inst.operands) {
      if (last_use_[operand_index] == i) values[operand_index].reset();
    }
  }

  // A result must own fresh memory: copy when the value is a parameter (the caller still
  // owns that buffer) or when the same value appears more than once in the tuple.
  std::vector<std::shared_ptr<DeviceMemory>> results;
  results.reserve(program_.results.size());
  std::vector<bool> handed_out(n, false);
  for (int r : program_.results) {
    const ir::Instruction& inst = program_.instructions[r];
    if (inst.op == ir::Op::kParameter || handed_out[r]) {
      auto copy = std::make_shared<DeviceMemory>(values[r]->size());
      Copy(values[r]->data(), copy->data(), copy->size());
      results.push_back(std::move(copy));
    } else {
      handed_out[r] = true;
      results.push_back(values[r]);
    }
  }
  // Aliased outputs live in the donated argument's memory: the value is copied into it
  // unless it already is that block. Every value has been computed, so nothing reads the
  // donated memory any more; parameter results were copied above.
  for (const ir::Alias& alias : program_.aliases) {
    std::shared_ptr<DeviceMemory>& result = results[alias.output_index];
    const std::shared_ptr<DeviceMemory>& donated = inputs[alias.parameter_index];
    if (result != donated) Copy(result->data(), donated->data(), donated->size());
    result = donated;
  }
  return results;
}

}  // namespace seam::cpu
