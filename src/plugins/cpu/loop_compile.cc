// CompileLoop and DescribeLoop: a fusion group to tile operations (loop_kernel.h).
#include <algorithm>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/loop_kernel.h"
#include "src/plugins/cpu/strided.h"

namespace seam::cpu {
namespace {

using ir::Op;

TileOp::Kind KindOf(Op op) {
  switch (op) {
    case Op::kSelect:
      return TileOp::kSelect;
    case Op::kConvert:
      return TileOp::kConvert;
    case Op::kBroadcastInDim:
      return TileOp::kGather;
    case Op::kReshape:
      return TileOp::kCopy;
    default:
      return ir::OpArity(op) == 1 ? TileOp::kUnary : TileOp::kBinary;
  }
}

// The walk of a broadcast's operand in the result's row-major order: per result dimension
// the operand stride (0 where values repeat), then unit dimensions dropped and neighbours
// merged where one stride continues the other.
void GatherWalk(const ir::Shape& operand, const ir::Instruction& broadcast, TileOp* op) {
  const std::vector<int64_t>& map = broadcast.attrs.at("dims");
  const std::vector<int64_t> operand_strides = RowMajorStrides(operand.dims);
  const int64_t rank = broadcast.shape.rank();
  std::vector<int64_t> strides(rank, 0);
  for (size_t i = 0; i < map.size(); ++i) {
    if (operand.dims[i] == broadcast.shape.dims[map[i]]) strides[map[i]] = operand_strides[i];
  }
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = broadcast.shape.dims[d];
    if (size == 1) continue;
    if (!op->dims.empty() && op->strides.back() == strides[d] * size) {
      op->dims.back() *= size;
      op->strides.back() = strides[d];
    } else {
      op->dims.push_back(size);
      op->strides.push_back(strides[d]);
    }
  }
  if (op->dims.empty()) {
    op->dims = {1};
    op->strides = {0};
  }
}

}  // namespace

LoopKernel CompileLoop(const ir::Program& program, const FusionGroup& group) {
  LoopKernel kernel;
  kernel.count = group.count;
  kernel.inputs = group.inputs;
  kernel.outputs = group.outputs;
  auto shape = [&](int v) -> const ir::Shape& { return program.instructions[v].shape; };
  for (int v : group.inputs) kernel.input_bytes.push_back(ir::DTypeSize(shape(v).dtype));
  for (int v : group.outputs) kernel.output_bytes.push_back(ir::DTypeSize(shape(v).dtype));

  std::unordered_map<int, TileRef> ref;  // value -> where a tile of it is
  std::unordered_map<int, int> output_index;
  for (size_t k = 0; k < group.inputs.size(); ++k) {
    ref[group.inputs[k]] = TileRef{TileRef::kInput, static_cast<int>(k)};
  }
  for (size_t k = 0; k < group.outputs.size(); ++k) {
    output_index[group.outputs[k]] = static_cast<int>(k);
  }
  // A reshape, or a broadcast that keeps the element count, is only a new name for its
  // operand's tile unless it is an output.
  auto is_alias = [&](int m) {
    const ir::Instruction& inst = program.instructions[m];
    if (output_index.count(m)) return false;
    if (inst.op == Op::kReshape) return true;
    return inst.op == Op::kBroadcastInDim &&
           shape(inst.operands[0]).num_elements() == inst.shape.num_elements();
  };
  // The member each value's tile really belongs to, and the last member reading each.
  std::unordered_map<int, int> source;
  std::unordered_map<int, int> last_read;
  for (int m : group.members) {
    for (int o : program.instructions[m].operands) {
      int s = source.count(o) ? source[o] : o;
      last_read[s] = m;
    }
    if (is_alias(m)) {
      int o = program.instructions[m].operands[0];
      source[m] = source.count(o) ? source[o] : o;
    }
  }

  std::vector<int> free_slots;
  std::unordered_map<int, int> slot_owner_last;  // slot -> last reader of its value
  for (int m : group.members) {
    const ir::Instruction& inst = program.instructions[m];
    if (is_alias(m)) {
      ref[m] = ref.at(inst.operands[0]);
      continue;
    }
    TileOp op;
    op.kind = KindOf(inst.op);
    op.op = inst.op;
    op.instruction = m;
    op.dtype = shape(inst.operands[0]).dtype;
    op.result_dtype = inst.shape.dtype;
    if (op.kind == TileOp::kSelect) op.dtype = inst.shape.dtype;
    if (op.kind == TileOp::kGather) {
      if (shape(inst.operands[0]).num_elements() == inst.shape.num_elements()) {
        op.kind = TileOp::kCopy;  // an output broadcast that only adds unit dimensions
      } else {
        GatherWalk(shape(inst.operands[0]), inst, &op);
      }
    }
    for (int o : inst.operands) op.operands.push_back(ref.at(o));
    if (auto it = output_index.find(m); it != output_index.end()) {
      op.result = TileRef{TileRef::kOutput, it->second};
    } else {
      int slot;
      if (free_slots.empty()) {
        slot = kernel.scratch_slots++;
      } else {
        slot = free_slots.back();
        free_slots.pop_back();
      }
      op.result = TileRef{TileRef::kScratch, slot};
    }
    ref[m] = op.result;
    // Scratch slots whose value has no later reader become free (after this op's result
    // was placed, so no op writes over an operand of another dtype size).
    for (int o : inst.operands) {
      int s = source.count(o) ? source[o] : o;
      const TileRef& r = ref.at(s);
      if (r.kind == TileRef::kScratch && last_read[s] == m &&
          std::find(free_slots.begin(), free_slots.end(), r.index) == free_slots.end()) {
        free_slots.push_back(r.index);
      }
    }
    kernel.ops.push_back(std::move(op));
  }

  kernel.last_read_of_input.assign(group.inputs.size(), -1);
  kernel.gathered_input.assign(group.inputs.size(), false);
  kernel.writer_of_output.assign(group.outputs.size(), -1);
  for (size_t i = 0; i < kernel.ops.size(); ++i) {
    const TileOp& op = kernel.ops[i];
    for (const TileRef& r : op.operands) {
      if (r.kind != TileRef::kInput) continue;
      if (op.kind == TileOp::kGather) {
        kernel.gathered_input[r.index] = true;
      } else {
        kernel.last_read_of_input[r.index] = static_cast<int>(i);
      }
    }
    if (op.result.kind == TileRef::kOutput) {
      kernel.writer_of_output[op.result.index] = static_cast<int>(i);
    }
  }
  return kernel;
}

std::string DescribeLoop(const ir::Program& program, const LoopKernel& kernel) {
  auto name = [&](const TileRef& r) {
    switch (r.kind) {
      case TileRef::kInput:
        return absl::StrCat("in", r.index, "(%", kernel.inputs[r.index], ")");
      case TileRef::kOutput:
        return absl::StrCat("out", r.index);
      case TileRef::kScratch:
        return absl::StrCat("s", r.index);
    }
    return std::string();
  };
  std::string text;
  for (const TileOp& op : kernel.ops) {
    const ir::Instruction& inst = program.instructions[op.instruction];
    std::string operands;
    for (const TileRef& r : op.operands) {
      absl::StrAppend(&operands, operands.empty() ? "" : ", ", name(r));
    }
    const char* note = op.kind == TileOp::kCopy     ? " (copy)"
                       : op.kind == TileOp::kGather ? " (gather)"
                                                    : "";
    absl::StrAppend(&text, "%", op.instruction, " = ", std::string(ir::OpName(inst.op)), "(", operands, ")",
                    note, " -> ", name(op.result), "\n");
  }
  return text;
}

}  // namespace seam::cpu
