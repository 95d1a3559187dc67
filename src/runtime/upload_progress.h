// The bookkeeping every ComputationClient::Upload shares: which bytes of which tensor a
// piece may be, and whether every tensor has all its bytes (computation_client.h says the
// rules). Not thread-safe, like the upload it serves.
#ifndef SEAM_RUNTIME_UPLOAD_PROGRESS_H_
#define SEAM_RUNTIME_UPLOAD_PROGRESS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace seam::runtime {

class UploadProgress {
 public:
  // The byte sizes of the upload's tensors, in order.
  explicit UploadProgress(std::vector<size_t> sizes);

  // OK when `size` bytes at `offset` are tensor `index`'s next piece, and records them;
  // otherwise the error, which the upload keeps: every later call returns it.
  absl::Status Accept(size_t index, size_t offset, size_t size);
  // OK when every tensor has all its bytes and nothing failed; Finish may be called once.
  absl::Status CheckComplete();
  // Marks the upload failed with `status` (the first failure stands); returns it.
  absl::Status Fail(absl::Status status);

  size_t count() const { return sizes_.size(); }
  size_t size(size_t index) const { return sizes_[index]; }
  // True when this piece completes tensor `index` (after Accept).
  bool Complete(size_t index) const { return written_[index] == sizes_[index]; }

 private:
  std::vector<size_t> sizes_;
  std::vector<size_t> written_;
  absl::Status status_;
  bool finished_ = false;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_UPLOAD_PROGRESS_H_
