// Loop fusion for the CPU plugin: groups producer/consumer chains of elementwise ops,
// broadcast_in_dim and reshape into fusion groups, each run as one loop kernel
// (kernels_fused.cc), folds `base - scale * dot` updates into one gemm each
// (dot_update.h), orders the groups and the remaining instructions into steps, and runs
// reductions of a group's output with the group (a reduce epilogue).
#ifndef SEAM_PLUGINS_CPU_FUSION_H_
#define SEAM_PLUGINS_CPU_FUSION_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion_plan.h"

namespace seam::cpu {

// The ops a loop kernel evaluates: unary, binary, compare, select, convert,
// broadcast_in_dim and reshape.
bool IsLoopFusible(ir::Op op);

// Moves step `s` down to just before step `t` (s < t), keeping step_of in step. The caller
// checks that no step in between reads what step s writes.
void MoveStepBefore(FusionPlan* plan, int s, int t);

// Groups the program's instructions and finds the dot updates. With `fuse` false every
// needed instruction is its own step (the unfused plan, for comparisons).
FusionPlan PlanFusion(const ir::Program& program, bool fuse = true);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_FUSION_H_
