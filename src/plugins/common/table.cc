#include "src/plugins/common/table.h"

namespace seam::plugin {
namespace {

#define SEAM_PLUGIN_COUNT(Name) +1  // NOLINT(bugprone-macro-parentheses): a term of a sum
constexpr size_t kSlots =
    0 SEAM_PLUGIN_VOID_FUNCTIONS(SEAM_PLUGIN_COUNT) SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_COUNT);
#undef SEAM_PLUGIN_COUNT
static_assert(offsetof(PJRT_Api, PJRT_Error_Destroy) + kSlots * sizeof(void*) ==
                  PJRT_Api_STRUCT_SIZE,
              "abi_functions.h must list every function of PJRT_Api");

}  // namespace

PJRT_Api NewApi() {
  PJRT_Api api{};
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = nullptr;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.extension_start = nullptr;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
#define SEAM_PLUGIN_STUB(Name) api.Name = Entry<&NotImplemented<Name##_Args>>;
  SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_STUB)
#undef SEAM_PLUGIN_STUB
  api.PJRT_Error_Destroy = ErrorDestroy;
  api.PJRT_Error_Message = ErrorMessage;
  SEAM_PLUGIN_SET(api, PJRT_Error_GetCode, ErrorGetCode);
  return api;
}

}  // namespace seam::plugin
