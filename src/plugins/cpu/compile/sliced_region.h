// Sliced regions: a batched causal product and the steps after it that work batch by batch
// run one slice of batches at a time (docs/cpu-plugin.md "Sliced regions"). In a causal
// attention the scores q.kᵀ ([batch, heads, L, S]) go through a softmax (the mask's select,
// a row max, exp, a row sum, a divide) into p.v; in the backward do.vᵀ goes through the
// softmax's gradient into ds.k and dsᵀ.q. Run whole, each of these steps reads its 4 MiB
// operands back from memory (the transformer step's loops run at 8-12 GB/s on the Xeon
// VM). Run a slice at a time, each step finds the slice the step before it wrote still in
// the core's L2, and the values no step outside the region reads (the scores, the masked
// scores, the softmax gradient) live in a slot of one slice per thread: they never leave
// the cache at all.
//
// Every step runs its own kernel on its part of the batches (the causal strips, the fused
// loop's tiles, the row reductions folded over the same ranges), so every element is the
// same sum in the same order as without slicing: the results are bit for bit those of
// SEAM_CPU_ATTENTION=blocks. Slices are split over the kernel threads, each running the
// region's steps on its slices alone.
#ifndef SEAM_PLUGINS_CPU_COMPILE_SLICED_REGION_H_
#define SEAM_PLUGINS_CPU_COMPILE_SLICED_REGION_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/compile/loop_compile.h"

namespace seam::cpu {

// The bytes of the region's values one slice should touch: about a quarter of a core's L2
// (1-2 MiB on the machines measured), so the slice the next step reads is still there.
inline constexpr int64_t kSliceTargetBytes = int64_t{512} * 1024;

// Finds the regions and records them in plan->regions and the steps' `region` and
// `sliced` marks. A region starts at a dot_general step whose causal blocks PlanCausalDot
// proves (an f32 product within BLAS's sizes, batch dimensions leading, no copied operand)
// and takes each later step that reads what the region wrote, while that step can run
// slice by slice:
// - a fused loop (not an epilogue or interleaved, not streaming) of whole tiles per batch,
//   reading the region's values at its own positions or through broadcasts along trailing
//   dimensions, its reductions over trailing axes;
// - a causal product of the same batches reading the region's values batch by batch.
// Steps in between that read nothing the region wrote move before it (a value projection
// computed between the softmax and p.v); those that read it but cannot be sliced, and those
// that read what such a step writes, move after it; an all_reduce ends the scan. No region
// step writes a result that aliases a donated parameter.
// Call after the product epilogues and before the collective schedule, the reduce chunks
// and buffer assignment (which reads the regions: RegionLocalBytes, and every value a
// region reads stays alive until its end). `threads`: the kernel threads.
void PlanSlicedRegions(const ir::Program& program, const std::vector<LoopKernel>& kernels,
                       int threads, FusionPlan* plan);

// Per instruction: the arena bytes of a region-local value (`parts` slices), 0 for any
// other; merged into `bytes` (reduce_chunks.h's ChunkLocalBytes, the input of AssignBuffers).
void AddRegionLocalBytes(const FusionPlan& plan, std::vector<int64_t>* bytes);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COMPILE_SLICED_REGION_H_
