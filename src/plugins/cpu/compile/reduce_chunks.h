// How a fusion group with reductions (FusionGroup::reduces, a reduce epilogue) runs: a chunk
// of tiles at a time, each reduction folding the stretch of its operand the chunk has just
// written (executable.cc). An output of such a group that nothing but the group's own
// reductions reads (the squares of a batch norm's variance, the products of its gradient's
// sums) is needed one chunk at a time only: it lives in a chunk-sized arena slot, rewritten
// by every chunk, instead of a slot of the whole array, so it never leaves the cache
// (docs/cpu-plugin.md, "Reductions with the group").
#ifndef SEAM_PLUGINS_CPU_COMPILE_REDUCE_CHUNKS_H_
#define SEAM_PLUGINS_CPU_COMPILE_REDUCE_CHUNKS_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/compile/loop_compile.h"

namespace seam::cpu {

// Tiles per chunk of a group with reductions (per kernel thread): 16 K elements, so one
// chunk of each array the loop touches stays in a core's L2 cache until its reductions
// have read it.
inline constexpr int64_t kReduceChunkTiles = 16;
// On several threads each chunk is one ParallelFor (a wake-up of the pool); a loop that
// would need more chunks than this runs whole, split over the threads as usual, and its
// reductions then read their operands back (Reduce: the same bits).
inline constexpr int64_t kMaxParallelChunks = 64;

// The tiles of one chunk of a loop of `count` elements on `threads` kernel threads; 0 where
// the loop runs whole (more than kMaxParallelChunks chunks on several threads).
int64_t ReduceChunkTiles(int64_t count, int threads);

struct ReduceChunks {
  int64_t tiles = 0;        // ReduceChunkTiles at compile time; 0: no chunk-local output
  std::vector<bool> local;  // per kernel output: lives one chunk at a time
};

// Per group (plan.groups), with the kernel threads the executable runs on: which outputs
// of a group step that runs its reductions chunk by chunk are read by nothing but those
// reductions (not results, no other reader; not an epilogue or interleaved step). The
// kernels' ops that write such outputs stop streaming past the cache.
std::vector<ReduceChunks> PlanReduceChunks(const ir::Program& program, const FusionPlan& plan,
                                           int threads, std::vector<LoopKernel>* kernels);

// Per instruction: the arena bytes of a chunk-local output (one chunk of it), 0 for any
// other value (its shape's bytes); the input of AssignBuffers.
std::vector<int64_t> ChunkLocalBytes(const ir::Program& program,
                                     const std::vector<LoopKernel>& kernels,
                                     const std::vector<ReduceChunks>& chunks);

// The address byte `first_byte` of a whole array would have if the slot at `base` held the
// array from that byte on (a chunk-local or region-local value: only bytes from
// `first_byte` on are accessed). Computed on integers, since it points before the slot; the
// integer-to-pointer cast happens once per chunk or slice, outside the loops.
inline uint8_t* MovedBack(uint8_t* base, int64_t first_byte) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(base) - static_cast<uintptr_t>(first_byte);
  return reinterpret_cast<uint8_t*>(address);  // NOLINT(performance-no-int-to-ptr)
}

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_COMPILE_REDUCE_CHUNKS_H_
