// Ranged reads and streamed uploads: PJRT_Buffer_CopyRawToHost and the host-to-device
// transfer manager (upstream's semantics; AddMetadata and TransferLiteral are left to the
// kit's UNIMPLEMENTED stubs).
//
// The manager allocates every buffer's block when it is created; each TransferData copies
// its piece into the block before it returns (so its done event is ready at once), and the
// piece marked is_last_transfer makes the buffer ready (docs/cpu-plugin.md, "Streamed
// uploads"). A manager destroyed before a buffer's last piece makes that buffer ready with
// an error; blocks of buffers nobody retrieved go with the manager.
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api/api_functions.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/runtime/device_layout.h"

struct PJRT_AsyncHostToDeviceTransferManager {
  struct Entry {
    std::shared_ptr<const seam::ir::Shape> shape;
    std::shared_ptr<seam::cpu::BufferState> state;  // memory allocated, ready set later
    int64_t received = 0;                           // bytes of the pieces that landed
    bool last_seen = false;                         // its is_last_transfer piece landed
    bool retrieved = false;
  };
  PJRT_Device* device = nullptr;
  std::mutex mu;               // TransferData may come from several threads
  std::vector<Entry> entries;  // guarded by mu (the vector itself never changes size)
};

namespace seam::cpu {
namespace {

using Manager = PJRT_AsyncHostToDeviceTransferManager;

// Checks a byte range [offset, offset + size) of a `total`-byte buffer, overflow-safe.
absl::Status CheckRange(const char* function, int64_t offset, int64_t size, size_t total,
                        const std::string& what) {
  if (offset < 0 || size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        function, ": offset ", offset, " and transfer_size ", size, " must not be negative"));
  }
  const auto end = static_cast<uint64_t>(offset);
  if (end > total || static_cast<uint64_t>(size) > total - end) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": offset ", offset, " + transfer_size ", size,
                     " reaches past the end of ", what, " (", total, " bytes)"));
  }
  return absl::OkStatus();
}

// The entry of `index`, or an error naming the index and the count.
absl::StatusOr<Manager::Entry*> EntryAt(Manager& manager, const char* function, int index) {
  if (index < 0 || static_cast<size_t>(index) >= manager.entries.size()) {
    return absl::InvalidArgumentError(absl::StrCat(function, ": buffer_index ", index,
                                                   " is out of range: the manager has ",
                                                   manager.entries.size(), " buffer(s)"));
  }
  return &manager.entries[static_cast<size_t>(index)];
}

std::string Describe(int index, const Manager::Entry& entry) {
  return absl::StrCat("buffer ", index, " ", entry.shape->ToString());
}

absl::StatusOr<ir::Shape> SpecShape(const PJRT_ShapeSpec& spec, size_t index) {
  constexpr const char* kFunction = "PJRT_Client_CreateBuffersForAsyncHostToDevice";
  if (spec.struct_size < PJRT_ShapeSpec_STRUCT_SIZE) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": shape_specs[", index, "].struct_size is ", spec.struct_size,
                     ", PJRT_ShapeSpec needs ", size_t{PJRT_ShapeSpec_STRUCT_SIZE}));
  }
  absl::StatusOr<ir::DType> dtype = FromPjrtType(plugin::RawEnumValue(spec.element_type));
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": shape_specs[", index, "]: ", dtype.status().message()));
  }
  if (spec.num_dims > 0 && spec.dims == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(kFunction, ": shape_specs[", index,
                                                   "].dims is null with num_dims ", spec.num_dims));
  }
  ir::Shape shape{*dtype, std::vector<int64_t>(spec.dims, spec.dims + spec.num_dims)};
  if (absl::Status s = ir::ValidateShape(shape); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": shape_specs[", index, "]: ", s.message()));
  }
  return shape;
}

}  // namespace

PJRT_Error* BufferCopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_CopyRawToHost, args->buffer);
  SEAM_CHECK_NOT_DELETED(PJRT_Buffer_CopyRawToHost, args->buffer);
  const size_t total = args->buffer->shape->byte_size();
  if (absl::Status s =
          CheckRange("PJRT_Buffer_CopyRawToHost", args->offset, args->transfer_size, total,
                     absl::StrCat("the buffer ", args->buffer->shape->ToString()));
      !s.ok()) {
    return MakeError(s);
  }
  if (args->transfer_size > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_CopyRawToHost, args->dst);
  std::shared_ptr<BufferState> state = args->buffer->state;
  auto done = EventState::Create();
  void* dst = args->dst;
  const auto offset = static_cast<size_t>(args->offset);
  const auto size = static_cast<size_t>(args->transfer_size);
  std::shared_ptr<MemoryCounters> counters = args->buffer->device->memory;
  state->ready->OnReady([state, done, dst, offset, size, counters](const absl::Status& status) {
    // Raw bytes are the dense row-major ones, whatever the block's layout (device_layout.h).
    done->Set(status.ok() ? CopyDenseBytes(state->memory, offset, size, dst, counters) : status);
  });
  args->event = new PJRT_Event{std::move(done)};
  return nullptr;
}

