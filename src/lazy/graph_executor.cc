#include "src/lazy/graph_executor.h"

#include <optional>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "src/base/status_macros.h"
#include "src/ir/hash.h"
#include "src/lazy/compile_cache.h"
#include "src/lazy/donation.h"
#include "src/lazy/graph_key.h"
#include "src/lazy/recompile_explainer.h"
#include "src/lazy/replicated.h"
#include "src/runtime/metrics.h"
#include "src/runtime/runtime.h"

namespace seam::lazy {
namespace {

using runtime::ComputationClient;

thread_local BarrierObserver* g_observer = nullptr;

}  // namespace

BarrierObserver* SetBarrierObserver(BarrierObserver* observer) {
  BarrierObserver* previous = g_observer;
  g_observer = observer;
  return previous;
}

absl::Status UploadLeaves(ComputationClient& client, const std::string& device,
                          const std::vector<std::shared_ptr<DeviceValue>>& leaves) {
  // Per-thread lists (a step sends a few host scalars), emptied when the call ends.
  thread_local std::vector<ComputationClient::TensorSource> sources;
  thread_local std::vector<DeviceValue*> targets;
  absl::Cleanup empty = [] {
    sources.clear();
    targets.clear();
  };
  for (const auto& leaf : leaves) {
    if (leaf->device != nullptr) continue;
    sources.push_back({leaf->shape, leaf->host->bytes.data(), device});
    targets.push_back(leaf.get());
  }
  if (sources.empty()) return absl::OkStatus();
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> data,
                        client.TransferToDevice(sources));
  for (size_t i = 0; i < targets.size(); ++i) targets[i]->device = std::move(data[i]);
  return absl::OkStatus();
}

LoweredGraph LowerGraph(const std::vector<NodePtr>& roots) {
  LoweredGraph lowered;
  // Flat maps, sized from the last lowering: this runs at every step barrier.
  static thread_local size_t last_size = 64;
  absl::flat_hash_map<const Node*, int> index;
  index.reserve(last_size);
  lowered.program.instructions.reserve(last_size);
  absl::flat_hash_map<const DeviceValue*, int> instruction_of_value;
  // Iterative post-order: graphs of long training loops can be deep.
  std::vector<std::pair<const Node*, size_t>> stack;
  for (const NodePtr& root : roots) {
    stack.emplace_back(root.get(), 0);
    while (!stack.empty()) {
      auto& [node, next_operand] = stack.back();
      if (index.count(node)) {
        stack.pop_back();
        continue;
      }
      // A leaf is a parameter even when it keeps the op that computed it (eager mode).
      if (!node->is_leaf() && next_operand < node->operands.size()) {
        const Node* operand = node->operands[next_operand++].get();
        if (!index.count(operand)) stack.emplace_back(operand, 0);
        continue;
      }
      if (node->is_leaf()) {
        // One parameter per distinct value, even if several leaf nodes hold it.
        auto [it, inserted] = instruction_of_value.emplace(
            node->value.get(), static_cast<int>(lowered.program.instructions.size()));
        if (inserted) {
          ir::Instruction parameter;
          parameter.op = ir::Op::kParameter;
          parameter.shape = node->shape;
          parameter.parameter_index = static_cast<int64_t>(lowered.leaves.size());
          lowered.leaves.push_back(node->value);
          lowered.program.instructions.push_back(std::move(parameter));
        }
        index[node] = it->second;
        stack.pop_back();
        continue;
      }
      ir::Instruction inst;
      inst.op = node->op;
      inst.shape = node->shape;
      inst.attrs = node->attrs();
      if (node->op == ir::Op::kConstant) inst.literal = node->literal;
      for (const NodePtr& operand : node->operands)
        inst.operands.push_back(index.at(operand.get()));
      index[node] = static_cast<int>(lowered.program.instructions.size());
      lowered.program.instructions.push_back(std::move(inst));
      stack.pop_back();
    }
    lowered.program.results.push_back(index.at(root.get()));
  }
  last_size = lowered.program.instructions.size();
  return lowered;
}

namespace {

// The tables of one step barrier, kept per thread for the next barrier (one runs every
// step) and emptied when the barrier ends, so that they hold no tensor, graph or buffer
// after it.
struct BarrierTables {
  std::vector<std::shared_ptr<TensorImpl>> pending;
  std::vector<NodePtr> roots;
  absl::flat_hash_map<const Node*, size_t> root_of_node;
  std::vector<size_t> root_index;  // per pending tensor
  GraphWalk walk;
  std::vector<ComputationClient::DataPtr> arguments;
  std::vector<NodePtr> new_leaves;
  bool in_use = false;

  void Clear() {
    new_leaves.clear();
    arguments.clear();
    walk.Clear();
    root_index.clear();
    root_of_node.clear();
    roots.clear();
    pending.clear();
  }
};

}  // namespace

