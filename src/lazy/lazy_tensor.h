// The lazy front end's graph: nodes of recorded operations and the tensors that hold them.
#ifndef SEAM_LAZY_LAZY_TENSOR_H_
#define SEAM_LAZY_LAZY_TENSOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "src/ir/program.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

// A value that exists outside any pending graph: host data not yet sent, or device data.
struct DeviceValue {
  ir::Shape shape;
  std::optional<ir::Literal> host;                // until the first sync that needs it
  runtime::ComputationClient::DataPtr device;     // once on the device
};

// One recorded operation. A node with `value` set is a leaf (it becomes a parameter of
// the program); its op is kParameter. Nodes are immutable once built.
struct Node {
  ir::Op op = ir::Op::kParameter;
  std::vector<std::shared_ptr<const Node>> operands;
  ir::Shape shape;
  ir::Attributes attrs;
  ir::Literal literal;                 // kConstant only
  std::shared_ptr<DeviceValue> value;  // leaves only

  bool is_leaf() const { return value != nullptr; }
};
using NodePtr = std::shared_ptr<const Node>;

NodePtr MakeLeaf(std::shared_ptr<DeviceValue> value);

// What a seam::Tensor points at. Registered while alive, so that sync() finds every
// tensor with pending operations: the registry is an intrusive list in creation order
// (linking and unlinking allocate nothing, which matters since every op makes one).
class TensorImpl : public std::enable_shared_from_this<TensorImpl> {
 public:
  explicit TensorImpl(NodePtr node);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  NodePtr node() const;
  void set_node(NodePtr node);
  uint64_t id() const { return id_; }

 private:
  friend void RegisterTensor(const std::shared_ptr<TensorImpl>& impl);
  friend std::vector<std::shared_ptr<TensorImpl>> LiveTensors();

  uint64_t id_;
  mutable std::mutex mu_;
  NodePtr node_;
  // Registry links, guarded by the registry's mutex.
  TensorImpl* prev_ = nullptr;
  TensorImpl* next_ = nullptr;
  bool registered_ = false;
};

// Every live tensor, oldest first.
std::vector<std::shared_ptr<TensorImpl>> LiveTensors();
// Must be called once right after a TensorImpl is put in a shared_ptr.
void RegisterTensor(const std::shared_ptr<TensorImpl>& impl);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_LAZY_TENSOR_H_
