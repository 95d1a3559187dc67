#include "src/plugins/common/table.h"

namespace seam::plugin {
namespace {

#define SEAM_PLUGIN_COUNT(Name) +1  // NOLINT(bugprone-macro-parentheses): a term of a sum
constexpr size_t kSlots =
    0 SEAM_PLUGIN_VOID_FUNCTIONS(SEAM_PLUGIN_COUNT) SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_COUNT);
#undef SEAM_PLUGIN_COUNT
static_assert(kSlots == kApiSlots, "abi_functions.h must list 129 functions");
static_assert(offsetof(PJRT_Api, PJRT_Error_Destroy) + kSlots * sizeof(void*) ==
                  PJRT_Api_STRUCT_SIZE,
              "abi_functions.h must list every function of PJRT_Api");

// Each listed function sits in the slot its place in the list says (PJRT_Api's order).
constexpr size_t kFirstSlot = offsetof(PJRT_Api, PJRT_Error_Destroy);
#define SEAM_PLUGIN_OFFSET(Name) offsetof(PJRT_Api, Name),
constexpr size_t kOffsets[] = {SEAM_PLUGIN_VOID_FUNCTIONS(SEAM_PLUGIN_OFFSET)
                                   SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_OFFSET)};
#undef SEAM_PLUGIN_OFFSET
constexpr bool InTableOrder() {
  for (size_t i = 0; i < kSlots; ++i) {
    if (kOffsets[i] != kFirstSlot + i * sizeof(void*)) return false;
  }
  return true;
}
static_assert(InTableOrder(), "abi_functions.h must list the functions in PJRT_Api's order");

}  // namespace

PJRT_Api NewApiHeader() {
  PJRT_Api api{};
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.extension_start = nullptr;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.extension_start = nullptr;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
  return api;
}

}  // namespace seam::plugin
