// Per-thread free lists of blocks in size classes, bounded, over lists that every thread
// shares: the recycling behind the object pool (object_pool.h) and the CPU plugin's small
// blocks (src/plugins/cpu/runtime/block_pool.cc).
//
// Blocks often die on another thread than the one that made them: a queued run is made by
// the calling thread and freed by the device's worker, a run's result is made by the
// worker and freed by the caller. Lists that only ever grow on the freeing thread would
// fill up there (up to their bound) while the allocating thread keeps asking operator new.
// So each thread's list of a class is bounded; a block freed beyond the bound sends
// Policy::kBatch blocks of the list to the shared lists, and a thread whose own list is
// empty takes a batch from there before making a new block. The bound adapts, as
// tcmalloc's per-thread lists do: it starts at two batches, grows by a batch (up to
// Policy::ThreadLimit) each time the thread finds its list empty, and shrinks by a batch
// (down to two) each time the list overflows twice with no empty list in between. So a
// thread that recycles many blocks of a class in each step (a front end recording a
// graph) soon keeps enough to serve a step from its own list, and a thread that only
// frees a class (a worker freeing run records), or stopped allocating it, keeps two
// batches and passes the rest on. Blocks thus return to the threads that allocate, and a
// steady flow from one thread to another keeps a bounded number of blocks. The shared
// lists hold at most Policy::kMaxSharedBatches batches per class; a thread that ends
// leaves its blocks there.
//
// A Policy gives:
//   static constexpr size_t kClasses;             // classes 0 .. kClasses - 1
//   static constexpr int kBatch;                  // blocks moved to or from the shared lists
//   static constexpr int kMaxSharedBatches;       // batches the shared lists keep per class
//   static constexpr int ThreadLimit(size_t c);   // most blocks one thread keeps, >= 2 kBatch
//   static void* New(size_t c);                   // a fresh block; may throw std::bad_alloc
//   static void Delete(void* block, size_t c);
//   static void Cached(void* block, size_t c);    // entered a list: its first
//                                                 // kLinkBytes bytes are the list's now
//   static void Uncached(void* block, size_t c);  // leaves a list for a user
// Blocks must hold at least kLinkBytes bytes. Each Policy type has lists of its own; use
// it from one source file.
#ifndef SEAM_BASE_FREE_LISTS_H_
#define SEAM_BASE_FREE_LISTS_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "src/base/spin_lock.h"

namespace seam::base {

struct FreeListCounts {
  int64_t made = 0;           // blocks made by Policy::New since the process started
  int64_t outstanding = 0;    // of those, the ones not given to Policy::Delete
  int64_t thread_cached = 0;  // blocks in the calling thread's lists
  int64_t shared_cached = 0;  // blocks in the shared lists
};

template <typename Policy>
class FreeLists {
  // A free block: `next` links a list or a batch; the first block of a batch in the shared
  // lists also holds the next batch and the batch's length.
  struct FreeBlock {
    FreeBlock* next;
    FreeBlock* next_batch;
    int64_t length;
  };

 public:
  static constexpr size_t kLinkBytes = sizeof(FreeBlock);

  // A block of class c: from this thread's list, else a batch of the shared lists, else new.
  static void* Take(size_t c) {
    if (Cache* cache = t_cache) {
      if (FreeBlock* block = cache->heads[c]) {
        cache->heads[c] = block->next;
        ++cache->room[c];
        Policy::Uncached(block, c);
        return block;
      }
    }
    return TakeSlow(c);
  }

  // Gives back a block of class c (from Take, on any thread).
  static void Give(void* block, size_t c) {
    Policy::Cached(block, c);
    auto* free_block = static_cast<FreeBlock*>(block);
    if (Cache* cache = t_cache; cache != nullptr && cache->room[c] > 0) {
      free_block->next = cache->heads[c];
      cache->heads[c] = free_block;
      --cache->room[c];
      return;
    }
    GiveSlow(c, free_block);
  }

  static FreeListCounts Counts() {
    FreeListCounts counts;
    counts.made = made_.load(std::memory_order_relaxed);
    counts.outstanding = outstanding_.load(std::memory_order_relaxed);
    if (const Cache* cache = t_cache) {
      for (size_t c = 0; c < Policy::kClasses; ++c) {
        counts.thread_cached += cache->limit[c] - cache->room[c];
      }
    }
    for (Shared& shared : shared_) {
      std::lock_guard<SpinLock> lock(shared.lock);
      counts.shared_cached += shared.blocks;
    }
    return counts;
  }

 private:
  struct Cache {
    Cache() {
      limit.fill(2 * Policy::kBatch);
      room = limit;
    }
    ~Cache() {
      t_cache = nullptr;
      t_state = State::kDead;
      // The blocks stay in the process: other threads take them from the shared lists.
      for (size_t c = 0; c < Policy::kClasses; ++c) {
        while (heads[c] != nullptr) SendBatch(this, c);
      }
    }
    Cache(const Cache&) = delete;
    Cache& operator=(const Cache&) = delete;

    std::array<FreeBlock*, Policy::kClasses> heads{};
    // Per class, how many more blocks the list may take (limit minus its length): the fast
    // paths compare with zero instead of loading the class's limit.
    std::array<int, Policy::kClasses> room{};
    std::array<int, Policy::kClasses> limit{};  // 2 kBatch .. ThreadLimit(c)
    // Per class, whether the list ran empty since it last overflowed.
    std::array<bool, Policy::kClasses> ran_empty{};
  };

