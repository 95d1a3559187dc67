#include "src/runtime/pjrt/pjrt_computation_client_transfers.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/abi/buffer_type.h"
#include "src/runtime/metrics.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/upload_progress.h"

namespace seam::runtime {
namespace {

absl::Status AwaitAndDestroy(const PJRT_Api* api, PJRT_Event* event) {
  if (event == nullptr) return absl::OkStatus();  // nothing pending
  auto await = SEAM_PJRT_ARGS(PJRT_Event_Await_Args);
  await.event = event;
  absl::Status status = SEAM_PJRT_CALL(api, PJRT_Event_Await, &await);
  auto destroy = SEAM_PJRT_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  SEAM_PJRT_CALL(api, PJRT_Event_Destroy, &destroy).IgnoreError();
  return status;
}

void DestroyManager(const PJRT_Api* api, PJRT_AsyncHostToDeviceTransferManager* manager) {
  auto args = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args);
  args.transfer_manager = manager;
  SEAM_PJRT_CALL(api, PJRT_AsyncHostToDeviceTransferManager_Destroy, &args).IgnoreError();
}

// One transfer manager per device memory; target i is buffer slots_[i].second of manager
// slots_[i].first. Pieces go straight from the caller's memory into the device buffers.
class PjrtUpload final : public ComputationClient::Upload {
 public:
  PjrtUpload(const PJRT_Api* api, std::vector<ComputationClient::UploadTarget> targets,
             MakePjrtHandle make_handle)
      : api_(api),
        targets_(std::move(targets)),
        progress_(ComputationClient::UploadSizes(targets_)),
        last_sent_(targets_.size(), false),
        make_handle_(std::move(make_handle)),
        start_ns_(metrics::NowNs()) {}
  ~PjrtUpload() override {
    for (PJRT_AsyncHostToDeviceTransferManager* manager : managers_) DestroyManager(api_, manager);
  }

  // Creates the managers: every buffer is allocated here.
  absl::Status Create(PJRT_Client* client, const std::vector<PJRT_Memory*>& memories) {
    std::vector<PJRT_Memory*> distinct;
    std::vector<std::vector<PJRT_ShapeSpec>> specs;
    slots_.resize(targets_.size());
    for (size_t i = 0; i < targets_.size(); ++i) {
      size_t group = 0;
      while (group < distinct.size() && distinct[group] != memories[i]) ++group;
      if (group == distinct.size()) {
        distinct.push_back(memories[i]);
        specs.emplace_back();
      }
      auto spec = SEAM_PJRT_ARGS(PJRT_ShapeSpec);
      spec.dims = targets_[i].shape.dims.data();
      spec.num_dims = targets_[i].shape.dims.size();
      spec.element_type = abi::ToPjrtBufferType(targets_[i].shape.dtype);
      slots_[i] = {group, static_cast<int>(specs[group].size())};
      specs[group].push_back(spec);
    }
    for (size_t group = 0; group < distinct.size(); ++group) {
      auto args = SEAM_PJRT_ARGS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args);
      args.client = client;
      args.shape_specs = specs[group].data();
      args.num_shape_specs = specs[group].size();
      args.device_layouts = nullptr;  // the plugin's default layouts
      args.num_device_layouts = 0;
      args.memory = distinct[group];
      absl::Status created =
          SEAM_PJRT_CALL(api_, PJRT_Client_CreateBuffersForAsyncHostToDevice, &args);
      if (!created.ok()) return created;
      if (args.transfer_manager == nullptr) {
        return absl::InternalError(
            "PJRT_Client_CreateBuffersForAsyncHostToDevice succeeded and returned no manager");
      }
      managers_.push_back(args.transfer_manager);
    }
    return absl::OkStatus();
  }

  absl::Status Write(size_t index, size_t offset, absl::Span<const uint8_t> bytes) override {
    if (absl::Status accepted = progress_.Accept(index, offset, bytes.size()); !accepted.ok()) {
      return accepted;
    }
    if (bytes.empty()) return absl::OkStatus();
    const bool last = progress_.Complete(index);
    absl::Status sent = Send(index, offset, bytes.data(), bytes.size(), last);
    return sent.ok() ? sent : progress_.Fail(std::move(sent));
  }

