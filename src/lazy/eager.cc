#include "src/lazy/eager.h"

#include <atomic>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/status_macros.h"
#include "src/ir/hash.h"
#include "src/lazy/compile_cache.h"
#include "src/lazy/graph_executor.h"
#include "src/runtime/metrics.h"
#include "src/runtime/runtime.h"

namespace seam::lazy {
namespace {

using runtime::ComputationClient;

// -1: not decided yet (SEAM_EAGER is read at first use); 0 / 1 after that or set_eager.
std::atomic<int> g_eager{-1};
// Whether any op ever ran eagerly (until then, nothing has history to cut).
std::atomic<bool> g_ran_eagerly{false};

absl::StatusOr<bool> ReadEagerVariable() {
  std::optional<std::string> value = base::GetEnv("SEAM_EAGER");
  if (!value || value->empty() || *value == "0") return false;
  if (*value == "1") return true;
  return absl::InvalidArgumentError(
      absl::StrCat("Environment variable SEAM_EAGER must be 0 or 1, got '", *value, "'"));
}

// The op-level cache: one small program per op signature; never evicted (their number
// is bounded by the distinct signatures a program uses).
struct OpCache {
  std::mutex mu;
  absl::flat_hash_map<uint64_t, ComputationClient::ComputationPtr> programs;
};

OpCache& GetOpCache() {
  static auto* cache = new OpCache();
  return *cache;
}

}  // namespace

absl::StatusOr<bool> EagerEnabled() {
  int state = g_eager.load(std::memory_order_relaxed);
  if (state >= 0) return state == 1;
  SEAM_ASSIGN_OR_RETURN(bool enabled, ReadEagerVariable());
  int expected = -1;
  g_eager.compare_exchange_strong(expected, enabled ? 1 : 0);
  return g_eager.load() == 1;
}

void SetEager(bool enabled) { g_eager.store(enabled ? 1 : 0); }

absl::Status ExecuteEagerly(Node& node) {
  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, runtime::GetComputationClient());
  const std::string device = client->GetDefaultDevice();
  // The node is not shared yet; a non-owning pointer lets LowerGraph walk it.
  NodePtr root(std::shared_ptr<Node>(), &node);
  LoweredGraph lowered = LowerGraph({root});
  std::vector<ComputationClient::TensorSource> sources;
  std::vector<DeviceValue*> targets;
  for (const auto& leaf : lowered.leaves) {
    if (leaf->donated) {
      return absl::FailedPreconditionError(absl::StrCat(
          std::string(ir::OpName(node.op)), ": an operand ", leaf->shape.ToString(),
          " is a tensor whose device buffer was donated to an earlier step"));
    }
    if (leaf->device != nullptr) continue;
    sources.push_back({leaf->shape, leaf->host->bytes.data(), device});
    targets.push_back(leaf.get());
  }
  if (!sources.empty()) {
    SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> data,
                          client->TransferToDevice(sources));
    for (size_t i = 0; i < targets.size(); ++i) targets[i]->device = std::move(data[i]);
  }

  uint64_t key = CompileCacheKey(ir::HashProgram(lowered.program), device);
  OpCache& cache = GetOpCache();
  ComputationClient::ComputationPtr computation;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.programs.find(key);
    if (it != cache.programs.end() && it->second->program() == lowered.program) {
      computation = it->second;
    }
  }
  if (computation != nullptr) {
    metrics::GetOrCreateCounter("CachedCompile")->Add(1);
  } else {
    metrics::GetOrCreateCounter("UncachedCompile")->Add(1);
    std::vector<ComputationClient::CompileInstance> instances;
    instances.push_back({lowered.program, device});
    std::vector<ComputationClient::ComputationPtr> compiled;
    {
      metrics::ScopedTimer timer(ComputationClient::EagerOpCompileMetric());
      SEAM_ASSIGN_OR_RETURN(compiled, client->Compile(std::move(instances)));
    }
    computation = compiled.front();
    std::lock_guard<std::mutex> lock(cache.mu);
    cache.programs[key] = computation;
  }

  std::vector<ComputationClient::DataPtr> arguments;
  arguments.reserve(lowered.leaves.size());
  for (const auto& leaf : lowered.leaves) arguments.push_back(leaf->device);
  ComputationClient::ExecuteComputationOptions options;
  options.eager_mode = true;
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> outputs,
                        client->ExecuteComputation(*computation, arguments, device, options));
  auto value = std::make_shared<DeviceValue>();
  value->shape = node.shape;
  value->device = std::move(outputs.front());
  node.value = std::move(value);
  g_ran_eagerly.store(true, std::memory_order_relaxed);
  return absl::OkStatus();
}

void CutEagerHistory(const std::vector<std::shared_ptr<TensorImpl>>& tensors) {
  if (!g_ran_eagerly.load(std::memory_order_relaxed)) return;
  for (const auto& tensor : tensors) {
    NodePtr node = tensor->node();
    if (node->value != nullptr && node->op != ir::Op::kParameter) {
      tensor->set_node(MakeLeaf(node->value));
    }
  }
}

size_t EagerCacheSize() {
  OpCache& cache = GetOpCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.programs.size();
}

}  // namespace seam::lazy
