#include "src/plugins/cpu/buffer.h"

#include "src/base/object_pool.h"
#include "src/plugins/cpu/block_pool.h"

namespace seam::cpu {

DeviceMemory::DeviceMemory(size_t size) : size_(size) {
  // Even a 0-byte buffer gets a block of its own, so that every buffer has a distinct address.
  Block block = AcquireBlock(size);
  data_ = block.data;
  capacity_ = block.capacity;
}

DeviceMemory::~DeviceMemory() { ReleaseBlock(Block{data_, capacity_}); }

std::shared_ptr<BufferState> NewBufferState() {
  return std::allocate_shared<BufferState>(base::PoolAllocator<BufferState>());
}

std::shared_ptr<BufferState> NewBufferState(std::shared_ptr<EventState> ready) {
  return std::allocate_shared<BufferState>(base::PoolAllocator<BufferState>(),
                                           BufferState{nullptr, std::move(ready)});
}

std::shared_ptr<DeviceMemory> NewDeviceMemory(size_t size) {
  return std::allocate_shared<DeviceMemory>(base::PoolAllocator<DeviceMemory>(), size);
}

}  // namespace seam::cpu
