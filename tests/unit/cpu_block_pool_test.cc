// The CPU plugin's block pool: where blocks are placed, that recycled blocks stay
// poisoned for AddressSanitizer while they sit in the cache (docs/cpu-plugin.md, "Block
// placement"), and that small blocks freed on another thread are reused.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "src/base/sanitizers.h"
#include "src/plugins/cpu/runtime/block_pool.h"

#if SEAM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace {

using seam::cpu::AcquireBlock;
using seam::cpu::Block;
using seam::cpu::ReleaseBlock;

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

// The VmFlags of the mapping holding `address` in /proc/self/smaps ("" if none holds it).
std::string VmFlagsAt(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool TransparentHugePagesExist() {
  return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good();
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
