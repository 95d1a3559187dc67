// Sharing a tensor's memory with other libraries without a copy (the Python package's
// DLPack export uses it; docs/python.md, "NumPy and DLPack").
#ifndef SEAM_INTEROP_H_
#define SEAM_INTEROP_H_

#include <memory>
#include <optional>

#include "seam/tensor.h"

namespace seam {

// A tensor's computed bytes in place: dense, row-major, of the tensor's dtype.
struct SharedMemory {
  // Valid, and not moved, while any copy of `owner` lives.
  void* data = nullptr;
  // Holds the device buffer (so seam neither frees nor donates it) and the plugin's
  // external reference to it.
  std::shared_ptr<void> owner;
};

// Syncs `t` if it has pending operations, waits for its value and returns its device
// buffer's memory when that is this process's host memory (the CPU plugin: the client
// asks the plugin for the buffer's address, PJRT_Buffer_UnsafePointer, under an external
// reference). nullopt when it cannot be shared and the caller should copy: another client
// or platform (the remote client, a GPU), a value still on the host (made from host data
// and not used by a step yet), one kept in a blocked layout, a value with one copy per
// replica, or one marked as a buffer donor. Writing through `data` changes the tensor's
// value (as writing through a DLPack export does in PyTorch). Errors of the tensor's
// computation are thrown as seam::Error.
std::optional<SharedMemory> share_memory(const Tensor& t);

}  // namespace seam

#endif  // SEAM_INTEROP_H_