  struct Shared {
    SpinLock lock;
    FreeBlock* batches = nullptr;  // under lock
    int count = 0;                 // batches, under lock
    int64_t blocks = 0;            // in all batches, under lock
  };

  // This thread's cache: not made yet, alive, or destroyed (the thread is ending; blocks
  // then go to the shared lists). The fast paths read the trivially destructible pointer,
  // not the cache's own thread_local (whose every use checks that it was constructed).
  enum class State : unsigned char { kNone, kAlive, kDead };
  static inline thread_local State t_state = State::kNone;
  static inline thread_local Cache* t_cache = nullptr;

  // Constant-initialized and trivially destructible: threads that end after static
  // destruction still find them.
  static inline constinit std::array<Shared, Policy::kClasses> shared_{};
  static inline constinit std::atomic<int64_t> made_{0};
  static inline constinit std::atomic<int64_t> outstanding_{0};

  static Cache* MakeCache() {
    if (t_state == State::kDead) return nullptr;
    thread_local Cache cache;
    t_state = State::kAlive;
    t_cache = &cache;
    return &cache;
  }

  static void DeleteList(FreeBlock* list, size_t c) {
    int64_t n = 0;
    while (list != nullptr) {
      FreeBlock* next = list->next;
      Policy::Uncached(list, c);
      Policy::Delete(list, c);
      list = next;
      ++n;
    }
    outstanding_.fetch_sub(n, std::memory_order_relaxed);
  }

  // Gives a batch (`length` blocks linked by `next`) to the shared lists, or to
  // Policy::Delete when they are full.
  static void PutBatch(size_t c, FreeBlock* batch, int length) {
    Shared& shared = shared_[c];
    {
      std::lock_guard<SpinLock> lock(shared.lock);
      if (shared.count < Policy::kMaxSharedBatches) {
        batch->next_batch = shared.batches;
        batch->length = length;
        shared.batches = batch;
        ++shared.count;
        shared.blocks += length;
        return;
      }
    }
    DeleteList(batch, c);
  }

  // Moves up to kBatch blocks from the front of class c's list to the shared lists.
  static void SendBatch(Cache* cache, size_t c) {
    FreeBlock* batch = cache->heads[c];
    FreeBlock* last = batch;
    int length = 1;
    for (; length < Policy::kBatch && last->next != nullptr; ++length) last = last->next;
    cache->heads[c] = last->next;
    cache->room[c] += length;
    last->next = nullptr;
    PutBatch(c, batch, length);
  }

  // This thread's list of class c is empty (or the thread has no cache yet): a shared
  // batch refills it, or a new block.
  [[gnu::noinline]] static void* TakeSlow(size_t c) {
    Cache* cache = t_cache != nullptr ? t_cache : MakeCache();
    if (cache != nullptr) {
      // This thread allocates class c faster than it frees it: let its list hold more.
      cache->ran_empty[c] = true;
      if (cache->limit[c] < Policy::ThreadLimit(c)) {
        const int grown = std::min(cache->limit[c] + Policy::kBatch, Policy::ThreadLimit(c));
        cache->room[c] += grown - cache->limit[c];
        cache->limit[c] = grown;
      }
      Shared& shared = shared_[c];
      FreeBlock* batch = nullptr;
      {
        std::lock_guard<SpinLock> lock(shared.lock);
        batch = shared.batches;
        if (batch != nullptr) {
          shared.batches = batch->next_batch;
          --shared.count;
          shared.blocks -= batch->length;
        }
      }
      if (batch != nullptr) {
        cache->heads[c] = batch->next;
        cache->room[c] = cache->limit[c] - static_cast<int>(batch->length - 1);
        Policy::Uncached(batch, c);
        return batch;
      }
    }
    void* block = Policy::New(c);
    made_.fetch_add(1, std::memory_order_relaxed);
    outstanding_.fetch_add(1, std::memory_order_relaxed);
    return block;
  }

  // This thread's list of class c is full (or the thread has no cache yet, or is ending):
  // the block joins it and batches leave for the shared lists, where the threads that
  // allocate find them. A list that overflows again without having run empty belongs to
  // a thread that frees more of the class than it allocates: its bound shrinks by a batch.
  [[gnu::noinline]] static void GiveSlow(size_t c, FreeBlock* block) {
    Cache* cache = t_cache != nullptr ? t_cache : MakeCache();
    if (cache == nullptr) {
      block->next = nullptr;
      PutBatch(c, block, 1);
      return;
    }
    block->next = cache->heads[c];
    cache->heads[c] = block;
    if (--cache->room[c] >= 0) return;
    if (!cache->ran_empty[c]) {
      const int shrink = std::min(Policy::kBatch, cache->limit[c] - 2 * Policy::kBatch);
      cache->limit[c] -= shrink;
      cache->room[c] -= shrink;
    }
    cache->ran_empty[c] = false;
    while (cache->room[c] < 0) SendBatch(cache, c);
  }
};

}  // namespace seam::base

#endif  // SEAM_BASE_FREE_LISTS_H_
