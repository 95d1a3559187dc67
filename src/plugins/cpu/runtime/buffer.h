// Device memory and the state behind a PJRT_Buffer on the CPU plugin.
#ifndef SEAM_PLUGINS_CPU_BUFFER_H_
#define SEAM_PLUGINS_CPU_BUFFER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "src/ir/shape.h"
#include "src/plugins/common/event.h"
#include "src/plugins/cpu/runtime/block_pool.h"

namespace seam::cpu {

using ::seam::plugin::EventState;

// The memory figures of one device (PJRT_Device_MemoryStats): the bytes of the device's
// memory blocks alive now and the most ever alive at once. Thread-safe (atomics): blocks are
// made on the device's worker and on callers' threads and freed on any thread.
class MemoryCounters {
 public:
  void Allocated(size_t bytes);
  void Freed(size_t bytes) {
    in_use_.fetch_sub(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
};

class DeviceLayout;  // device_layout.h

// A 64-byte aligned block of bytes ("device memory" of the CPU plugin). The block comes
// from, and goes back to, the plugin's block pool (block_pool.h; `use` says who writes it
// first). With `counters`, its `size` bytes count as in use on that device from
// construction to destruction (the counters are shared: a block may outlive its client).
class DeviceMemory {
 public:
  explicit DeviceMemory(size_t size, std::shared_ptr<MemoryCounters> counters = nullptr,
                        BlockUse use = BlockUse::kPrograms);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  // The layout of the values (device_layout.h); null: the shape's dense row-major layout.
  // Set by whoever writes the block, before anyone else can see it.
  const std::shared_ptr<const DeviceLayout>& layout() const { return layout_; }
  void set_layout(std::shared_ptr<const DeviceLayout> layout) { layout_ = std::move(layout); }

  // Copies of the same values in other layouts, made on demand and kept while this block
  // lives (InLayout, device_layout.cc), under `copies_mutex`.
  struct Copy {
    std::shared_ptr<const DeviceLayout> layout;
    std::shared_ptr<DeviceMemory> memory;
  };
  std::mutex copies_mutex;
  std::vector<Copy> copies;

 private:
  uint8_t* data_;
  size_t size_;
  size_t capacity_;
  std::shared_ptr<MemoryCounters> counters_;  // null: not counted (tests of the kernels)
  std::shared_ptr<const DeviceLayout> layout_;
};

// Shared by a buffer's handle (PJRT_Buffer, which holds the shape) and by the runs that
// produce or read it. `memory` is written before `ready` is set and never changes afterwards.
// The outputs of one run share one `ready` event (they become ready together).
struct BufferState {
  std::shared_ptr<DeviceMemory> memory;
  std::shared_ptr<EventState> ready = EventState::Create();
};

// New states and memory blocks with their shared_ptr control blocks from the object pool
// (src/base/object_pool.h): every run makes a few of each.
std::shared_ptr<BufferState> NewBufferState();
// A state whose readiness is `ready` (shared with others).
std::shared_ptr<BufferState> NewBufferState(std::shared_ptr<EventState> ready);
std::shared_ptr<DeviceMemory> NewDeviceMemory(
    size_t size, const std::shared_ptr<MemoryCounters>& counters = nullptr,
    BlockUse use = BlockUse::kPrograms);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_BUFFER_H_
