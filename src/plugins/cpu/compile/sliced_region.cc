#include "src/plugins/cpu/compile/sliced_region.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "src/plugins/cpu/compile/transposed_product.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

using ir::Op;

// The most steps one region's scan looks at (a program's compile time stays bounded).
constexpr int kMaxScanSteps = 64;
constexpr int64_t kSlotAlignment = 64;

int64_t Elements(const ir::Program& program, int v) {
  return program.instructions[v].shape.num_elements();
}

// What a scan from one head step has found so far.
struct Scan {
  const ir::Program& program;
  const std::vector<LoopKernel>& kernels;
  const FusionPlan& plan;
  const std::vector<std::vector<int>>& readers;
  // Per instruction: a result whose output aliases a donated parameter (buffer assignment
  // may compute it in the parameter's block, which the region may be reading).
  const std::vector<bool>& aliased;
  int64_t batches = 0;
  std::vector<bool> written;  // per instruction: written by a step of the region
  std::vector<bool> sliced;   // written, and batch b is elements [b, b + 1) * size / batches
  std::vector<bool> blocked;  // written by a step left after the region
};

bool Any(const std::vector<bool>& marked, const std::vector<int>& values) {
  return std::any_of(values.begin(), values.end(), [&](int v) { return marked[v]; });
}

// The product a single-instruction step computes (a dot_general, or the transpose its
// operand's gemm writes), its plan, and whether its causal blocks are proven; -1 if none.
struct StepDot {
  int dot = -1;
  DotPlan plan;
};

StepDot DotOfStep(const Scan& scan, int s) {
  const Step& step = scan.plan.steps[s];
  const int i = step.instruction;
  if (step.group >= 0 || i < 0 || scan.plan.update_of[i] >= 0) return {};
  if (s + 1 < static_cast<int>(scan.plan.steps.size()) && scan.plan.steps[s + 1].interleaved) {
    return {};
  }
  const ir::Program& program = scan.program;
  StepDot out;
  if (const int product = scan.plan.transposed_product[i]; product >= 0) {
    std::optional<DotPlan> plan = PlanTransposedProduct(program, i, product);
    if (!plan.has_value()) return {};
    out = StepDot{product, *std::move(plan)};
  } else if (program.instructions[i].op == Op::kDotGeneral) {
    const ir::Instruction& inst = program.instructions[i];
    out = StepDot{i, PlanDot(program.instructions[inst.operands[0]].shape,
                             program.instructions[inst.operands[1]].shape, DotDimensionsOf(inst))};
  } else {
    return {};
  }
  const DotPlan& plan = out.plan;
  if (plan.dtype != ir::DType::kF32 || !plan.blas || plan.lhs.layout == DotPlan::kCopy ||
      plan.rhs.layout == DotPlan::kCopy || plan.batches < 2 ||
      PlanCausalDot(program, scan.readers, out.dot) == nullptr) {
    return {};
  }
  return out;
}

// Whether operand `v` of a product, read as `operand` describes, is read batch by batch
// in the region's slicing (batch b's matrix where the region keeps batch b).
bool ReadByBatch(const Scan& scan, int v, const DotPlan::Operand& operand) {
  if (!scan.written[v]) return true;  // complete before the region starts
  if (!scan.sliced[v]) return false;
  const int64_t per = Elements(scan.program, v) / scan.batches;
  for (int64_t b = 0; b < scan.batches; ++b) {
    if (operand.BatchOffset(b) != b * per) return false;
  }
  return true;
}

// A product step of the region: the same batches, its operands read batch by batch.
bool TakeDot(Scan& scan, int s) {
  const StepDot found = DotOfStep(scan, s);
  if (found.dot < 0 || found.plan.batches != scan.batches) return false;
  const ir::Instruction& dot = scan.program.instructions[found.dot];
  const int i = scan.plan.steps[s].instruction;
  if (scan.aliased[i] || !ReadByBatch(scan, dot.operands[0], found.plan.lhs) ||
      !ReadByBatch(scan, dot.operands[1], found.plan.rhs)) {
    return false;
  }
  scan.written[i] = true;
  // A transposed product's result is written at other places than batch by batch.
  scan.sliced[i] = scan.plan.transposed_product[i] < 0;
  return true;
}

