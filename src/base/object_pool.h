// Thread-cached free lists for many small, short-lived objects (graph nodes, device
// handles, events: a few per recorded op or run, most freed again by the next step). Blocks
// of up to kMaxPooledBytes come from a per-thread list of recently freed blocks of their size
// class; larger ones, and blocks beyond each list's bound, go to operator new/delete. Used by
// every layer (the CPU plugin holds its own copy: its lists are separate).
#ifndef SEAM_BASE_OBJECT_POOL_H_
#define SEAM_BASE_OBJECT_POOL_H_

#include <cstddef>

namespace seam::base {

inline constexpr size_t kMaxPooledBytes = 512;

void* PoolAllocate(size_t bytes);
void PoolFree(void* block, size_t bytes);

// For std::allocate_shared: the object and its control block in one pooled block.
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT: rebinding is implicit
  T* allocate(size_t n) { return static_cast<T*>(PoolAllocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { PoolFree(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

}  // namespace seam::base

#endif  // SEAM_BASE_OBJECT_POOL_H_
