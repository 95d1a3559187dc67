#include "src/lazy/lazy_tensor.h"

#include <atomic>
#include <map>

namespace seam::lazy {
namespace {

struct Registry {
  std::mutex mu;
  std::map<uint64_t, std::weak_ptr<TensorImpl>> tensors;  // by id = creation order
};

Registry& GetRegistry() {
  static auto* registry = new Registry();  // leaked: tensors may die during exit
  return *registry;
}

std::atomic<uint64_t> g_next_id{1};

}  // namespace

NodePtr MakeLeaf(std::shared_ptr<DeviceValue> value) {
  auto node = std::make_shared<Node>();
  node->op = ir::Op::kParameter;
  node->shape = value->shape;
  node->value = std::move(value);
  return node;
}

TensorImpl::TensorImpl(NodePtr node) : id_(g_next_id.fetch_add(1)), node_(std::move(node)) {}

TensorImpl::~TensorImpl() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.tensors.erase(id_);
}

NodePtr TensorImpl::node() const {
  std::lock_guard<std::mutex> lock(mu_);
  return node_;
}

void TensorImpl::set_node(NodePtr node) {
  std::lock_guard<std::mutex> lock(mu_);
  node_ = std::move(node);
}

NodePtr TensorImpl::replaced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return replaced_.lock();
}

void TensorImpl::set_replaced(std::weak_ptr<const Node> leaf) {
  std::lock_guard<std::mutex> lock(mu_);
  replaced_ = std::move(leaf);
}

void RegisterTensor(const std::shared_ptr<TensorImpl>& impl) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.tensors.emplace(impl->id(), impl);
}

std::vector<std::shared_ptr<TensorImpl>> LiveTensors() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<std::shared_ptr<TensorImpl>> live;
  live.reserve(registry.tensors.size());
  for (const auto& [id, weak] : registry.tensors) {
    if (auto impl = weak.lock()) live.push_back(std::move(impl));
  }
  return live;
}

}  // namespace seam::lazy
