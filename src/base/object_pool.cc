#include "src/base/object_pool.h"

#include <new>

#include "src/base/free_lists.h"

namespace seam::base {
namespace {

constexpr size_t kGranule = 32;  // size classes of 32 bytes

struct ObjectPolicy {
  static constexpr size_t kClasses = kMaxPooledBytes / kGranule;
  static constexpr int kBatch = 32;
  static constexpr int kMaxSharedBatches = 64;
  static constexpr size_t BlockBytes(size_t c) { return (c + 1) * kGranule; }
  // 32 KiB of blocks per class and thread, at least two batches: a tiny training step
  // recycles all of its objects within its own thread's lists.
  static constexpr int ThreadLimit(size_t c) {
    const size_t by_bytes = size_t{32} * 1024 / BlockBytes(c);
    constexpr int kMinimum = 2 * kBatch;
    return by_bytes > size_t{kMinimum} ? static_cast<int>(by_bytes) : kMinimum;
  }
  static void* New(size_t c) { return ::operator new(BlockBytes(c)); }
  static void Delete(void* block, size_t /*c*/) { ::operator delete(block); }
  static void Cached(void* /*block*/, size_t /*c*/) {}
  static void Uncached(void* /*block*/, size_t /*c*/) {}
};

using Lists = FreeLists<ObjectPolicy>;
static_assert(Lists::kLinkBytes <= kGranule);

size_t ClassOf(size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* PoolAllocate(size_t bytes) {
  if (bytes == 0 || bytes > kMaxPooledBytes) return ::operator new(bytes);
  return Lists::Take(ClassOf(bytes));
}

void PoolFree(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (bytes == 0 || bytes > kMaxPooledBytes) {
    ::operator delete(block);
    return;
  }
  Lists::Give(block, ClassOf(bytes));
}

PoolCounts GetPoolCounts() {
  const FreeListCounts counts = Lists::Counts();
  return PoolCounts{counts.made, counts.outstanding, counts.thread_cached, counts.shared_cached};
}

}  // namespace seam::base
