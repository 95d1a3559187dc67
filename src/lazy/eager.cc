#include "src/lazy/eager.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/base/env.h"
#include "src/base/status_macros.h"
#include "src/lazy/lowering.h"
#include "src/lazy/step_runner.h"

namespace seam::lazy {

namespace {

using runtime::ComputationClient;

}  // namespace

absl::StatusOr<bool> EagerEnabled() { return CurrentRuntime().eager(); }

void SetEager(bool enabled) { CurrentRuntime().set_eager(enabled); }

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

// An op keyed by its op key (OpKey): the key's bytes are the signature kept with the
// compiled program, so a hit is confirmed by comparing them, without lowering the op.
class OpKeyProgram final : public StepProgram {
 public:
  OpKeyProgram(absl::string_view key, const NodePtr& root,
               const std::vector<std::shared_ptr<DeviceValue>>& leaves)
      : key_(key), root_(root), leaves_(leaves) {}

  uint64_t Key() const override { return absl::HashOf(key_); }
  bool Matches(const ir::Program&, absl::Span<const uint64_t> signature) const override {
    if (signature.size() != Words(key_.size()) + 1 || signature[0] != key_.size()) return false;
    return std::memcmp(signature.data() + 1, key_.data(), key_.size()) == 0;
  }
  absl::StatusOr<ir::Program> Lower(std::vector<uint64_t>* signature) override {
    LoweredGraph lowered = LowerGraph({root_});
    if (lowered.leaves != leaves_) {
      return absl::InternalError(
          absl::StrCat(std::string(ir::OpName(root_->op)),
                       ": eager mode numbered the operands unlike the lowering"));
    }
    signature->assign(Words(key_.size()) + 1, 0);
    (*signature)[0] = key_.size();
    std::memcpy(signature->data() + 1, key_.data(), key_.size());
    return std::move(lowered.program);
  }

 private:
  static size_t Words(size_t bytes) { return (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t); }
  absl::string_view key_;
  const NodePtr& root_;
  const std::vector<std::shared_ptr<DeviceValue>>& leaves_;
};

// ExecuteEagerly's per-thread buffers, in one thread_local: in a shared library each
// thread_local access is a call to __tls_get_addr.
struct EagerScratch {
  std::vector<std::shared_ptr<DeviceValue>> leaves;  // the op's operand values
  StepResult result;                                 // the op's run
};

}  // namespace

absl::Status ExecuteEagerly(Node& node) {
  Runtime& rt = CurrentRuntime();
  // The default device begins every op key.
  SEAM_ASSIGN_OR_RETURN(const std::vector<std::string>* devices, rt.default_device());
  const std::string& device = devices->front();
  const StepLock lock = rt.LockSteps();
  // The node is not shared yet; a non-owning pointer lets LowerGraph walk it.
  NodePtr root(std::shared_ptr<Node>(), &node);
  // The operand values and the step's outputs live in per-thread buffers: after the first
  // op they allocate nothing (clear() keeps the capacity). The cleanup drops the references
  // they hold when this call ends, on every path.
  thread_local EagerScratch scratch;
  std::vector<std::shared_ptr<DeviceValue>>& leaves = scratch.leaves;
  StepResult& result = scratch.result;
  leaves.clear();
  absl::Cleanup release = [&leaves, &result] {
    leaves.clear();
    result.computation = nullptr;
    result.outputs.clear();
  };
  KeyBuffer op_key;
  op_key.Append(device.data(), device.size());
  op_key.Put('\0');
  std::optional<LoweredGraph> lowered;
  std::optional<OpKeyProgram> by_key;
  std::optional<BuiltProgram> built;
  EagerOpRun request;
  request.op = ir::OpName(node.op);
  if (OpKey(node, &op_key, &leaves)) {
    request.program = &by_key.emplace(op_key.view(), root, leaves);
  } else {
    // An op with a pending operand or a key too long for its buffer: the lowered graph.
    lowered = LowerGraph({root});
    leaves = lowered->leaves;
    request.program = &built.emplace(lowered->program);
  }
  request.parameters = leaves;
  SEAM_RETURN_IF_ERROR(RunEagerOp(lock, request, result));
  auto value = NewDeviceValue();
  value->shape = node.shape;
  value->device = std::move(result.outputs[0].front());
  node.value = std::move(value);
  rt.note_ran_eagerly();
  return absl::OkStatus();
}

void CutEagerHistory(const std::vector<std::shared_ptr<TensorImpl>>& tensors) {
  if (!CurrentRuntime().ran_eagerly()) return;
  for (const auto& tensor : tensors) {
    NodePtr node = tensor->node();
    if (node->value != nullptr && node->op != ir::Op::kParameter) {
      tensor->set_node(MakeLeaf(node->value));
    }
  }
}

}  // namespace seam::lazy
