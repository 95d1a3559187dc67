#include "src/plugins/cpu/buffer.h"

#include "src/plugins/cpu/block_pool.h"

namespace seam::cpu {

DeviceMemory::DeviceMemory(size_t size) : size_(size) {
  // Even a 0-byte buffer gets a block of its own, so that every buffer has a distinct address.
  Block block = AcquireBlock(size);
  data_ = block.data;
  capacity_ = block.capacity;
}

DeviceMemory::~DeviceMemory() { ReleaseBlock(Block{data_, capacity_}); }

}  // namespace seam::cpu
