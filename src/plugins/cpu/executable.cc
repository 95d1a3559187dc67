#include "src/plugins/cpu/executable.h"

#include <cstring>
#include <utility>

#include "src/ir/text.h"
#include "src/plugins/cpu/kernels.h"

namespace seam::cpu {

absl::StatusOr<std::shared_ptr<const Executable>> Executable::Compile(std::string_view ir_text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(ir_text);
  if (!program.ok()) return program.status();
  return std::shared_ptr<const Executable>(new Executable(*std::move(program)));
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

std::vector<std::shared_ptr<DeviceMemory>> Executable::Run(
    const std::vector<std::shared_ptr<DeviceMemory>>& inputs) const {
  const int n = static_cast<int>(program_.instructions.size());
  std::vector<std::shared_ptr<DeviceMemory>> values(n);
  for (int i = 0; i < n; ++i) {
    const ir::Instruction& inst = program_.instructions[i];
    auto operand = [&](int k) -> const uint8_t* { return values[inst.operands[k]]->data(); };
    if (inst.op == ir::Op::kParameter) {
      values[i] = inputs[inst.parameter_index];
    } else {
      auto out = std::make_shared<DeviceMemory>(inst.shape.byte_size());
      switch (inst.op) {
        case ir::Op::kConstant:
          if (!inst.literal.bytes.empty()) {
            std::memcpy(out->data(), inst.literal.bytes.data(), inst.literal.bytes.size());
          }
          break;
        case ir::Op::kAdd:
        case ir::Op::kSubtract:
        case ir::Op::kMultiply:
          ElementwiseBinary(inst.op, inst.shape.dtype, operand(0), operand(1), out->data(),
                            inst.shape.num_elements());
          break;
        case ir::Op::kDot: {
          const ir::Shape& lhs = program_.instructions[inst.operands[0]].shape;
          Dot(inst.shape.dtype, operand(0), operand(1), out->data(), lhs.dims[0], lhs.dims[1],
              inst.shape.dims[1]);
          break;
        }
        case ir::Op::kBroadcastInDim:
          BroadcastInDim(program_.instructions[inst.operands[0]].shape, operand(0), inst.shape,
                         inst.attrs.at("dims"), out->data());
          break;
        case ir::Op::kReduceSum:
          ReduceSum(program_.instructions[inst.operands[0]].shape, operand(0),
                    inst.attrs.at("axes"), out->data());
          break;
        case ir::Op::kParameter:
          break;
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
      if (copy->size() > 0) std::memcpy(copy->data(), values[r]->data(), copy->size());
      results.push_back(std::move(copy));
    } else {
      handed_out[r] = true;
      results.push_back(values[r]);
    }
  }
  return results;
}

}  // namespace seam::cpu
