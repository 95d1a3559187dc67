#include "src/plugins/cpu/compile/reduce_chunks.h"

#include <algorithm>

#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {

int64_t ReduceChunkTiles(int64_t count, int threads) {
  const int64_t tiles = (count + kTileElements - 1) / kTileElements;
  const bool parallel = threads > 1 && count >= kParallelMinimumElements;
  const int64_t chunk = parallel ? kReduceChunkTiles * threads : kReduceChunkTiles;
  return parallel && tiles > kMaxParallelChunks * chunk ? 0 : chunk;
}

std::vector<ReduceChunks> PlanReduceChunks(const ir::Program& program, const FusionPlan& plan,
                                           int threads, std::vector<LoopKernel>* kernels) {
  const int n = static_cast<int>(program.instructions.size());
  std::vector<bool> is_result(n, false);
  for (int r : program.results) is_result[r] = true;
  // Per value: the instructions outside its own group that read it. A member two groups
  // compute (a copied value, FusionPlan::copied, or one fusion_sink.h left in two groups)
  // reads its operands in each of them.
  std::vector<std::vector<int>> outside(n);
  for (int i = 0; i < n; ++i) {
    if (plan.group_of[i] >= 0) continue;
    for (int o : program.instructions[i].operands) outside[o].push_back(i);
  }
  for (const FusionGroup& group : plan.groups) {
    for (int m : group.members) {
      for (int o : program.instructions[m].operands) {
        if (!std::binary_search(group.members.begin(), group.members.end(), o)) {
          outside[o].push_back(m);
        }
      }
    }
  }
  std::vector<ReduceChunks> chunks(plan.groups.size());
  for (const Step& step : plan.steps) {
    const int g = step.group;
    // A sliced region's loops keep their outputs one slice at a time instead (sliced_region.h).
    if (g < 0 || step.epilogue || step.interleaved || step.sliced || step.region >= 0 ||
        plan.groups[g].reduces.empty()) {
      continue;
    }
    const FusionGroup& group = plan.groups[g];
    LoopKernel& kernel = (*kernels)[g];
    const int64_t tiles = ReduceChunkTiles(kernel.count, threads);
    if (tiles == 0) continue;
    ReduceChunks& c = chunks[g];
    c.local.assign(kernel.outputs.size(), false);
    bool any = false;
    for (size_t k = 0; k < kernel.outputs.size(); ++k) {
      const int v = kernel.outputs[k];
      const std::vector<int>& readers = outside[v];
      c.local[k] =
          !is_result[v] && !plan.copied_fill[v] && !readers.empty() &&
          std::all_of(readers.begin(), readers.end(), [&](int r) {
            return std::find(group.reduces.begin(), group.reduces.end(), r) != group.reduces.end();
          });
      any = any || c.local[k];
    }
    if (!any) {
      c = ReduceChunks{};
      continue;
    }
    c.tiles = tiles;
    // A chunk-local output is read back at once: never written past the cache.
    kernel.streams = false;
    for (TileOp& op : kernel.ops) {
      if (op.result.kind == TileRef::kOutput && c.local[op.result.index]) op.stream = false;
      kernel.streams = kernel.streams || op.stream;
    }
  }
  return chunks;
}

std::vector<int64_t> ChunkLocalBytes(const ir::Program& program,
                                     const std::vector<LoopKernel>& kernels,
                                     const std::vector<ReduceChunks>& chunks) {
  std::vector<int64_t> bytes(program.instructions.size(), 0);
  for (size_t g = 0; g < chunks.size(); ++g) {
    const ReduceChunks& c = chunks[g];
    if (c.tiles == 0) continue;
    const LoopKernel& kernel = kernels[g];
    const int64_t elements = std::min(kernel.count, c.tiles * kTileElements);
    for (size_t k = 0; k < kernel.outputs.size(); ++k) {
      if (c.local[k]) bytes[kernel.outputs[k]] = elements * kernel.output_bytes[k];
    }
  }
  return bytes;
}

}  // namespace seam::cpu
