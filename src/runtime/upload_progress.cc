#include "src/runtime/upload_progress.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace seam::runtime {

UploadProgress::UploadProgress(std::vector<size_t> sizes)
    : sizes_(std::move(sizes)), written_(sizes_.size(), 0) {}

absl::Status UploadProgress::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
  return status_;
}

absl::Status UploadProgress::Accept(size_t index, size_t offset, size_t size) {
  if (!status_.ok()) return status_;
  if (finished_) return Fail(absl::FailedPreconditionError("upload: Write after Finish"));
  if (index >= sizes_.size()) {
    return Fail(absl::InvalidArgumentError(absl::StrCat("upload: tensor index ", index,
                                                        " is out of range: the upload has ",
                                                        sizes_.size(), " tensor(s)")));
  }
  if (offset != written_[index]) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "upload: tensor ", index, ": a piece at offset ", offset, ", but its next piece starts at ",
        written_[index], " (pieces come in order)")));
  }
  if (size > sizes_[index] - offset) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("upload: tensor ", index, ": ", size, " bytes at offset ", offset,
                     " reach past its end (", sizes_[index], " bytes)")));
  }
  written_[index] += size;
  return absl::OkStatus();
}

absl::Status UploadProgress::CheckComplete() {
  if (!status_.ok()) return status_;
  if (finished_) return Fail(absl::FailedPreconditionError("upload: Finish called twice"));
  finished_ = true;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (written_[i] != sizes_[i]) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "upload: tensor ", i, " has ", written_[i], " of its ", sizes_[i], " bytes")));
    }
  }
  return absl::OkStatus();
}

}  // namespace seam::runtime
