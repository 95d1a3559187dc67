#include "src/lazy/eager.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/base/env.h"
#include "src/base/status_macros.h"
#include "src/ir/hash.h"
#include "src/lazy/graph_executor.h"
#include "src/runtime/metrics.h"
#include "src/runtime/runtime.h"

namespace seam::lazy {

std::atomic<int> g_eager{-1};

namespace {

using runtime::ComputationClient;

// Whether any op ever ran eagerly (until then, nothing has history to cut).
std::atomic<bool> g_ran_eagerly{false};

absl::StatusOr<bool> ReadEagerVariable() {
  std::optional<std::string> value = base::GetEnv("SEAM_EAGER");
  if (!value || value->empty() || *value == "0") return false;
  if (*value == "1") return true;
  return absl::InvalidArgumentError(
      absl::StrCat("Environment variable SEAM_EAGER must be 0 or 1, got '", *value, "'"));
}

// The op-level cache: one small program per op signature (see OpKey); never evicted
// (their number is bounded by the distinct signatures a program uses).
struct OpCache {
  std::mutex mu;
  absl::flat_hash_map<std::string, ComputationClient::ComputationPtr> programs;
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

namespace {

// The op key is written into a fixed buffer on the stack: no allocation and no capacity
// check per piece. A key that does not fit (a large constant operand, many attributes)
// marks the buffer full, and the op is then keyed like a lowered graph (ExecuteEagerly).
class KeyBuffer {
 public:
  static constexpr size_t kCapacity = 480;

  void Append(const void* bytes, size_t n) {
    if (n == 0) return;
    if (n > kCapacity - size_) {
      full_ = true;
      return;
    }
    std::memcpy(data_ + size_, bytes, n);
    size_ += n;
  }
  template <typename T>
  void Put(const T& value) {
    Append(&value, sizeof(T));
  }
  bool full() const { return full_; }
  absl::string_view view() const { return absl::string_view(data_, size_); }

