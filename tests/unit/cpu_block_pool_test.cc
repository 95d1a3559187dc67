// The CPU plugin's block pool: where blocks are placed, that recycled blocks stay
// poisoned for AddressSanitizer while they sit in the cache (docs/cpu-plugin.md, "Block
// placement"), and that small blocks freed on another thread are reused.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "src/base/sanitizers.h"
#include "src/plugins/cpu/runtime/block_pool.h"
#include "tests/unit/mapping_flags.h"

#if SEAM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace {

using seam::cpu::AcquireBlock;
using seam::cpu::Block;
using seam::cpu::BlockUse;
using seam::cpu::ReleaseBlock;
using seam::testing::TransparentHugePagesExist;
using seam::testing::VmFlagsAt;

uintptr_t Offset(const Block& block, uintptr_t modulus) {
  return reinterpret_cast<uintptr_t>(block.data) % modulus;
}

// Sizes around and above the pooled minimum (16 KiB), including ones that are not whole
// pages and the 16 MiB of the 4M-element chain's arrays.
const size_t kLargeSizes[] = {16 * 1024,       16 * 1024 + 1, 100000,
                              size_t{1} << 20, 16u << 20,     (16u << 20) + 100};

void ExpectPageStart(const Block& block, size_t size) {
  EXPECT_EQ(Offset(block, 4096), 0u)
      << "block of " << size << " bytes at " << static_cast<const void*>(block.data);
  EXPECT_GE(block.capacity, size);
  EXPECT_EQ(block.capacity % 4096, 0u) << "capacity " << block.capacity;
}

TEST(BlockPool, LargeBlocksStartOnAPage) {
  std::vector<Block> blocks;
  for (size_t size : kLargeSizes) {
    blocks.push_back(AcquireBlock(size));
    ExpectPageStart(blocks.back(), size);
  }
  for (const Block& block : blocks) ReleaseBlock(block);
  // The same sizes again are served from the cache: still page starts.
  for (size_t size : kLargeSizes) {
    Block block = AcquireBlock(size);
    ExpectPageStart(block, size);
    ReleaseBlock(block);
  }
}

// Freeing a large malloc block raises glibc's mmap threshold, after which large requests
// come from the heap at whatever offset the heap is at: the placement the pool used to
// inherit (offsets 0x40 or 0xcc0 mod 4096, varying from upload to upload).
TEST(BlockPool, LargeBlocksStartOnAPageAfterTheHeapMoved) {
  std::free(std::malloc(24u << 20));
  void* shift = std::malloc(0x1230);  // moves the heap's top off any page boundary
  std::vector<Block> blocks;
  for (int i = 0; i < 4; ++i) {
    blocks.push_back(AcquireBlock((16u << 20) + 16 * i));
    ExpectPageStart(blocks.back(), (16u << 20) + 16 * i);
  }
  for (const Block& block : blocks) ReleaseBlock(block);
  std::free(shift);
}

// Blocks of 2 MiB and more start on a huge page and carry the huge-page advice ("hg" in
// VmFlags), also when they come back from the cache.
TEST(BlockPool, HugeBlocksStartOnAHugePageWithTheAdvice) {
  const size_t sizes[] = {(2u << 20) - 100, 2u << 20, (16u << 20) + 100, 48u << 20};
  for (int round = 0; round < 2; ++round) {
    std::vector<Block> blocks;
    for (size_t size : sizes) {
      blocks.push_back(AcquireBlock(size));
      const Block& block = blocks.back();
      if (size < (2u << 20)) {
        ExpectPageStart(block, size);  // below the huge minimum: a heap block
        continue;
      }
      EXPECT_EQ(Offset(block, 2u << 20), 0u)
          << "block of " << size << " bytes at " << static_cast<const void*>(block.data);
      EXPECT_GE(block.capacity, size);
      block.data[0] = 1;
      block.data[block.capacity - 1] = 2;  // the whole capacity is usable
      if (TransparentHugePagesExist()) {
        const std::string flags = VmFlagsAt(block.data);
        EXPECT_NE(flags.find(" hg"), std::string::npos)
            << "block of " << size << " bytes: " << flags;
      }
    }
    for (const Block& block : blocks) ReleaseBlock(block);
  }
}

// Whether this kernel pages in memory ahead of use on request (MADV_POPULATE_WRITE, Linux
// 5.14): probed on a mapping of its own.
bool KernelPopulatesOnRequest() {
  const size_t size = 4 * 4096;
  void* probe = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool ok = madvise(probe, size, 23 /* MADV_POPULATE_WRITE */) == 0;
  munmap(probe, size);
  return ok;
}

