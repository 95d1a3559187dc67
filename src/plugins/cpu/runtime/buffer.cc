#include "src/plugins/cpu/runtime/buffer.h"

#include "src/base/object_pool.h"
#include "src/plugins/cpu/runtime/block_pool.h"

namespace seam::cpu {

void MemoryCounters::Allocated(size_t bytes) {
  const int64_t now = in_use_.fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed) +
                      static_cast<int64_t>(bytes);
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

DeviceMemory::DeviceMemory(size_t size, std::shared_ptr<MemoryCounters> counters, BlockUse use)
    : size_(size), counters_(std::move(counters)) {
  // Even a 0-byte buffer gets a block of its own, so that every buffer has a distinct address.
  Block block = AcquireBlock(size, use);
  data_ = block.data;
  capacity_ = block.capacity;
  if (counters_ != nullptr) counters_->Allocated(size_);
}

DeviceMemory::~DeviceMemory() {
  ReleaseBlock(Block{data_, capacity_});
  if (counters_ != nullptr) counters_->Freed(size_);
}

std::shared_ptr<BufferState> NewBufferState() {
  return std::allocate_shared<BufferState>(base::PoolAllocator<BufferState>());
}

std::shared_ptr<BufferState> NewBufferState(std::shared_ptr<EventState> ready) {
  return std::allocate_shared<BufferState>(base::PoolAllocator<BufferState>(),
                                           BufferState{nullptr, std::move(ready)});
}

std::shared_ptr<DeviceMemory> NewDeviceMemory(size_t size,
                                              const std::shared_ptr<MemoryCounters>& counters,
                                              BlockUse use) {
  return std::allocate_shared<DeviceMemory>(base::PoolAllocator<DeviceMemory>(), size, counters,
                                            use);
}

}  // namespace seam::cpu
