#include "src/plugins/cpu/compile/executable.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "src/ir/text.h"
#include "src/ir/verifier.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/compile/collective_schedule.h"
#include "src/plugins/cpu/compile/fusion_epilogue.h"
#include "src/plugins/cpu/compile/loop_compile.h"
#include "src/plugins/cpu/compile/loop_segments.h"
#include "src/plugins/cpu/compile/product_epilogue.h"
#include "src/plugins/cpu/compile/reduce_chunks.h"
#include "src/plugins/cpu/compile/simplify.h"
#include "src/plugins/cpu/compile/sliced_region.h"
#include "src/plugins/cpu/compile/transposed_product.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/runtime/device_layout.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

void Copy(const uint8_t* in, uint8_t* out, size_t size) {
  if (size > 0) std::memcpy(out, in, size);
}

// Elements read and written by every instruction, and the multiply-adds of matrix products
// (result elements times the contracted size); saturates instead of overflowing.
int64_t ProgramCost(const ir::Program& program) {
  constexpr int64_t kMax = int64_t{1} << 62;
  int64_t cost = 0;
  auto add = [&](int64_t n) { cost = n >= kMax - cost ? kMax : cost + n; };
  for (const ir::Instruction& inst : program.instructions) {
    if (inst.op == ir::Op::kParameter || inst.op == ir::Op::kConstant) continue;
    const int64_t out = inst.shape.num_elements();
    add(out);
    for (int operand : inst.operands) add(program.instructions[operand].shape.num_elements());
    if (inst.op == ir::Op::kConvolution) {
      // Multiply-adds: each result element reads one kernel slice (its group's features
      // times the taps).
      const ir::Shape& rhs = program.instructions[inst.operands[1]].shape;
      const int64_t features = rhs.dims[inst.attrs.at("kernel_output_feature_dim")[0]];
      const int64_t slice = features == 0 ? 0 : rhs.num_elements() / features;
      add(slice > 0 && out > kMax / slice ? kMax : out * slice);
      continue;
    }
    if (inst.op != ir::Op::kDotGeneral || inst.operands.empty()) continue;
    int64_t contracted = 1;
    auto it = inst.attrs.find("lhs_contracting");
    if (it != inst.attrs.end()) {
      const ir::Shape& lhs = program.instructions[inst.operands[0]].shape;
      for (int64_t d : it->second) {
        if (d >= 0 && d < lhs.rank()) contracted *= lhs.dims[d];
      }
    }
    add(contracted > 0 && out > kMax / contracted ? kMax : out * contracted);
  }
  return cost;
}

