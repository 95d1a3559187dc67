#include "src/plugins/cpu/runtime/block_pool.h"

#include <sys/mman.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

#include "src/base/sanitizers.h"

#if SEAM_ASAN
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
// are rounded to whole 4 KiB pages so that neighbouring sizes share a class, and blocks
// start on a page: every large block has the same offset (0) modulo 4096, whether glibc
// serves it by mmap or from the heap (docs/cpu-plugin.md, "Block placement").
constexpr size_t kPooledMinimum = size_t{16} * 1024;
constexpr size_t kPage = 4096;
// Blocks of this size and more are mappings of their own, starting on a 2 MiB boundary and
// advised for transparent huge pages (docs/cpu-plugin.md, "Huge pages"): a loop streaming
// several such arrays then walks one TLB entry per 2 MiB of each instead of one per 4 KiB.
constexpr size_t kHugePage = size_t{2} << 20;
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
};

// Small blocks (up to kSmallMaximum bytes, one class per 64 bytes) are recycled through
// per-thread lists over lists every thread shares (src/base/free_lists.h): tiny programs
// free and allocate a few of them on every run, and aligned_alloc has no fast path. A
// run's results are made on the device's worker and freed on the calling thread; the
// shared lists bring them back to the worker. Not part of the stats above (those describe
// the shared cache of large blocks).
constexpr size_t kSmallMaximum = 4096;

struct SmallPolicy {
  static constexpr size_t kClasses = kSmallMaximum / kAlignment;
  static constexpr int kBatch = 16;
  static constexpr int kMaxSharedBatches = 32;
  static constexpr size_t BlockBytes(size_t c) { return (c + 1) * kAlignment; }
  // A thread's list of a class grows up to 8 KiB (at least two batches) when the thread
  // allocates that class faster than it frees it. Larger lists (64 KiB per class before)
  // made the soak's eager mode jump by a few hundred KiB when its runs moved between the
  // caller and the worker: a list grown on one thread held blocks the other then had to
  // make anew. A step that recycles more of a class through one thread (eager mode keeps
  // every op's tiny result alive until the step ends) passes batches through the shared
  // lists instead, one lock per 16 blocks.
  static constexpr int ThreadLimit(size_t c) {
    const size_t by_bytes = size_t{8} * 1024 / BlockBytes(c);
    constexpr int kMinimum = 2 * kBatch;
    return by_bytes > size_t{kMinimum} ? static_cast<int>(by_bytes) : kMinimum;
  }
  static void* New(size_t c) {
    void* data = std::aligned_alloc(kAlignment, BlockBytes(c));
    if (data == nullptr) throw std::bad_alloc();
    return data;
  }
  static void Delete(void* block, size_t /*c*/) { std::free(block); }
  // Only the list's words stay readable: a stale read of the old contents is still caught.
  static void Cached(void* block, size_t c);
  static void Uncached(void* block, size_t c) { SEAM_UNPOISON(block, BlockBytes(c)); }
};
using SmallLists = base::FreeLists<SmallPolicy>;
static_assert(SmallLists::kLinkBytes <= kAlignment);
static_assert(SmallPolicy::ThreadLimit(0) == 128 &&
              SmallPolicy::ThreadLimit(SmallPolicy::kClasses - 1) == 32);

void SmallPolicy::Cached(void* block, size_t c) {
  SEAM_POISON(static_cast<uint8_t*>(block) + SmallLists::kLinkBytes,
              BlockBytes(c) - SmallLists::kLinkBytes);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it (EINVAL), harmlessly
#endif

// A fresh mapping of `capacity` bytes (a multiple of kPage) starting on a huge-page
// boundary: mapped with a huge page to spare, the unaligned head and the tail cut off;
// paged in as `use` asks (block_pool.h).
uint8_t* MapLargeBlock(size_t capacity, BlockUse use) {
  const size_t span = capacity + kHugePage;
  void* mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = aligned + capacity;
  if (aligned > start) munmap(mapped, aligned - start);
  // Addresses computed from the mapping's own: the casts back to pointers are the point.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  if (start + span > end) munmap(reinterpret_cast<void*>(end), start + span - end);
  auto* data = reinterpret_cast<uint8_t*>(aligned);  // NOLINT(performance-no-int-to-ptr)
  // Advice only: where the kernel has no transparent huge pages, or cannot populate in
  // advance, the block is still usable and its pages come on first touch.
  if (use == BlockUse::kHostCopy) {
    madvise(data, capacity, MADV_POPULATE_WRITE);
  } else {
    madvise(data, capacity, MADV_HUGEPAGE);
  }
  return data;
}

Pool& ThePool() {
  // Never destroyed: blocks may be released by static destructors of other objects.
  static Pool* pool = new Pool;
  return *pool;
}

}  // namespace

Block AcquireBlock(size_t size, BlockUse use) {
  const size_t capacity = Rounded(size);
  if (capacity >= kPooledMinimum) {
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mu);
    auto it = pool.free_blocks.find(capacity);
    if (it != pool.free_blocks.end()) {
      uint8_t* data = it->second;
      pool.free_blocks.erase(it);
      pool.cached_bytes -= capacity;
      SEAM_UNPOISON(data, capacity);
      return Block{data, capacity};
    }
  } else if (capacity <= kSmallMaximum) {
    return Block{static_cast<uint8_t*>(SmallLists::Take(capacity / kAlignment - 1)), capacity};
  }
  if (capacity >= kHugePage) return Block{MapLargeBlock(capacity, use), capacity};
  const size_t alignment = capacity >= kPooledMinimum ? kPage : kAlignment;
  auto* data = static_cast<uint8_t*>(std::aligned_alloc(alignment, capacity));
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
  } else if (block.capacity <= kSmallMaximum) {
    SmallLists::Give(block.data, block.capacity / kAlignment - 1);
    return;
  }
  if (block.capacity >= kHugePage) {
    munmap(block.data, block.capacity);
    return;
  }
  std::free(block.data);
}

base::FreeListCounts SmallBlockCounts() { return SmallLists::Counts(); }

size_t CachedBlockBytes() {
  Pool& pool = ThePool();
  std::lock_guard<std::mutex> lock(pool.mu);
  return pool.cached_bytes;
}

}  // namespace seam::cpu