// Whether a reduction over `axes` of a [count]-element operand of `shape` folds whole
// batches: the axes trailing, each batch a whole number of the reduced rows.
bool ReducesTrailing(const ir::Shape& shape, std::vector<int64_t> axes, int64_t per) {
  std::sort(axes.begin(), axes.end());
  const int64_t rank = shape.rank();
  int64_t row = 1;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(k)) {
      return false;
    }
    row *= shape.dims[axes[k]];
  }
  return !axes.empty() && row > 0 && per % row == 0;
}

// A fused loop of the region: whole tiles per batch, the region's values read at its own
// positions or through broadcasts that add trailing dimensions, reductions over trailing
// axes.
bool TakeGroup(Scan& scan, int s) {
  const Step& step = scan.plan.steps[s];
  if (step.epilogue || step.interleaved) return false;
  const FusionGroup& group = scan.plan.groups[step.group];
  const LoopKernel& kernel = scan.kernels[step.group];
  if (kernel.streams || kernel.count % scan.batches != 0) return false;
  const int64_t per = kernel.count / scan.batches;
  if (per % kTileElements != 0) return false;
  const ir::Program& program = scan.program;
  for (int m : group.members) {
    const ir::Instruction& inst = program.instructions[m];
    for (int o : inst.operands) {
      if (std::binary_search(group.members.begin(), group.members.end(), o) || !scan.written[o]) {
        continue;
      }
      if (!scan.sliced[o]) return false;
      if (inst.op != Op::kBroadcastInDim) {
        if (Elements(program, o) != kernel.count) return false;
        continue;
      }
      const std::vector<int64_t>& dims = inst.attrs.at("dims");
      const ir::Shape& from = program.instructions[o].shape;
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] != static_cast<int64_t>(d) || from.dims[d] != inst.shape.dims[d]) return false;
      }
    }
  }
  for (int r : group.reduces) {
    const ir::Instruction& reduce = program.instructions[r];
    const int operand = reduce.operands[0];
    if (scan.aliased[r] || Elements(program, operand) != kernel.count ||
        !ReducesTrailing(program.instructions[operand].shape, reduce.attrs.at("axes"), per)) {
      return false;
    }
  }
  for (int v : group.outputs) {
    if (scan.aliased[v]) return false;
  }
  for (int v : group.outputs) scan.written[v] = scan.sliced[v] = true;
  for (int r : group.reduces) scan.written[r] = scan.sliced[r] = true;
  return true;
}

// Whether step s (with the epilogue or interleaved group after it) may move across the
// region: it is no all_reduce and reads none.
bool Hoistable(const Scan& scan, int s, int width) {
  for (int t = s; t < s + width; ++t) {
    const Step& step = scan.plan.steps[t];
    if (step.group < 0 && ir::IsAllReduce(scan.program.instructions[step.instruction].op)) {
      return false;
    }
    for (int v : StepReads(scan.program, scan.plan, step)) {
      if (ir::IsAllReduce(scan.program.instructions[v].op)) return false;
    }
  }
  return true;
}

// The bytes one batch of the region touches: what it writes, and its products' operands
// read from before it.
int64_t BatchBytes(const Scan& scan) {
  int64_t bytes = 0;
  for (size_t v = 0; v < scan.written.size(); ++v) {
    if (scan.written[v]) {
      bytes += static_cast<int64_t>(scan.program.instructions[v].shape.byte_size()) / scan.batches;
    }
  }
  return std::max<int64_t>(bytes, 1);
}