// A group with reductions (FusionGroup::reduces) runs a chunk of tiles at a time; after
// each chunk, every reduction folds that stretch of its operand, which the chunk has just
// written. Consecutive stretches in order: the same bits as the reduction's own kernel.
// Chunk-local outputs (`chunks`, reduce_chunks.h) have a slot of one chunk: each chunk's
// tiles are written from its start, so their addresses are moved back by the chunk's
// first element.
void RunGroupWithReduces(const std::vector<ReducePlan>& reduces, const ReduceChunks& chunks,
                         const LoopKernel& kernel, const uint8_t* const* inputs,
                         uint8_t* const* outputs, const std::vector<uint8_t*>& value) {
  const int64_t tiles = (kernel.count + kTileElements - 1) / kTileElements;
  const int threads = KernelThreads();
  const bool parallel = threads > 1 && kernel.count >= kParallelMinimumElements;
  const int64_t chunk = chunks.tiles > 0 ? chunks.tiles : ReduceChunkTiles(kernel.count, threads);
  if (chunk == 0) {
    RunLoop(kernel, inputs, outputs);
    for (const ReducePlan& r : reduces) {
      Reduce(r.op, r.operand_shape, value[r.operand], r.axes, value[r.result]);
    }
    return;
  }
  const size_t count = kernel.outputs.size();
  thread_local std::vector<uint8_t*> moved;
  moved.assign(outputs, outputs + count);
  absl::InlinedVector<ReduceCarry, 4> carries(reduces.size());
  for (int64_t first = 0; first < tiles; first += chunk) {
    const int64_t last = std::min(tiles, first + chunk);
    const int64_t first_element = first * kTileElements;
    for (size_t k = 0; chunks.tiles > 0 && k < count; ++k) {
      if (chunks.local[k]) moved[k] = MovedBack(outputs[k], first_element * kernel.output_bytes[k]);
    }
    // The kernel threads read this thread's list (their own thread_local one is not it).
    uint8_t* const* chunk_outputs = moved.data();
    if (parallel) {
      ParallelFor(last - first, [&](int64_t begin, int64_t end) {
        RunLoopTiles(kernel, inputs, chunk_outputs, first + begin, first + end);
      });
    } else {
      RunLoopTiles(kernel, inputs, chunk_outputs, first, last);
    }
    for (size_t j = 0; j < reduces.size(); ++j) {
      const ReducePlan& r = reduces[j];
      const uint8_t* operand = value[r.operand];
      for (size_t k = 0; chunks.tiles > 0 && k < count; ++k) {
        if (chunks.local[k] && kernel.outputs[k] == r.operand) operand = moved[k];
      }
      RunReduceRange(r.range, operand, first_element, std::min(kernel.count, last * kTileElements),
                     value[r.result], &carries[j]);
    }
  }
}

// A group step: its loop, with its reductions chunk by chunk where it has any.
void RunGroup(const LoopKernel& kernel, const std::vector<ReducePlan>& reduces,
              const ReduceChunks& chunks, const std::vector<uint8_t*>& value) {
  const LoopAddresses at = AddressesOf(kernel, value);
  if (reduces.empty()) return RunLoop(kernel, at.inputs, at.outputs);
  RunGroupWithReduces(reduces, chunks, kernel, at.inputs, at.outputs, value);
}

// The all_reduces of a run started in two halves (collectives.h) and not finished yet. What
// is left when the run ends early (a failure on the way) is finished here, before the
// run's memory, which Gloo is reading and writing, goes away.
class OpenCollectives {
 public:
  OpenCollectives(Rendezvous* rendezvous, const ir::Program& program)
      : rendezvous_(rendezvous), program_(program) {}
  OpenCollectives(const OpenCollectives&) = delete;
  OpenCollectives& operator=(const OpenCollectives&) = delete;
  ~OpenCollectives() {
    for (int i : open_)
      rendezvous_->FinishAcrossProcesses(i, program_.instructions[i]).IgnoreError();
  }

  void Start(int i, int64_t replica, const uint8_t* in, uint8_t* out) {
    rendezvous_->StartAcrossProcesses(i, program_.instructions[i], replica, in, out);
    open_.push_back(i);
  }
  // Finishes all_reduce `i` if this run started it.
  absl::Status Finish(int i) {
    auto it = std::find(open_.begin(), open_.end(), i);
    if (it == open_.end()) return absl::OkStatus();
    open_.erase(it);
    return rendezvous_->FinishAcrossProcesses(i, program_.instructions[i]);
  }

