#include "src/lazy/step_plan.h"

#include "src/base/status_macros.h"
#include "src/lazy/donation.h"

namespace seam::lazy {

void StepPlan::Clear() {
  walk.Clear();
  result_of.clear();
  root_of_node.clear();
  roots.clear();
  pending.clear();
  replicas = StepReplicas();
}

absl::StatusOr<bool> PlanStep(const std::vector<std::shared_ptr<TensorImpl>>& tensors, bool donate,
                              StepPlan& plan) {
  for (const auto& tensor : tensors) {
    NodePtr node = tensor->node();
    if (node->is_leaf()) continue;
    auto [it, inserted] = plan.root_of_node.emplace(node.get(), plan.roots.size());
    if (inserted) plan.roots.push_back(node);
    plan.pending.push_back(tensor);
    plan.result_of.push_back(it->second);
  }
  if (plan.pending.empty()) return false;
  GraphWalk& walk = plan.walk;
  WalkGraph(plan.roots, walk);
  SEAM_ASSIGN_OR_RETURN(plan.replicas, PlanStepReplicas(walk.leaves, [&] {
                          for (const Node* node : walk.nodes) {
                            if (ir::IsAllReduce(node->op)) return true;
                          }
                          return false;
                        }));
  if (donate && plan.replicas.global == 1) {
    walk.aliases = PlanDonations(walk, plan.roots, plan.pending, plan.result_of);
  }
  return true;
}

LoweredGraph LowerPlan(const StepPlan& plan) {
  LoweredGraph lowered = LowerGraph(plan.roots);
  if (plan.replicas.global > 1) {
    SetReplicas(lowered.program, plan.replicas.global);
  } else {
    lowered.program.aliases = plan.walk.aliases;
  }
  return lowered;
}

}  // namespace seam::lazy