PJRT_Error* ClientCreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args) {
  constexpr const char* kFunction = "PJRT_Client_CreateBuffersForAsyncHostToDevice";
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_CreateBuffersForAsyncHostToDevice, args->client);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_CreateBuffersForAsyncHostToDevice, args->memory);
  if (args->memory->devices.empty() || args->memory->devices.front()->client != args->client) {
    return MakeError(absl::InvalidArgumentError(
        "PJRT_Client_CreateBuffersForAsyncHostToDevice: memory belongs to another client"));
  }
  PJRT_Device* device = args->memory->devices.front();
  if (args->device_layouts != nullptr && args->num_device_layouts != args->num_shape_specs) {
    return MakeError(absl::InvalidArgumentError(absl::StrCat(
        kFunction, ": num_device_layouts is ", args->num_device_layouts, ", num_shape_specs ",
        args->num_shape_specs, " (one layout per buffer, or none)")));
  }
  if (args->num_shape_specs > 0) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_CreateBuffersForAsyncHostToDevice, args->shape_specs);
  }
  if (args->num_shape_specs > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_CreateBuffersForAsyncHostToDevice: num_shape_specs ",
                     args->num_shape_specs, " is more than a buffer_index can name")));
  }
  auto manager = std::make_unique<Manager>();
  manager->device = device;
  manager->entries.reserve(args->num_shape_specs);
  for (size_t i = 0; i < args->num_shape_specs; ++i) {  // every shape first: nothing allocated
    absl::StatusOr<ir::Shape> shape = SpecShape(args->shape_specs[i], i);
    if (!shape.ok()) return MakeError(shape.status());
    if (args->device_layouts != nullptr) {
      const std::string field = absl::StrCat("device_layouts[", i, "]");
      if (absl::Status s = CheckDenseLayout(kFunction, field.c_str(), args->device_layouts[i],
                                            shape->dims.size());
          !s.ok()) {
        return MakeError(s);
      }
    }
    manager->entries.push_back({std::make_shared<const ir::Shape>(*std::move(shape)), nullptr});
  }
  for (size_t i = 0; i < manager->entries.size(); ++i) {
    Manager::Entry& entry = manager->entries[i];
    entry.state = NewBufferState();
    try {
      entry.state->memory =
          NewDeviceMemory(entry.shape->byte_size(), device->memory, BlockUse::kHostCopy);
    } catch (const std::bad_alloc&) {  // the blocks made so far go with `manager`
      return MakeError(absl::ResourceExhaustedError(
          absl::StrCat("PJRT_Client_CreateBuffersForAsyncHostToDevice: cannot allocate ",
                       entry.shape->byte_size(), " bytes of device memory for shape_specs[", i,
                       "] ", entry.shape->ToString())));
    }
  }
  args->transfer_manager = manager.release();
  return nullptr;
}

PJRT_Error* TransferManagerTransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args) {
  constexpr const char* kFunction = "PJRT_AsyncHostToDeviceTransferManager_TransferData";
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_TransferData,
                             args->transfer_manager);
  Manager& manager = *args->transfer_manager;
  std::shared_ptr<EventState> ready;  // set outside the lock: its callbacks may start runs
  {
    std::lock_guard<std::mutex> lock(manager.mu);
    absl::StatusOr<Manager::Entry*> found = EntryAt(manager, kFunction, args->buffer_index);
    if (!found.ok()) return MakeError(found.status());
    Manager::Entry& entry = **found;
    if (entry.last_seen) {
      return MakeError(absl::FailedPreconditionError(
          absl::StrCat(kFunction, ": ", Describe(args->buffer_index, entry),
                       " already had its last transfer (is_last_transfer); no piece may follow")));
    }
    if (absl::Status s = CheckRange(kFunction, args->offset, args->transfer_size,
                                    entry.shape->byte_size(), Describe(args->buffer_index, entry));
        !s.ok()) {
      return MakeError(s);
    }
    if (args->transfer_size > 0) {
      SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_TransferData, args->data);
      std::memcpy(entry.state->memory->data() + args->offset, args->data,
                  static_cast<size_t>(args->transfer_size));
    }
    entry.received += args->transfer_size;
    if (args->is_last_transfer) {
      entry.last_seen = true;
      ready = entry.state->ready;
    }
  }
  if (ready != nullptr) ready->Set(absl::OkStatus());
  args->done_with_h2d_transfer = new PJRT_Event{EventState::Ready()};
  return nullptr;
}

