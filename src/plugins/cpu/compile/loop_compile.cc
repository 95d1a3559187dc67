// CompileLoop and DescribeLoop: a fusion group to tile operations (loop_compile.h).
#include "src/plugins/cpu/compile/loop_compile.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"
#include "src/plugins/cpu/kernels/strided.h"

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
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kSelect
#define SEAM_CASES_EXCEPT_kConvert
#define SEAM_CASES_EXCEPT_kBroadcastInDim
#define SEAM_CASES_EXCEPT_kReshape
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kSelect
#undef SEAM_CASES_EXCEPT_kConvert
#undef SEAM_CASES_EXCEPT_kBroadcastInDim
#undef SEAM_CASES_EXCEPT_kReshape
      break;
  }
  return ir::OpArity(op) == 1 ? TileOp::kUnary : TileOp::kBinary;
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

// Whether every tile of the broadcast walked by dims/strides (GatherWalk) holds the same
// values: the values repeat with a period (the elements of the dimensions from the first
// one that moves through the operand to the last) that divides kTileElements, every
// dimension before those repeating it (stride 0). A broadcast of one element has period 1;
// a bias row of 256 repeated over the rows has period 256.
bool RepeatsEveryTile(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  size_t d = 0;
  while (d < dims.size() && strides[d] == 0) ++d;
  int64_t period = 1;
  for (size_t e = d; e < dims.size(); ++e) {
    period *= dims[e];
    if (period > kTileElements) return false;
  }
  return period > 0 && kTileElements % period == 0;  // an empty broadcast has no tiles
}

bool SameRef(const TileRef& a, const TileRef& b) { return a.kind == b.kind && a.index == b.index; }

bool Chainable(const TileOp& op) {
  return op.kind == TileOp::kBinary && IsFastBinary(op.op) &&
         (op.dtype == ir::DType::kF32 || op.dtype == ir::DType::kF64);
}

// The index of `r` in `operands`, added if new; -1 if that would exceed kMaxChainOperands.
int OperandIndex(std::vector<TileRef>* operands, const TileRef& r) {
  for (size_t k = 0; k < operands->size(); ++k) {
    if (SameRef((*operands)[k], r)) return static_cast<int>(k);
  }
  if (static_cast<int>(operands->size()) >= kMaxChainOperands) return -1;
  operands->push_back(r);
  return static_cast<int>(operands->size()) - 1;
}

// Moves each broadcast (kGather) up past the chainable ops just before it, so that a
// broadcast operand between two links does not split their chain (a layer norm's scale
// and shift, a GELU's constants). A gather reads only the kernel's inputs, and the ops it
// passes came earlier in program order, so none of them reads its result: the values are
// unchanged; its scratch tile lives a few ops longer.
void HoistGathers(std::vector<TileOp>* ops) {
  for (size_t j = 0; j < ops->size(); ++j) {
    if ((*ops)[j].kind != TileOp::kGather) continue;
    for (size_t k = j; k > 0 && Chainable((*ops)[k - 1]); --k) std::swap((*ops)[k - 1], (*ops)[k]);
  }
}

// Merges runs of f32/f64 binary ops of kernels_fast.cc into kChain ops: an op joins the run
// when it reads the previous op's scratch result and no later op reads that result (scratch
// results still name their member here, so each is written once). A lone op becomes a
// chain of one link where `lone_chain` says so (an output that the chain kernel streams).
void ChainOps(std::vector<TileOp>* ops, const std::function<bool(const TileOp&)>& lone_chain) {
  // Per scratch value, the last op that reads it: whether a value is read after a link is
  // one lookup, so a chain of n links costs O(n), not O(n^2).
  std::unordered_map<int, size_t> last_reader;
  for (size_t j = 0; j < ops->size(); ++j) {
    for (const TileRef& r : (*ops)[j].operands) {
      if (r.kind == TileRef::kScratch) last_reader[r.index] = j;
    }
  }
  auto read_from = [&](size_t first, const TileRef& value) {
    auto it = last_reader.find(value.index);
    return it != last_reader.end() && it->second >= first;
  };
  std::vector<TileOp> out;
  for (size_t i = 0; i < ops->size();) {
    TileOp& head = (*ops)[i];
    if (!Chainable(head)) {
      out.push_back(std::move(head));
      ++i;
      continue;
    }
    TileOp chain;
    chain.kind = TileOp::kChain;
    chain.operands = {head.operands[0]};
    chain.links.push_back(ChainLink{head.instruction, head.op, ChainShape::kLeft,
                                    OperandIndex(&chain.operands, head.operands[1])});
    size_t end = i + 1;  // ops [i, end) are in the chain
    for (; end < ops->size(); ++end) {
      const TileOp& previous = (*ops)[end - 1];
      const TileOp& next = (*ops)[end];
      if (previous.result.kind != TileRef::kScratch || !Chainable(next) ||
          next.dtype != head.dtype) {
        break;
      }
      const bool left = SameRef(next.operands[0], previous.result);
      const bool right = SameRef(next.operands[1], previous.result);
      if ((!left && !right) || read_from(end + 1, previous.result)) break;
      ChainLink link{next.instruction, next.op, ChainShape::kBoth, -1};
      if (!left || !right) {
        link.shape = left ? ChainShape::kLeft : ChainShape::kRight;
        link.operand = OperandIndex(&chain.operands, next.operands[left ? 1 : 0]);
        if (link.operand < 0) break;
      }
      chain.links.push_back(link);
    }
    if (end - i < 2 && !lone_chain(head)) {
      out.push_back(std::move(head));
      ++i;
      continue;
    }
    const TileOp& last = (*ops)[end - 1];
    chain.op = last.op;
    chain.dtype = last.dtype;
    chain.result_dtype = last.result_dtype;
    chain.element_bytes = last.element_bytes;
    chain.instruction = last.instruction;
    chain.result = last.result;
    for (const ChainLink& link : chain.links) {
      chain.steps.push_back(MakeChainStep(link.op, link.shape, link.operand));
    }
    out.push_back(std::move(chain));
    i = end;
  }
  *ops = std::move(out);
}

