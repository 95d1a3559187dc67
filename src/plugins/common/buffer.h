// The PJRT_Buffer queries that read only a buffer's dimensions and device, for every plugin
// built from the kit (as executable.h does for executables), and the dense row-major layout
// the kit's plugins keep their values in.
//
// A plugin defines its own PJRT_Buffer with at least these members:
//   struct PJRT_Buffer {
//     Shape shape;  // or a pointer to one (std::shared_ptr<const Shape>); Shape has
//                   // `dims`, a std::vector<int64_t>, readable after the buffer is deleted
//     PJRT_Device* device;
//     ...
//   };
// The queries that depend on how a plugin holds the value (deleted, ready, size, element
// type, memory) stay with the plugin.
#ifndef SEAM_PLUGINS_COMMON_BUFFER_H_
#define SEAM_PLUGINS_COMMON_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/table.h"

namespace seam::plugin {

// The highest rank whose dense layout DenseMinorToMajor can describe.
inline constexpr size_t kMaxLayoutRank = 256;

// {rank-1, ..., 0}: the dense row-major layout's minor_to_major, in static storage; null
// above kMaxLayoutRank.
const int64_t* DenseMinorToMajor(size_t rank);

// True when `layout` is the dense row-major layout of a value of `rank`: tiled, without
// tiles, minor_to_major rank-1 ... 0. The caller has checked its struct_size.
bool IsDenseRowMajor(const PJRT_Buffer_MemoryLayout& layout, size_t rank);

// Fills `layout` with the dense row-major layout of `rank`; UNIMPLEMENTED naming `function`
// above kMaxLayoutRank.
PJRT_Error* DescribeDenseLayout(const char* function, size_t rank,
                                PJRT_Buffer_MemoryLayout& layout);

// The functions SetBufferQueryFunctions puts in the table, for a plugin's PJRT_Buffer.
// Templates, so that they are compiled where that type is complete.
template <typename Buffer>
struct BufferQueryFunctions {
  static const auto& DimsOf(const Buffer& buffer) {
    if constexpr (requires { buffer.shape->dims; }) {
      return buffer.shape->dims;
    } else {
      return buffer.shape.dims;
    }
  }
  static PJRT_Error* Destroy(PJRT_Buffer_Destroy_Args* args) {
    Buffer* buffer = args->buffer;  // names the template's type: complete where instantiated
    delete buffer;
    return nullptr;
  }
  static PJRT_Error* Dimensions(PJRT_Buffer_Dimensions_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Dimensions, args->buffer);
    args->dims = DimsOf(*args->buffer).data();
    args->num_dims = DimsOf(*args->buffer).size();
    return nullptr;
  }
  static PJRT_Error* UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_UnpaddedDimensions, args->buffer);
    args->unpadded_dims = DimsOf(*args->buffer).data();  // no dynamic dimensions
    args->num_dims = DimsOf(*args->buffer).size();
    return nullptr;
  }
  static PJRT_Error* DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_DynamicDimensionIndices, args->buffer);
    args->dynamic_dim_indices = nullptr;
    args->num_dynamic_dims = 0;
    return nullptr;
  }
  // What the framework sees is dense row-major, whatever a plugin keeps inside (the cpu
  // plugin's blocks in oneDNN's layouts convert on every read and run).
  static PJRT_Error* GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_GetMemoryLayout, args->buffer);
    return DescribeDenseLayout("PJRT_Buffer_GetMemoryLayout", DimsOf(*args->buffer).size(),
                               args->layout);
  }
  static PJRT_Error* Device(PJRT_Buffer_Device_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_Device, args->buffer);
    const Buffer& buffer = *args->buffer;
    args->device = buffer.device;
    return nullptr;
  }
  static PJRT_Error* IsOnCpu(PJRT_Buffer_IsOnCpu_Args* args) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Buffer_IsOnCpu, args->buffer);
    args->is_on_cpu = true;  // the kit's plugins keep values in host memory
    return nullptr;
  }
};

// PJRT_Buffer_Destroy, _Dimensions, _UnpaddedDimensions (the dimensions),
// _DynamicDimensionIndices (none), _GetMemoryLayout (dense row-major), _Device and
// _IsOnCpu (true).
template <typename Buffer>
void SetBufferQueryFunctions(PJRT_Api& api) {
  using F = BufferQueryFunctions<Buffer>;
  SEAM_PLUGIN_SET(api, PJRT_Buffer_Destroy, F::Destroy);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_Dimensions, F::Dimensions);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_UnpaddedDimensions, F::UnpaddedDimensions);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_DynamicDimensionIndices, F::DynamicDimensionIndices);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_GetMemoryLayout, F::GetMemoryLayout);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_Device, F::Device);
  SEAM_PLUGIN_SET(api, PJRT_Buffer_IsOnCpu, F::IsOnCpu);
}

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_BUFFER_H_
