// Small uploads the remote client keeps back (docs/remote.md, "Small uploads ride with the
// execute"): TransferToDevice copies a small tensor here and returns at once; the next
// execute carries the copy inside its own request, and any other call that needs the
// tensor's server handle first sends what is queued in one TransferToDevice. A training
// step then costs one round trip fewer (its batch travels with its run).
#ifndef SEAM_RUNTIME_REMOTE_REMOTE_DEFERRED_H_
#define SEAM_RUNTIME_REMOTE_REMOTE_DEFERRED_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/remote.pb.h"

namespace seam::runtime {

// The server's handle of one queued tensor, once it is known. Shared by the tensor's
// RemoteData and the queue; thread-safe.
class DeferredHandle {
 public:
  // Queued: the bytes wait in the queue. Sending: a call carries them now. Placed: the
  // server holds the buffer (`handle`). Failed: the call that carried them failed.
  enum class State { kQueued, kSending, kPlaced, kFailed };

  State state() const;
  // Blocks while a call carries the tensor; then its handle, or the error that call met.
  // Must not be called in state kQueued (the caller sends the queue first).
  absl::StatusOr<uint64_t> Await() const;
  // The tensor's RemoteData went away: once placed, its handle is returned by Resolve so
  // that the caller releases it; while queued, the tensor is dropped from the queue.
  // Returns the handle to release now (placed) or 0.
  uint64_t Abandon();

 private:
  friend class DeferredUploads;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  State state_ = State::kQueued;
  uint64_t handle_ = 0;
  absl::Status error_;
  bool abandoned_ = false;
};

// The queue. Thread-safe.
class DeferredUploads {
 public:
  // Tensors of at most `limit_bytes` in all are kept back.
  explicit DeferredUploads(size_t limit_bytes) : limit_bytes_(limit_bytes) {}

  // Copies `size` bytes at `data` into the queue under `header`; nullptr (nothing queued)
  // when the queue would then hold more than the limit.
  std::shared_ptr<DeferredHandle> TryQueue(::seam::remote::TensorHeader header, const void* data,
                                           size_t size);

  // What one call carries: every queued tensor still wanted, now in state kSending.
  struct Batch {
    std::vector<::seam::remote::InlineTensor> tensors;
    std::vector<std::shared_ptr<DeferredHandle>> handles;  // one per tensor
    bool empty() const { return tensors.empty(); }
  };
  Batch TakeAll();

  // The call that carried `batch` succeeded with these handles (one per tensor, in
  // order), or failed. Returns the handles of tensors abandoned meanwhile, to release.
  static std::vector<uint64_t> Resolve(Batch& batch, const std::vector<uint64_t>& handles);
  static void Fail(Batch& batch, const absl::Status& error);

  size_t queued_bytes() const;

 private:
  const size_t limit_bytes_;
  mutable std::mutex mu_;
  Batch queued_;
  size_t queued_bytes_ = 0;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_REMOTE_DEFERRED_H_
