// The one mapping between the IR's dtypes and the ABI's element types (PJRT_Buffer_Type).
// Both sides of the ABI use it: the runtime (PjrtComputationClient) when it sends a host
// tensor, the CPU plugin when it accepts one, and the conformance runner. It depends on the
// IR and on the C header only, so neither side learns about the other.
#ifndef SEAM_ABI_BUFFER_TYPE_H_
#define SEAM_ABI_BUFFER_TYPE_H_

#include <optional>

#include "seam/c/pjrt_c_api.h"
#include "src/ir/dtype.h"

namespace seam::abi {

// PJRT_Buffer_Type_INVALID never comes out: every ir::DType has an element type.
PJRT_Buffer_Type ToPjrtBufferType(ir::DType dtype);

// nullopt for element types the IR has no dtype for (the caller names the value).
std::optional<ir::DType> FromPjrtBufferType(PJRT_Buffer_Type type);

}  // namespace seam::abi

#endif  // SEAM_ABI_BUFFER_TYPE_H_
