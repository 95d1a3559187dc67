// Buffers: host bytes copied in at the call, read back whole or by byte ranges, their
// properties, and the devices' memory figures (the bytes of the values each one holds). A buffer's
// value is an ir::Literal (dense, row-major), the form the reference evaluator takes.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/abi/buffer_type.h"
#include "src/plugins/common/buffer.h"
#include "src/plugins/common/table.h"
#include "src/plugins/reference/reference_plugin.h"

namespace seam::reference {
namespace {

using plugin::EventState;
using plugin::MakeError;

// A new event, ready with `status`, for the caller to destroy.
PJRT_Event* ReadyEvent(absl::Status status = absl::OkStatus()) {
  return new PJRT_Event{EventState::Ready(std::move(status))};
}

// FAILED_PRECONDITION naming `function` for a buffer whose value is gone.
absl::Status Gone(const char* function, const PJRT_Buffer& buffer) {
  return absl::FailedPreconditionError(
      absl::StrCat(function, buffer.donated ? ": the buffer was donated to an execution"
                                            : ": the buffer was deleted"));
}

// The device a call's `memory` (when set) or `device` names, checked against `client`.
absl::StatusOr<PJRT_Device*> TargetDevice(const char* function, const PJRT_Client* client,
                                          PJRT_Device* device, const PJRT_Memory* memory) {
  if (memory != nullptr) {
    if (memory->devices.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(function, ": the memory has no device"));
    }
    device = memory->devices.front();
  }
  if (device == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(function, ": device and memory are null"));
  }
  if (device->client != client) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": device ", device->description.id, " belongs to another client"));
  }
  return device;
}

// OK for no layout or the dense row-major one of `rank`; UNIMPLEMENTED naming `field`
// otherwise (values are kept dense).
absl::Status CheckDenseLayout(const char* function, const char* field,
                              const PJRT_Buffer_MemoryLayout* layout, size_t rank) {
  if (layout == nullptr) return absl::OkStatus();
  if (layout->struct_size < PJRT_Buffer_MemoryLayout_STRUCT_SIZE) {
    return plugin::CheckStructSize("PJRT_Buffer_MemoryLayout", PJRT_Buffer_MemoryLayout_STRUCT_SIZE,
                                   layout->struct_size);
  }
  if (plugin::IsDenseRowMajor(*layout, rank)) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat(function, ": ", field, " is not the dense row-major layout of rank ", rank,
                   " (a tiled layout with minor_to_major rank-1..0 and no tiles), the only one the "
                   "reference plugin keeps"));
}

// The host bytes of `shape` at `data`, gathered through `strides` (one per dimension, in
// bytes; null: dense row-major).
std::vector<uint8_t> GatherHostBytes(const ir::Shape& shape, const void* data,
                                     const int64_t* strides) {
  std::vector<uint8_t> bytes(shape.byte_size());
  if (bytes.empty()) return bytes;
  if (strides == nullptr) {
    std::memcpy(bytes.data(), data, bytes.size());
    return bytes;
  }
  const size_t element = ir::DTypeSize(shape.dtype);
  const auto* base = static_cast<const uint8_t*>(data);
  std::vector<int64_t> index(shape.dims.size(), 0);
  for (size_t e = 0; e * element < bytes.size(); ++e) {
    int64_t offset = 0;
    for (size_t k = 0; k < index.size(); ++k) offset += index[k] * strides[k];
    std::memcpy(bytes.data() + e * element, base + offset, element);
    for (size_t k = index.size(); k-- > 0;) {  // the next index, row-major
      if (++index[k] < shape.dims[k]) break;
      index[k] = 0;
    }
  }
  return bytes;
}

