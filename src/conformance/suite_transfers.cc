// Ranged reads (PJRT_Buffer_CopyRawToHost) and streamed uploads (the host-to-device
// transfer manager, decision 13 of the move to PJRT): a buffer filled piece by piece reads
// back what was sent, whole and by ranges; pieces and reads outside a buffer are refused; a
// manager destroyed early fails its unfinished buffer; the manager's queries answer.
#include <vector>

#include "absl/strings/match.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

absl::StatusOr<PJRT_Memory*> FirstMemory(Suite& suite) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  auto args = SEAM_PJRT_ARGS(PJRT_Device_DefaultMemory_Args);
  args.device = suite.devices().front();
  absl::Status status = SEAM_CALL(suite, PJRT_Device_DefaultMemory, &args);
  if (!status.ok()) return status;
  return args.memory;
}

absl::Status AwaitEvent(Suite& suite, PJRT_Event* event) {
  auto await = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  await.event = event;
  absl::Status status = SEAM_CALL(suite, PJRT_Event_Await, &await);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  SEAM_CALL(suite, PJRT_Event_Destroy, &destroy).IgnoreError();
  return status;
}

// A manager of one f32[2,3] (24 bytes) on the first device, destroyed with this object.
class Manager {
 public:
  explicit Manager(Suite& suite) : suite_(suite) {
    static const int64_t kDims[] = {2, 3};
    auto spec = SEAM_PJRT_ARGS(PJRT_ShapeSpec);
    spec.dims = kDims;
    spec.num_dims = 2;
    spec.element_type = PJRT_Buffer_Type_F32;
    absl::StatusOr<PJRT_Memory*> memory = FirstMemory(suite);
    if (!memory.ok()) {
      status_ = memory.status();
      return;
    }
    auto args = SEAM_PJRT_ARGS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args);
    args.client = suite.client();
    args.shape_specs = &spec;
    args.num_shape_specs = 1;
    args.memory = *memory;
    status_ = SEAM_CALL(suite, PJRT_Client_CreateBuffersForAsyncHostToDevice, &args);
    manager_ = args.transfer_manager;
  }
  ~Manager() { Destroy(); }
  void Destroy() {
    if (manager_ == nullptr) return;
    auto args = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args);
    args.transfer_manager = manager_;
    SEAM_CALL(suite_, PJRT_AsyncHostToDeviceTransferManager_Destroy, &args).IgnoreError();
    manager_ = nullptr;
  }
  const absl::Status& status() const { return status_; }
  PJRT_AsyncHostToDeviceTransferManager* get() const { return manager_; }

  absl::Status Transfer(int index, const void* data, int64_t offset, int64_t size, bool last) {
    auto args = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args);
    args.transfer_manager = manager_;
    args.buffer_index = index;
    args.data = data;
    args.offset = offset;
    args.transfer_size = size;
    args.is_last_transfer = last;
    absl::Status status =
        SEAM_CALL(suite_, PJRT_AsyncHostToDeviceTransferManager_TransferData, &args);
    if (!status.ok()) return status;
    return AwaitEvent(suite_, args.done_with_h2d_transfer);
  }
  absl::StatusOr<PJRT_Buffer*> Retrieve(int index) {
    auto args = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args);
    args.transfer_manager = manager_;
    args.buffer_index = index;
    absl::Status status =
        SEAM_CALL(suite_, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer, &args);
    if (!status.ok()) return status;
    return args.buffer_out;
  }

 private:
  Suite& suite_;
  PJRT_AsyncHostToDeviceTransferManager* manager_ = nullptr;
  absl::Status status_;
};

// Owns a retrieved buffer.
struct BufferHolder {
  Suite& suite;
  PJRT_Buffer* buffer;
  ~BufferHolder() {
    auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Destroy_Args);
    args.buffer = buffer;
    SEAM_CALL(suite, PJRT_Buffer_Destroy, &args).IgnoreError();
  }
};

absl::Status CopyRaw(Suite& suite, PJRT_Buffer* buffer, void* dst, int64_t offset, int64_t size) {
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_CopyRawToHost_Args);
  args.buffer = buffer;
  args.dst = dst;
  args.offset = offset;
  args.transfer_size = size;
  absl::Status status = SEAM_CALL(suite, PJRT_Buffer_CopyRawToHost, &args);
  if (!status.ok()) return status;
  return AwaitEvent(suite, args.event);
}

absl::Status ReadsBackWhatWasSent(Suite& suite) {
  Manager manager(suite);
  if (!manager.status().ok()) return manager.status();
  const std::vector<float> values = {1.5f, -2, 3.25f, 4, -5.5f, 6};
  // The second half first, then the first half as the last piece.
  if (absl::Status s = manager.Transfer(0, values.data() + 3, 12, 12, false); !s.ok()) return s;
  if (absl::Status s = manager.Transfer(0, values.data(), 0, 12, true); !s.ok()) return s;
  absl::StatusOr<PJRT_Buffer*> buffer = manager.Retrieve(0);
  if (!buffer.ok()) return buffer.status();
  BufferHolder holder{suite, *buffer};
  std::vector<float> middle(3, 0);
  if (absl::Status s = CopyRaw(suite, *buffer, middle.data(), 8, 12); !s.ok()) return s;
  if (middle[0] != values[2] || middle[1] != values[3] || middle[2] != values[4]) {
    return absl::InternalError(absl::StrCat("bytes 8 to 20 read back as ", middle[0], ", ",
                                            middle[1], ", ", middle[2], "; sent 3.25, 4, -5.5"));
  }
  return absl::OkStatus();
}

