#include "src/runtime/remote/remote_deferred.h"

#include <utility>

namespace seam::runtime {

namespace pb = ::seam::remote;

DeferredHandle::State DeferredHandle::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

absl::StatusOr<uint64_t> DeferredHandle::Await() const {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return state_ == State::kPlaced || state_ == State::kFailed; });
  if (state_ == State::kFailed) return error_;
  return handle_;
}

uint64_t DeferredHandle::Abandon() {
  std::lock_guard<std::mutex> lock(mu_);
  abandoned_ = true;
  return state_ == State::kPlaced ? handle_ : 0;
}

std::shared_ptr<DeferredHandle> DeferredUploads::TryQueue(pb::TensorHeader header, const void* data,
                                                          size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (queued_bytes_ + size > limit_bytes_) return nullptr;
  pb::InlineTensor& tensor = queued_.tensors.emplace_back();
  *tensor.mutable_header() = std::move(header);
  tensor.set_data(data, size);
  queued_bytes_ += size;
  return queued_.handles.emplace_back(std::make_shared<DeferredHandle>());
}

DeferredUploads::Batch DeferredUploads::TakeAll() {
  Batch taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::swap(taken, queued_);
    queued_bytes_ = 0;
  }
  Batch wanted;
  for (size_t i = 0; i < taken.handles.size(); ++i) {
    DeferredHandle& handle = *taken.handles[i];
    std::lock_guard<std::mutex> lock(handle.mu_);
    if (handle.abandoned_) continue;  // nobody can ask for it any more
    handle.state_ = DeferredHandle::State::kSending;
    wanted.tensors.push_back(std::move(taken.tensors[i]));
    wanted.handles.push_back(std::move(taken.handles[i]));
  }
  return wanted;
}

std::vector<uint64_t> DeferredUploads::Resolve(Batch& batch, const std::vector<uint64_t>& handles) {
  std::vector<uint64_t> release;
  for (size_t i = 0; i < batch.handles.size(); ++i) {
    DeferredHandle& handle = *batch.handles[i];
    {
      std::lock_guard<std::mutex> lock(handle.mu_);
      handle.state_ = DeferredHandle::State::kPlaced;
      handle.handle_ = handles[i];
      if (handle.abandoned_) release.push_back(handles[i]);
    }
    handle.changed_.notify_all();
  }
  return release;
}

void DeferredUploads::Fail(Batch& batch, const absl::Status& error) {
  for (const std::shared_ptr<DeferredHandle>& handle : batch.handles) {
    {
      std::lock_guard<std::mutex> lock(handle->mu_);
      handle->state_ = DeferredHandle::State::kFailed;
      handle->error_ = error;
    }
    handle->changed_.notify_all();
  }
}

size_t DeferredUploads::queued_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_bytes_;
}

}  // namespace seam::runtime
