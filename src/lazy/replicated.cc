#include "src/lazy/replicated.h"

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/lazy/node_ops.h"
#include "src/lazy/runtime.h"
#include "src/runtime/metrics.h"
#include "src/runtime/process/runtime.h"

namespace seam::lazy {
using runtime::ComputationClient;

NodePtr ReplicatedLeaf(std::vector<ir::Literal> per_replica) {
  auto value = NewDeviceValue();
  value->shape = per_replica.front().shape;
  auto copies = std::make_shared<ReplicaValues>();
  copies->count = static_cast<int64_t>(per_replica.size());
  copies->host.resize(per_replica.size());
  copies->device.resize(per_replica.size());
  for (size_t d = 1; d < per_replica.size(); ++d) copies->host[d] = std::move(per_replica[d]);
  value->host = std::move(per_replica.front());
  value->replicas = std::move(copies);
  return MakeLeaf(std::move(value));
}

NodePtr AllReduceNode(ir::Op op, const NodePtr& x) {
  return MakeNode(op, {x}, {{"replica_groups", {0}}, {"group_size", {1}}});
}

absl::StatusOr<int64_t> ReplicaCount(const std::vector<std::shared_ptr<DeviceValue>>& leaves) {
  int64_t count = 1;
  for (const auto& leaf : leaves) {
    if (leaf->replicas == nullptr || leaf->replicas->count == count) continue;
    if (count != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("sync: one step mixes values sharded over ", count, " and ",
                       leaf->replicas->count, " replicas (", leaf->shape.ToString(),
                       "); every per-replica value of a step must "
                       "come from DataParallel objects of one replica count"));
    }
    count = leaf->replicas->count;
  }
  return count;
}

absl::StatusOr<StepReplicas> PlanStepReplicas(
    const std::vector<std::shared_ptr<DeviceValue>>& leaves,
    absl::FunctionRef<bool()> has_all_reduce) {
  SEAM_ASSIGN_OR_RETURN(int64_t sharded, ReplicaCount(leaves));
  StepReplicas replicas{sharded, sharded};
  SEAM_ASSIGN_OR_RETURN(runtime::ComputationClient * client, CurrentRuntime().client());
  const int64_t processes = client->GetNumProcesses();
  if (processes <= 1 || !has_all_reduce()) return replicas;
  const auto local = static_cast<int64_t>(client->GetLocalDevices().size());
  if (sharded != 1 && sharded != local) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sync: in a job of ", processes, " processes a step with an all_reduce spans every ",
        "device of the job, but its values are sharded over ", sharded, " of the ", local,
        " local devices (use DataParallel() over all of them)"));
  }
  return StepReplicas{local, processes * local};
}

bool HasAllReduce(const ir::Program& program) {
  for (const ir::Instruction& inst : program.instructions) {
    if (ir::IsAllReduce(inst.op)) return true;
  }
  return false;
}

void CountCrossProcessCollectives(const ir::Program& program) {
  static metrics::Counter* count = metrics::GetOrCreateCounter("CrossProcessAllReduce");
  static metrics::Counter* bytes = metrics::GetOrCreateCounter("CrossProcessAllReduceBytes");
  for (const ir::Instruction& inst : program.instructions) {
    if (!ir::IsAllReduce(inst.op)) continue;
    count->Add(1);
    bytes->Add(static_cast<int64_t>(inst.shape.byte_size()));
  }
}

void SetReplicas(ir::Program& program, int64_t replicas) {
  program.replica_count = replicas;
  std::vector<int64_t> group(replicas);
  for (int64_t d = 0; d < replicas; ++d) group[d] = d;
  for (ir::Instruction& inst : program.instructions) {
    if (!ir::IsAllReduce(inst.op)) continue;
    inst.attrs["replica_groups"] = group;
    inst.attrs["group_size"] = {replicas};
  }
}

ComputationClient::DataPtr ReplicaData(const DeviceValue& value, int64_t d) {
  return d == 0 ? value.device : value.replicas->device[d];
}

std::vector<NodePtr> ReplicatedLeaves(
    const std::vector<NodePtr>& roots,
    std::vector<std::vector<ComputationClient::DataPtr>>& outputs) {
  const auto replicas = static_cast<int64_t>(outputs.size());
  std::vector<NodePtr> results;
  results.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    auto value = NewDeviceValue();
    value->shape = roots[i]->shape;
    value->device = std::move(outputs[0][i]);
    if (replicas == 1) {
      results.push_back(MakeLeaf(std::move(value)));
      continue;
    }
    auto copies = std::make_shared<ReplicaValues>();
    copies->count = replicas;
    copies->host.resize(replicas);
    copies->device.resize(replicas);
    for (int64_t d = 1; d < replicas; ++d) copies->device[d] = std::move(outputs[d][i]);
    value->replicas = std::move(copies);
    results.push_back(MakeLeaf(std::move(value)));
  }
  return results;
}

}  // namespace seam::lazy