PJRT_Error* BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  constexpr const char* kFunction = "PJRT_Client_BufferFromHostBuffer";
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->client);
  absl::StatusOr<PJRT_Device*> device =
      TargetDevice(kFunction, args->client, args->device, args->memory);
  if (!device.ok()) return MakeError(device.status());
  const int type = plugin::RawEnumValue(args->type);
  std::optional<ir::DType> dtype = DTypeOf(type);
  if (!dtype.has_value()) {
    return MakeError(absl::InvalidArgumentError(absl::StrCat(
        kFunction, ": element type ", type,
        " is not supported by the reference plugin (see its supported_element_types)")));
  }
  if (args->num_dims > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->dims);
  ir::Shape shape{*dtype, std::vector<int64_t>(args->dims, args->dims + args->num_dims)};
  if (absl::Status s = ir::ValidateShape(shape); !s.ok()) {
    return MakeError(absl::InvalidArgumentError(absl::StrCat(kFunction, ": ", s.message())));
  }
  if (args->byte_strides != nullptr && args->num_byte_strides != shape.dims.size()) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": ", args->num_byte_strides, " byte_strides for ",
                     shape.ToString(), ", which has ", shape.dims.size(), " dimension(s)")));
  }
  if (absl::Status s =
          CheckDenseLayout(kFunction, "device_layout", args->device_layout, shape.dims.size());
      !s.ok()) {
    return MakeError(s);
  }
  if (shape.byte_size() > 0)
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_BufferFromHostBuffer, args->data);
  // Copied now, which meets every host_buffer_semantics: the host bytes are free at once.
  std::shared_ptr<const ir::Literal> value =
      HoldOn(**device, ir::Literal{shape, GatherHostBytes(shape, args->data, args->byte_strides)});
  args->done_with_host_buffer = ReadyEvent();
  args->buffer = new PJRT_Buffer{std::move(shape), std::move(value), *device};
  return nullptr;
}

PJRT_Error* BufferElementType(PJRT_Buffer_ElementType_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ElementType, args->buffer);
  args->type = abi::ToPjrtBufferType(args->buffer->shape.dtype);
  return nullptr;
}

PJRT_Error* BufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_OnDeviceSizeInBytes, args->buffer);
  const PJRT_Buffer& buffer = *args->buffer;
  if (buffer.value == nullptr) {
    return MakeError(Gone("PJRT_Buffer_OnDeviceSizeInBytes", buffer));
  }
  args->on_device_size_in_bytes = buffer.shape.byte_size();
  return nullptr;
}

PJRT_Error* BufferMemory(PJRT_Buffer_Memory_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Memory, args->buffer);
  args->memory = &args->buffer->device->memory;
  return nullptr;
}

PJRT_Error* BufferDelete(PJRT_Buffer_Delete_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Delete, args->buffer);
  args->buffer->value.reset();  // a copy or a run holding it keeps its own reference
  return nullptr;
}

PJRT_Error* BufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_IsDeleted, args->buffer);
  args->is_deleted = args->buffer->value == nullptr;
  return nullptr;
}

PJRT_Error* BufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ReadyEvent, args->buffer);
  const PJRT_Buffer& buffer = *args->buffer;
  // Upstream's answer for a deleted buffer: an event that is ready with the error.
  args->event = ReadyEvent(buffer.value == nullptr ? Gone("PJRT_Buffer_ReadyEvent", buffer)
                                                   : absl::OkStatus());
  return nullptr;
}

PJRT_Error* BufferCopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_CopyToDevice, args->buffer);
  const PJRT_Buffer& source = *args->buffer;
  if (source.value == nullptr) return MakeError(Gone("PJRT_Buffer_CopyToDevice", source));
  absl::StatusOr<PJRT_Device*> device =
      TargetDevice("PJRT_Buffer_CopyToDevice", source.device->client, args->dst_device, nullptr);
  if (!device.ok()) return MakeError(device.status());
  // A copy of its own, so that each device's figures count what it holds.
  args->dst_buffer = new PJRT_Buffer{source.shape, HoldOn(**device, *source.value), *device};
  return nullptr;
}

PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_ToHostBuffer, args->src);
  const PJRT_Buffer& buffer = *args->src;
  if (buffer.value == nullptr) return MakeError(Gone("PJRT_Buffer_ToHostBuffer", buffer));
  if (absl::Status s = CheckDenseLayout("PJRT_Buffer_ToHostBuffer", "host_layout",
                                        args->host_layout, buffer.shape.dims.size());
      !s.ok()) {
    return MakeError(s);
  }
  const std::vector<uint8_t>& bytes = buffer.value->bytes;
  if (args->dst == nullptr) {  // the size query: no event
    args->dst_size = bytes.size();
    args->event = nullptr;
    return nullptr;
  }
  if (args->dst_size < bytes.size()) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Buffer_ToHostBuffer: dst_size is ", args->dst_size,
                     " bytes, the buffer ", buffer.shape.ToString(), " needs ", bytes.size())));
  }
  if (!bytes.empty()) std::memcpy(args->dst, bytes.data(), bytes.size());
  args->event = ReadyEvent();
  return nullptr;
}

PJRT_Error* BufferCopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_CopyRawToHost, args->buffer);
  const PJRT_Buffer& buffer = *args->buffer;
  if (buffer.value == nullptr) return MakeError(Gone("PJRT_Buffer_CopyRawToHost", buffer));
  const std::vector<uint8_t>& bytes = buffer.value->bytes;
  const int64_t offset = args->offset;
  const int64_t size = args->transfer_size;
  if (offset < 0 || size < 0 || static_cast<uint64_t>(offset) > bytes.size() ||
      static_cast<uint64_t>(size) > bytes.size() - static_cast<uint64_t>(offset)) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Buffer_CopyRawToHost: offset ", offset, " and transfer_size ", size,
                     " are not a range of the buffer ", buffer.shape.ToString(), " (", bytes.size(),
                     " bytes)")));
  }
  if (size > 0) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_CopyRawToHost, args->dst);
    std::memcpy(args->dst, bytes.data() + offset, static_cast<size_t>(size));
  }
  args->event = ReadyEvent();
  return nullptr;
}

PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Device_MemoryStats, args->device);
  const MemoryCounter& counter = *args->device->counter;
  args->bytes_in_use = counter.in_use.load();
  args->peak_bytes_in_use = counter.peak.load();
  args->peak_bytes_in_use_is_set = true;
  // Not kept: no limit of its own, no pool, no allocation counts.
  args->num_allocs_is_set = false;
  args->largest_alloc_size_is_set = false;
  args->bytes_limit_is_set = false;
  args->bytes_reserved_is_set = false;
  args->peak_bytes_reserved_is_set = false;
  args->bytes_reservable_limit_is_set = false;
  args->largest_free_block_bytes_is_set = false;
  args->pool_bytes_is_set = false;
  args->peak_pool_bytes_is_set = false;
  return nullptr;
}

}  // namespace

std::shared_ptr<const ir::Literal> HoldOn(PJRT_Device& device, ir::Literal value) {
  const auto bytes = static_cast<int64_t>(value.bytes.size());
  std::shared_ptr<MemoryCounter> counter = device.counter;
  const int64_t in_use = counter->in_use.fetch_add(bytes) + bytes;
  int64_t peak = counter->peak.load();
  while (peak < in_use && !counter->peak.compare_exchange_weak(peak, in_use)) {
  }
  return std::shared_ptr<const ir::Literal>(new ir::Literal(std::move(value)),
                                            [counter, bytes](const ir::Literal* held) {
                                              counter->in_use.fetch_sub(bytes);
                                              delete held;
                                            });
}

void SetBufferFunctions(PJRT_Api& api) {
  SEAM_PLUGIN_SET(api, PJRT_Client_BufferFromHostBuffer, BufferFromHostBuffer);
  plugin::SetBufferQueryFunctions<PJRT_Buffer>(api);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_ElementType, BufferElementType);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_OnDeviceSizeInBytes, BufferOnDeviceSizeInBytes);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_Memory, BufferMemory);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_Delete, BufferDelete);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_IsDeleted, BufferIsDeleted);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_ReadyEvent, BufferReadyEvent);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_CopyToDevice, BufferCopyToDevice);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_ToHostBuffer, BufferToHostBuffer);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_CopyRawToHost, BufferCopyRawToHost);
  SEAM_PLUGIN_SET(api, PJRT_Device_MemoryStats, DeviceMemoryStats);
}

}  // namespace seam::reference