 private:
  char data_[kCapacity];  // only the first size_ bytes are written
  size_t size_ = 0;
  bool full_ = false;
};

void PutShape(KeyBuffer* key, const ir::Shape& shape) {
  key->Put(shape.dtype);
  key->Put(shape.dims.size());
  for (int64_t d : shape.dims) key->Put(d);  // fixed-size pieces: no memcpy call
}

// The op-level cache key of `node` when each operand is a computed value or a constant:
// op, attributes, result shape, and per operand its shape and either which distinct value
// it is (values numbered in first-use order, as LowerGraph numbers parameters, and
// collected into `leaves`) or its constant's bytes. False when an operand is a pending
// lazy node (recorded before eager mode was on); that graph is lowered instead.
bool OpKey(const Node& node, KeyBuffer* key, std::vector<std::shared_ptr<DeviceValue>>* leaves) {
  key->Put(node.op);
  PutShape(key, node.shape);
  const ir::Attributes& attrs = node.attributes != nullptr ? node.attributes->map : NoAttributes();
  key->Put(attrs.size());
  for (const auto& [name, values] : attrs) {
    key->Put(name.size());
    key->Append(name.data(), name.size());
    key->Put(values.size());
    key->Append(values.data(), values.size() * sizeof(int64_t));
  }
  key->Put(node.operands.size());
  for (const NodePtr& operand : node.operands) {
    PutShape(key, operand->shape);
    if (operand->is_leaf()) {
      size_t index = 0;
      while (index < leaves->size() && (*leaves)[index] != operand->value) ++index;
      if (index == leaves->size()) leaves->push_back(operand->value);
      key->Put('p');
      key->Put(index);
    } else if (operand->op == ir::Op::kConstant && operand->operands.empty()) {
      key->Put('c');
      key->Put(operand->literal.bytes.size());
      key->Append(operand->literal.bytes.data(), operand->literal.bytes.size());
    } else {
      return false;
    }
  }
  return !key->full();
}

}  // namespace

absl::Status ExecuteEagerly(Node& node) {
  // The client and its default device never change once made: this thread keeps them.
  thread_local ComputationClient* client = nullptr;
  thread_local std::string device;
  if (client == nullptr) {
    SEAM_ASSIGN_OR_RETURN(ComputationClient * created, runtime::GetComputationClient());
    device = created->GetDefaultDevice();
    client = created;
  }
  // The node is not shared yet; a non-owning pointer lets LowerGraph walk it.
  NodePtr root(std::shared_ptr<Node>(), &node);
  std::optional<LoweredGraph> lowered;
  // The operand values and the argument handles live in per-thread buffers: after the
  // first op they allocate nothing (clear() keeps the capacity). The cleanup drops the
  // references they hold when this call ends, on every path.
  thread_local std::vector<std::shared_ptr<DeviceValue>> leaves;
  thread_local std::vector<ComputationClient::DataPtr> arguments;
  leaves.clear();
  arguments.clear();
  absl::Cleanup release = [] {
    leaves.clear();
    arguments.clear();
  };
  KeyBuffer op_key;
  op_key.Append(device.data(), device.size());
  op_key.Put('\0');
  const bool one_op = OpKey(node, &op_key, &leaves);
  std::string hashed_key;  // the key of a lowered graph
  if (!one_op) {
    lowered = LowerGraph({root});
    leaves = lowered->leaves;
    hashed_key = absl::StrCat(device, "\1", ir::HashProgram(lowered->program));
  }
  const absl::string_view key = one_op ? op_key.view() : absl::string_view(hashed_key);

  std::vector<ComputationClient::TensorSource> sources;
  std::vector<DeviceValue*> targets;
  for (const auto& leaf : leaves) {
    if (leaf->donated) {
      return absl::FailedPreconditionError(
          absl::StrCat(std::string(ir::OpName(node.op)), ": an operand ", leaf->shape.ToString(),
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

  // This thread's view of the shared cache, for one-op keys: a hit needs no lock and no
  // reference count. Entries point at programs the shared cache owns (it never lets one
  // go), so they stay valid.
  thread_local absl::flat_hash_map<std::string, const ComputationClient::Computation*> seen;
  const ComputationClient::Computation* computation = nullptr;
  ComputationClient::ComputationPtr held;  // keeps an entry that may be replaced alive
  if (one_op) {
    auto it = seen.find(key);
    if (it != seen.end()) computation = it->second;
  }
  OpCache& cache = GetOpCache();
  if (computation == nullptr) {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.programs.find(key);
    // A key made of a program hash is confirmed by comparing the programs.
    if (it != cache.programs.end() && (one_op || it->second->program() == lowered->program)) {
      computation = it->second.get();
      if (one_op) {
        seen.emplace(std::string(key), computation);
      } else {
        held = it->second;  // a hash key's entry may be replaced by another thread
      }
    }
  }
  if (computation != nullptr) {
    // Looked up once: the registry lookup takes locks and compares names.
    static metrics::Counter* cached = metrics::GetOrCreateCounter("CachedCompile");
    cached->Add(1);
  } else {
    metrics::GetOrCreateCounter("UncachedCompile")->Add(1);
    if (!lowered) lowered = LowerGraph({root});
    if (lowered->leaves != leaves) {
      return absl::InternalError(
          absl::StrCat(std::string(ir::OpName(node.op)),
                       ": eager mode numbered the operands unlike the lowering"));
    }
    std::vector<ComputationClient::CompileInstance> instances;
    instances.push_back({lowered->program, device});
    std::vector<ComputationClient::ComputationPtr> compiled;
    {
      metrics::ScopedTimer timer(ComputationClient::EagerOpCompileMetric());
      SEAM_ASSIGN_OR_RETURN(compiled, client->Compile(std::move(instances)));
    }
    held = compiled.front();
    computation = held.get();
    std::lock_guard<std::mutex> lock(cache.mu);
    if (one_op) {
      // Another thread may have compiled the same op meanwhile: a one-op entry is never
      // replaced (threads' views may point at it); this compile's program is dropped.
      auto [it, inserted] = cache.programs.emplace(std::string(key), held);
      computation = it->second.get();
      seen.emplace(std::string(key), computation);
    } else {
      cache.programs[std::string(key)] = held;  // a hash key's program may differ: the newest stays
    }
  }

  for (const auto& leaf : leaves) arguments.push_back(leaf->device);
  ComputationClient::ExecuteComputationOptions options;
  options.eager_mode = true;
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> outputs,
                        client->ExecuteComputation(*computation, arguments, device, options));
  auto value = NewDeviceValue();
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