absl::Status SyncTensors(const std::vector<std::shared_ptr<TensorImpl>>& tensors, bool donate) {
  // A barrier inside a barrier (from an observer) gets tables of its own.
  thread_local BarrierTables thread_tables;
  std::optional<BarrierTables> nested;
  BarrierTables& tables = thread_tables.in_use ? nested.emplace() : thread_tables;
  tables.in_use = true;
  absl::Cleanup release = [&tables] {
    tables.Clear();
    tables.in_use = false;
  };
  std::vector<std::shared_ptr<TensorImpl>>& pending = tables.pending;
  std::vector<NodePtr>& roots = tables.roots;
  absl::flat_hash_map<const Node*, size_t>& root_of_node = tables.root_of_node;
  std::vector<size_t>& root_index = tables.root_index;
  for (const auto& tensor : tensors) {
    NodePtr node = tensor->node();
    if (node->is_leaf()) continue;
    auto [it, inserted] = root_of_node.emplace(node.get(), roots.size());
    if (inserted) roots.push_back(node);
    pending.push_back(tensor);
    root_index.push_back(it->second);
  }
  if (pending.empty()) return absl::OkStatus();

  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, runtime::GetComputationClient());
  const std::string device = client->GetDefaultDevice();
  // The cache is keyed and checked on the graph itself: a hit builds no program.
  GraphWalk& walk = tables.walk;
  WalkGraph(roots, walk);
  for (const auto& leaf : walk.leaves) SEAM_RETURN_IF_ERROR(CheckNotDonated(*leaf, "sync"));
  // Data parallel: a step with per-replica values runs on every replica (src/lazy/replicated.cc).
  SEAM_ASSIGN_OR_RETURN(int64_t replicas, ReplicaCount(walk.leaves));
  if (replicas > 1) {
    walk.leaves.clear();  // holds no value while the replicas run
    SEAM_ASSIGN_OR_RETURN(std::vector<NodePtr> results,
                          RunReplicated(*client, LowerGraph(roots), replicas, roots));
    for (size_t i = 0; i < pending.size(); ++i) pending[i]->set_node(results[root_index[i]]);
    if (g_observer != nullptr) {
      BarrierRecord record;
      record.donate = donate;
      record.replicated = true;
      g_observer->OnBarrier(record);
    }
    return absl::OkStatus();
  }
  SEAM_RETURN_IF_ERROR(UploadLeaves(*client, device, walk.leaves));
  if (donate) walk.aliases = PlanDonations(walk, roots, pending, root_index);

  SEAM_ASSIGN_OR_RETURN(CompileCache * cache, GetCompileCache());
  uint64_t key = CompileCacheKey(WalkKey(walk), device);
  // Programs this barrier compiled are matched by signature; others (none usually) by
  // their instructions.
  ComputationClient::ComputationPtr computation = cache->FindMatching(
      key, [&](const ir::Program& cached, absl::Span<const uint64_t> signature) {
        return signature.empty() ? WalkMatches(walk, cached)
                                 : SignatureMatches(walk, signature, cached);
      });
  if (computation != nullptr) {
    // Looked up once: the registry lookup takes locks and compares names.
    static metrics::Counter* cached = metrics::GetOrCreateCounter("CachedCompile");
    cached->Add(1);
  } else {
    metrics::GetOrCreateCounter("UncachedCompile")->Add(1);
    LoweredGraph lowered = LowerGraph(roots);
    lowered.program.aliases = walk.aliases;
    SEAM_RETURN_IF_ERROR(NoteCompileCacheMiss(lowered));
    std::vector<ComputationClient::CompileInstance> instances;
    instances.push_back({std::move(lowered.program), device});
    SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::ComputationPtr> compiled,
                          client->Compile(std::move(instances)));
    computation = compiled.front();
    cache->Insert(key, computation, walk.exact ? walk.signature : std::vector<uint64_t>());
  }

  std::vector<ComputationClient::DataPtr>& arguments = tables.arguments;
  for (const auto& leaf : walk.leaves) arguments.push_back(leaf->device);
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> outputs,
                        client->ExecuteComputation(*computation, arguments, device, {}));
  MarkDonated(walk.aliases, walk.leaves);

  std::vector<NodePtr>& new_leaves = tables.new_leaves;
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto value = NewDeviceValue();
    value->shape = roots[i]->shape;
    value->device = std::move(outputs[i]);
    new_leaves.push_back(MakeLeaf(std::move(value)));
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    pending[i]->set_node(new_leaves[root_index[i]]);
    pending[i]->set_replaced({});
  }
  if (g_observer != nullptr) {
    BarrierRecord record;
    record.donate = donate;
    record.computation = computation;
    record.parameters = &walk.leaves;
    record.aliases = &walk.aliases;
    record.pending = &pending;
    record.result_of = &root_index;
    record.results = &new_leaves;
    g_observer->OnBarrier(record);
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::Literal> ReadTensor(const std::shared_ptr<TensorImpl>& tensor,
                                       std::string_view op) {
  if (g_observer != nullptr) g_observer->OnHostRead();
  SEAM_RETURN_IF_ERROR(SyncTensors({tensor}, /*donate=*/false));
  NodePtr node = tensor->node();
  SEAM_RETURN_IF_ERROR(CheckNotDonated(*node->value, op));
  if (node->value->device == nullptr) return *node->value->host;
  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, runtime::GetComputationClient());
  SEAM_ASSIGN_OR_RETURN(std::vector<ir::Literal> literals,
                        client->TransferFromDevice({node->value->device}));
  return std::move(literals.front());
}

}  // namespace seam::lazy