// How many of the pages of [data, data + size) are resident now (mincore).
size_t ResidentPages(const uint8_t* data, size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  if (mincore(const_cast<uint8_t*>(data), size, resident.data()) != 0) {
    ADD_FAILURE() << "mincore: errno " << errno;
    return 0;
  }
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

// A fresh block of 2 MiB or more for bytes copied in from the host (an upload) starts on
// a huge page like the others but has 4 KiB pages, every one resident before anything
// touched it (docs/cpu-plugin.md, "Huge pages": a huge page's first touch can run several
// times slower than the copy). Sizes used by no other test, so the blocks are fresh.
TEST(BlockPool, HostCopyBlocksArePagedInWithoutTheHugePageAdvice) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t size : {(6u << 20) + 12345, (34u << 20) + 4096}) {
    Block block = AcquireBlock(size, BlockUse::kHostCopy);
    EXPECT_EQ(Offset(block, 2u << 20), 0u) << "block of " << size << " bytes";
    EXPECT_GE(block.capacity, size);
    if (TransparentHugePagesExist()) {
      const std::string flags = VmFlagsAt(block.data);
      EXPECT_EQ(flags.find(" hg"), std::string::npos) << "block of " << size << ": " << flags;
    }
    if (KernelPopulatesOnRequest()) {
      EXPECT_EQ(ResidentPages(block.data, block.capacity), block.capacity / page)
          << "block of " << size << " bytes, untouched";
    } else {
      std::printf("[ skipped part ] this kernel has no MADV_POPULATE_WRITE (Linux < 5.14)\n");
    }
    block.data[block.capacity - 1] = 1;
    ReleaseBlock(block);
  }
  // The same size for a program's result after the block went back: the cached block
  // (already paged in) is what it gets.
  Block first = AcquireBlock((6u << 20) + 12345, BlockUse::kHostCopy);
  ReleaseBlock(first);
  Block again = AcquireBlock((6u << 20) + 12345);
  EXPECT_EQ(again.data, first.data);
  ReleaseBlock(again);
}

// Huge blocks given back beyond the cache's limit (512 MiB) are unmapped, not leaked:
// 40 blocks of 16 MiB (never touched, so no memory is used) overflow it.
TEST(BlockPool, HugeBlocksBeyondTheCacheAreUnmapped) {
  std::vector<Block> blocks;
  for (int i = 0; i < 40; ++i) blocks.push_back(AcquireBlock((16u << 20) + 8192));
  for (const Block& block : blocks) ReleaseBlock(block);
  int unmapped = 0;
  for (const Block& block : blocks) unmapped += VmFlagsAt(block.data).empty() ? 1 : 0;
  EXPECT_GE(unmapped, 8) << "of 40 blocks of 16 MiB, the cache can hold at most 32";
}

TEST(BlockPool, SmallBlocksAre64ByteAligned) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{4096}, size_t{10000},
                      size_t{16 * 1024 - 1}}) {
    Block block = AcquireBlock(size);
    EXPECT_EQ(Offset(block, 64), 0u)
        << "block of " << size << " bytes at " << static_cast<const void*>(block.data);
    EXPECT_GE(block.capacity, size);
    ReleaseBlock(block);
  }
}

// A run's small results are made on the device's worker and freed on the calling thread.
// Before the fix the caller kept up to 64 KiB of them per size class while the worker made
// new ones; now they return to the worker through the shared lists.
TEST(BlockPool, SmallBlocksFreedOnAnotherThreadAreReused) {
  constexpr int kPerRound = 4, kWarmup = 50, kRounds = 400;
  int64_t made_after_warmup = 0;
  for (int round = 1; round <= kRounds; ++round) {
    std::vector<Block> results;
    // The "worker": one thread for all rounds would need a hand-off; a thread per round
    // also leaves its lists to the shared ones when it ends, as a worker that stops does.
    std::thread([&] {
      for (int i = 0; i < kPerRound; ++i) results.push_back(AcquireBlock(200));
    }).join();
    for (const Block& block : results) ReleaseBlock(block);
    if (round == kWarmup) made_after_warmup = seam::cpu::SmallBlockCounts().made;
  }
  EXPECT_LE(seam::cpu::SmallBlockCounts().made - made_after_warmup, 16);
}

TEST(BlockPool, CachedSmallBlocksArePoisonedButTheirLinks) {
#if defined(__SANITIZE_ADDRESS__)
  Block block = AcquireBlock(1000);
  uint8_t* data = block.data;
  ReleaseBlock(block);
  EXPECT_FALSE(__asan_address_is_poisoned(data));
  EXPECT_TRUE(__asan_address_is_poisoned(data + 64));
  EXPECT_TRUE(__asan_address_is_poisoned(data + block.capacity - 1));
  Block again = AcquireBlock(1000);
  ASSERT_EQ(again.data, data) << "the released block should have been reused";
  EXPECT_FALSE(__asan_address_is_poisoned(again.data + again.capacity - 1));
  ReleaseBlock(again);
#else
  GTEST_SKIP() << "only meaningful under AddressSanitizer (make test-sanitize)";
#endif
}

TEST(BlockPool, CachedLargeBlocksArePoisoned) {
#if SEAM_ASAN
  // A size no other test caches, so that the cache holds exactly this block afterwards.
  constexpr size_t kSize = (1u << 20) + 3 * 4096;
  Block block = AcquireBlock(kSize);
  uint8_t* data = block.data;
  EXPECT_FALSE(__asan_address_is_poisoned(data));
  EXPECT_FALSE(__asan_address_is_poisoned(data + block.capacity - 1));
  ReleaseBlock(block);
  EXPECT_TRUE(__asan_address_is_poisoned(data));
  EXPECT_TRUE(__asan_address_is_poisoned(data + block.capacity - 1));
  Block again = AcquireBlock(kSize);
  ASSERT_EQ(again.data, data) << "the released block should have been reused";
  EXPECT_FALSE(__asan_address_is_poisoned(again.data));
  EXPECT_FALSE(__asan_address_is_poisoned(again.data + again.capacity - 1));
  ReleaseBlock(again);
#else
  GTEST_SKIP() << "only meaningful under AddressSanitizer (make test-sanitize)";
#endif
}

}  // namespace
