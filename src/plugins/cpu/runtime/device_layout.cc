#include "src/plugins/cpu/runtime/device_layout.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "absl/strings/str_cat.h"

#ifdef SEAM_HAVE_ONEDNN
#include "src/plugins/cpu/kernels/onednn_common.h"
#endif

namespace seam::cpu {

const std::shared_ptr<const DeviceLayout>& DenseLayout() {
  static const std::shared_ptr<const DeviceLayout> dense;
  return dense;
}

#ifdef SEAM_HAVE_ONEDNN

// Both descriptors name the same dimensions; `to_device` and `to_dense` are oneDNN
// reorders between them (safe to run from several threads at once).
class DeviceLayout {
 public:
  DeviceLayout() = default;
  DeviceLayout(const DeviceLayout&) = delete;
  DeviceLayout& operator=(const DeviceLayout&) = delete;
  ~DeviceLayout() {
    for (dnnl_primitive_t p : {to_device, to_dense}) {
      if (p != nullptr) dnnl_primitive_destroy(p);
    }
  }

  dnnl_memory_desc_t dense{}, device{};
  dnnl_primitive_t to_device = nullptr, to_dense = nullptr;
};

std::shared_ptr<const DeviceLayout> MakeDeviceLayout(const dnnl_memory_desc_t& dense,
                                                     const dnnl_memory_desc_t& device) {
  auto layout = std::make_shared<DeviceLayout>();
  layout->dense = dense;
  layout->device = device;
  layout->to_device = onednn::MakeReorder(dense, device);
  layout->to_dense = onednn::MakeReorder(device, dense);
  if (layout->to_device == nullptr || layout->to_dense == nullptr) return nullptr;
  return layout;
}

size_t LayoutBytes(const DeviceLayout& layout) { return dnnl_memory_desc_get_size(&layout.device); }

std::string DescribeLayout(const DeviceLayout* layout) {
  if (layout == nullptr) return "dense";
  const dnnl_memory_desc_t& md = layout->device;
  if (md.format_kind != dnnl_blocked) return "oneDNN's own";
  const dnnl_blocking_desc_t& blocking = md.format_desc.blocking;
  std::vector<int> order(static_cast<size_t>(md.ndims));
  for (int d = 0; d < md.ndims; ++d) order[static_cast<size_t>(d)] = d;
  // Outermost first: larger strides first, ties in dimension order (as oneDNN names them).
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return blocking.strides[a] > blocking.strides[b]; });
  std::string name;
  for (int d : order) {
    bool blocked = false;
    for (int i = 0; i < blocking.inner_nblks; ++i) blocked = blocked || blocking.inner_idxs[i] == d;
    name += static_cast<char>((blocked ? 'A' : 'a') + d);
  }
  for (int i = 0; i < blocking.inner_nblks; ++i) {
    absl::StrAppend(&name, blocking.inner_blks[i],
                    std::string(1, static_cast<char>('a' + blocking.inner_idxs[i])));
  }
  return name;
}

bool SameLayout(const DeviceLayout* a, const DeviceLayout* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  return dnnl_memory_desc_equal(&a->dense, &b->dense) != 0 &&
         dnnl_memory_desc_equal(&a->device, &b->device) != 0;
}

namespace {

absl::Status Convert(dnnl_primitive_t reorder, const dnnl_memory_desc_t& from_md, const void* from,
                     const dnnl_memory_desc_t& to_md, void* to) {
  dnnl_memory_t a = onednn::Memory(from_md, const_cast<void*>(from));
  dnnl_memory_t b = onednn::Memory(to_md, to);
  const bool ok = onednn::Execute(reorder, {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}});
  onednn::Destroy({a, b});
  if (ok) return absl::OkStatus();
  return absl::InternalError(
      "oneDNN failed to convert a buffer between its on-device layout and dense row-major");
}

size_t DenseBytes(const DeviceLayout& layout) { return dnnl_memory_desc_get_size(&layout.dense); }

