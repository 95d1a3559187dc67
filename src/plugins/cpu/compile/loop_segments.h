// Segments of a loop kernel run as generated code (docs/cpu-plugin.md, "Generated loop
// code"): runs of consecutive f32 tile operations (arithmetic, maximum and minimum, neg, abs,
// sqrt, rsqrt, exp, erf, compares, selects, copies, chains; broadcasts inside a run are
// filled before it) that one generated function evaluates together, a vector of 16 elements
// at a time, keeping each value in a register from the operation that computes
// it to the last operation of the segment that reads it. A value leaves the registers only
// when it is an output or read after the segment; one computed before the segment is read
// from memory. Every element goes through the same operations in the same order as the tile
// passes would apply them (per element, not per tile), so results are the same bits and
// in-place donation keeps its rules.
#ifndef SEAM_PLUGINS_CPU_COMPILE_LOOP_SEGMENTS_H_
#define SEAM_PLUGINS_CPU_COMPILE_LOOP_SEGMENTS_H_

#include <vector>

#include "src/plugins/cpu/compile/loop_compile.h"
#include "src/plugins/cpu/kernels/chain_jit.h"

namespace seam::cpu {

// A planned segment: kernel.ops[first, end) as `program`, its memory references `refs`
// (program reference k is refs[k]).
struct PlannedSegment {
  LoopSegment segment;
  VectorProgram program;
};

// The segments of `kernel` (its ops compiled, scratch assigned): maximal runs of operations
// the generated code takes, cut where the registers or the references run out; runs of one
// operation are left to the tile passes.
std::vector<PlannedSegment> PlanSegments(const LoopKernel& kernel);

// Generates the kernels' code where this machine has it and the settings allow it
// (ActiveChainCode: SEAM_CPU_JIT or the option `jit`): their segments, and their chains
// outside them (chain_jit.h), all in one mapping that every kernel keeps; what gets none
// runs on the tile passes and FastChainF32/F64.
void GenerateLoopCode(std::vector<LoopKernel>* kernels);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COMPILE_LOOP_SEGMENTS_H_
