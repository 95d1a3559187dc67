/* Compiled as strict C99: the ABI headers must need nothing beyond it. */
#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"

int seam_abi_c99_check(void) {
  PJRT_NamedValue value;
  SEAM_Profiler_Extension profiler;
  value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  value.int64_value = 1;
  SEAM_SetExtensionType(&profiler.base, SEAM_Extension_Type_Profiler);
  profiler.base.struct_size = SEAM_Profiler_Extension_STRUCT_SIZE;
  return (int)PJRT_Api_STRUCT_SIZE + (int)(value.int64_value - 1) +
         (int)(profiler.base.struct_size - SEAM_Profiler_Extension_STRUCT_SIZE) +
         (SEAM_ExtensionTypeOf(&profiler.base) == SEAM_Extension_Type_Profiler ? 0 : 1);
}
