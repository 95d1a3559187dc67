// The plan loop fusion produces (fusion.h) and the passes that refine it read and edit:
// groups, steps, epilogues, and which values each step reads.
#ifndef SEAM_PLUGINS_CPU_COMPILE_FUSION_PLAN_H_
#define SEAM_PLUGINS_CPU_COMPILE_FUSION_PLAN_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/dot_update.h"

namespace seam::cpu {

// Members of a group all have `count` elements and are linked by edges along which an
// element's linear index is kept (elementwise operands, reshape, a broadcast that adds
// only dimensions of size 1). A broadcast that repeats values reads its operand from
// memory, so the operand is an input of the group.
struct FusionGroup {
  int64_t count = 0;
  std::vector<int> members;  // instruction indices, increasing
  std::vector<int> inputs;   // values read from memory (not members), increasing
  std::vector<int> outputs;  // members written to memory (results, or read by non-members)
  // Reductions (not members) of one of the outputs that run with the group: the group's
  // step evaluates the loop a chunk of tiles at a time and folds each chunk into these
  // reductions while it is still in cache (executable.cc), instead of a later step
  // reading the whole output back. Same fold order as the reduce's own kernel.
  std::vector<int> reduces;
};

// One step of the execution plan: a fusion group, or one instruction with its own kernel.
struct Step {
  int group = -1;        // index into FusionPlan::groups; -1 for a single instruction
  int instruction = -1;  // the instruction when group == -1
  // A group step computed inside the step before it, a convolution (FusionPlan::epilogues,
  // fusion_epilogue.h): it runs nothing itself.
  bool epilogue = false;
  // A group step that runs interleaved with the product step before it (a dot_general or
  // dot update), each kernel thread's rows and then their tiles (product_epilogue.h): the
  // product step runs both, this one nothing itself.
  bool interleaved = false;
  // The first step of sliced region `region` (FusionPlan::regions, sliced_region.h): it runs
  // the region's steps batch slice by batch slice; -1 elsewhere.
  int region = -1;
  // A later step of a sliced region: it runs inside the region's first step, nothing itself.
  bool sliced = false;
};

// Steps [first, end) that run one slice of batches at a time (sliced_region.h): every value
// they write or read from each other is split along the same leading batch dimensions,
// `batches` in all, and slice [b0, b1) of each step reads only slice [b0, b1) of the values
// the region's earlier steps wrote.
struct SlicedRegion {
  int first = 0, end = 0;
  int64_t batches = 1;
  int64_t slice_batches = 1;  // per slice (the last one may have fewer)
  int parts = 1;              // slices run in parallel at most (the kernel threads)
  // Values only the region reads: their arena slot holds `parts` slices, one per part
  // (part_bytes each), and a slice's address is moved back by its first batch.
  std::vector<int> local;
  std::vector<int64_t> local_batch_bytes;  // per local value: the bytes of one batch
  std::vector<int64_t> local_part_bytes;   // per local value: its slot's bytes per part
};

// One per-output-feature operation of an epilogue, y = y + v, y - v, v - y (kSubtract,
// swapped), y * v or y / v, with v the f32 vector `value` broadcast along the feature
// dimension (a batch norm in evaluation mode is four of them).
struct ChannelOp {
  ir::Op op = ir::Op::kAdd;
  bool swapped = false;
  int value = -1;
};

// A group that a convolution computes in the same oneDNN call (fusion_epilogue.h): its one
// output is max(channel ops(conv) + residual, 0), the operations, the residual and the max
// each optional. A lone add of a vector is the call's bias; other operations are folded
// before each run into a scale of the weights and a bias (FoldChannelOps).
struct ConvEpilogue {
  int conv = -1;  // the convolution instruction; -1: the group is no epilogue
  int bias = -1;  // the per-output-feature f32 vector added, when it is the only operation
  std::vector<ChannelOp> channel;  // else the operations, outward from the convolution
  int residual = -1;               // an f32 tensor of the result's shape added, or -1
  bool relu = false;
  int output = -1;  // the group's output
};

struct FusionPlan {
  std::vector<FusionGroup> groups;
  std::vector<Step> steps;    // in execution order: every step after those it reads
  std::vector<int> group_of;  // per instruction: its group, or -1
  std::vector<int> step_of;   // per instruction: the step computing it; -1 for parameters,
                              // constants and values nothing needs
  std::vector<bool> needed;   // per instruction: a result depends on it (all_reduce always is)
  // Dot updates (dot_update.h): each is the one-instruction step of its result, which reads
  // update.reads; its dot and product are not needed.
  std::vector<DotUpdate> updates;
  std::vector<int> update_of;  // per instruction: the update it is the result of, or -1
  // Transposed products (transposed_product.h): per instruction, for a transpose that its
  // operand's gemm writes, that dot_general (not needed: the transpose's step reads the
  // dot's operands); -1 elsewhere and when not fusing.
  std::vector<int> transposed_product;
  // Per instruction: a broadcast of a rank-0 value that is a member of every group reading
  // it (each computes its own copy; group_of names one of them). Empty when not fusing.
  std::vector<bool> copied_fill;
  // Per instruction: a cheap elementwise value also computed inside other groups that read
  // it (a member of each; group_of names the group that owns it), so that it need not be
  // written to memory and read back: a batch norm's centred and normalised values,
  // recomputed from the convolution's result in its later loops (ValueCopier, fusion.cc).
  // Members two groups compute after SinkRecomputedValues (fusion_sink.h) are not marked
  // here. Empty when not fusing.
  std::vector<bool> copied;
  // Per group, what it is as a convolution's epilogue; empty until AttachEpilogues runs.
  std::vector<ConvEpilogue> epilogues;
  // Sliced regions (sliced_region.h), in step order; empty until PlanSlicedRegions runs.
  std::vector<SlicedRegion> regions;
};

// The values instruction i reads from memory when it runs as its own step: its operands,
// or a dot update's reads.
const std::vector<int>& InstructionReads(const ir::Program& program, const FusionPlan& plan, int i);

// The values a step reads from memory (a group's inputs, or InstructionReads).
const std::vector<int>& StepReads(const ir::Program& program, const FusionPlan& plan,
                                  const Step& step);

// The values a step writes to memory: a group's outputs and the reductions that run with
// it, or its instruction.
std::vector<int> StepWrites(const FusionPlan& plan, const Step& step);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COMPILE_FUSION_PLAN_H_
