#include "src/lazy/replicated.h"

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/hash.h"
#include "src/lazy/compile_cache.h"
#include "src/lazy/tensor_internal.h"
#include "src/runtime/metrics.h"

namespace seam::lazy {
namespace {

using runtime::ComputationClient;

// One pending copy to send: `literal` to `device`, stored at `*target`.
struct Upload {
  const ir::Literal* literal;
  std::string device;
  ComputationClient::DataPtr* target;
};

// Makes every leaf per-replica over `replicas` devices and sends, in one crossing, each
// copy that is not on its device yet.
absl::Status UploadReplicas(ComputationClient& client, const std::vector<std::string>& devices,
                            const std::vector<std::shared_ptr<DeviceValue>>& leaves) {
  const int64_t replicas = static_cast<int64_t>(devices.size());
  // Plain values already on device 0 only: their host copy, read in one crossing.
  std::vector<DeviceValue*> device_only;
  std::vector<ComputationClient::DataPtr> to_read;
  for (const auto& leaf : leaves) {
    if (leaf->replicas != nullptr) continue;
    auto copies = std::make_shared<ReplicaValues>();
    copies->count = replicas;
    copies->host.resize(replicas);
    copies->device.resize(replicas);
    leaf->replicas = std::move(copies);
    if (leaf->device != nullptr) {
      device_only.push_back(leaf.get());
      to_read.push_back(leaf->device);
    }
  }
  if (!to_read.empty()) {
    SEAM_ASSIGN_OR_RETURN(std::vector<ir::Literal> read, client.TransferFromDevice(to_read));
    for (size_t i = 0; i < device_only.size(); ++i) {
      for (int64_t d = 1; d < replicas; ++d) device_only[i]->replicas->host[d] = read[i];
    }
  }
  std::vector<Upload> uploads;
  for (const auto& leaf : leaves) {
    ReplicaValues& copies = *leaf->replicas;
    if (leaf->device == nullptr) uploads.push_back({&*leaf->host, devices[0], &leaf->device});
    for (int64_t d = 1; d < replicas; ++d) {
      if (copies.device[d] != nullptr) continue;
      // A value made per-replica from a plain one has the same data everywhere.
      const ir::Literal* literal = copies.host[d] ? &*copies.host[d] : &*leaf->host;
      uploads.push_back({literal, devices[d], &copies.device[d]});
    }
  }
  if (uploads.empty()) return absl::OkStatus();
  std::vector<ComputationClient::TensorSource> sources;
  sources.reserve(uploads.size());
  for (const Upload& u : uploads)
    sources.push_back({u.literal->shape, u.literal->bytes.data(), u.device});
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> data,
                        client.TransferToDevice(sources));
  for (size_t i = 0; i < uploads.size(); ++i) *uploads[i].target = std::move(data[i]);
  // The per-replica host copies are not needed once sent (replica 0's stays, as for plain
  // values, for host reads of values that never ran).
  for (const auto& leaf : leaves) {
    for (auto& host : leaf->replicas->host) host.reset();
  }
  return absl::OkStatus();
}

}  // namespace

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

absl::StatusOr<std::vector<NodePtr>> RunReplicated(ComputationClient& client, LoweredGraph lowered,
                                                   int64_t replicas,
                                                   const std::vector<NodePtr>& roots) {
  std::vector<std::string> local = client.GetLocalDevices();
  if (replicas > static_cast<int64_t>(local.size())) {
    return absl::InvalidArgumentError(absl::StrCat("sync: the step has ", replicas,
                                                   " replicas but there are only ", local.size(),
                                                   " local devices"));
  }
  std::vector<std::string> devices(local.begin(), local.begin() + replicas);
  SetReplicas(lowered.program, replicas);
  SEAM_RETURN_IF_ERROR(UploadReplicas(client, devices, lowered.leaves));

  SEAM_ASSIGN_OR_RETURN(CompileCache * cache, GetCompileCache());
  uint64_t key = CompileCacheKey(ir::HashProgram(lowered.program), devices[0]);
  ComputationClient::ComputationPtr computation = cache->Find(key, lowered.program);
  if (computation != nullptr) {
    metrics::GetOrCreateCounter("CachedCompile")->Add(1);
  } else {
    metrics::GetOrCreateCounter("UncachedCompile")->Add(1);
    std::vector<ComputationClient::CompileInstance> instances;
    instances.push_back({lowered.program, devices[0]});
    SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::ComputationPtr> compiled,
                          client.Compile(std::move(instances)));
    computation = compiled.front();
    cache->Insert(key, computation);
  }

  std::vector<std::vector<ComputationClient::DataPtr>> arguments(replicas);
  for (int64_t d = 0; d < replicas; ++d) {
    arguments[d].reserve(lowered.leaves.size());
    for (const auto& leaf : lowered.leaves) arguments[d].push_back(ReplicaData(*leaf, d));
  }
  SEAM_ASSIGN_OR_RETURN(std::vector<std::vector<ComputationClient::DataPtr>> outputs,
                        client.ExecuteReplicated(*computation, arguments, devices));

  std::vector<NodePtr> results;
  results.reserve(roots.size());
  for (size_t i = 0; i < roots.size(); ++i) {
    auto value = NewDeviceValue();
    value->shape = roots[i]->shape;
    value->device = std::move(outputs[0][i]);
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
