// Buffers: host to device, device to host, and their properties.
#include <cstring>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/plugins/common/buffer.h"
#include "src/plugins/cpu/api/api_functions.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/runtime/block_pool.h"
#include "src/plugins/cpu/runtime/device_layout.h"

namespace seam::cpu {

namespace {

// The device a call's `memory` (when set) or `device` names, checked against the client.
absl::StatusOr<PJRT_Device*> TargetDevice(const char* function, PJRT_Client* client,
                                          PJRT_Device* device, PJRT_Memory* memory) {
  if (memory != nullptr) {
    if (memory->devices.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(function, ": memory has no device"));
    }
    device = memory->devices.front();
  }
  if (device == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(function, ": device is null"));
  }
  if (device->client != client) {
    return absl::InvalidArgumentError(absl::StrCat(function, ": device belongs to another client"));
  }
  if (!device->addressable) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": device ", device->description.id, " belongs to process ",
                     device->description.process_index, ", not to this one"));
  }
  return device;
}

// OK for no byte strides, or strides that describe the dense row-major layout of `shape`.
absl::Status CheckDenseStrides(const PJRT_Client_BufferFromHostBuffer_Args& args,
                               const ir::Shape& shape) {
  if (args.byte_strides == nullptr && args.num_byte_strides == 0) return absl::OkStatus();
  bool dense = args.byte_strides != nullptr && args.num_byte_strides == shape.dims.size();
  int64_t stride = static_cast<int64_t>(ir::DTypeSize(shape.dtype));
  for (size_t k = shape.dims.size(); dense && k-- > 0;) {
    // A dimension of extent 1 (or an empty value) does not constrain its stride.
    if (args.byte_strides[k] != stride && shape.dims[k] > 1 && shape.num_elements() > 0) {
      dense = false;
    }
    stride *= shape.dims[k];
  }
  if (dense) return absl::OkStatus();
  std::string given;
  for (size_t k = 0; args.byte_strides != nullptr && k < args.num_byte_strides; ++k) {
    absl::StrAppend(&given, k == 0 ? "" : ",", args.byte_strides[k]);
  }
  return absl::UnimplementedError(
      absl::StrCat("PJRT_Client_BufferFromHostBuffer: byte_strides [", given,
                   "] are not the dense row-major "
                   "strides of ",
                   shape.ToString(), " (the cpu plugin takes only dense row-major host data)"));
}

}  // namespace

absl::Status CheckDenseLayout(const char* function, const char* field,
                              const PJRT_Buffer_MemoryLayout* layout, size_t rank) {
  if (layout == nullptr) return absl::OkStatus();
  if (layout->struct_size < PJRT_Buffer_MemoryLayout_STRUCT_SIZE) {
    return plugin::CheckStructSize("PJRT_Buffer_MemoryLayout", PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                   layout->struct_size);
  }
  if (plugin::RawEnumValue(layout->type) != PJRT_Buffer_MemoryLayout_Type_Tiled) {
    return absl::UnimplementedError(absl::StrCat(
        function, ": ", field,
        " is a strides layout; the cpu plugin takes only the dense row-major tiled layout "
        "(minor_to_major rank-1..0, no tiles)"));
  }
  if (plugin::IsDenseRowMajor(*layout, rank)) return absl::OkStatus();
  const PJRT_Buffer_MemoryLayout_Tiled& tiled = layout->tiled;
  std::string order;
  for (size_t k = 0; tiled.minor_to_major != nullptr && k < tiled.minor_to_major_size; ++k) {
    absl::StrAppend(&order, k == 0 ? "" : ",", tiled.minor_to_major[k]);
  }
  return absl::UnimplementedError(
      absl::StrCat(function, ": ", field, " has minor_to_major [", order, "] and ", tiled.num_tiles,
                   " tile(s); the cpu plugin takes only the dense row-major layout of rank ", rank,
                   " (minor_to_major rank-1..0, no tiles)"));
}

PJRT_Error* ClientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  constexpr const char* kFunction = "PJRT_Client_BufferFromHostBuffer";
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->client);
  absl::StatusOr<PJRT_Device*> device =
      TargetDevice(kFunction, args->client, args->device, args->memory);
  if (!device.ok()) return MakeError(device.status());
  absl::StatusOr<ir::DType> dtype = FromPjrtType(plugin::RawEnumValue(args->type));
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
  if (absl::Status s = CheckDenseStrides(*args, shape); !s.ok()) return MakeError(s);
  if (absl::Status s =
          CheckDenseLayout(kFunction, "device_layout", args->device_layout, shape.dims.size());
      !s.ok()) {
    return MakeError(s);
  }
  size_t size = shape.byte_size();
  if (size > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->data);

  auto state = NewBufferState();
  // Every semantics is served by copying now, which meets the strictest one.
  try {
    state->memory = NewDeviceMemory(size, (*device)->memory, BlockUse::kHostCopy);
  } catch (const std::bad_alloc&) {
    return MakeError(absl::ResourceExhaustedError(
        absl::StrCat("PJRT_Client_BufferFromHostBuffer: cannot allocate ", size,
                     " bytes of device memory for ", shape.ToString())));
  }
  if (size > 0) std::memcpy(state->memory->data(), args->data, size);
  state->ready->Set(absl::OkStatus());

  // The host bytes are no longer needed: the event is ready at once.
  args->done_with_host_buffer = new PJRT_Event{EventState::Ready()};
  args->buffer = new PJRT_Buffer{std::make_shared<const ir::Shape>(std::move(shape)),
                                 std::move(state), *device};
  return nullptr;
}