  absl::StatusOr<std::vector<ComputationClient::DataPtr>> Finish() override {
    if (absl::Status complete = progress_.CheckComplete(); !complete.ok()) return complete;
    for (size_t i = 0; i < targets_.size(); ++i) {  // empty tensors: their one (empty) piece
      if (last_sent_[i]) continue;
      if (absl::Status sent = Send(i, 0, nullptr, 0, true); !sent.ok()) {
        return progress_.Fail(std::move(sent));
      }
    }
    std::vector<ComputationClient::DataPtr> handles;
    handles.reserve(targets_.size());
    for (size_t i = 0; i < targets_.size(); ++i) {
      auto args = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args);
      args.transfer_manager = managers_[slots_[i].first];
      args.buffer_index = slots_[i].second;
      absl::Status retrieved =
          SEAM_PJRT_CALL(api_, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer, &args);
      if (!retrieved.ok()) return progress_.Fail(std::move(retrieved));
      handles.push_back(make_handle_(i, args.buffer_out));
      ComputationClient::InboundDataMetric()->AddSample(
          static_cast<double>(targets_[i].shape.byte_size()));
      ComputationClient::CreateDataHandlesCounter()->Add(1);
    }
    ComputationClient::TransferToDeviceMetric()->AddSample(
        start_ns_, static_cast<double>(metrics::NowNs() - start_ns_));
    return handles;
  }

 private:
  // One piece; waits until the plugin no longer reads `data` (Write's bytes are borrowed
  // for the call only).
  absl::Status Send(size_t index, size_t offset, const void* data, size_t size, bool last) {
    auto args = SEAM_PJRT_ARGS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args);
    args.transfer_manager = managers_[slots_[index].first];
    args.buffer_index = slots_[index].second;
    args.data = data;
    args.offset = static_cast<int64_t>(offset);
    args.transfer_size = static_cast<int64_t>(size);
    args.is_last_transfer = last;
    absl::Status status =
        SEAM_PJRT_CALL(api_, PJRT_AsyncHostToDeviceTransferManager_TransferData, &args);
    if (!status.ok()) return status;
    if (last) last_sent_[index] = true;
    return AwaitAndDestroy(api_, args.done_with_h2d_transfer);
  }

  const PJRT_Api* api_;
  std::vector<ComputationClient::UploadTarget> targets_;
  UploadProgress progress_;
  std::vector<bool> last_sent_;
  MakePjrtHandle make_handle_;
  int64_t start_ns_;
  std::vector<PJRT_AsyncHostToDeviceTransferManager*> managers_;
  std::vector<std::pair<size_t, int>> slots_;  // per target: manager, buffer index
};

}  // namespace

bool HasStreamedTransfers(const PJRT_Api* api) {
  return SEAM_PJRT_HAS(api, PJRT_Client_CreateBuffersForAsyncHostToDevice) &&
         SEAM_PJRT_HAS(api, PJRT_AsyncHostToDeviceTransferManager_TransferData) &&
         SEAM_PJRT_HAS(api, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer) &&
         SEAM_PJRT_HAS(api, PJRT_AsyncHostToDeviceTransferManager_Destroy);
}

bool HasRangedReads(const PJRT_Api* api) { return SEAM_PJRT_HAS(api, PJRT_Buffer_CopyRawToHost); }

absl::Status CopyRawToHost(const PJRT_Api* api, PJRT_Buffer* buffer, size_t offset,
                           absl::Span<uint8_t> destination) {
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_CopyRawToHost_Args);
  args.buffer = buffer;
  args.dst = destination.data();
  args.offset = static_cast<int64_t>(offset);
  args.transfer_size = static_cast<int64_t>(destination.size());
  if (absl::Status started = SEAM_PJRT_CALL(api, PJRT_Buffer_CopyRawToHost, &args); !started.ok()) {
    return started;
  }
  absl::Status copied = AwaitAndDestroy(api, args.event);
  if (copied.ok()) {
    ComputationClient::OutboundDataMetric()->AddSample(static_cast<double>(destination.size()));
  }
  return copied;
}

absl::StatusOr<std::unique_ptr<ComputationClient::Upload>> StartPjrtUpload(
    const PJRT_Api* api, PJRT_Client* client, std::vector<ComputationClient::UploadTarget> targets,
    const std::vector<PJRT_Memory*>& memories, MakePjrtHandle make_handle) {
  auto upload = std::make_unique<PjrtUpload>(api, std::move(targets), std::move(make_handle));
  if (absl::Status created = upload->Create(client, memories); !created.ok()) return created;
  return std::unique_ptr<ComputationClient::Upload>(std::move(upload));
}

}  // namespace seam::runtime
