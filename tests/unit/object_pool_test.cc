// The object pool (src/base/object_pool.h): a block freed on another thread than the one
// that allocated it returns to the threads that allocate, so a steady flow of objects from
// one thread to another keeps a bounded number of blocks (issue 14, item 7). Each check
// counts blocks, never time.
#include "src/base/object_pool.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace seam::base {
namespace {

constexpr size_t kBytes = 96;  // one size class, as a run record or an event would be

// A thread that frees the blocks handed to it, one batch at a time: Give returns once the
// batch is freed, so every run of a test frees in the same order. Like a device thread
// (which allocates its results), it has allocated from the pool itself.
class Freer {
 public:
  Freer() : thread_([this] { Loop(); }) {}
  ~Freer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Freer(const Freer&) = delete;
  Freer& operator=(const Freer&) = delete;

  // Blocks in the freeing thread's own lists after the last batch.
  int64_t cached() {
    std::lock_guard<std::mutex> lock(mu_);
    return cached_;
  }

  void Give(std::vector<void*> blocks) {
    std::unique_lock<std::mutex> lock(mu_);
    blocks_ = std::move(blocks);
    full_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return !full_; });
  }

 private:
  void Loop() {
    PoolFree(PoolAllocate(kBytes), kBytes);
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return full_ || stop_; });
      if (!full_) return;
      for (void* block : blocks_) PoolFree(block, kBytes);
      blocks_.clear();
      cached_ = GetPoolCounts().thread_cached;
      full_ = false;
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<void*> blocks_;  // under mu_
  bool full_ = false;          // under mu_
  bool stop_ = false;          // under mu_
  int64_t cached_ = 0;         // under mu_
  std::thread thread_;
};

std::vector<void*> AllocateBlocks(int count) {
  std::vector<void*> blocks;
  for (int i = 0; i < count; ++i) blocks.push_back(PoolAllocate(kBytes));
  return blocks;
}

// The shape of a queued run: the caller allocates its objects, the device thread frees
// them. Before the fix the freeing thread kept up to 4096 blocks per size class that nobody
// allocated again, and the caller took fresh ones from operator new meanwhile.
TEST(ObjectPoolTest, BlocksFreedOnAnotherThreadAreReused) {
  constexpr int kPerRound = 8, kWarmup = 200, kRounds = 3000;
  Freer freer;
  int64_t after_warmup = 0;
  for (int round = 1; round <= kRounds; ++round) {
    freer.Give(AllocateBlocks(kPerRound));
    if (round == kWarmup) after_warmup = GetPoolCounts().outstanding;
  }
  const int64_t growth = GetPoolCounts().outstanding - after_warmup;
  // 2,800 rounds move 22,400 blocks from one thread to the other; at most a batch or two
  // in transit may be new.
  EXPECT_LE(growth, 64) << "blocks outstanding grew by " << growth << " after the warm-up";
  // A thread that frees a class and does not allocate it keeps two batches of it (three:
  // it allocated one block once, which let its list grow by a batch).
  EXPECT_LE(freer.cached(), 3 * 32);
}

// A thread's own lists are bounded (they grow with what the thread allocates, up to 32 KiB
// per class): what it frees beyond them goes to the shared lists.
TEST(ObjectPoolTest, OneThreadKeepsAtMost32KibPerClass) {
  std::vector<void*> blocks = AllocateBlocks(10000);
  for (void* block : blocks) PoolFree(block, kBytes);
  const PoolCounts counts = GetPoolCounts();
  EXPECT_LE(counts.thread_cached * static_cast<int64_t>(kBytes), 32 * 1024 + 64 * 96);
  EXPECT_GT(counts.shared_cached, 0);
}

// The blocks of a thread that ends stay in the process for the others.
TEST(ObjectPoolTest, AThreadThatEndsLeavesItsBlocksToTheOthers) {
  std::thread([] {
    std::vector<void*> blocks = AllocateBlocks(1000);
    for (void* block : blocks) PoolFree(block, kBytes);
  }).join();
  const int64_t after_thread = GetPoolCounts().outstanding;
  std::vector<void*> blocks = AllocateBlocks(1000);
  EXPECT_LE(GetPoolCounts().outstanding - after_thread, 32);
  for (void* block : blocks) PoolFree(block, kBytes);
}

// Sizes above kMaxPooledBytes and zero bytes bypass the pool.
TEST(ObjectPoolTest, LargeAndEmptyBlocksBypassThePool) {
  const int64_t before = GetPoolCounts().outstanding;
  void* large = PoolAllocate(kMaxPooledBytes + 1);
  void* empty = PoolAllocate(0);
  EXPECT_EQ(GetPoolCounts().outstanding, before);
  PoolFree(large, kMaxPooledBytes + 1);
  PoolFree(empty, 0);
  PoolFree(nullptr, kBytes);
  EXPECT_EQ(GetPoolCounts().outstanding, before);
}

// One thread that frees what it allocated reuses its own blocks.
TEST(ObjectPoolTest, OneThreadReusesItsBlocks) {
  std::vector<void*> blocks = AllocateBlocks(100);
  for (void* block : blocks) PoolFree(block, kBytes);
  const int64_t before = GetPoolCounts().outstanding;
  for (int round = 0; round < 100; ++round) {
    blocks = AllocateBlocks(100);
    for (void* block : blocks) PoolFree(block, kBytes);
  }
  EXPECT_EQ(GetPoolCounts().outstanding, before);
}

}  // namespace
}  // namespace seam::base
