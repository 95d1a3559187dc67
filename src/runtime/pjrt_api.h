// Where the framework gets plugin function tables: loaded by path, or the CPU plugin
// linked into this process. Together with pjrt_computation_client, the only framework
// code that touches the plugin ABI.
#ifndef SEAM_RUNTIME_PJRT_API_H_
#define SEAM_RUNTIME_PJRT_API_H_

#include <string>

#include "absl/status/statusor.h"

struct PJRT_Api;

namespace seam::runtime {

// dlopen(path, RTLD_LAZY) and dlsym("GetPjrtApi"). The library is never closed: the table
// lives inside it. Errors: "Failed to open <path>: <dlerror>", NotFound
// "GetPjrtApi not found in <path>", and "GetPjrtApi returned null in <path>".
absl::StatusOr<const PJRT_Api*> LoadPjrtPlugin(const std::string& path);

// The table of the CPU plugin compiled into this process (no shared library involved).
const PJRT_Api* GetInProcessCpuPjrtApi();

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_API_H_
