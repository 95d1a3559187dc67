// Buffers: host to device, device to host, and their properties.
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/block_pool.h"
#include "src/plugins/cpu/device_layout.h"
#include "src/plugins/cpu/objects.h"

namespace seam::cpu {

PJRT_Error* ClientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->client);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->device);
  if (args->device->client != args->client) {
    return MakeError(absl::InvalidArgumentError(
        "PJRT_Client_BufferFromHostBuffer: device belongs to another client"));
  }
  if (args->byte_strides != nullptr || args->num_byte_strides != 0) {
    return MakeError(absl::UnimplementedError(
        "PJRT_Client_BufferFromHostBuffer: byte_strides are not supported (data must be dense "
        "row-major)"));
  }
  absl::StatusOr<ir::DType> dtype = FromPjrtType(args->type);
  if (!dtype.ok()) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_BufferFromHostBuffer: ", dtype.status().message())));
  }
  if (args->num_dims > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->dims);
  ir::Shape shape{*dtype, std::vector<int64_t>(args->dims, args->dims + args->num_dims)};
  if (absl::Status s = ir::ValidateShape(shape); !s.ok()) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_BufferFromHostBuffer: ", s.message())));
  }
  size_t size = shape.byte_size();
  if (size > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->data);

  auto state = NewBufferState();
  // Every semantics is served by copying now, which meets the strictest one.
  try {
    state->memory = NewDeviceMemory(size, args->device->memory);
  } catch (const std::bad_alloc&) {
    return MakeError(absl::ResourceExhaustedError(
        absl::StrCat("PJRT_Client_BufferFromHostBuffer: cannot allocate ", size,
                     " bytes of device memory for ", shape.ToString())));
  }
  if (size > 0) std::memcpy(state->memory->data(), args->data, size);
  state->ready->Set(absl::OkStatus());

  args->done_with_host_buffer = new PJRT_Event{EventState::Ready()};
  args->buffer = new PJRT_Buffer{std::make_shared<const ir::Shape>(std::move(shape)),
                                 std::move(state), args->device};
  return nullptr;
}

PJRT_Error* BufferDestroy(PJRT_Buffer_Destroy_Args* args) {
  delete args->buffer;
  return nullptr;
}

PJRT_Error* BufferElementType(PJRT_Buffer_ElementType_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ElementType, args->buffer);
  args->type = ToPjrtType(args->buffer->shape->dtype);
  return nullptr;
}

PJRT_Error* BufferDimensions(PJRT_Buffer_Dimensions_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Dimensions, args->buffer);
  args->dims = args->buffer->shape->dims.data();
  args->num_dims = args->buffer->shape->dims.size();
  return nullptr;
}

PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ToHostBuffer, args->src);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_ToHostBuffer, args->src);
  std::shared_ptr<BufferState> state = args->src->state;
  size_t needed = args->src->shape->byte_size();
  if (args->dst == nullptr) {
    args->dst_size = needed;
    args->event = nullptr;
    return nullptr;
  }
  if (args->dst_size < needed) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Buffer_ToHostBuffer: dst_size is ", args->dst_size,
                     " bytes, the buffer ", args->src->shape->ToString(), " needs ", needed)));
  }
  auto done = EventState::Create();
  void* dst = args->dst;
  state->ready->OnReady([state, done, dst, needed](const absl::Status& status) {
    // A block in oneDNN's layout converts straight into the host's memory.
    if (!status.ok() || needed == 0) return done->Set(status);
    done->Set(CopyToDense(*state->memory, dst));
  });
  args->event = new PJRT_Event{std::move(done)};
  return nullptr;
}

PJRT_Error* BufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ReadyEvent, args->buffer);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_ReadyEvent, args->buffer);
  args->event = new PJRT_Event{args->buffer->state->ready};
  return nullptr;
}

PJRT_Error* BufferDelete(PJRT_Buffer_Delete_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Delete, args->buffer);
  PJRT_Buffer& buffer = *args->buffer;
  if (buffer.deleted) return nullptr;
  // Runs that already hold the state keep the memory alive until they finish.
  buffer.state.reset();
  buffer.deleted = true;
  return nullptr;
}

PJRT_Error* BufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_IsDeleted, args->buffer);
  args->is_deleted = args->buffer->deleted;
  return nullptr;
}

PJRT_Error* BufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_OnDeviceSizeInBytes, args->buffer);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_OnDeviceSizeInBytes, args->buffer);
  args->on_device_size_in_bytes = args->buffer->shape->byte_size();
  return nullptr;
}

PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_MemoryStats, args->device);
  const MemoryCounters& counters = *args->device->memory;
  args->bytes_in_use = counters.in_use();
  args->peak_bytes_in_use = counters.peak();
  args->peak_bytes_in_use_is_set = true;
  // No limit of its own: a block is refused only when the host cannot supply it.
  args->bytes_limit = 0;
  args->bytes_limit_is_set = false;
  // The pool is the process's, shared by every device of every client.
  args->pool_cached_bytes = static_cast<int64_t>(CachedBlockBytes());
  args->pool_cached_bytes_is_set = true;
  return nullptr;
}

}  // namespace seam::cpu
