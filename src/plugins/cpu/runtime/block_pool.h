// Memory blocks of the CPU plugin, recycled: a block that is freed goes to a process-wide
// cache and is handed out again to the next request of the same size class, so repeated
// runs of a program do not page-fault fresh memory on every run (docs/plugins.md).
#ifndef SEAM_PLUGINS_CPU_BLOCK_POOL_H_
#define SEAM_PLUGINS_CPU_BLOCK_POOL_H_

#include <cstddef>
#include <cstdint>

#include "src/base/free_lists.h"

namespace seam::cpu {

// Blocks are 64-byte aligned; blocks of 16 KiB or more start on a 4 KiB page
// (docs/cpu-plugin.md, "Block placement"); blocks of 2 MiB or more are mappings of their own
// that start on a 2 MiB boundary ("Huge pages"). A block of `capacity` bytes given back with
// Release can be returned by a later Acquire whose rounded size equals that capacity.
struct Block {
  uint8_t* data = nullptr;
  size_t capacity = 0;
};

// Who writes a block first, which decides how a fresh mapping of 2 MiB or more is paged in
// (docs/cpu-plugin.md, "Huge pages"):
//  - kPrograms: a run's result or a copy, touched by kernels: advised for transparent huge
//    pages (fewer TLB entries for the loops that stream it).
//  - kHostCopy: bytes copied in from the host in one pass (an upload): 4 KiB pages, all
//    faulted in by one call before the copy, since where the kernel compacts memory for a
//    huge page on the first touch, that touch runs several times slower than the copy.
// A block taken from the cache is already paged in, either way.
enum class BlockUse { kPrograms, kHostCopy };

// A block of at least `size` bytes (a distinct address even for size 0). Throws
// std::bad_alloc when the memory cannot be had.
Block AcquireBlock(size_t size, BlockUse use = BlockUse::kPrograms);

// Gives `block` back: kept for reuse while the cache holds less than its limit, else freed.
void ReleaseBlock(Block block);

// The bytes of the blocks the shared cache holds for reuse now (blocks of 16 KiB or more;
// small blocks kept in the per-thread lists below are not counted). Process-wide.
size_t CachedBlockBytes();

// The small blocks' lists (blocks of up to 4 KiB, per thread over shared lists), for tests.
base::FreeListCounts SmallBlockCounts();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_BLOCK_POOL_H_
