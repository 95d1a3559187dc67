// A compiled program of the CPU plugin: the verified IR plus a plan for running it.
#ifndef SEAM_PLUGINS_CPU_EXECUTABLE_H_
#define SEAM_PLUGINS_CPU_EXECUTABLE_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/collectives/collectives.h"
#include "src/plugins/cpu/compile/buffer_assignment.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/compile/layout_plan.h"
#include "src/plugins/cpu/compile/loop_compile.h"
#include "src/plugins/cpu/compile/reduce_chunks.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/kernels_window.h"
#include "src/plugins/cpu/runtime/buffer.h"

namespace seam::cpu {

// A reduction a step computes: its own kernel, or folded in with its group's loop.
struct ReducePlan {
  ir::Op op = ir::Op::kReduceSum;
  int operand = -1, result = -1;
  ir::Shape operand_shape;
  std::vector<int64_t> axes;
  ReduceRangePlan range;  // for a reduction run chunk by chunk with its group
};

// What a step needs beyond the fusion plan, worked out at compile time so that a run does
// no shape arithmetic and no attribute lookups: a dot_general's DotPlan, a
// broadcast_in_dim's GatherPlan, a reduction's axes, a group's reduce epilogue or a
// convolution's plan (its oneDNN primitives).
struct StepPlan {
  DotPlan dot;
  std::shared_ptr<const ConvolutionPlan> conv;
  GatherPlan gather;
  std::vector<ReducePlan> reduces;
};

class Executable {
 public:
  // Parses and verifies IR text ("seam-ir" format), then plans the run: fusion groups
  // (fusion.h) compiled into loop kernels (loop_compile.h), then buffer assignment
  // (buffer_assignment.h). `fuse` false gives one kernel per instruction (for comparisons).
  // `overlap_collectives` (a client of a job of several processes): each all_reduce runs in
  // two halves around the steps that do not need its result (collective_schedule.h).
  // `settings`: the client's (cpu_settings.h), active during the compile and each run; null
  // (tests of the passes and kernels): the environment's variables, read as each is used.
  static absl::StatusOr<std::shared_ptr<const Executable>> Compile(
      std::string_view ir_text, bool fuse = true, bool overlap_collectives = false,
      std::shared_ptr<const CpuSettings> settings = nullptr);
  // The same from a program already parsed (format "mlir" goes through the StableHLO
  // reader, src/stablehlo/read.h); it is verified again.
  static absl::StatusOr<std::shared_ptr<const Executable>> Compile(
      ir::Program program, bool fuse = true, bool overlap_collectives = false,
      std::shared_ptr<const CpuSettings> settings = nullptr);
  // Not copyable: the plans point into the program it holds.
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  const ir::Program& program() const { return program_; }
  const CpuSettings* settings() const { return settings_.get(); }  // null: the environment
  const std::vector<ir::Shape>& parameter_shapes() const { return parameter_shapes_; }
  const std::vector<ir::Shape>& result_shapes() const { return result_shapes_; }
  const FusionPlan& fusion() const { return fusion_; }
  const std::vector<LoopKernel>& kernels() const { return kernels_; }  // per fusion group
  const BufferPlan& buffers() const { return buffers_; }
  const std::vector<StepPlan>& step_plans() const { return step_plans_; }  // per fusion step
  const std::vector<ReduceChunks>& chunks() const { return chunks_; }      // per fusion group
  // The layout each parameter is read in and each result is left in (layout_plan.h).
  const LayoutPlan& layouts() const { return layouts_; }
  // A rough size of one run: the elements every instruction reads and writes, plus the
  // multiply-adds of each dot_general. Small programs run on the caller's thread
  // (api_execute.cc); the figure only has to tell tiny runs from the rest.
  int64_t cost() const { return cost_; }
  // How many all_reduce instructions the (simplified) program has.
  int64_t all_reduces() const { return all_reduces_; }

  // Runs the program on the calling thread (large loops also use the kernel threads).
  // `inputs[i]` holds parameter i (shapes were checked by the caller), in any layout: a
  // block in another layout than the program's (layouts()) is converted first, the copy
  // kept with the block (device_layout.h). Returns one memory block per result, in the
  // layout layouts() names: a new one, or for an output with an input/output alias the donated
  // parameter's block (computed into directly where safe, else copied into at the end of
  // the run), so the caller must not read a donated input elsewhere.
  // `replica` is this run's replica id; its all_reduce instructions meet the other
  // replicas of their group through `rendezvous` (null: a lone replica, where every
  // all_reduce is a copy); in a launch that spans processes `replica` is the global
  // replica id. Fails only when the rendezvous is aborted or a collective across
  // processes fails.
  absl::StatusOr<std::vector<std::shared_ptr<DeviceMemory>>> Run(
      const std::vector<std::shared_ptr<DeviceMemory>>& inputs, int64_t replica = 0,
      Rendezvous* rendezvous = nullptr) const;
  // The same run, with parameter i's block given by input(i) (which must stay valid during
  // the call) and the result blocks put into `results` (resized to one per result): a
  // caller that keeps the vector from run to run saves its allocation, and one that holds
  // its blocks elsewhere need not copy them into a list. The blocks the run makes (results
  // and its scratch arena) count on `memory` (the device's figures; null: not counted).
  using InputBlock = absl::FunctionRef<const std::shared_ptr<DeviceMemory>&(size_t)>;
  absl::Status RunInto(InputBlock input, std::vector<std::shared_ptr<DeviceMemory>>& results,
                       int64_t replica = 0, Rendezvous* rendezvous = nullptr,
                       const std::shared_ptr<MemoryCounters>& memory = nullptr) const;