// Scratch results name their member until here; this gives each a slot, reusing a slot
// once its value's last reader has run. An op's result never shares a slot with one of its
// operands (so every tile loop writes memory it does not read, which keeps the compiler's
// vectorised path, and a convert never overwrites input of another width). A repeated
// broadcast (TileOp::repeats) keeps a slot to itself. Returns the number of slots.
int AssignScratch(std::vector<TileOp>* ops) {
  std::unordered_map<int, int> last_reader;  // member -> index of the last op reading it
  for (size_t i = 0; i < ops->size(); ++i) {
    for (const TileRef& r : (*ops)[i].operands) {
      if (r.kind == TileRef::kScratch) last_reader[r.index] = static_cast<int>(i);
    }
  }
  // Repeated broadcasts get slots of their own, numbered -1, -2, ... here and placed after
  // the shared ones at the end.
  std::unordered_map<int, int> slot_of;
  std::vector<int> free_slots;
  int slots = 0, own = 0;
  for (size_t i = 0; i < ops->size(); ++i) {
    TileOp& op = (*ops)[i];
    for (TileRef& r : op.operands) {
      if (r.kind == TileRef::kScratch) r.index = slot_of.at(r.index);
    }
    if (op.result.kind == TileRef::kScratch) {
      int slot;
      if (op.kind == TileOp::kGather && op.repeats) {
        slot = -++own;
      } else if (free_slots.empty()) {
        slot = slots++;
      } else {
        slot = free_slots.back();
        free_slots.pop_back();
      }
      slot_of[op.result.index] = slot;
      op.result.index = slot;
    }
    // Operands (already slots) whose value this op reads last free their slot now.
    for (auto it = last_reader.begin(); it != last_reader.end();) {
      if (it->second == static_cast<int>(i)) {
        if (const int slot = slot_of.at(it->first); slot >= 0) free_slots.push_back(slot);
        it = last_reader.erase(it);
      } else {
        ++it;
      }
    }
  }
  auto place = [slots](TileRef& r) {
    if (r.kind == TileRef::kScratch && r.index < 0) r.index = slots - r.index - 1;
  };
  for (TileOp& op : *ops) {
    place(op.result);
    for (TileRef& r : op.operands) place(r);
  }
  return slots + own;
}

// Fills the kernel's last_read_of_input, gathered_input and writer_of_output from its ops.
void NoteInputAndOutputUses(LoopKernel* kernel) {
  kernel->last_read_of_input.assign(kernel->inputs.size(), -1);
  kernel->gathered_input.assign(kernel->inputs.size(), false);
  kernel->writer_of_output.assign(kernel->outputs.size(), -1);
  for (size_t i = 0; i < kernel->ops.size(); ++i) {
    const TileOp& op = kernel->ops[i];
    for (const TileRef& r : op.operands) {
      if (r.kind != TileRef::kInput) continue;
      if (op.kind == TileOp::kGather) {
        kernel->gathered_input[r.index] = true;
      } else {
        kernel->last_read_of_input[r.index] = static_cast<int>(i);
      }
    }
    if (op.result.kind == TileRef::kOutput) {
      kernel->writer_of_output[op.result.index] = static_cast<int>(i);
    }
  }
}

}  // namespace

