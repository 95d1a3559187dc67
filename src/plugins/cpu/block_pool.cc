#include "src/plugins/cpu/block_pool.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SEAM_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SEAM_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SEAM_POISON(p, n) ((void)(p), (void)(n))
#define SEAM_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace seam::cpu {
namespace {

constexpr size_t kAlignment = 64;
// Blocks below this size come straight from malloc (it is fast for them); above it, sizes
// are rounded to whole 4 KiB pages so that neighbouring sizes share a class.
constexpr size_t kPooledMinimum = 16 * 1024;
constexpr size_t kPage = 4096;
// The cache never holds more than this; a block given back beyond it is freed.
constexpr size_t kCacheLimit = size_t{512} << 20;

size_t Rounded(size_t size) {
  if (size == 0) return kAlignment;
  if (size < kPooledMinimum) return (size + kAlignment - 1) / kAlignment * kAlignment;
  return (size + kPage - 1) / kPage * kPage;
}

struct Pool {
  std::mutex mu;
  std::multimap<size_t, uint8_t*> free_blocks;  // capacity -> block
  size_t cached_bytes = 0;
  int64_t reused = 0;
};

Pool& ThePool() {
  // Never destroyed: blocks may be released by static destructors of other objects.
  static Pool* pool = new Pool;
  return *pool;
}

}  // namespace

Block AcquireBlock(size_t size) {
  const size_t capacity = Rounded(size);
  if (capacity >= kPooledMinimum) {
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mu);
    auto it = pool.free_blocks.find(capacity);
    if (it != pool.free_blocks.end()) {
      uint8_t* data = it->second;
      pool.free_blocks.erase(it);
      pool.cached_bytes -= capacity;
      ++pool.reused;
      SEAM_UNPOISON(data, capacity);
      return Block{data, capacity};
    }
  }
  auto* data = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, capacity));
  if (data == nullptr) throw std::bad_alloc();
  return Block{data, capacity};
}

void ReleaseBlock(Block block) {
  if (block.data == nullptr) return;
  if (block.capacity >= kPooledMinimum) {
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mu);
    if (pool.cached_bytes + block.capacity <= kCacheLimit) {
      SEAM_POISON(block.data, block.capacity);
      pool.free_blocks.emplace(block.capacity, block.data);
      pool.cached_bytes += block.capacity;
      return;
    }
  }
  std::free(block.data);
}

BlockPoolStats GetBlockPoolStats() {
  Pool& pool = ThePool();
  std::lock_guard<std::mutex> lock(pool.mu);
  return BlockPoolStats{static_cast<int64_t>(pool.free_blocks.size()),
                        static_cast<int64_t>(pool.cached_bytes), pool.reused};
}

}  // namespace seam::cpu
