#include "src/plugins/cpu/compile/product_epilogue.h"

#include <algorithm>
#include <optional>

#include "src/plugins/cpu/compile/dot_update.h"
#include "src/plugins/cpu/compile/fusion_epilogue.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

bool Reads(const std::vector<int>& reads, int v) {
  return std::find(reads.begin(), reads.end(), v) != reads.end();
}

// Whether group `g` reads value `v` at each element's own position and has its element count.
bool ReadsElementwise(const ir::Program& program, const FusionPlan& plan,
                      const std::vector<LoopKernel>& kernels, int g, int v) {
  const LoopKernel& kernel = kernels[g];
  const auto in = std::find(kernel.inputs.begin(), kernel.inputs.end(), v);
  return plan.groups[g].reduces.empty() && in != kernel.inputs.end() &&
         !kernel.gathered_input[in - kernel.inputs.begin()] &&
         kernel.count == program.instructions[v].shape.num_elements();
}

// The plan of product step `s` (a dot update's own; a dot_general's made anew), or none
// where step s is no f32 product that RunDotRows serves.
std::optional<DotPlan> ProductPlanOf(const ir::Program& program, const FusionPlan& plan, int s) {
  const Step& step = plan.steps[s];
  if (step.group >= 0) return std::nullopt;
  const int i = step.instruction;
  std::optional<DotPlan> dot;
  if (const int u = plan.update_of[i]; u >= 0) {
    dot = plan.updates[u].plan;
  } else if (const ir::Instruction& inst = program.instructions[i];
             inst.op == ir::Op::kDotGeneral) {
    dot = PlanDot(program.instructions[inst.operands[0]].shape,
                  program.instructions[inst.operands[1]].shape, DotDimensionsOf(inst));
  }
  if (!dot.has_value() || !DotRowsSupported(*dot)) return std::nullopt;
  return dot;
}

}  // namespace

void AttachProductEpilogues(const ir::Program& program, const std::vector<LoopKernel>& kernels,
                            FusionPlan* plan) {
  if (!EpiloguesOn()) return;
  std::vector<Step>& steps = plan->steps;
  for (int s = 0; s + 1 < static_cast<int>(steps.size()); ++s) {
    if (steps[s + 1].interleaved) continue;  // moved here already
    const std::optional<DotPlan> dot = ProductPlanOf(program, *plan, s);
    if (!dot.has_value()) continue;
    const int64_t rows = dot->batches * dot->m;
    if (rows * dot->n * static_cast<int64_t>(sizeof(float)) < kProductEpilogueMinimumBytes ||
        SgemmLibraryFor(rows, dot->n, dot->k) != GemmLibrary::kOneDnn) {
      continue;
    }
    const int product = steps[s].instruction;
    for (int t = s + 1; t < static_cast<int>(steps.size()); ++t) {
      const Step& step = steps[t];
      if (!Reads(StepReads(program, *plan, step), product)) continue;
      // The first reader: a plain group that reads the product elementwise, or nothing.
      if (step.group < 0 || step.epilogue ||
          !ReadsElementwise(program, *plan, kernels, step.group, product)) {
        break;
      }
      steps[t].interleaved = true;
      MoveStepBefore(plan, s, t);
      --s;  // the step now at s is the one after the product
      break;
    }
  }
}

void RunProductWithEpilogue(const ir::Program& program, const FusionPlan& plan, int s,
                            const DotPlan& dot, const LoopKernel& kernel,
                            const std::vector<uint8_t*>& value) {
  const int product = plan.steps[s].instruction;
  const std::vector<int>& operands = program.instructions[product].operands;
  const int u = plan.update_of[product];
  const DotUpdate* update = u >= 0 ? &plan.updates[u] : nullptr;
  const DotPlan& p = update != nullptr ? update->plan : dot;
  const int64_t rows = p.batches * p.m, n = p.n, count = rows * n;
  const LoopAddresses at = AddressesOf(kernel, value);
  const uint8_t* const* in = at.inputs;
  uint8_t* const* out = at.outputs;
  // One part per kernel thread, each a multiple of kPartRows rows (but the last).
  const int64_t blocks = (rows + kPartRows - 1) / kPartRows;
  const int64_t parts = count >= kParallelMinimumElements
                            ? std::max<int64_t>(1, std::min<int64_t>(KernelThreads(), blocks))
                            : 1;
  auto first_row = [&](int64_t part) { return std::min(rows, blocks * part / parts * kPartRows); };
  // One part: its rows, then the tiles that lie wholly within them.
  auto run_part = [&](int64_t part) {
    const int64_t begin = first_row(part), end = first_row(part + 1);
    if (begin >= end) return;
    if (update != nullptr) {
      RunDotUpdateRows(*update, value.data(), begin, end, value[product]);
    } else {
      RunDotRows(p, value[operands[0]], value[operands[1]], begin, end, false, 1.0F,
                 value[product]);
    }
    const int64_t first_tile = (begin * n + kTileElements - 1) / kTileElements;
    const int64_t last_tile =
        end == rows ? (count + kTileElements - 1) / kTileElements : end * n / kTileElements;
    if (last_tile > first_tile) RunLoopTiles(kernel, in, out, first_tile, last_tile);
  };
  if (parts == 1) {
    run_part(0);
    return;
  }
  ParallelFor(parts, [&](int64_t first, int64_t last) {
    for (int64_t part = first; part < last; ++part) run_part(part);
  });
  // Tiles across two parts' rows, once both parts are done.
  int64_t previous = -1;
  for (int64_t part = 1; part < parts; ++part) {
    const int64_t at = first_row(part) * n;
    if (at % kTileElements == 0 || at / kTileElements == previous) continue;
    previous = at / kTileElements;
    RunLoopTiles(kernel, in, out, previous, previous + 1);
  }
}

}  // namespace seam::cpu
