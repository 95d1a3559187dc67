// Thread-cached free lists for many small, short-lived objects (graph nodes, device
// handles, events: a few per recorded op or run, most freed again by the next step). Blocks
// of up to kMaxPooledBytes come from a per-thread list of recently freed blocks of their
// size class; larger ones go to operator new/delete. Used by every layer (the CPU plugin
// built as a shared library holds its own copy: its lists are separate).
//
// Objects often die on another thread than the one that made them (a queued run is made
// by the caller and freed by the device's worker): each thread keeps at most 32 KiB of
// blocks per size class (at least 64 blocks), and what it frees beyond that goes, 32 blocks
// at a time, to lists every thread shares, where threads whose own list is empty find
// them (src/base/free_lists.h). So a steady flow of objects from one thread to another
// keeps a bounded number of blocks.
#ifndef SEAM_BASE_OBJECT_POOL_H_
#define SEAM_BASE_OBJECT_POOL_H_

#include <cstddef>
#include <cstdint>

namespace seam::base {

inline constexpr size_t kMaxPooledBytes = 512;

void* PoolAllocate(size_t bytes);
void PoolFree(void* block, size_t bytes);

// What the pool holds, for tests and benchmarks.
struct PoolCounts {
  // Blocks of pooled sizes taken from operator new since the process started.
  int64_t made = 0;
  // Blocks of pooled sizes taken from operator new and not given back to operator delete:
  // the objects alive now plus every cached block, in all threads.
  int64_t outstanding = 0;
  int64_t thread_cached = 0;  // blocks in the calling thread's lists
  int64_t shared_cached = 0;  // blocks in the lists every thread shares
};
PoolCounts GetPoolCounts();

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