 private:
  static absl::StatusOr<std::shared_ptr<const Executable>> FromVerified(
      ir::Program program, bool fuse, bool overlap_collectives,
      std::shared_ptr<const CpuSettings> settings);
  Executable(ir::Program program, bool fuse, bool overlap_collectives);
  // The constructor's last passes: each fusion step's run plan (the convolutions' plans,
  // `fused_conv` where the epilogue joined the oneDNN call, are returned per step), then
  // where each value lives during a run.
  std::vector<std::shared_ptr<ConvolutionPlan>> PlanSteps(
      const std::vector<std::shared_ptr<ConvolutionPlan>>& fused_conv);
  void RecordHomes();
  // Runs convolution step `s` (with its epilogue, where the next step is one) over the
  // run's `value` table; fails only where oneDNN fails with operands in its layouts.
  absl::Status RunConvolution(size_t s, const std::vector<uint8_t*>& value) const;
  // Runs step `s` when it is a fused loop's or a sliced region's (or one that runs inside
  // another step: nothing then); false for a step of one instruction.
  bool RunLoopStep(size_t s, const std::vector<uint8_t*>& value) const;
  // Runs sliced region `region` (sliced_region.h) over the run's `value` table: its slices
  // split over the kernel threads, each slice through every step of the region
  // (executable_region.cc).
  void RunRegion(const SlicedRegion& region, const std::vector<uint8_t*>& value) const;
  // Computes one instruction outside the fusion groups from its operands' memory into `out`.
  void RunInstruction(const ir::Instruction& inst, const std::vector<const uint8_t*>& in,
                      uint8_t* out) const;
  // How the profiler names step `step`'s kernel: "fused loop #<group>", or the op (or "dot
  // update") with the instruction's index.
  struct KernelLabel {
    std::string_view name;  // static storage
    int64_t index;
  };
  KernelLabel KernelLabelOf(size_t step) const;
  // Records step `step`'s kernel with the profiler from construction to destruction; a
  // null executable records nothing (no collection was on when the run began).
  class KernelSpan {
   public:
    KernelSpan(const Executable* executable, size_t step, int64_t device)
        : executable_(executable), step_(step), device_(device) {
      if (executable_ != nullptr) [[unlikely]]
        Begin();
    }
    ~KernelSpan() {
      if (executable_ != nullptr) [[unlikely]]
        End();
    }
    KernelSpan(const KernelSpan&) = delete;
    KernelSpan& operator=(const KernelSpan&) = delete;

   private:
    void Begin();
    void End();
    const Executable* executable_;
    size_t step_;
    int64_t device_;
    int64_t begin_ns_ = 0;
  };
  // The blocks of the parameters whose layout differs from the program's, converted (the
  // others stay null; `arranged` stays empty where none differs); clears the copies kept
  // with donated blocks.
  absl::Status ArrangeInputs(InputBlock input, std::vector<std::shared_ptr<DeviceMemory>>& arranged,
                             const std::shared_ptr<MemoryCounters>& memory) const;
  // The start of a run: a block for each result the program computes itself (in the layout
  // planned for it), null for the others (PlaceResults fills them at the end).
  void AllocateResults(std::vector<std::shared_ptr<DeviceMemory>>& results,
                       const std::shared_ptr<MemoryCounters>& memory) const;
  // The end of a run: results that are parameters, constants or repeats get a block of
  // their own, outputs aliased to a donated parameter land in its block.
  void PlaceResults(InputBlock input, std::vector<std::shared_ptr<DeviceMemory>>& results,
                    const std::vector<uint8_t*>& value,
                    const std::shared_ptr<MemoryCounters>& memory) const;

  std::shared_ptr<const CpuSettings> settings_;
  ir::Program program_;
  std::vector<ir::Shape> parameter_shapes_;
  std::vector<ir::Shape> result_shapes_;
  FusionPlan fusion_;
  std::vector<LoopKernel> kernels_;
  BufferPlan buffers_;
  std::vector<StepPlan> step_plans_;  // per fusion_.steps entry
  std::vector<ReduceChunks> chunks_;  // per fusion group (reduce_chunks.h)
  LayoutPlan layouts_;
  // Where each value lives during a run, as far as that is the same for every run: a
  // constant's bytes, null for values without memory. The other values live in one of the
  // run's blocks: a parameter's (or donated) block, the arena at an offset, or a result's
  // block; `index` is the parameter or the result position.
  struct RunHome {
    int value = -1;
    int index = -1;
    int64_t offset = 0;
  };
  std::vector<uint8_t*> fixed_values_;
  std::vector<RunHome> parameter_homes_, arena_homes_, result_homes_;
  int64_t cost_ = 0;
  int64_t all_reduces_ = 0;
  // With overlapped collectives: per step (and one more for the run's end), the all_reduce
  // instructions that must be finished before it; empty otherwise.
  std::vector<std::vector<int>> finish_before_;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_EXECUTABLE_H_
