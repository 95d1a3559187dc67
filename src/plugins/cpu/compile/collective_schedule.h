// Overlapped collectives (docs/cpu-plugin.md, "Overlapped all_reduce"): in a job of several
// processes each all_reduce instruction runs in two halves, a start where its step stands
// (its operand is computed) and a finish just before the first step that reads its result,
// with Gloo working on the communication thread in between (collectives.h). The IR keeps
// one all_reduce; these passes decide where the two halves go.
#ifndef SEAM_PLUGINS_CPU_COLLECTIVE_SCHEDULE_H_
#define SEAM_PLUGINS_CPU_COLLECTIVE_SCHEDULE_H_

#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"

namespace seam::cpu {

// Moves every step that depends, directly or through other steps, on an all_reduce's
// result after every step that does not, keeping the order within each of the two sets
// (a valid order: a step of the first set reads nothing of the second). A gradient's
// all_reduce then starts as soon as its bucket is computed and the rest of the backward
// pass runs before anything waits for it. Keeps step_of in step. Run before the steps are
// paired (epilogues, interleaved products).
void DeferAllReduceReaders(const ir::Program& program, FusionPlan* plan);

// Per instruction: for an all_reduce, the step before which it must be finished (the
// first step that reads it, or the product step that runs an interleaved reader; the
// number of steps when only the run's end reads it); -1 for every other instruction.
std::vector<int> AllReduceFinishSteps(const ir::Program& program, const FusionPlan& plan);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COLLECTIVE_SCHEDULE_H_