LoopKernel CompileLoop(const ir::Program& program, const FusionGroup& group) {
  LoopKernel kernel;
  kernel.count = group.count;
  kernel.inputs = group.inputs;
  kernel.outputs = group.outputs;
  auto shape = [&](int v) -> const ir::Shape& { return program.instructions[v].shape; };
  for (int v : group.inputs) {
    kernel.input_bytes.push_back(static_cast<int>(ir::DTypeSize(shape(v).dtype)));
  }
  for (int v : group.outputs) {
    kernel.output_bytes.push_back(static_cast<int>(ir::DTypeSize(shape(v).dtype)));
  }

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
        op.repeats = RepeatsEveryTile(op.dims, op.strides);
      }
    }
    op.element_bytes = static_cast<int>(ir::DTypeSize(op.dtype));
    for (int o : inst.operands) op.operands.push_back(ref.at(o));
    if (auto it = output_index.find(m); it != output_index.end()) {
      op.result = TileRef{TileRef::kOutput, it->second};
      op.repeats = false;  // written at each tile's own place in the output
    } else {
      op.result = TileRef{TileRef::kScratch, m};  // a slot is chosen after chaining
    }
    ref[m] = op.result;
    kernel.ops.push_back(std::move(op));
  }

  std::vector<bool> output_read(group.outputs.size(), false);
  for (const TileOp& op : kernel.ops) {
    for (const TileRef& r : op.operands) {
      if (r.kind == TileRef::kOutput) output_read[r.index] = true;
    }
  }
  // Whether `op`'s result is an output written with non-temporal stores: large, and read by
  // no other op of the kernel (a chain's result, or a lone binary op's, made a chain of one
  // link for the streaming stores: a GELU's outputs of [batch, seq, 4 * width]).
  const int64_t stream_min_bytes = ActiveStreamMinBytes();
  auto streamed = [&](const TileOp& op) {
    if (op.result.kind != TileRef::kOutput || output_read[op.result.index]) return false;
    return kernel.count * static_cast<int64_t>(ir::DTypeSize(op.result_dtype)) >= stream_min_bytes;
  };
  HoistGathers(&kernel.ops);
  ChainOps(&kernel.ops, streamed);
  kernel.scratch_slots = AssignScratch(&kernel.ops);
  for (TileOp& op : kernel.ops) {
    if (op.kind != TileOp::kChain) continue;
    op.stream = streamed(op);
    kernel.streams = kernel.streams || op.stream;
  }

  NoteInputAndOutputUses(&kernel);
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
    if (op.kind == TileOp::kChain) {
      // One line per link; the running value between links is a register ("r").
      for (size_t k = 0; k < op.links.size(); ++k) {
        const ChainLink& link = op.links[k];
        const std::string v = k == 0 ? name(op.operands[0]) : "r";
        const std::string m = link.operand >= 0 ? name(op.operands[link.operand]) : v;
        const bool last = k + 1 == op.links.size();
        const bool right = link.shape == ChainShape::kRight;
        absl::StrAppend(&text, "%", link.instruction, " = ", std::string(ir::OpName(link.op)), "(",
                        right ? m : v, ", ", right ? v : m, ") -> ",
                        last ? name(op.result) : "r (chained to the next line)",
                        last && op.stream ? " (streamed)" : "", "\n");
      }
      continue;
    }
    std::string operands;
    for (const TileRef& r : op.operands) {
      absl::StrAppend(&operands, operands.empty() ? "" : ", ", name(r));
    }
    const char* note = op.kind == TileOp::kCopy     ? " (copy)"
                       : op.kind == TileOp::kGather ? " (gather)"
                                                    : "";
    absl::StrAppend(&text, "%", op.instruction, " = ", std::string(ir::OpName(inst.op)), "(",
                    operands, ")", note, " -> ", name(op.result), "\n");
  }
  // What runs as generated code (loop_segments.h): each segment's first and last member.
  for (const LoopSegment& segment : kernel.segments) {
    absl::StrAppend(&text, "generated: %", kernel.ops[segment.first].instruction, " to %",
                    kernel.ops[segment.end - 1].instruction, " as one function (",
                    segment.end - segment.first - static_cast<int>(segment.gathers.size()) -
                        static_cast<int>(segment.row_gathers.size()),
                    " operations, values in registers",
                    segment.gathers.empty() ? "" : ", broadcasts filled before it",
                    segment.row_gathers.empty() ? "" : ", row broadcasts read in place", ")\n");
  }
  int chains = 0;
  for (const TileOp& op : kernel.ops) chains += op.chain_function != nullptr ? 1 : 0;
  if (chains > 0) absl::StrAppend(&text, "generated: ", chains, " chain(s) as functions\n");
  return text;
}

}  // namespace seam::cpu
