// The step planner: from the tensors of a step to what it runs (the program's roots,
// parameters, replicas and input/output aliases). The one place a step's program is
// assembled: the step barrier (src/lazy/graph_executor.h) runs its plan, a replicated step
// lowers it over its replicas, and seam::pending_ir_text prints it.
#ifndef SEAM_LAZY_STEP_PLAN_H_
#define SEAM_LAZY_STEP_PLAN_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "src/lazy/graph_key.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/lowering.h"
#include "src/lazy/replicated.h"

namespace seam::lazy {

// The plan of one step. Reused: Clear keeps the lists' capacity and drops every tensor,
// graph and value the plan held.
struct StepPlan {
  std::vector<std::shared_ptr<TensorImpl>> pending;  // the tensors with pending operations
  std::vector<NodePtr> roots;                        // their graphs' roots, each once
  std::vector<size_t> result_of;  // per pending tensor: its root, the program's result
  // The walked graph: parameter p is walk.leaves[p], the aliases are walk.aliases (planned
  // for a donating step that is not replicated, src/lazy/donation.h).
  GraphWalk walk;
  StepReplicas replicas;  // global > 1: a replicated step (walk.aliases then empty)
  absl::flat_hash_map<const Node*, size_t> root_of_node;  // scratch of PlanStep

  void Clear();
};

// Plans a step over `tensors` into `plan` (cleared by the caller): collects those with
// pending operations (none: returns false and plans nothing more), walks their graph,
// finds its replicas (src/lazy/replicated.h) and, with `donate` (a step barrier, not a host
// read) and one replica, the donations. The caller holds the step lock: the plan reads
// the use counts of values other steps may change.
absl::StatusOr<bool> PlanStep(const std::vector<std::shared_ptr<TensorImpl>>& tensors, bool donate,
                              StepPlan& plan);

// The program of a plan (built from its roots, as a compile-cache miss builds it): with the
// plan's aliases, or, for a replicated step, over its replicas. Its parameters are the
// returned leaves, equal to plan.walk.leaves.
LoweredGraph LowerPlan(const StepPlan& plan);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_STEP_PLAN_H_