// Scans from head step `s`; on success reorders plan->steps (the hoisted steps, then the
// region) and returns the region; nullopt leaves the plan as it was.
// `origin` (per step: its index before any region moved it) is reordered alike.
std::optional<SlicedRegion> TryRegion(Scan& scan, int s, int threads, FusionPlan* plan,
                                      std::vector<int>* origin) {
  const StepDot head = DotOfStep(scan, s);
  const int i = s < static_cast<int>(plan->steps.size()) ? plan->steps[s].instruction : -1;
  if (head.dot < 0 || head.dot != i || scan.aliased[i]) return std::nullopt;
  scan.batches = head.plan.batches;
  scan.written.assign(scan.program.instructions.size(), false);
  scan.sliced.assign(scan.program.instructions.size(), false);
  scan.written[i] = scan.sliced[i] = true;
  scan.blocked.assign(scan.program.instructions.size(), false);
  // Each step after the head: in the region, moved before it (it reads nothing the region
  // writes), or left after it (it reads what the region writes but cannot run slice by
  // slice, or reads what such a step writes). An all_reduce ends the scan.
  std::vector<int> region{s}, hoisted, deferred;
  bool any_group = false;
  const int steps = static_cast<int>(plan->steps.size());
  for (int t = s + 1; t < steps && t - s <= kMaxScanSteps;) {
    const Step& step = plan->steps[t];
    const bool pair =
        t + 1 < steps && (plan->steps[t + 1].epilogue || plan->steps[t + 1].interleaved);
    const int width = pair ? 2 : 1;
    bool reads_region = false, reads_deferred = false;
    for (int k = t; k < t + width; ++k) {
      const std::vector<int>& reads = StepReads(scan.program, *plan, plan->steps[k]);
      reads_region = reads_region || Any(scan.written, reads);
      reads_deferred = reads_deferred || Any(scan.blocked, reads);
    }
    if (!Hoistable(scan, t, width)) break;
    // A causal product of the same batches joins the region even when it reads nothing
    // the region wrote (the backward's do.vᵀ beside the forward's softmax): its value is
    // then written slice by slice, where the region's loops read it.
    if (!reads_region && !reads_deferred && (pair || step.group >= 0 || !TakeDot(scan, t))) {
      for (int k = t; k < t + width; ++k) hoisted.push_back(k);
    } else if (!pair && !reads_deferred && step.group < 0 && !reads_region) {
      region.push_back(t);
    } else if (!pair && !reads_deferred &&
               (step.group >= 0 ? TakeGroup(scan, t) : TakeDot(scan, t))) {
      any_group = any_group || step.group >= 0;
      region.push_back(t);
    } else {
      for (int k = t; k < t + width; ++k) {
        deferred.push_back(k);
        for (int v : StepWrites(*plan, plan->steps[k])) scan.blocked[v] = true;
      }
    }
    t += width;
  }
  if (!any_group) return std::nullopt;
  // Steps after the region's last one stay where they are.
  const int last = region.back();
  const auto after_last = [&](int t) { return t > last; };
  hoisted.erase(std::remove_if(hoisted.begin(), hoisted.end(), after_last), hoisted.end());
  deferred.erase(std::remove_if(deferred.begin(), deferred.end(), after_last), deferred.end());
  std::vector<int> order(s);
  for (int t = 0; t < s; ++t) order[t] = t;
  order.insert(order.end(), hoisted.begin(), hoisted.end());
  const int first = static_cast<int>(order.size());
  order.insert(order.end(), region.begin(), region.end());
  order.insert(order.end(), deferred.begin(), deferred.end());
  for (int t = last + 1; t < steps; ++t) order.push_back(t);
  std::vector<Step> moved_steps;
  std::vector<int> moved_origin;
  for (int t : order) {
    moved_steps.push_back(plan->steps[t]);
    moved_origin.push_back((*origin)[t]);
  }
  plan->steps = std::move(moved_steps);
  *origin = std::move(moved_origin);
  SlicedRegion out;
  out.first = first;
  out.end = first + static_cast<int>(region.size());
  out.batches = scan.batches;
  const int64_t per_thread = (scan.batches + threads - 1) / threads;
  out.slice_batches = std::clamp<int64_t>(kSliceTargetBytes / BatchBytes(scan), 1, per_thread);
  const int64_t slices = (scan.batches + out.slice_batches - 1) / out.slice_batches;
  out.parts = static_cast<int>(std::min<int64_t>(threads, slices));
  return out;
}

