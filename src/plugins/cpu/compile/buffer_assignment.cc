#include "src/plugins/cpu/compile/buffer_assignment.h"

#include <algorithm>

namespace seam::cpu {
namespace {

using ir::Op;

constexpr int64_t kSlotAlignment = 64;

bool Contains(const std::vector<int>& values, int v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// Whether result `value` can be computed straight into parameter `parameter`'s donated
// block: nothing reads the parameter after the step that writes the value, and that step,
// if it reads the parameter itself, is a loop that reads each element before writing it.
bool InPlaceIsSafe(const ir::Program& program, const FusionPlan& plan,
                   const std::vector<LoopKernel>& kernels, int value, int parameter,
                   const std::vector<int>& parameter_instruction,
                   const std::vector<bool>& is_result) {
  const Op op = program.instructions[value].op;
  if (op == Op::kParameter || op == Op::kConstant) return false;
  const int p = parameter_instruction[parameter];
  // The end-of-run copies of a parameter result would read the overwritten block.
  if (is_result[p]) return false;
  const int writer = plan.step_of[value];
  if (writer < 0) return false;
  // An epilogue's output is written by the convolution's oneDNN call, which reads its
  // operands, bias and residual meanwhile: never in place.
  if (plan.steps[writer].epilogue) return false;
  // An interleaved group writes while the product before it still reads its operands.
  if (plan.steps[writer].interleaved &&
      Contains(StepReads(program, plan, plan.steps[writer - 1]), p)) {
    return false;
  }
  for (int s = writer; s < static_cast<int>(plan.steps.size()); ++s) {
    const std::vector<int>& reads = StepReads(program, plan, plan.steps[s]);
    if (std::find(reads.begin(), reads.end(), p) == reads.end()) continue;
    if (s > writer) return false;
    const Step& step = plan.steps[s];
    if (step.group < 0) {
      // A dot update may accumulate into its base's own block, if the gemm reads the
      // parameter nowhere else.
      const int u = plan.update_of[step.instruction];
      if (u < 0) return false;
      const DotUpdate& update = plan.updates[u];
      const int times = static_cast<int>(std::count(reads.begin(), reads.end(), p));
      if (update.base != p || update.broadcast >= 0 || times != 1) return false;
      continue;
    }
    const LoopKernel& kernel = kernels[step.group];
    const int in = static_cast<int>(std::find(kernel.inputs.begin(), kernel.inputs.end(), p) -
                                    kernel.inputs.begin());
    const int out = static_cast<int>(
        std::find(kernel.outputs.begin(), kernel.outputs.end(), value) - kernel.outputs.begin());
    if (kernel.gathered_input[in]) return false;
    if (kernel.last_read_of_input[in] > kernel.writer_of_output[out]) return false;
  }
  return true;
}

// The arena slot of a dot update's base that its result can take (step `s` is the update):
// the base dies at this step, is added whole (no broadcast) and is not also one of the
// product's operands, so the gemm accumulates into the base's own block instead of a copy
// of it. -1 otherwise.
int DotUpdateInPlaceSlot(const FusionPlan& plan, const BufferPlan& buffers,
                         const std::vector<int>& last_read, const std::vector<bool>& taken, int s,
                         int value) {
  const int u = plan.update_of[plan.steps[s].instruction];
  if (u < 0) return -1;
  const DotUpdate& update = plan.updates[u];
  if (update.result != value || update.broadcast >= 0 || update.row_bias) return -1;
  const ValueHome& home = buffers.homes[update.base];
  if (home.kind != ValueHome::kArena || taken[home.index] || last_read[update.base] != s ||
      std::count(update.reads.begin(), update.reads.end(), update.base) != 1) {
    return -1;
  }
  return home.index;
}

// The arena slot of an input of group step `s` that output `value` can overwrite in place:
// the input dies at this step, has the output's element size, and the loop reads each of
// its elements before (or while) writing the output's element there (as for a donated
// block). -1 if none, and for an epilogue (the convolution's call writes it while reading
// the convolution's operands and the epilogue's). `taken` marks slots already given to
// another output of this step.
int InPlaceSlot(const ir::Program& program, const FusionPlan& plan,
                const std::vector<LoopKernel>& kernels, const BufferPlan& buffers,
                const std::vector<int>& last_read, const std::vector<bool>& taken, int s,
                int value) {
  const Step& step = plan.steps[s];
  // A sliced region's steps run slice by slice: a value they read is still read by later
  // slices after this step has written its first one.
  if (step.epilogue || step.sliced || step.region >= 0) return -1;
  if (step.group < 0) return DotUpdateInPlaceSlot(plan, buffers, last_read, taken, s, value);
  // An interleaved group never overwrites what the product before it reads.
  const std::vector<int> none;
  const std::vector<int>& product_reads =
      step.interleaved ? StepReads(program, plan, plan.steps[s - 1]) : none;
  const LoopKernel& kernel = kernels[step.group];
  const auto found = std::find(kernel.outputs.begin(), kernel.outputs.end(), value);
  if (found == kernel.outputs.end()) return -1;  // a reduction run with the group
  const int out = static_cast<int>(found - kernel.outputs.begin());
  for (size_t in = 0; in < kernel.inputs.size(); ++in) {
    const ValueHome& home = buffers.homes[kernel.inputs[in]];
    if (home.kind != ValueHome::kArena || taken[home.index] || last_read[kernel.inputs[in]] != s ||
        Contains(product_reads, kernel.inputs[in]) || kernel.gathered_input[in] ||
        kernel.input_bytes[in] != kernel.output_bytes[out] ||
        kernel.last_read_of_input[in] > kernel.writer_of_output[out]) {
      continue;
    }
    return home.index;
  }
  return -1;
}

// Whether an all_reduce in two halves reads `value` (Gloo reads it until the finish).
bool ReadByTwoHalves(const ir::Program& program, const std::vector<int>& finish_steps, int value) {
  for (int i = 0; i < static_cast<int>(finish_steps.size()); ++i) {
    if (finish_steps[i] >= 0 && program.instructions[i].operands[0] == value) return true;
  }
  return false;
}

// Intermediates: an arena slot per value without a home yet, reused once its last reader
// has run (buffers->slot_bytes grows; offsets are laid out by the caller).
void AssignArenaSlots(const ir::Program& program, const FusionPlan& plan,
                      const std::vector<LoopKernel>& kernels, const std::vector<int>& finish_steps,
                      const std::vector<int64_t>& chunk_bytes, BufferPlan* out) {
  BufferPlan& buffers = *out;
  const int n = static_cast<int>(program.instructions.size());
  std::vector<int> last_read(n, -1);
  for (int s = 0; s < static_cast<int>(plan.steps.size()); ++s) {
    // A step's reads live on through the epilogue or group that runs interleaved with it.
    const bool epilogue_next = s + 1 < static_cast<int>(plan.steps.size()) &&
                               (plan.steps[s + 1].epilogue || plan.steps[s + 1].interleaved);
    for (int v : StepReads(program, plan, plan.steps[s])) last_read[v] = epilogue_next ? s + 1 : s;
  }
  // What a sliced region reads or writes lives until its end (its steps run once per
  // slice), and so no slot frees up inside it.
  for (const SlicedRegion& region : plan.regions) {
    for (int s = region.first; s < region.end; ++s) {
      for (int v : StepReads(program, plan, plan.steps[s])) {
        last_read[v] = std::max(last_read[v], region.end - 1);
      }
      for (int v : StepWrites(plan, plan.steps[s])) {
        last_read[v] = std::max(last_read[v], region.end - 1);
      }
    }
  }
  // An all_reduce in two halves reduces in place when its step is its operand's last
  // reader; else its operand lives until the finish. Its result is written until then.
  std::vector<bool> in_place(n, false);
  for (int i = 0; i < static_cast<int>(finish_steps.size()); ++i) {
    if (finish_steps[i] < 0) continue;
    const int operand = program.instructions[i].operands[0];
    in_place[i] = buffers.homes[i].kind == ValueHome::kNone &&
                  buffers.homes[operand].kind == ValueHome::kNone &&
                  last_read[operand] == plan.step_of[i];
    last_read[operand] = std::max(last_read[operand], finish_steps[i] - 1);
    last_read[i] = std::max(last_read[i], finish_steps[i]);
  }
  std::vector<int> slot_free_after;  // per slot: the step after which it is free again
  std::vector<int64_t>& sizes = buffers.slot_bytes;
  std::vector<bool> taken;  // per slot: given to an output of the current step in place
  for (int s = 0; s < static_cast<int>(plan.steps.size()); ++s) {
    taken.assign(sizes.size(), false);
    // A convolution whose epilogue follows writes the epilogue's output instead of its own
    // value, which nothing else reads: that value has no home.
    if (s + 1 < static_cast<int>(plan.steps.size()) && plan.steps[s + 1].epilogue) continue;
    for (int v : StepWrites(plan, plan.steps[s])) {
      if (buffers.homes[v].kind != ValueHome::kNone) continue;
      const bool chunk_local = !chunk_bytes.empty() && chunk_bytes[v] > 0;
      const int64_t value_bytes =
          chunk_local ? chunk_bytes[v]
                      : static_cast<int64_t>(program.instructions[v].shape.byte_size());
      const int64_t bytes = (value_bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
      // A loop's output overwrites an input that dies in the loop (docs/plugins.md); else
      // the smallest free slot that fits; else the largest free one, grown; else a new one.
      // A chunk-local output is written at other positions than the loop reads: never in place.
      int best =
          chunk_local ? -1 : InPlaceSlot(program, plan, kernels, buffers, last_read, taken, s, v);
      if (in_place[v] &&
          buffers.homes[program.instructions[v].operands[0]].kind == ValueHome::kArena) {
        best = buffers.homes[program.instructions[v].operands[0]].index;
      }
      if (best >= 0) {
        taken[best] = true;
      } else {
        for (int slot = 0; slot < static_cast<int>(sizes.size()); ++slot) {
          if (slot_free_after[slot] >= s) continue;
          if (best < 0) {
            best = slot;
            continue;
          }
          const bool fits = sizes[slot] >= bytes, best_fits = sizes[best] >= bytes;
          if ((fits && (!best_fits || sizes[slot] < sizes[best])) ||
              (!fits && !best_fits && sizes[slot] > sizes[best])) {
            best = slot;
          }
        }
      }
      if (best < 0) {
        best = static_cast<int>(sizes.size());
        sizes.push_back(0);
        slot_free_after.push_back(-1);
      }
      sizes[best] = std::max(sizes[best], bytes);
      slot_free_after[best] = std::max(s, last_read[v]);
      buffers.homes[v] = ValueHome{ValueHome::kArena, best};
    }
  }
}

}  // namespace

BufferPlan AssignBuffers(const ir::Program& program, const FusionPlan& plan,
                         const std::vector<LoopKernel>& kernels,
                         const std::vector<int>& finish_steps,
                         const std::vector<int64_t>& chunk_bytes) {
  const int n = static_cast<int>(program.instructions.size());
  BufferPlan buffers;
  buffers.homes.resize(n);
  std::vector<int> parameter_instruction(program.num_parameters(), -1);
  std::vector<bool> is_result(n, false);
  for (int r : program.results) is_result[r] = true;
  for (int i = 0; i < n; ++i) {
    const ir::Instruction& inst = program.instructions[i];
    if (inst.op == Op::kParameter) {
      parameter_instruction[inst.parameter_index] = i;
      buffers.homes[i] = ValueHome{ValueHome::kParameter, static_cast<int>(inst.parameter_index)};
    } else if (inst.op == Op::kConstant) {
      buffers.homes[i] = ValueHome{ValueHome::kLiteral};
    }
  }

  // Results first: they own their blocks (or the donated ones).
  const int results = static_cast<int>(program.results.size());
  std::vector<int> alias_of(results, -1);
  for (const ir::Alias& alias : program.aliases) {
    alias_of[alias.output_index] = static_cast<int>(alias.parameter_index);
  }
  buffers.outputs.resize(results);
  for (int k = 0; k < results; ++k) {
    const int r = program.results[k];
    OutputPlan& out = buffers.outputs[k];
    out.value = r;
    const ValueHome::Kind kind = buffers.homes[r].kind;
    if (kind != ValueHome::kNone) {
      out.how = OutputPlan::kCopy;  // a parameter, a constant, or a value listed twice
    } else if (alias_of[k] >= 0 &&
               !ReadByTwoHalves(program, finish_steps, parameter_instruction[alias_of[k]]) &&
               InPlaceIsSafe(program, plan, kernels, r, alias_of[k], parameter_instruction,
                             is_result)) {
      out.how = OutputPlan::kInPlace;
      buffers.homes[r] = ValueHome{ValueHome::kDonated, alias_of[k]};
      continue;
    } else {
      out.how = OutputPlan::kOwn;
      buffers.homes[r] = ValueHome{ValueHome::kResult, k};
    }
    out.copy_into_parameter = alias_of[k];
  }

  AssignArenaSlots(program, plan, kernels, finish_steps, chunk_bytes, &buffers);
  for (int64_t bytes : buffers.slot_bytes) {
    buffers.slot_offsets.push_back(buffers.arena_bytes);
    buffers.arena_bytes += bytes;
  }
  for (ValueHome& home : buffers.homes) {
    if (home.kind == ValueHome::kArena) home.offset = buffers.slot_offsets[home.index];
  }
  return buffers;
}

}  // namespace seam::cpu
