#include "src/runtime/remote_staging.h"

#include <utility>

namespace seam::runtime {

StagingBuffers::Buffer::Buffer(StagingBuffers* owner, std::unique_ptr<uint8_t[]> bytes,
                               size_t capacity, size_t size)
    : owner_(owner), bytes_(std::move(bytes)), capacity_(capacity), size_(size) {}

StagingBuffers::Buffer::~Buffer() {
  if (bytes_ != nullptr) owner_->Return(std::move(bytes_), capacity_);
}

StagingBuffers::Buffer& StagingBuffers::Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (bytes_ != nullptr) owner_->Return(std::move(bytes_), capacity_);
    owner_ = other.owner_;
    bytes_ = std::move(other.bytes_);
    capacity_ = other.capacity_;
    size_ = other.size_;
  }
  return *this;
}

StagingBuffers::Buffer StagingBuffers::Acquire(size_t size) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_t best = kept_.size();
    for (size_t i = 0; i < kept_.size(); ++i) {
      if (kept_[i].capacity >= size &&
          (best == kept_.size() || kept_[i].capacity < kept_[best].capacity)) {
        best = i;
      }
    }
    if (best < kept_.size()) {
      Kept kept = std::move(kept_[best]);
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(best));
      kept_bytes_ -= kept.capacity;
      return Buffer(this, std::move(kept.bytes), kept.capacity, size);
    }
  }
  // Uninitialized: every byte is written (by the device read or the received chunks)
  // before it is read.
  const size_t capacity = size == 0 ? 1 : size;
  return Buffer(this, std::unique_ptr<uint8_t[]>(new uint8_t[capacity]), capacity, size);
}

void StagingBuffers::Return(std::unique_ptr<uint8_t[]> bytes, size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  // Make room by dropping the smallest kept buffers first; a buffer over the limit is freed.
  if (capacity > limit_) return;
  while (kept_bytes_ + capacity > limit_ && !kept_.empty()) {
    size_t smallest = 0;
    for (size_t i = 1; i < kept_.size(); ++i) {
      if (kept_[i].capacity < kept_[smallest].capacity) smallest = i;
    }
    kept_bytes_ -= kept_[smallest].capacity;
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(smallest));
  }
  kept_bytes_ += capacity;
  kept_.push_back({std::move(bytes), capacity});
}

size_t StagingBuffers::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return kept_bytes_;
}

}  // namespace seam::runtime
