#include "src/plugins/cpu/compile/collective_schedule.h"

#include <algorithm>

namespace seam::cpu {

void DeferAllReduceReaders(const ir::Program& program, FusionPlan* plan) {
  const int steps = static_cast<int>(plan->steps.size());
  std::vector<bool> deferred(steps, false);
  bool any = false;
  for (int s = 0; s < steps; ++s) {
    for (int v : StepReads(program, *plan, plan->steps[s])) {
      const int producer = plan->step_of[v];
      if (ir::IsAllReduce(program.instructions[v].op) || (producer >= 0 && deferred[producer])) {
        deferred[s] = true;
        any = true;
        break;
      }
    }
  }
  if (!any) return;
  std::vector<Step> ordered;
  ordered.reserve(steps);
  std::vector<int> new_index(steps, -1);
  for (bool later : {false, true}) {
    for (int s = 0; s < steps; ++s) {
      if (deferred[s] != later) continue;
      new_index[s] = static_cast<int>(ordered.size());
      ordered.push_back(plan->steps[s]);
    }
  }
  plan->steps = std::move(ordered);
  for (int& s : plan->step_of) {
    if (s >= 0) s = new_index[s];
  }
}

std::vector<int> AllReduceFinishSteps(const ir::Program& program, const FusionPlan& plan) {
  const int n = static_cast<int>(program.instructions.size());
  const int steps = static_cast<int>(plan.steps.size());
  std::vector<int> finish(n, -1);
  for (int i = 0; i < n; ++i) {
    if (ir::IsAllReduce(program.instructions[i].op) && plan.step_of[i] >= 0) finish[i] = steps;
  }
  for (int s = steps - 1; s >= 0; --s) {
    // A step run inside the one before it (an epilogue, an interleaved group) reads its
    // operands while that one runs.
    int at = s;
    while (at > 0 && (plan.steps[at].epilogue || plan.steps[at].interleaved)) --at;
    for (int v : StepReads(program, plan, plan.steps[s])) {
      if (finish[v] >= 0 && plan.step_of[v] < at) finish[v] = std::min(finish[v], at);
    }
  }
  return finish;
}

}  // namespace seam::cpu