// Region r's local values: written and sliced in it, read by its steps alone.
void FindLocalValues(const ir::Program& program, const std::vector<bool>& is_result,
                     const std::vector<int>& first_reader, const std::vector<int>& last_reader,
                     FusionPlan* plan, SlicedRegion* region) {
  for (int s = region->first; s < region->end; ++s) {
    const Step& step = plan->steps[s];
    if (step.group < 0 && plan->transposed_product[step.instruction] >= 0) continue;
    for (int v : StepWrites(*plan, step)) {
      if (is_result[v] || plan->copied_fill[v] || (!plan->copied.empty() && plan->copied[v]) ||
          first_reader[v] < region->first || last_reader[v] >= region->end) {
        continue;
      }
      const int64_t batch_bytes =
          static_cast<int64_t>(program.instructions[v].shape.byte_size()) / region->batches;
      const int64_t part = (region->slice_batches * batch_bytes + kSlotAlignment - 1) /
                           kSlotAlignment * kSlotAlignment;
      region->local.push_back(v);
      region->local_batch_bytes.push_back(batch_bytes);
      region->local_part_bytes.push_back(part);
    }
  }
}

}  // namespace

void PlanSlicedRegions(const ir::Program& program, const std::vector<LoopKernel>& kernels,
                       int threads, FusionPlan* plan) {
  plan->regions.clear();
  if (plan->transposed_product.empty() || plan->copied_fill.empty()) return;  // not fusing
  const int n = static_cast<int>(program.instructions.size());
  std::vector<bool> is_result(n, false);
  for (int r : program.results) is_result[r] = true;
  const std::vector<std::vector<int>> readers = ReadersOf(program);
  std::vector<bool> aliased(n, false);
  for (const ir::Alias& alias : program.aliases) {
    const int64_t k = alias.output_index;
    if (k >= 0 && k < static_cast<int64_t>(program.results.size()))
      aliased[program.results[k]] = true;
  }
  Scan scan{program, kernels, *plan, readers, aliased, 0, {}, {}, {}};
  threads = std::max(threads, 1);
  std::vector<int> origin(plan->steps.size());
  for (size_t s = 0; s < origin.size(); ++s) origin[s] = static_cast<int>(s);
  for (int s = 0; s < static_cast<int>(plan->steps.size()); ++s) {
    std::optional<SlicedRegion> region = TryRegion(scan, s, threads, plan, &origin);
    if (!region.has_value()) continue;
    plan->regions.push_back(*std::move(region));
    s = plan->regions.back().end - 1;
  }
  if (plan->regions.empty()) return;
  std::vector<int> now(origin.size());
  for (size_t s = 0; s < origin.size(); ++s) now[origin[s]] = static_cast<int>(s);
  for (int& step : plan->step_of) {
    if (step >= 0) step = now[step];
  }
  std::vector<int> first_reader(n, static_cast<int>(plan->steps.size())), last_reader(n, -1);
  for (int s = 0; s < static_cast<int>(plan->steps.size()); ++s) {
    for (int v : StepReads(program, *plan, plan->steps[s])) {
      first_reader[v] = std::min(first_reader[v], s);
      last_reader[v] = std::max(last_reader[v], s);
    }
  }
  for (size_t r = 0; r < plan->regions.size(); ++r) {
    SlicedRegion& region = plan->regions[r];
    plan->steps[region.first].region = static_cast<int>(r);
    for (int s = region.first + 1; s < region.end; ++s) plan->steps[s].sliced = true;
    FindLocalValues(program, is_result, first_reader, last_reader, plan, &region);
  }
}

void AddRegionLocalBytes(const FusionPlan& plan, std::vector<int64_t>* bytes) {
  for (const SlicedRegion& region : plan.regions) {
    for (size_t k = 0; k < region.local.size(); ++k) {
      (*bytes)[region.local[k]] = region.parts * region.local_part_bytes[k];
    }
  }
}

}  // namespace seam::cpu