// A new block with `memory`'s values in `layout`; one of the two is dense.
std::shared_ptr<DeviceMemory> Converted(const DeviceMemory& memory,
                                        const std::shared_ptr<const DeviceLayout>& layout,
                                        const std::shared_ptr<MemoryCounters>& counters,
                                        absl::Status* status) {
  const DeviceLayout* from = memory.layout().get();
  if (layout == nullptr) {
    auto to = NewDeviceMemory(DenseBytes(*from), counters);
    *status = CopyToDense(memory, to->data());
    return to;
  }
  if (memory.size() != DenseBytes(*layout)) {
    *status = absl::InternalError(absl::StrCat("a block of ", memory.size(),
                                               " bytes cannot take an on-device layout of ",
                                               DenseBytes(*layout), " dense bytes"));
    return nullptr;
  }
  auto to = NewDeviceMemory(LayoutBytes(*layout), counters);
  to->set_layout(layout);
  *status = Convert(layout->to_device, layout->dense, memory.data(), layout->device, to->data());
  return to;
}

}  // namespace

absl::Status CopyToDense(const DeviceMemory& memory, void* to) {
  const DeviceLayout* layout = memory.layout().get();
  if (layout == nullptr) {
    if (memory.size() > 0) std::memcpy(to, memory.data(), memory.size());
    return absl::OkStatus();
  }
  return Convert(layout->to_dense, layout->device, memory.data(), layout->dense, to);
}

absl::StatusOr<std::shared_ptr<DeviceMemory>> InLayout(
    const std::shared_ptr<DeviceMemory>& memory, const std::shared_ptr<const DeviceLayout>& layout,
    const std::shared_ptr<MemoryCounters>& counters, bool keep) {
  if (SameLayout(memory->layout().get(), layout.get())) return memory;
  if (memory->layout() != nullptr && layout != nullptr) {
    // From one blocked layout to another through the dense values (kept with `memory`).
    absl::StatusOr<std::shared_ptr<DeviceMemory>> dense = InLayout(memory, nullptr, counters, keep);
    if (!dense.ok()) return dense.status();
    return InLayout(*dense, layout, counters, keep);
  }
  std::unique_lock<std::mutex> lock(memory->copies_mutex, std::defer_lock);
  if (keep) {
    lock.lock();
    for (const DeviceMemory::Copy& copy : memory->copies) {
      if (SameLayout(copy.layout.get(), layout.get())) return copy.memory;
    }
  }
  absl::Status status;
  std::shared_ptr<DeviceMemory> copy = Converted(*memory, layout, counters, &status);
  if (!status.ok()) return status;
  if (keep) memory->copies.push_back({layout, copy});
  return copy;
}

#else  // !SEAM_HAVE_ONEDNN: every block is dense.

class DeviceLayout {};

size_t LayoutBytes(const DeviceLayout&) { return 0; }

std::string DescribeLayout(const DeviceLayout*) { return "dense"; }

bool SameLayout(const DeviceLayout* a, const DeviceLayout* b) { return a == b; }

absl::Status CopyToDense(const DeviceMemory& memory, void* to) {
  if (memory.size() > 0) std::memcpy(to, memory.data(), memory.size());
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<DeviceMemory>> InLayout(
    const std::shared_ptr<DeviceMemory>& memory, const std::shared_ptr<const DeviceLayout>& layout,
    const std::shared_ptr<MemoryCounters>&, bool) {
  if (layout == nullptr && memory->layout() == nullptr) return memory;
  return absl::InternalError("on-device layouts need a build with oneDNN");
}

#endif  // SEAM_HAVE_ONEDNN

absl::Status CopyDenseBytes(const std::shared_ptr<DeviceMemory>& memory, size_t offset, size_t size,
                            void* to, const std::shared_ptr<MemoryCounters>& counters) {
  if (size == 0) return absl::OkStatus();
  if (memory->layout() == nullptr) {
    std::memcpy(to, memory->data() + offset, size);
    return absl::OkStatus();
  }
  try {
    absl::StatusOr<std::shared_ptr<DeviceMemory>> dense =
        InLayout(memory, nullptr, counters, /*keep=*/true);
    if (!dense.ok()) return dense.status();
    std::memcpy(to, (*dense)->data() + offset, size);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat("out of host memory converting a buffer of ",
                                                     memory->size(), " bytes to dense"));
  }
  return absl::OkStatus();
}

}  // namespace seam::cpu
