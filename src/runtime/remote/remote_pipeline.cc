#include "src/runtime/remote/remote_pipeline.h"

#include "absl/strings/str_cat.h"
#include "src/runtime/remote/remote_connection.h"

namespace seam::runtime {

absl::Status SettleInline(DeferredUploads::Batch& batch, RemoteConnection& connection,
                          const grpc::Status& status, const ::seam::remote::ExecuteReply& reply) {
  if (batch.empty()) return absl::OkStatus();
  if (!status.ok()) {
    DeferredUploads::Fail(batch, connection.Error(status, "TransferToDevice (with an execute)"));
    return absl::OkStatus();  // the caller reports the call's own error
  }
  if (reply.inline_handles_size() != static_cast<int>(batch.tensors.size())) {
    absl::Status wrong = absl::InternalError(
        absl::StrCat("ExecuteComputation: seam serve returned ", reply.inline_handles_size(),
                     " handles for ", batch.tensors.size(), " uploaded tensors"));
    DeferredUploads::Fail(batch, wrong);
    return wrong;
  }
  const std::vector<uint64_t> placed(reply.inline_handles().begin(), reply.inline_handles().end());
  for (uint64_t handle : DeferredUploads::Resolve(batch, placed)) connection.QueueRelease(handle);
  return absl::OkStatus();
}

absl::Status PipelinedExecute::OutputError() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void PipelinedExecute::Release(uint64_t handle, RemoteConnection& connection) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!settled_) {
      parked_.push_back(handle);
      return;
    }
    if (!registered_) return;
  }
  connection.QueueRelease(handle);
}

absl::Status PipelinedExecute::Settle(const grpc::Status& status, RemoteConnection& connection) {
  absl::Status error;
  if (!status.ok()) {
    error = connection.Error(status, "ExecuteComputation");
  } else if (reply.launch_error_code() != 0) {
    error = absl::Status(static_cast<absl::StatusCode>(reply.launch_error_code()),
                         reply.launch_error());
  } else if (reply.outputs_size() != request.output_handles_size()) {
    error = absl::InternalError(absl::StrCat("ExecuteComputation: seam serve returned ",
                                             reply.outputs_size(), " outputs, the call named ",
                                             request.output_handles_size()));
  }
  absl::Status inline_error = SettleInline(batch, connection, status, reply);
  if (error.ok()) error = inline_error;
  // The outputs keep this object as long as they live: drop the bytes the call carried.
  request.clear_inline_tensors();
  batch = DeferredUploads::Batch();
  std::vector<uint64_t> parked;
  {
    std::lock_guard<std::mutex> lock(mu_);
    settled_ = true;
    registered_ = status.ok();
    error_ = error;
    if (registered_) parked.swap(parked_);
    parked_.clear();
  }
  for (uint64_t handle : parked) connection.QueueRelease(handle);
  return error;
}

}  // namespace seam::runtime