PJRT_Error* TransferManagerRetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args) {
  constexpr const char* kFunction = "PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer";
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer,
                             args->transfer_manager);
  Manager& manager = *args->transfer_manager;
  std::lock_guard<std::mutex> lock(manager.mu);
  absl::StatusOr<Manager::Entry*> found = EntryAt(manager, kFunction, args->buffer_index);
  if (!found.ok()) return MakeError(found.status());
  Manager::Entry& entry = **found;
  if (entry.retrieved) {
    return MakeError(absl::FailedPreconditionError(absl::StrCat(
        kFunction, ": ", Describe(args->buffer_index, entry), " was already retrieved")));
  }
  entry.retrieved = true;
  args->buffer_out = new PJRT_Buffer{entry.shape, entry.state, manager.device};
  return nullptr;
}

PJRT_Error* TransferManagerDevice(PJRT_AsyncHostToDeviceTransferManager_Device_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_Device, args->transfer_manager);
  args->device_out = args->transfer_manager->device;
  return nullptr;
}

PJRT_Error* TransferManagerBufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_BufferCount,
                             args->transfer_manager);
  args->buffer_count = args->transfer_manager->entries.size();  // fixed at creation
  return nullptr;
}

PJRT_Error* TransferManagerBufferSize(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_BufferSize,
                             args->transfer_manager);
  Manager& manager = *args->transfer_manager;
  std::lock_guard<std::mutex> lock(manager.mu);
  absl::StatusOr<Manager::Entry*> found =
      EntryAt(manager, "PJRT_AsyncHostToDeviceTransferManager_BufferSize", args->buffer_index);
  if (!found.ok()) return MakeError(found.status());
  args->buffer_size = (*found)->shape->byte_size();
  return nullptr;
}

PJRT_Error* TransferManagerSetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args* args) {
  constexpr const char* kFunction = "PJRT_AsyncHostToDeviceTransferManager_SetBufferError";
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_AsyncHostToDeviceTransferManager_SetBufferError,
                             args->transfer_manager);
  const int code = plugin::RawEnumValue(args->error_code);
  if (code == PJRT_Error_Code_OK) {
    return MakeError(
        absl::InvalidArgumentError(absl::StrCat(kFunction, ": error_code is OK, not an error")));
  }
  if (args->error_message == nullptr && args->error_message_size > 0) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": error_message is null with error_message_size > 0")));
  }
  Manager& manager = *args->transfer_manager;
  std::shared_ptr<EventState> ready;  // set outside the lock, as in TransferData
  {
    std::lock_guard<std::mutex> lock(manager.mu);
    absl::StatusOr<Manager::Entry*> found = EntryAt(manager, kFunction, args->buffer_index);
    if (!found.ok()) return MakeError(found.status());
    Manager::Entry& entry = **found;
    if (entry.last_seen) {
      return MakeError(absl::FailedPreconditionError(
          absl::StrCat(kFunction, ": ", Describe(args->buffer_index, entry),
                       " already had its last transfer (or its error)")));
    }
    entry.last_seen = true;
    ready = entry.state->ready;
  }
  ready->Set(absl::Status(static_cast<absl::StatusCode>(code),
                          args->error_message == nullptr
                              ? absl::string_view()
                              : absl::string_view(args->error_message, args->error_message_size)));
  return nullptr;
}

PJRT_Error* TransferManagerDestroy(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args) {
  std::unique_ptr<Manager> manager(args->transfer_manager);
  if (manager == nullptr) return nullptr;
  for (size_t i = 0; i < manager->entries.size(); ++i) {
    const Manager::Entry& entry = manager->entries[i];
    if (entry.last_seen || entry.state == nullptr) continue;
    entry.state->ready->Set(absl::FailedPreconditionError(absl::StrCat(
        "PJRT_AsyncHostToDeviceTransferManager_Destroy: ", Describe(static_cast<int>(i), entry),
        " never had its last transfer (", entry.received, " of ", entry.shape->byte_size(),
        " bytes arrived)")));
  }
  return nullptr;
}

}  // namespace seam::cpu
