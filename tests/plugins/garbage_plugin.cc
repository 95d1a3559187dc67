// A plugin of a foreign major version (77) whose table holds garbage after the version
// field: every function pointer is 0x5a5a... (calling any of them crashes the process).
// Its struct_size is that of seam's table, so only the version rule can keep a framework
// from calling it: a table of another major version has another layout.
#include <cstring>

#include "seam/c/pjrt_c_api.h"

namespace {

PJRT_Api MakeApi() {
  PJRT_Api api;
  std::memset(static_cast<void*>(&api), 0x5a, sizeof(api));
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = nullptr;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.extension_start = nullptr;
  api.pjrt_api_version.major_version = 77;
  api.pjrt_api_version.minor_version = 0;
  return api;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static const PJRT_Api api = MakeApi();
  return &api;
}