PJRT_Error* BufferElementType(PJRT_Buffer_ElementType_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ElementType, args->buffer);
  args->type = ToPjrtType(args->buffer->shape->dtype);
  return nullptr;
}

PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ToHostBuffer, args->src);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_ToHostBuffer, args->src);
  if (absl::Status s = CheckDenseLayout("PJRT_Buffer_ToHostBuffer", "host_layout",
                                        args->host_layout, args->src->shape->dims.size());
      !s.ok()) {
    return MakeError(s);
  }
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
  const PJRT_Buffer& buffer = *args->buffer;
  if (buffer.deleted) {
    // Upstream's answer: an event, ready at once with the error (not a failed call).
    args->event = new PJRT_Event{EventState::Ready(absl::FailedPreconditionError(
        buffer.donated ? "PJRT_Buffer_ReadyEvent: the buffer was donated to an execution"
                       : "PJRT_Buffer_ReadyEvent: the buffer was deleted"))};
    return nullptr;
  }
  args->event = new PJRT_Event{buffer.state->ready};
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

PJRT_Error* BufferMemory(PJRT_Buffer_Memory_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Memory, args->buffer);
  args->memory = args->buffer->device->memory_space.get();
  return nullptr;
}

namespace {

// The address of a buffer's bytes once it is ready (waits for it), for the two functions
// that hand it out. Only a dense row-major block has the bytes the framework expects there:
// a block in oneDNN's layout (device_layout.h) is refused.
absl::StatusOr<void*> DataAddress(const char* function, PJRT_Buffer& buffer) {
  std::shared_ptr<BufferState> state = buffer.state;
  SEAM_RETURN_IF_ERROR(state->ready->Await());
  if (state->memory == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(function, ": the buffer has no memory"));
  }
  if (state->memory->layout() != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(function, ": the buffer ", buffer.shape->ToString(),
                     " is held in a blocked layout, not dense row-major; read it with "
                     "PJRT_Buffer_ToHostBuffer"));
  }
  return static_cast<void*>(state->memory->data());
}

}  // namespace

PJRT_Error* BufferUnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_UnsafePointer, args->buffer);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_UnsafePointer, args->buffer);
  absl::StatusOr<void*> address = DataAddress("PJRT_Buffer_UnsafePointer", *args->buffer);
  if (!address.ok()) return MakeError(address.status());
  args->buffer_pointer = reinterpret_cast<uintptr_t>(*address);
  return nullptr;
}

PJRT_Error* BufferOpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_OpaqueDeviceMemoryDataPointer, args->buffer);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_OpaqueDeviceMemoryDataPointer, args->buffer);
  absl::StatusOr<void*> address =
      DataAddress("PJRT_Buffer_OpaqueDeviceMemoryDataPointer", *args->buffer);
  if (!address.ok()) return MakeError(address.status());
  args->device_memory_ptr = *address;
  return nullptr;
}

PJRT_Error* BufferCopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_CopyToDevice, args->buffer);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_CopyToDevice, args->buffer);
  PJRT_Buffer& source = *args->buffer;
  absl::StatusOr<PJRT_Device*> device =
      TargetDevice("PJRT_Buffer_CopyToDevice", source.device->client, args->dst_device, nullptr);
  if (!device.ok()) return MakeError(device.status());
  std::shared_ptr<BufferState> from = source.state;
  std::shared_ptr<BufferState> to = NewBufferState();
  const size_t size = source.shape->byte_size();
  std::shared_ptr<MemoryCounters> counters = (*device)->memory;
  from->ready->OnReady([from, to, size, counters](const absl::Status& status) {
    if (!status.ok()) return to->ready->Set(status);
    try {
      to->memory = NewDeviceMemory(size, counters);
    } catch (const std::bad_alloc&) {
      return to->ready->Set(absl::ResourceExhaustedError(absl::StrCat(
          "PJRT_Buffer_CopyToDevice: cannot allocate ", size, " bytes of device memory")));
    }
    // Dense row-major on the destination, whatever the source block's layout.
    to->ready->Set(size == 0 ? absl::OkStatus() : CopyToDense(*from->memory, to->memory->data()));
  });
  args->dst_buffer = new PJRT_Buffer{source.shape, std::move(to), *device};
  return nullptr;
}

PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_MemoryStats, args->device);
  if (!args->device->addressable) {
    return MakeError(absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Device_MemoryStats: device ", args->device->description.id, " belongs to process ",
        args->device->description.process_index, ", not to this one")));
  }
  const MemoryCounters& counters = *args->device->memory;
  const int64_t in_use = counters.in_use();
  args->bytes_in_use = in_use;
  args->peak_bytes_in_use = counters.peak();
  args->peak_bytes_in_use_is_set = true;
  // No limit of its own: a block is refused only when the host cannot supply it.
  args->bytes_limit = 0;
  args->bytes_limit_is_set = false;
  // The pool's blocks kept for reuse are the process's, shared by every device of every
  // client; upstream has no field for them alone, so pool_bytes is this device's bytes in
  // use plus the cached ones (decision 12 of the migration).
  args->pool_bytes = in_use + static_cast<int64_t>(CachedBlockBytes());
  args->pool_bytes_is_set = true;
  // Not tracked.
  args->num_allocs_is_set = false;
  args->largest_alloc_size_is_set = false;
  args->bytes_reserved_is_set = false;
  args->peak_bytes_reserved_is_set = false;
  args->bytes_reservable_limit_is_set = false;
  args->largest_free_block_bytes_is_set = false;
  args->peak_pool_bytes_is_set = false;
  return nullptr;
}

}  // namespace seam::cpu
