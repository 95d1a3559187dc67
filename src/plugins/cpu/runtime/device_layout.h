// On-device layouts of the CPU plugin's memory blocks (docs/cpu-plugin.md "On-device
// layouts"). A block holds its values in the shape's dense row-major layout, the layout of
// every transfer to and from the host, unless the program that wrote it left a
// convolution's result in oneDNN's own layout (features in blocks of 16 innermost, for
// example): then the block carries a DeviceLayout, and whatever reads it as dense
// (PJRT_Buffer_ToHostBuffer, a raw read, a program that wants the parameter dense) goes
// through a conversion. A program that wants a parameter in another layout than the one
// its block has gets a converted copy, made once and kept with the block: blocks never
// change once their buffer is ready, so the copy stays valid while the block lives.
#ifndef SEAM_PLUGINS_CPU_DEVICE_LAYOUT_H_
#define SEAM_PLUGINS_CPU_DEVICE_LAYOUT_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/plugins/cpu/runtime/buffer.h"

#ifdef SEAM_HAVE_ONEDNN
#include "oneapi/dnnl/dnnl.h"
#endif

namespace seam::cpu {

// A layout other than dense row-major, with the conversions to and from it (opaque outside
// device_layout.cc). Immutable; shared by the plans and blocks that use it.
class DeviceLayout;

// A null layout (dense row-major), for accessors that return a reference.
const std::shared_ptr<const DeviceLayout>& DenseLayout();

// The bytes a block in `layout` takes (padding included: a blocked layout rounds its
// feature dimension up to a multiple of its block).
size_t LayoutBytes(const DeviceLayout& layout);

// oneDNN's name for the layout's form, its dimensions in the convolution's order (batch,
// features, spatial...) as letters from `a`, outermost first, a blocked one in capitals,
// then the blocks, innermost last: "aBcd16b" (oneDNN's nChw16c) for features in blocks of
// 16; "dense" for null.
std::string DescribeLayout(const DeviceLayout* layout);

// Whether two layouts are the same (null: dense row-major).
bool SameLayout(const DeviceLayout* a, const DeviceLayout* b);

// Writes `memory`'s values to `to` in dense row-major layout (the shape's byte size).
// Fails only where oneDNN fails the conversion.
absl::Status CopyToDense(const DeviceMemory& memory, void* to);

// `memory`'s values in `layout` (null: dense): `memory` itself where it is in that layout
// already, else a converted copy, counted on `counters`. With `keep` the copy is made once
// and kept with `memory` for later calls (thread-safe); without, it is the caller's alone
// (a donated block, which the run overwrites). Fails where memory runs out or oneDNN fails.
absl::StatusOr<std::shared_ptr<DeviceMemory>> InLayout(
    const std::shared_ptr<DeviceMemory>& memory, const std::shared_ptr<const DeviceLayout>& layout,
    const std::shared_ptr<MemoryCounters>& counters, bool keep);

// Copies bytes [offset, offset + size) of `memory`'s values in dense row-major layout to
// `to`: a block in another layout is converted once, its dense copy kept with it (counted
// on `counters`). Fails where memory runs out or oneDNN fails.
absl::Status CopyDenseBytes(const std::shared_ptr<DeviceMemory>& memory, size_t offset, size_t size,
                            void* to, const std::shared_ptr<MemoryCounters>& counters);

#ifdef SEAM_HAVE_ONEDNN
// A layout for the values that `dense` describes (strided over the shape's row-major
// bytes, dimensions in any order) when stored as `device` describes (the same dimensions);
// null where oneDNN cannot convert between the two.
std::shared_ptr<const DeviceLayout> MakeDeviceLayout(const dnnl_memory_desc_t& dense,
                                                     const dnnl_memory_desc_t& device);
#endif

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_DEVICE_LAYOUT_H_
