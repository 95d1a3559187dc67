#include "src/plugins/cpu/buffer.h"

#include <cstdlib>
#include <new>

namespace seam::cpu {
namespace {
constexpr size_t kAlignment = 64;
}  // namespace

DeviceMemory::DeviceMemory(size_t size) : size_(size) {
  // aligned_alloc needs a size that is a multiple of the alignment (and non-zero here so
  // that every buffer, even a 0-element one, has a distinct address).
  size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  data_ = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, rounded));
  if (data_ == nullptr) throw std::bad_alloc();
}

DeviceMemory::~DeviceMemory() { std::free(data_); }

}  // namespace seam::cpu