 private:
  Rendezvous* rendezvous_;
  const ir::Program& program_;
  std::vector<int> open_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const Executable>> Executable::Compile(
    std::string_view ir_text, bool fuse, bool overlap_collectives,
    std::shared_ptr<const CpuSettings> settings) {
  absl::StatusOr<ir::Program> program = [&] {
    const plugin::profiler::Scope pass("parse", "compile");
    return ir::ParseProgram(ir_text);
  }();
  if (!program.ok()) return program.status();
  return FromVerified(*std::move(program), fuse, overlap_collectives, std::move(settings));
}

absl::StatusOr<std::shared_ptr<const Executable>> Executable::Compile(
    ir::Program program, bool fuse, bool overlap_collectives,
    std::shared_ptr<const CpuSettings> settings) {
  if (absl::Status s = ir::VerifyProgram(program); !s.ok()) return s;
  return FromVerified(std::move(program), fuse, overlap_collectives, std::move(settings));
}

absl::StatusOr<std::shared_ptr<const Executable>> Executable::FromVerified(
    ir::Program program, bool fuse, bool overlap_collectives,
    std::shared_ptr<const CpuSettings> settings) {
  const ScopedCpuSettings scope(settings.get());
  absl::StatusOr<ir::Program> simplified = [&] {
    const plugin::profiler::Scope pass("simplify", "compile");
    return Simplify(program);
  }();
  if (!simplified.ok()) return simplified.status();
  auto executable = std::shared_ptr<Executable>(
      new Executable(*std::move(simplified), fuse, overlap_collectives));
  executable->settings_ = std::move(settings);
  return std::shared_ptr<const Executable>(std::move(executable));
}

Executable::Executable(ir::Program program, bool fuse, bool overlap_collectives)
    : program_(std::move(program)),
      parameter_shapes_(program_.ParameterShapes()),
      result_shapes_(program_.ResultShapes()),
      fusion_([&] {
        const plugin::profiler::Scope pass("fusion", "compile");
        return PlanFusion(program_, fuse);
      }()) {
  all_reduces_ =
      std::count_if(program_.instructions.begin(), program_.instructions.end(),
                    [](const ir::Instruction& inst) { return ir::IsAllReduce(inst.op); });
  const bool two_halves = overlap_collectives && all_reduces_ > 0;
  if (two_halves) DeferAllReduceReaders(program_, &fusion_);
  {
    const plugin::profiler::Scope pass("loop compile", "compile");
    kernels_.reserve(fusion_.groups.size());
    for (const FusionGroup& group : fusion_.groups) {
      kernels_.push_back(CompileLoop(program_, group));
    }
  }
  // Convolutions whose epilogue runs inside their oneDNN call get their plan now.
  std::vector<std::shared_ptr<ConvolutionPlan>> fused_conv(program_.instructions.size());
  AttachEpilogues(program_, &fusion_, [&](const ConvEpilogue& e) {
    const ir::Instruction& conv = program_.instructions[e.conv];
    auto plan = std::make_shared<ConvolutionPlan>(
        conv, program_.instructions[conv.operands[0]].shape,
        program_.instructions[conv.operands[1]].shape,
        ConvPostOps{e.bias >= 0 || !e.channel.empty(), e.residual >= 0, e.relu});
    if (!plan->fuses_post_ops()) return false;
    fused_conv[e.conv] = std::move(plan);
    return true;
  });
  AttachProductEpilogues(program_, kernels_, &fusion_);
  if (fuse && ActiveCausalAttention() && ActiveSlicedAttention()) {  // SEAM_CPU_ATTENTION=on
    const plugin::profiler::Scope pass("sliced regions", "compile");
    PlanSlicedRegions(program_, kernels_, KernelThreads(), &fusion_);
  }
  std::vector<int> finish_steps;
  if (two_halves) {
    finish_steps = AllReduceFinishSteps(program_, fusion_);
    finish_before_.resize(fusion_.steps.size() + 1);
    for (int i = 0; i < static_cast<int>(finish_steps.size()); ++i) {
      if (finish_steps[i] >= 0) finish_before_[finish_steps[i]].push_back(i);
    }
  }
  {
    const plugin::profiler::Scope pass("buffer assignment", "compile");
    chunks_ = PlanReduceChunks(program_, fusion_, KernelThreads(), &kernels_);
    std::vector<int64_t> local_bytes = ChunkLocalBytes(program_, kernels_, chunks_);
    AddRegionLocalBytes(fusion_, &local_bytes);
    buffers_ = AssignBuffers(program_, fusion_, kernels_, finish_steps, local_bytes);
  }
  {
    // After PlanReduceChunks, which may take a chain's streaming stores back.
    const plugin::profiler::Scope pass("loop code", "compile");
    GenerateLoopCode(&kernels_);
  }
  std::vector<std::shared_ptr<ConvolutionPlan>> convs = PlanSteps(fused_conv);
  if (fuse && ActiveCausalAttention()) {  // SEAM_CPU_ATTENTION, or the `attention` option
    const std::vector<std::vector<int>> readers = ReadersOf(program_);
    for (size_t s = 0; s < fusion_.steps.size(); ++s) {
      const int i = fusion_.steps[s].instruction;
      if (i < 0 || fusion_.update_of[i] >= 0 || !step_plans_[s].dot.blas) continue;
      // A transposed product's step is its transpose; the product is its operand.
      const int dot = fusion_.transposed_product[i] >= 0 ? fusion_.transposed_product[i] : i;
      step_plans_[s].dot.causal = PlanCausalDot(program_, readers, dot);
    }
  }
  layouts_ = PlanLayouts(program_, fusion_, buffers_, convs);
  for (size_t s = 0; s < convs.size(); ++s) step_plans_[s].conv = std::move(convs[s]);
  RecordHomes();
  cost_ = ProgramCost(program_);
}

std::vector<std::shared_ptr<ConvolutionPlan>> Executable::PlanSteps(
    const std::vector<std::shared_ptr<ConvolutionPlan>>& fused_conv) {
  const plugin::profiler::Scope pass("run plans", "compile");
  auto reduce_plan = [&](int r) {
    const ir::Instruction& reduce = program_.instructions[r];
    const int operand = reduce.operands[0];
    const ir::Shape& shape = program_.instructions[operand].shape;
    const std::vector<int64_t>& axes = reduce.attrs.at("axes");
    return ReducePlan{reduce.op, operand, r, shape, axes, PlanReduceRange(reduce.op, shape, axes)};
  };
  step_plans_.resize(fusion_.steps.size());
  std::vector<std::shared_ptr<ConvolutionPlan>> convs(fusion_.steps.size());
  for (size_t s = 0; s < fusion_.steps.size(); ++s) {
    StepPlan& plan = step_plans_[s];
    if (const int g = fusion_.steps[s].group; g >= 0) {
      for (int r : fusion_.groups[g].reduces) plan.reduces.push_back(reduce_plan(r));
      continue;
    }
    const int i = fusion_.steps[s].instruction;
    if (fusion_.update_of[i] >= 0) continue;
    if (const int dot = fusion_.transposed_product[i]; dot >= 0) {
      if (std::optional<DotPlan> product = PlanTransposedProduct(program_, i, dot)) {
        plan.dot = *std::move(product);
      }
      continue;
    }
    const ir::Instruction& inst = program_.instructions[i];
    auto operand_shape = [&](int k) -> const ir::Shape& {
      return program_.instructions[inst.operands[k]].shape;
    };
    switch (inst.op) {
      case ir::Op::kDotGeneral:
        plan.dot = PlanDot(operand_shape(0), operand_shape(1), DotDimensionsOf(inst));
        break;
      case ir::Op::kConvolution:
        convs[s] = fused_conv[i] != nullptr ? fused_conv[i]
                                            : std::make_shared<ConvolutionPlan>(
                                                  inst, operand_shape(0), operand_shape(1));
        break;
      case ir::Op::kBroadcastInDim:
        plan.gather = PlanBroadcast(operand_shape(0), inst.shape, inst.attrs.at("dims"));
        break;
      case ir::Op::kReduceSum:
      case ir::Op::kReduceProduct:
      case ir::Op::kReduceMax:
      case ir::Op::kReduceMin:
        plan.reduces.push_back(reduce_plan(i));
        break;
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_EXCEPT_kDotGeneral
#define SEAM_CASES_EXCEPT_kConvolution
#define SEAM_CASES_EXCEPT_kBroadcastInDim
#define SEAM_CASES_EXCEPT_kReduceSum
#define SEAM_CASES_EXCEPT_kReduceProduct
#define SEAM_CASES_EXCEPT_kReduceMax
#define SEAM_CASES_EXCEPT_kReduceMin
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kDotGeneral
#undef SEAM_CASES_EXCEPT_kConvolution
#undef SEAM_CASES_EXCEPT_kBroadcastInDim
#undef SEAM_CASES_EXCEPT_kReduceSum
#undef SEAM_CASES_EXCEPT_kReduceProduct
#undef SEAM_CASES_EXCEPT_kReduceMax
#undef SEAM_CASES_EXCEPT_kReduceMin
        break;
    }
  }
  return convs;
}

void Executable::RecordHomes() {
  fixed_values_.assign(program_.instructions.size(), nullptr);
  for (int i = 0; i < static_cast<int>(program_.instructions.size()); ++i) {
    const ValueHome& home = buffers_.homes[i];
    switch (home.kind) {
      case ValueHome::kNone:
        break;
      case ValueHome::kLiteral:
        // Read-only: no kernel writes a constant's home.
        fixed_values_[i] = const_cast<uint8_t*>(program_.instructions[i].literal.bytes.data());
        break;
      case ValueHome::kParameter:
      case ValueHome::kDonated:
        parameter_homes_.push_back({i, home.index, 0});
        break;
      case ValueHome::kArena:
        arena_homes_.push_back({i, home.index, home.offset});
        break;
      case ValueHome::kResult:
        result_homes_.push_back({i, home.index, 0});
        break;
    }
  }
}

Executable::KernelLabel Executable::KernelLabelOf(size_t step) const {
  const Step& s = fusion_.steps[step];
  if (s.region >= 0) return {"sliced region", s.instruction};  // its first step: a product
  if (s.group >= 0) return {"fused loop", s.group};
  if (fusion_.update_of[s.instruction] >= 0) return {"dot update", s.instruction};
  if (fusion_.transposed_product[s.instruction] >= 0) return {"transposed dot", s.instruction};
  return {ir::OpName(program_.instructions[s.instruction].op), s.instruction};
}

void Executable::KernelSpan::Begin() { begin_ns_ = plugin::profiler::NowNs(); }

void Executable::KernelSpan::End() {
  const KernelLabel label = executable_->KernelLabelOf(step_);
  plugin::profiler::Record(label.name, label.index, "kernel", device_, begin_ns_,
                           plugin::profiler::NowNs());
}

void Executable::RunInstruction(const ir::Instruction& inst, const std::vector<const uint8_t*>& in,
                                uint8_t* out) const {
  RunKernel(
      inst,
      [&](size_t k) -> const ir::Shape& { return program_.instructions[inst.operands[k]].shape; },
      in, out);
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceMemory>>> Executable::Run(
    const std::vector<std::shared_ptr<DeviceMemory>>& inputs, int64_t replica,
    Rendezvous* rendezvous) const {
  std::vector<std::shared_ptr<DeviceMemory>> results;
  absl::Status status =
      RunInto([&](size_t i) -> const std::shared_ptr<DeviceMemory>& { return inputs[i]; }, results,
              replica, rendezvous);
  if (!status.ok()) return status;
  return results;
}

void Executable::PlaceResults(InputBlock input, std::vector<std::shared_ptr<DeviceMemory>>& results,
                              const std::vector<uint8_t*>& value,
                              const std::shared_ptr<MemoryCounters>& memory) const {
  const int num_results = static_cast<int>(program_.results.size());
  // Results that are parameters, constants or repeats get a copy of their own; then outputs
  // aliased to a donated parameter but not computed in place are copied into that block.
  // The copies from parameters all come first, so no donated block is overwritten before
  // it is read.
  for (int k = 0; k < num_results; ++k) {
    const OutputPlan& out = buffers_.outputs[k];
    if (out.how == OutputPlan::kInPlace) {
      results[k] = input(buffers_.homes[out.value].index);
    } else if (out.how == OutputPlan::kCopy) {
      results[k] = NewDeviceMemory(result_shapes_[k].byte_size(), memory);
      Copy(value[out.value], results[k]->data(), results[k]->size());
    }
  }
  for (int k = 0; k < num_results; ++k) {
    const int parameter = buffers_.outputs[k].copy_into_parameter;
    if (parameter < 0) continue;
    const std::shared_ptr<DeviceMemory>& donated = input(parameter);
    if (results[k] != donated) Copy(results[k]->data(), donated->data(), donated->size());
    results[k] = donated;
  }
}

absl::Status Executable::ArrangeInputs(InputBlock input,
                                       std::vector<std::shared_ptr<DeviceMemory>>& arranged,
                                       const std::shared_ptr<MemoryCounters>& memory) const {
  for (size_t p = 0; p < layouts_.parameters.size(); ++p) {
    const DeviceLayout* want = layouts_.parameters[p].get();
    if (SameLayout(input(p)->layout().get(), want)) continue;
    if (arranged.empty()) arranged.resize(layouts_.parameters.size());
    const bool donated = std::any_of(
        program_.aliases.begin(), program_.aliases.end(),
        [&](const ir::Alias& a) { return a.parameter_index == static_cast<int64_t>(p); });
    // A donated block is overwritten by the run: its copy is the run's alone.
    absl::StatusOr<std::shared_ptr<DeviceMemory>> block =
        InLayout(input(p), layouts_.parameters[p], memory, /*keep=*/!donated);
    if (!block.ok()) return block.status();
    arranged[p] = *std::move(block);
  }
  // Copies kept with a donated block describe values the run replaces.
  for (const ir::Alias& alias : program_.aliases) {
    const auto p = static_cast<size_t>(alias.parameter_index);
    DeviceMemory& block = arranged.empty() || arranged[p] == nullptr ? *input(p) : *arranged[p];
    const std::lock_guard<std::mutex> lock(block.copies_mutex);
    block.copies.clear();
  }
  return absl::OkStatus();
}

absl::Status Executable::RunConvolution(size_t s, const std::vector<uint8_t*>& value) const {
  const int i = fusion_.steps[s].instruction;
  const ir::Instruction& inst = program_.instructions[i];
  bool done = true;
  if (s + 1 < fusion_.steps.size() && fusion_.steps[s + 1].epilogue) {
    // The epilogue's output, finished in the same call; the convolution's own value
    // is never written (nothing else reads it).
    const ConvEpilogue& e = fusion_.epilogues[fusion_.steps[s + 1].group];
    const uint8_t* weights = value[inst.operands[1]];
    const uint8_t* bias = e.bias >= 0 ? value[e.bias] : nullptr;
    if (!e.channel.empty()) {
      // Per-feature arithmetic becomes scaled weights and a bias (per thread, per run).
      thread_local std::vector<float> scaled, shift;
      FoldChannelOps(program_, e, value.data(), reinterpret_cast<const float*>(weights), &scaled,
                     &shift);
      weights = reinterpret_cast<const uint8_t*>(scaled.data());
      bias = reinterpret_cast<const uint8_t*>(shift.data());
    }
    done = step_plans_[s].conv->Run(value[inst.operands[0]], weights, value[e.output], bias,
                                    e.residual >= 0 ? value[e.residual] : nullptr);
  } else {
    done = step_plans_[s].conv->Run(value[inst.operands[0]], value[inst.operands[1]], value[i]);
  }
  if (!done) {
    return absl::InternalError(absl::StrCat(
        "PJRT_LoadedExecutable_Execute: oneDNN failed convolution %", i,
        " whose operands are in its own layouts (out of memory?); no other path reads them"));
  }
  return absl::OkStatus();
}

namespace {

// An all_reduce step: its first half (`open`: a run whose collectives overlap its kernels),
// the meeting across processes, the group's meeting within the process, or a lone
// replica's copy.
absl::Status RunAllReduce(const ir::Program& program, int i, const uint8_t* in, uint8_t* out,
                          int64_t replica, Rendezvous* rendezvous, OpenCollectives* open) {
  const ir::Instruction& inst = program.instructions[i];
  if (open != nullptr) {
    open->Start(i, replica, in, out);
    return absl::OkStatus();
  }
  if (rendezvous != nullptr && rendezvous->spans_processes()) {
    return rendezvous->AllReduceAcrossProcesses(i, inst, replica, in, out);
  }
  const std::vector<int64_t> group =
      rendezvous != nullptr ? GroupOf(inst, replica) : std::vector<int64_t>{};
  if (group.size() > 1) {
    return rendezvous->AllReduce(i, inst.op, inst.shape.dtype, group, replica, in, out,
                                 inst.shape.num_elements());
  }
  // A lone replica's all_reduce is its operand (nothing to do when reduced in place).
  if (in != out) Copy(in, out, inst.shape.byte_size());
  return absl::OkStatus();
}

// Where each value is during a run, and one instruction's operands: per-thread scratch,
// reused from run to run (a run never starts another on its thread), so a small run
// allocates only its results. Reached through a function that is never inlined, so a run
// holds the address: in a shared library the compiler repeats __tls_get_addr for a
// thread_local after every call, and a run's loop makes several per step.
struct RunScratch {
  std::vector<uint8_t*> value;
  std::vector<const uint8_t*> operands;
};
[[gnu::noinline]] RunScratch& ThisThreadRunScratch() {
  thread_local RunScratch scratch;
  return scratch;
}

}  // namespace

void Executable::AllocateResults(std::vector<std::shared_ptr<DeviceMemory>>& results,
                                 const std::shared_ptr<MemoryCounters>& memory) const {
  const int num_results = static_cast<int>(program_.results.size());
  results.assign(num_results, nullptr);
  for (int k = 0; k < num_results; ++k) {
    const ir::Shape& shape = result_shapes_[k];
    if (buffers_.outputs[k].how != OutputPlan::kOwn) continue;
    // A convolution's result left in oneDNN's layout (layout_plan.h).
    const std::shared_ptr<const DeviceLayout>& layout = layouts_.results[k];
    results[k] =
        NewDeviceMemory(layout != nullptr ? LayoutBytes(*layout) : shape.byte_size(), memory);
    results[k]->set_layout(layout);
  }
}

bool Executable::RunLoopStep(size_t s, const std::vector<uint8_t*>& value) const {
  const Step& step = fusion_.steps[s];
  if (step.sliced) return true;  // ran in its region's first step
  if (step.region >= 0) {
    RunRegion(fusion_.regions[step.region], value);
    return true;
  }
  if (step.group < 0) return false;
  // An epilogue ran inside the convolution before it, an interleaved group with the product
  // before it.
  if (!step.epilogue && !step.interleaved) {
    RunGroup(kernels_[step.group], step_plans_[s].reduces, chunks_[step.group], value);
  }
  return true;
}

absl::Status Executable::RunInto(InputBlock given_input,
                                 std::vector<std::shared_ptr<DeviceMemory>>& results,
                                 int64_t replica, Rendezvous* rendezvous,
                                 const std::shared_ptr<MemoryCounters>& memory) const {
  const ScopedCpuSettings scope(settings_.get());
  // Parameters whose block is in another layout than the program's get a converted block
  // (device_layout.h); `arranged` stays empty where none needs one (the usual run).
  std::vector<std::shared_ptr<DeviceMemory>> arranged;
  if (absl::Status status = ArrangeInputs(given_input, arranged, memory); !status.ok()) {
    return status;
  }
  auto arranged_input = [&](size_t i) -> const std::shared_ptr<DeviceMemory>& {
    return arranged.empty() || arranged[i] == nullptr ? given_input(i) : arranged[i];
  };
  const InputBlock input(arranged_input);
  std::optional<DeviceMemory> arena;
  if (!buffers_.slot_bytes.empty()) arena.emplace(buffers_.arena_bytes, memory);
  AllocateResults(results, memory);
  auto& [value, operands] = ThisThreadRunScratch();  // where each value is during this run
  value.assign(fixed_values_.begin(), fixed_values_.end());
  for (const RunHome& home : parameter_homes_) value[home.value] = input(home.index)->data();
  for (const RunHome& home : arena_homes_) value[home.value] = arena->data() + home.offset;
  for (const RunHome& home : result_homes_) value[home.value] = results[home.index]->data();

  // While the profiler collects, each step is a kernel on its timeline (read once a run).
  const bool profiled = plugin::profiler::On();
  const int64_t device = profiled ? plugin::profiler::CurrentDevice() : -1;
  const bool two_halves =
      !finish_before_.empty() && rendezvous != nullptr && rendezvous->spans_processes();
  OpenCollectives open(rendezvous, program_);
  for (size_t s = 0; s < fusion_.steps.size(); ++s) {
    if (two_halves) {
      for (int a : finish_before_[s]) {
        if (absl::Status status = open.Finish(a); !status.ok()) return status;
      }
    }
    const KernelSpan span(profiled ? this : nullptr, s, device);
    if (RunLoopStep(s, value)) continue;
    const int i = fusion_.steps[s].instruction;
    if (s + 1 < fusion_.steps.size() && fusion_.steps[s + 1].interleaved) {
      RunProductWithEpilogue(program_, fusion_, static_cast<int>(s), step_plans_[s].dot,
                             kernels_[fusion_.steps[s + 1].group], value);
      continue;
    }
    if (fusion_.update_of[i] >= 0) {
      RunDotUpdate(fusion_.updates[fusion_.update_of[i]], value.data(), value[i]);
      continue;
    }
    if (const int dot = fusion_.transposed_product[i]; dot >= 0) {
      const ir::Instruction& product = program_.instructions[dot];
      RunDot(step_plans_[s].dot, value[product.operands[0]], value[product.operands[1]], value[i]);
      continue;
    }
    const ir::Instruction& inst = program_.instructions[i];
    if (inst.op == ir::Op::kDotGeneral) {
      RunDot(step_plans_[s].dot, value[inst.operands[0]], value[inst.operands[1]], value[i]);
      continue;
    }
    if (step_plans_[s].conv != nullptr) {
      if (absl::Status status = RunConvolution(s, value); !status.ok()) return status;
      continue;
    }
    if (inst.op == ir::Op::kBroadcastInDim) {
      Gather(step_plans_[s].gather, value[inst.operands[0]], value[i]);
      continue;
    }
    if (!step_plans_[s].reduces.empty()) {
      const ReducePlan& r = step_plans_[s].reduces[0];
      Reduce(r.op, r.operand_shape, value[r.operand], r.axes, value[i]);
      continue;
    }
    if (ir::IsAllReduce(inst.op)) {
      absl::Status status = RunAllReduce(program_, i, value[inst.operands[0]], value[i], replica,
                                         rendezvous, two_halves ? &open : nullptr);
      if (!status.ok()) return status;
      continue;
    }
    operands.clear();
    for (int o : inst.operands) operands.push_back(value[o]);
    RunInstruction(inst, operands, value[i]);
  }
  if (two_halves) {
    for (int a : finish_before_.back()) {
      if (absl::Status status = open.Finish(a); !status.ok()) return status;
    }
  }

  PlaceResults(input, results, value, memory);
  return absl::OkStatus();
}

}  // namespace seam::cpu
