// Data parallelism in one process: values with one copy per replica, all_reduce nodes, and
// what a replicated step needs (one program over the first N devices, run by the step
// runner, src/lazy/step_runner.h).
// docs/frontend.md ("Data parallel") gives the rules.
#ifndef SEAM_LAZY_REPLICATED_H_
#define SEAM_LAZY_REPLICATED_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "src/lazy/lazy_tensor.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

// The copies of a per-replica value other than replica 0's, which is the DeviceValue's own
// `host`/`device`. Index d (1 <= d < count) is replica d; index 0 stays empty.
struct ReplicaValues {
  int64_t count = 0;
  std::vector<std::optional<ir::Literal>> host;             // until sent
  std::vector<runtime::ComputationClient::DataPtr> device;  // once on the devices
};

// A leaf whose replica d holds `per_replica[d]` (all of one shape); at least two replicas.
NodePtr ReplicatedLeaf(std::vector<ir::Literal> per_replica);

// An all_reduce of `x` over every replica of the step. It is built with the one-replica
// group {0}; SetReplicas widens the groups to the step's replica count, so in a step that
// is not replicated it is the identity.
NodePtr AllReduceNode(ir::Op op, const NodePtr& x);

// The replica count of a lowered step: N if some leaf is replicated over N devices, else 1.
// Leaves replicated over different counts are an error.
absl::StatusOr<int64_t> ReplicaCount(const std::vector<std::shared_ptr<DeviceValue>>& leaves);

// Where a step runs. `local`: on this process's first `local` devices (1: the default
// device). `global`: the program's replica count, which is `local` except in a job of
// several processes for a step with an all_reduce: that step spans every device of the job
// (global = processes x local devices, local = every local device; this process's device d
// runs global replica process_index x local + d).
struct StepReplicas {
  int64_t local = 1;
  int64_t global = 1;
  bool job_wide() const { return global > local; }
};

// The replicas of a step that reads `leaves`; `has_all_reduce` (asked only in a job of
// several processes) says whether it combines values across replicas. Errors: leaves
// sharded over different counts; in a job of several processes, an all_reduce over values
// sharded on fewer than every local device.
absl::StatusOr<StepReplicas> PlanStepReplicas(
    const std::vector<std::shared_ptr<DeviceValue>>& leaves,
    absl::FunctionRef<bool()> has_all_reduce);
bool HasAllReduce(const ir::Program& program);

// Makes `program` a program of `replicas` replicas whose all_reduces span all of them.
void SetReplicas(ir::Program& program, int64_t replicas);

// Counts a job-wide program's all_reduces on the counters CrossProcessAllReduce and
// CrossProcessAllReduceBytes (each all_reduce's one-replica operand size), after its launch.
void CountCrossProcessCollectives(const ir::Program& program);

// One new per-replica leaf per root, from a replicated run's outputs[d][i] (replica d's
// value of root i); plain leaves when there is one local replica (a job-wide step of a
// process with one device).
std::vector<NodePtr> ReplicatedLeaves(
    const std::vector<NodePtr>& roots,
    std::vector<std::vector<runtime::ComputationClient::DataPtr>>& outputs);

// Replica d's device value of a leaf's value (d = 0 is the value's own).
runtime::ComputationClient::DataPtr ReplicaData(const DeviceValue& value, int64_t d);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_REPLICATED_H_
