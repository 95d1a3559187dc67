// Device memory and the state behind a PJRT_Buffer on the CPU plugin.
#ifndef SEAM_PLUGINS_CPU_BUFFER_H_
#define SEAM_PLUGINS_CPU_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "src/ir/shape.h"
#include "src/plugins/common/event.h"

namespace seam::cpu {

using ::seam::plugin::EventState;

// A 64-byte aligned block of bytes ("device memory" of the CPU plugin). The block comes
// from, and goes back to, the plugin's block pool (block_pool.h).
class DeviceMemory {
 public:
  explicit DeviceMemory(size_t size);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_;
  size_t size_;
  size_t capacity_;
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
std::shared_ptr<DeviceMemory> NewDeviceMemory(size_t size);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_BUFFER_H_
