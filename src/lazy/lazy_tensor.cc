#include "src/lazy/lazy_tensor.h"

#include <mutex>

#include "src/base/object_pool.h"

namespace seam::lazy {
namespace {}  // namespace

// The tensors one thread made, as an intrusive list. A thread's registry is made at its
// first tensor and never freed (tensors may outlive their thread, and die during exit);
// every registry is on one process-wide list, for LiveTensors().
struct TensorRegistry {
  base::SpinLock mu;
  TensorImpl* head = nullptr;  // oldest
  TensorImpl* tail = nullptr;  // newest
  TensorRegistry* next_registry = nullptr;
};

namespace {

struct Registries {
  std::mutex mu;
  TensorRegistry* first = nullptr;
};

Registries& AllRegistries() {
  static auto* registries = new Registries();  // leaked, as the registries are
  return *registries;
}

TensorRegistry& ThisThreadRegistry() {
  thread_local TensorRegistry* registry = [] {
    auto* made = new TensorRegistry();
    Registries& all = AllRegistries();
    std::lock_guard<std::mutex> lock(all.mu);
    made->next_registry = all.first;
    all.first = made;
    return made;
  }();
  return *registry;
}

// Dimension buffers of freed nodes, per thread (small ones only, and a bounded number).
// The state follows src/base/object_pool.cc: a trivially destructible thread_local says
// whether the cache may still be used while the thread ends.
constexpr size_t kMaxCachedDims = 4096;
constexpr size_t kMaxCachedDimsCapacity = 8;
enum class DimsState : unsigned char { kNone, kAlive, kDead };
thread_local DimsState t_dims_state = DimsState::kNone;

struct DimsCache {
  // By the size the buffer had (0 to kMaxCachedDimsCapacity): a new shape usually finds one
  // of its own size, which then needs no resize.
  std::vector<std::vector<int64_t>> buffers[kMaxCachedDimsCapacity + 1];
  size_t count = 0;
  ~DimsCache();
};

// The cache while it is alive, else null (read on every node's construction and
// destruction: one trivially destructible thread_local, no construction check).
thread_local DimsCache* t_dims = nullptr;

DimsCache::~DimsCache() {
  t_dims = nullptr;
  t_dims_state = DimsState::kDead;
}

// Makes the cache at first use; null once the thread is ending.
DimsCache* Dims() {
  if (t_dims != nullptr) return t_dims;
  if (t_dims_state == DimsState::kDead) return nullptr;
  thread_local DimsCache cache;
  t_dims_state = DimsState::kAlive;
  t_dims = &cache;
  return t_dims;
}

}  // namespace

const ir::Attributes& NoAttributes() {
  static const ir::Attributes* none = new ir::Attributes();  // leaked: nodes may die during exit
  return *none;
}

std::shared_ptr<Node> NewNode() { return std::allocate_shared<Node>(base::PoolAllocator<Node>()); }

std::shared_ptr<DeviceValue> NewDeviceValue() {
  return std::allocate_shared<DeviceValue>(base::PoolAllocator<DeviceValue>());
}

Node::~Node() {
  const size_t capacity = shape.dims.capacity();
  if (capacity == 0 || capacity > kMaxCachedDimsCapacity) return;
  DimsCache* cache = t_dims;  // not made yet (nothing to give back to) or gone: dropped
  if (cache != nullptr && cache->count < kMaxCachedDims) {
    cache->buffers[shape.dims.size()].push_back(std::move(shape.dims));
    ++cache->count;
  }
}

void SetDims(std::vector<int64_t>& dims, std::span<const int64_t> source) {
  const size_t n = source.size();
  if (dims.capacity() < n) {
    DimsCache* cache = Dims();
    if (cache != nullptr && cache->count > 0) {
      // One of this size, else the nearest larger, else any.
      size_t size = n <= kMaxCachedDimsCapacity ? n : kMaxCachedDimsCapacity;
      while (size <= kMaxCachedDimsCapacity && cache->buffers[size].empty()) ++size;
      if (size > kMaxCachedDimsCapacity) {
        size = 0;
        while (cache->buffers[size].empty()) ++size;
      }
      std::vector<std::vector<int64_t>>& list = cache->buffers[size];
      dims = std::move(list.back());
      list.pop_back();
      --cache->count;
    }
  }
  // resize only when the size differs (a cached buffer often has it already), then a
  // loop: assign() calls memmove, which costs more than the copy here.
  if (dims.size() != n) dims.resize(n);
  int64_t* out = dims.data();
  for (size_t i = 0; i < n; ++i) out[i] = source[i];
}

NodePtr MakeLeaf(std::shared_ptr<DeviceValue> value) {
  auto node = NewNode();
  node->op = ir::Op::kParameter;
  SetDims(node->shape.dims, value->shape.dims);
  node->shape.dtype = value->shape.dtype;
  node->value = std::move(value);
  return node;
}

namespace {

std::mutex& MarksMutex() {
  static auto* mu = new std::mutex();  // leaked: graphs may be walked during exit
  return *mu;
}
uint64_t g_last_epoch = 0;  // guarded by MarksMutex()

}  // namespace

GraphMarks::GraphMarks() {
  MarksMutex().lock();
  epoch_ = ++g_last_epoch;
}

GraphMarks::~GraphMarks() { MarksMutex().unlock(); }

TensorImpl::TensorImpl(NodePtr node) : node_(std::move(node)) {}

TensorImpl::~TensorImpl() {
  if (registry_ == nullptr) return;
  TensorRegistry& registry = *registry_;
  std::lock_guard<base::SpinLock> lock(registry.mu);
  (prev_ != nullptr ? prev_->next_ : registry.head) = next_;
  (next_ != nullptr ? next_->prev_ : registry.tail) = prev_;
}

NodePtr TensorImpl::node() const {
  std::lock_guard<base::SpinLock> lock(mu_);
  return node_;
}

void TensorImpl::set_node(NodePtr node) {
  std::lock_guard<base::SpinLock> lock(mu_);
  node_ = std::move(node);
}

void TensorImpl::set_leaf(NodePtr node) {
  std::weak_ptr<const Node> replaced;
  {
    std::lock_guard<base::SpinLock> lock(mu_);
    node_.swap(node);
    replaced_.swap(replaced);
  }
}

NodePtr TensorImpl::replaced() const {
  std::lock_guard<base::SpinLock> lock(mu_);
  return replaced_.lock();
}

void TensorImpl::set_replaced(std::weak_ptr<const Node> leaf) {
  std::lock_guard<base::SpinLock> lock(mu_);
  replaced_ = std::move(leaf);
}

void RegisterTensor(const std::shared_ptr<TensorImpl>& impl) {
  if (impl->registry_ != nullptr) return;
  TensorRegistry& registry = ThisThreadRegistry();
  std::lock_guard<base::SpinLock> lock(registry.mu);
  impl->registry_ = &registry;
  impl->prev_ = registry.tail;
  (registry.tail != nullptr ? registry.tail->next_ : registry.head) = impl.get();
  registry.tail = impl.get();
}

// The registry's live tensors, oldest first, appended to `live` (a friend of TensorImpl).
void CollectLive(TensorRegistry& registry, std::vector<std::shared_ptr<TensorImpl>>& live) {
  std::lock_guard<base::SpinLock> lock(registry.mu);
  for (TensorImpl* impl = registry.head; impl != nullptr; impl = impl->next_) {
    // A tensor whose last handle is going away (its destructor waits for this lock) is
    // no longer live.
    if (auto locked = impl->weak_from_this().lock()) live.push_back(std::move(locked));
  }
}

std::vector<std::shared_ptr<TensorImpl>> ThreadLiveTensors() {
  std::vector<std::shared_ptr<TensorImpl>> live;
  static thread_local size_t last_count = 16;  // sized from the last call: one allocation
  live.reserve(last_count);
  CollectLive(ThisThreadRegistry(), live);
  last_count = live.size();
  return live;
}

std::vector<std::shared_ptr<TensorImpl>> LiveTensors() {
  std::vector<std::shared_ptr<TensorImpl>> live;
  Registries& all = AllRegistries();
  std::lock_guard<std::mutex> lock(all.mu);
  for (TensorRegistry* registry = all.first; registry != nullptr;
       registry = registry->next_registry) {
    CollectLive(*registry, live);
  }
  return live;
}

}  // namespace seam::lazy
