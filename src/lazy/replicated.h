// Data parallelism in one process: values with one copy per replica, all_reduce nodes, and
// what a replicated step needs (one program over the first N devices, run by the step
// runner, src/lazy/step_runner.h).
// docs/frontend.md ("Data parallel") gives the rules.
#ifndef SEAM_LAZY_REPLICATED_H_
#define SEAM_LAZY_REPLICATED_H_

#include <cstdint>
#include <optional>
#include <vector>

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

// Makes `program` a program of `replicas` replicas whose all_reduces span all of them.
void SetReplicas(ir::Program& program, int64_t replicas);

// One new per-replica leaf per root, from a replicated run's outputs[d][i] (replica d's
// value of root i).
std::vector<NodePtr> ReplicatedLeaves(
    const std::vector<NodePtr>& roots,
    std::vector<std::vector<runtime::ComputationClient::DataPtr>>& outputs);

// Replica d's device value of a leaf's value (d = 0 is the value's own).
runtime::ComputationClient::DataPtr ReplicaData(const DeviceValue& value, int64_t d);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_REPLICATED_H_