absl::Status RefusesOutOfRange(Suite& suite) {
  Manager manager(suite);
  if (!manager.status().ok()) return manager.status();
  const std::vector<float> values(8, 1.0f);
  const std::string what = "PJRT_AsyncHostToDeviceTransferManager_TransferData";
  if (absl::Status s = ExpectError(manager.Transfer(1, values.data(), 0, 4, false),
                                   absl::StatusCode::kInvalidArgument, what + " of buffer 1 of 1");
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          ExpectError(manager.Transfer(0, values.data(), 16, 12, false),
                      absl::StatusCode::kInvalidArgument, what + " of bytes 16 to 28 of 24");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = manager.Transfer(0, values.data(), 0, 24, true); !s.ok()) return s;
  absl::Status after = manager.Transfer(0, values.data(), 0, 4, false);
  if (after.ok()) return absl::InternalError(what + " after the last transfer succeeded");
  absl::StatusOr<PJRT_Buffer*> buffer = manager.Retrieve(0);
  if (!buffer.ok()) return buffer.status();
  BufferHolder holder{suite, *buffer};
  if (manager.Retrieve(0).ok()) return absl::InternalError("a second RetrieveBuffer succeeded");
  std::vector<float> out(8);
  return ExpectError(CopyRaw(suite, *buffer, out.data(), 20, 8), absl::StatusCode::kInvalidArgument,
                     "PJRT_Buffer_CopyRawToHost of bytes 20 to 28 of 24");
}

absl::Status EarlyDestroyFailsTheBuffer(Suite& suite) {
  Manager manager(suite);
  if (!manager.status().ok()) return manager.status();
  absl::StatusOr<PJRT_Buffer*> buffer = manager.Retrieve(0);
  if (!buffer.ok()) return buffer.status();
  BufferHolder holder{suite, *buffer};
  manager.Destroy();
  auto ready = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
  ready.buffer = *buffer;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Buffer_ReadyEvent, &ready); !s.ok()) return s;
  if (AwaitEvent(suite, ready.event).ok()) {
    return absl::InternalError(
        "a buffer whose manager was destroyed before its last transfer became ready without "
        "an error");
  }
  return absl::OkStatus();
}

absl::Status Queries(Suite& suite) {
  Manager manager(suite);
  if (!manager.status().ok()) return manager.status();
  auto device = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_Device_Args);
  device.transfer_manager = manager.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_AsyncHostToDeviceTransferManager_Device, &device);
      !s.ok()) {
    return s;
  }
  if (device.device_out != suite.devices().front()) {
    return absl::InternalError("the manager names another device than its memory's");
  }
  auto count = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args);
  count.transfer_manager = manager.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_AsyncHostToDeviceTransferManager_BufferCount, &count);
      !s.ok()) {
    return s;
  }
  auto size = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args);
  size.transfer_manager = manager.get();
  size.buffer_index = 0;
  if (absl::Status s = SEAM_CALL(suite, PJRT_AsyncHostToDeviceTransferManager_BufferSize, &size);
      !s.ok()) {
    return s;
  }
  if (count.buffer_count != 1 || size.buffer_size < 24) {
    return absl::InternalError(absl::StrCat("one f32[2,3]: BufferCount ", count.buffer_count,
                                            ", BufferSize ", size.buffer_size));
  }
  absl::StatusOr<PJRT_Buffer*> buffer = manager.Retrieve(0);
  if (!buffer.ok()) return buffer.status();
  BufferHolder holder{suite, *buffer};
  static const char kMessage[] = "set by the conformance suite";
  auto set = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args);
  set.transfer_manager = manager.get();
  set.buffer_index = 0;
  set.error_code = PJRT_Error_Code_ABORTED;
  set.error_message = kMessage;
  set.error_message_size = sizeof(kMessage) - 1;
  if (absl::Status s = SEAM_CALL(suite, PJRT_AsyncHostToDeviceTransferManager_SetBufferError, &set);
      !s.ok()) {
    return s;
  }
  auto ready = SEAM_PJRT_ARGS(PJRT_Buffer_ReadyEvent_Args);
  ready.buffer = *buffer;
  if (absl::Status s = SEAM_CALL(suite, PJRT_Buffer_ReadyEvent, &ready); !s.ok()) return s;
  absl::Status awaited = AwaitEvent(suite, ready.event);
  return Expect(awaited.code() == absl::StatusCode::kAborted &&
                    absl::StrContains(awaited.message(), kMessage),
                absl::StrCat("after SetBufferError(ABORTED), the buffer's ready event gave ",
                             awaited.ToString()));
}

}  // namespace

void CheckTransfers(Suite& suite) {
  suite.Optional("transfers", "a streamed upload reads back what was sent, by ranges",
                 [&] { return ReadsBackWhatWasSent(suite); });
  suite.Optional("transfers", "pieces and reads outside a buffer are refused",
                 [&] { return RefusesOutOfRange(suite); });
  suite.Optional("transfers", "a manager destroyed early fails its unfinished buffer",
                 [&] { return EarlyDestroyFailsTheBuffer(suite); });
  suite.Optional("transfers", "Device, BufferCount, BufferSize and SetBufferError",
                 [&] { return Queries(suite); });
}

}  // namespace seam::conformance
