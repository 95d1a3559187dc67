#include "src/runtime/pjrt_api.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/plugins/cpu/cpu_plugin.h"

namespace seam::runtime {

absl::StatusOr<const PJRT_Api*> LoadPjrtPlugin(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_LAZY);
  if (library == nullptr) {
    const char* error = dlerror();
    return absl::InternalError(
        absl::StrCat("Failed to open ", path, ": ", error == nullptr ? "unknown error" : error));
  }
  void* symbol = dlsym(library, PJRT_GET_PJRT_API_SYMBOL);
  if (symbol == nullptr) {
    return absl::NotFoundError(absl::StrCat(PJRT_GET_PJRT_API_SYMBOL, " not found in ", path));
  }
  const PJRT_Api* api = reinterpret_cast<PJRT_GetPjrtApi_Fn>(symbol)();
  if (api == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(PJRT_GET_PJRT_API_SYMBOL, " returned null in ", path));
  }
  return api;
}

const PJRT_Api* GetInProcessCpuPjrtApi() { return cpu::GetCpuPjrtApi(); }

}  // namespace seam::runtime
