// The lazy front end's graph: nodes of recorded operations and the tensors that hold them.
#ifndef SEAM_LAZY_LAZY_TENSOR_H_
#define SEAM_LAZY_LAZY_TENSOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "src/base/spin_lock.h"
#include "src/ir/program.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

struct ReplicaValues;   // src/lazy/replicated.h
struct TensorRegistry;  // lazy_tensor.cc

// A value that exists outside any pending graph: host data not yet sent, or device data.
struct DeviceValue {
  ir::Shape shape;
  std::optional<ir::Literal> host;             // until the first sync that needs it
  runtime::ComputationClient::DataPtr device;  // once on the device
  // Data parallel: set when the value has one copy per replica (replica d on the d-th local
  // device). `host` and `device` above are then replica 0's.
  std::shared_ptr<ReplicaValues> replicas;
  // Set when a sync gave the device buffer to a program as an input/output alias (see
  // src/lazy/donation.h); reading or computing with the value is then an error. Atomic:
  // recording an op reads it on any thread while a step (under the step lock) sets it.
  std::atomic<bool> donated{false};
  // seam::set_buffer_donor: donate at the next sync that overwrites it, other handles or not.
  std::atomic<bool> buffer_donor{false};
  // Scratch of graph traversals (GraphMarks below), valid while walk_epoch is the current
  // traversal's.
  uint64_t walk_epoch = 0;
  int walk_index = -1;
};

// A recorded node's attributes. Immutable once made, and shared by the nodes recorded with
// equal attributes (src/lazy/attributes.h): a training loop records the same broadcast
// mappings, reduction axes and dot dimensions every step.
struct AttributeSet {
  ir::Attributes map;
  // The names and values as one flat list of words (EncodeAttributes in attributes.h):
  // equal sets, and only they, have equal words. Compared instead of the map.
  absl::InlinedVector<uint64_t, 16> words;
  uint64_t hash = 0;  // of the words
};
using AttributeSetPtr = std::shared_ptr<const AttributeSet>;
const ir::Attributes& NoAttributes();

// One recorded operation. A node with `value` set is a leaf (it becomes a parameter of
// the program): its op is kParameter, or, in eager mode, the op that computed the value
// (kept so that autodiff can walk the graph; see src/lazy/eager.h). Nodes are immutable
// once built.
struct Node;
// A node's operands: up to three in the node itself (every op but concatenate), so
// recording an op allocates no separate operand array.
using NodeList = absl::InlinedVector<std::shared_ptr<const Node>, 3>;

struct Node {
  // User-provided, so that make_shared/allocate_shared do not zero the whole node before
  // constructing its members (every member has its own initializer).
  Node() {}  // NOLINT(modernize-use-equals-default)
  // Keeps the shape's dimension buffer for a later node of this thread (see SetDims).
  ~Node();

  ir::Op op = ir::Op::kParameter;
  NodeList operands;
  ir::Shape shape;
  AttributeSetPtr attributes;          // null: none
  ir::Literal literal;                 // kConstant only
  std::shared_ptr<DeviceValue> value;  // leaves only
  // Scratch of graph traversals (GraphMarks below), valid while walk_epoch is the current
  // traversal's: marks in the node instead of a hash map keyed by node.
  mutable uint64_t walk_epoch = 0;
  mutable int walk_index = -1;
  // grad() treats this node as a constant: no gradient flows through it to its operands.
  // Set only on nodes a composite makes for itself (softmax's row maximum, whose exact
  // gradient is zero), before anything else can see them.
  bool stops_gradient = false;

  bool is_leaf() const { return value != nullptr; }
  const ir::Attributes& attrs() const {
    return attributes != nullptr ? attributes->map : NoAttributes();
  }
};
using NodePtr = std::shared_ptr<const Node>;

// One graph traversal that marks nodes and values in place (walk_epoch, walk_index:
// WalkGraph, seam::grad) at a time, process-wide, since the graphs of different threads
// may share nodes. While alive, the traversal owns the marks; those not of its epoch are
// stale. Nothing that starts another traversal may run while one is held.
class GraphMarks {
 public:
  GraphMarks();
  ~GraphMarks();
  GraphMarks(const GraphMarks&) = delete;
  GraphMarks& operator=(const GraphMarks&) = delete;
  uint64_t epoch() const { return epoch_; }

 private:
  uint64_t epoch_;
};

NodePtr MakeLeaf(std::shared_ptr<DeviceValue> value);
// Sets `dims` (a new node's shape dimensions) to `source`, in a dimension buffer that a
// node freed earlier on this thread left behind when there is one: recording an op then
// needs no malloc for its shape, nor freeing the graph a free per node.
void SetDims(std::vector<int64_t>& dims, std::span<const int64_t> source);
// A new, empty node and value (from the object pool: src/base/object_pool.h).
std::shared_ptr<Node> NewNode();
std::shared_ptr<DeviceValue> NewDeviceValue();

// What a seam::Tensor points at. Registered while alive, so that sync() finds every
// tensor with pending operations that its thread recorded: each thread's registry is an
// intrusive list in creation order (linking and unlinking allocate nothing, which matters
// since every op makes one).
class TensorImpl : public std::enable_shared_from_this<TensorImpl> {
 public:
  explicit TensorImpl(NodePtr node);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  NodePtr node() const;
  void set_node(NodePtr node);

  // The leaf this tensor's handle held before `assign` gave it a new, pending value: its
  // device buffer is what a sync may donate to that new value (src/lazy/donation.h).
  NodePtr replaced() const;
  void set_replaced(std::weak_ptr<const Node> leaf);
  // set_node(node) and set_replaced({}) under one lock (a replayed step's result); the old
  // node is released after the lock.
  void set_leaf(NodePtr node);

 private:
  friend void RegisterTensor(const std::shared_ptr<TensorImpl>& impl);
  friend void CollectLive(TensorRegistry& registry, std::vector<std::shared_ptr<TensorImpl>>& live);

  mutable base::SpinLock mu_;
  NodePtr node_;
  std::weak_ptr<const Node> replaced_;
  // Registry links, guarded by the registry's lock.
  TensorRegistry* registry_ = nullptr;  // of the thread that made it; null until registered
  TensorImpl* prev_ = nullptr;
  TensorImpl* next_ = nullptr;
};

// Every live tensor the calling thread made, oldest first: what seam::sync() syncs.
std::vector<std::shared_ptr<TensorImpl>> ThreadLiveTensors();
// Every live tensor of the process (each thread's, oldest first).
std::vector<std::shared_ptr<TensorImpl>> LiveTensors();
// Must be called once right after a TensorImpl is put in a shared_ptr.
void RegisterTensor(const std::shared_ptr<TensorImpl>& impl);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_LAZY_TENSOR_H_
