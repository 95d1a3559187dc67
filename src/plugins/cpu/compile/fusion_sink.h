// Values a fusion group computes only for one later group are computed by that group
// instead of being written to memory and read back (docs/cpu-plugin.md, "Values computed
// where they are read"). The greedy grouping (fusion.cc) puts an elementwise op into the
// group of its operand, so a backward pass's `exp(-x^2)` of a GELU lands in the forward
// loop that computes `x`, which then writes an array that only the backward loop reads.
#ifndef SEAM_PLUGINS_CPU_COMPILE_FUSION_SINK_H_
#define SEAM_PLUGINS_CPU_COMPILE_FUSION_SINK_H_

#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion_plan.h"

namespace seam::cpu {

// For each group member v that is no result and is read outside its group by the members
// of exactly one other group H (at each element's own position, H of the same element
// count): v and the members of its group it is computed from (its cone) join H, when that
// costs H no more large reads than it saves (the cone's inputs are H's inputs already, or
// small broadcast sources, plus at most as many other groups' outputs as the cone values H
// read), and every cone member the first group still needs is cheap to compute twice
// (arithmetic, compares, selects, converts, broadcasts, reshapes: no exp, erf, log, ...).
// Cone members nothing else needs leave the first group. Repeated until nothing moves (a
// value moved into H may let the value it reads move next). Runs on `plan.groups`,
// `group_of` and `copied_fill` before the groups' inputs and outputs are derived; drops
// groups left empty. A member computed by two groups keeps its first group in group_of.
void SinkRecomputedValues(const ir::Program& program, FusionPlan* plan);

// Removes the groups without members, renumbering group_of.
void DropEmptyGroups(FusionPlan* plan);

// True when operand `k` of `inst` is read at the same linear index as the result is
// written (elementwise operands, reshape, a broadcast that adds only dimensions of size 1).
bool KeepsIndex(const ir::Program& program, const ir::Instruction& inst, size_t k);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COMPILE_FUSION_SINK_H_
