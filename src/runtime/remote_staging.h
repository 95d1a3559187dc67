// Host buffers that `seam serve` stages transfers in, kept for reuse: a 64 MiB upload or
// download then writes memory that is already mapped instead of faulting in and zeroing fresh
// pages on every transfer (BENCHMARKS.md, "Remote client"). Thread-safe.
#ifndef SEAM_RUNTIME_REMOTE_STAGING_H_
#define SEAM_RUNTIME_REMOTE_STAGING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace seam::runtime {

class StagingBuffers {
 public:
  // A buffer of uninitialized bytes; its memory goes back to the pool when it is destroyed.
  class Buffer {
   public:
    Buffer(Buffer&&) = default;
    Buffer& operator=(Buffer&& other) noexcept;
    ~Buffer();
    uint8_t* data() const { return bytes_.get(); }
    size_t size() const { return size_; }

   private:
    friend class StagingBuffers;
    Buffer(StagingBuffers* owner, std::unique_ptr<uint8_t[]> bytes, size_t capacity, size_t size);
    StagingBuffers* owner_;
    std::unique_ptr<uint8_t[]> bytes_;
    size_t capacity_;
    size_t size_;
  };

  // Keeps at most `cached_bytes` of returned buffers; a buffer larger than that is freed.
  explicit StagingBuffers(size_t cached_bytes) : limit_(cached_bytes) {}

  // At least `size` bytes: the smallest kept buffer that holds them, else a new one. Throws
  // std::bad_alloc when the memory cannot be had.
  Buffer Acquire(size_t size);
  size_t cached_bytes() const;

 private:
  struct Kept {
    std::unique_ptr<uint8_t[]> bytes;
    size_t capacity;
  };
  void Return(std::unique_ptr<uint8_t[]> bytes, size_t capacity);

  const size_t limit_;
  mutable std::mutex mu_;
  std::vector<Kept> kept_;  // guarded by mu_
  size_t kept_bytes_ = 0;   // guarded by mu_
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_STAGING_H_
