// Executable::RunRegion: a sliced region's run (sliced_region.h).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {

void Executable::RunRegion(const SlicedRegion& region, const std::vector<uint8_t*>& value) const {
  const int64_t slices = (region.batches + region.slice_batches - 1) / region.slice_batches;
  const int parts = static_cast<int>(std::min<int64_t>(region.parts, slices));
  // Part p runs slices [p * slices / parts, (p + 1) * slices / parts) in order, with its own
  // copy of the value table (the local values moved to its slot) and its own reductions'
  // carries; every write of a slice lands in that slice's batches or in the part's slots.
  const auto run_part = [&](int64_t p) {
    // The part's table lives on its thread from run to run (no allocation per run).
    thread_local std::vector<uint8_t*> at;
    at.assign(value.begin(), value.end());
    ReduceCarry carry;
    for (int64_t slice = p * slices / parts; slice < (p + 1) * slices / parts; ++slice) {
      const int64_t b0 = slice * region.slice_batches;
      const int64_t b1 = std::min(region.batches, b0 + region.slice_batches);
      for (size_t k = 0; k < region.local.size(); ++k) {
        const int v = region.local[k];
        at[v] =
            MovedBack(value[v] + p * region.local_part_bytes[k], b0 * region.local_batch_bytes[k]);
      }
      for (int s = region.first; s < region.end; ++s) {
        const Step& step = fusion_.steps[s];
        const StepPlan& plan = step_plans_[s];
        if (step.group < 0) {
          const int i = step.instruction;
          const int dot = fusion_.transposed_product[i] >= 0 ? fusion_.transposed_product[i] : i;
          const ir::Instruction& product = program_.instructions[dot];
          RunCausalDotBatches(plan.dot, plan.dot.causal.get(),
                              reinterpret_cast<const float*>(at[product.operands[0]]),
                              reinterpret_cast<const float*>(at[product.operands[1]]),
                              reinterpret_cast<float*>(at[i]), b0, b1);
          continue;
        }
        const LoopKernel& kernel = kernels_[step.group];
        const int64_t per = kernel.count / region.batches;
        const LoopAddresses addresses = AddressesOf(kernel, at);
        RunLoopTiles(kernel, addresses.inputs, addresses.outputs, b0 * per / kTileElements,
                     b1 * per / kTileElements);
        for (const ReducePlan& r : plan.reduces) {
          RunReduceRange(r.range, at[r.operand], b0 * per, b1 * per, at[r.result], &carry);
        }
      }
    }
  };
  if (parts == 1) return run_part(0);
  ParallelFor(parts, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) run_part(p);
  });
}

}  // namespace seam::cpu
