#include "src/base/object_pool.h"

#include <new>

namespace seam::base {
namespace {

constexpr size_t kGranule = 32;  // size classes of 32 bytes
constexpr size_t kClasses = kMaxPooledBytes / kGranule;
constexpr int kMaxCached = 4096;  // blocks kept per class and thread

struct FreeBlock {
  FreeBlock* next;
};

struct ThreadCache {
  FreeBlock* heads[kClasses] = {};
  int counts[kClasses] = {};
  ~ThreadCache();
};

// This thread's cache: not made yet, alive, or destroyed (the thread is ending). Blocks
// freed when it is not alive go straight back to operator delete. A trivially
// destructible thread_local stays readable until the thread ends.
enum class CacheState : unsigned char { kNone, kAlive, kDead };
thread_local CacheState t_cache_state = CacheState::kNone;
// The cache while it is alive, else null: the fast paths read this one trivially
// destructible thread_local instead of the cache's own (whose every use checks that it
// was constructed).
thread_local ThreadCache* t_cache = nullptr;

ThreadCache::~ThreadCache() {
  t_cache = nullptr;
  t_cache_state = CacheState::kDead;
  for (size_t c = 0; c < kClasses; ++c) {
    while (FreeBlock* block = heads[c]) {
      heads[c] = block->next;
      ::operator delete(block);
    }
  }
}

// Makes the cache at the thread's first allocation; null once the thread is ending.
ThreadCache* MakeCache() {
  if (t_cache_state == CacheState::kDead) return nullptr;
  thread_local ThreadCache cache;
  t_cache_state = CacheState::kAlive;
  t_cache = &cache;
  return &cache;
}

size_t ClassOf(size_t bytes) { return (bytes + kGranule - 1) / kGranule - 1; }

}  // namespace

void* PoolAllocate(size_t bytes) {
  if (bytes == 0 || bytes > kMaxPooledBytes) return ::operator new(bytes);
  const size_t c = ClassOf(bytes);
  ThreadCache* cache = t_cache;
  if (cache == nullptr) cache = MakeCache();
  if (cache != nullptr) {
    if (FreeBlock* block = cache->heads[c]) {
      cache->heads[c] = block->next;
      --cache->counts[c];
      return block;
    }
  }
  return ::operator new((c + 1) * kGranule);
}

void PoolFree(void* block, size_t bytes) {
  if (block == nullptr) return;
  if (bytes == 0 || bytes > kMaxPooledBytes) {
    ::operator delete(block);
    return;
  }
  const size_t c = ClassOf(bytes);
  ThreadCache* cache = t_cache;  // a thread that never allocated here keeps no cache
  if (cache != nullptr && cache->counts[c] < kMaxCached) {
    auto* free_block = static_cast<FreeBlock*>(block);
    free_block->next = cache->heads[c];
    cache->heads[c] = free_block;
    ++cache->counts[c];
    return;
  }
  ::operator delete(block);
}

}  // namespace seam::base
