/* Compiled as strict C99: the ABI header must need nothing beyond it. */
#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"

int seam_abi_c99_check(void) {
  PJRT_NamedValue value;
  value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  value.value.int64_value = 1;
  PJRT_Profiler_Extension profiler;
  profiler.base.type = PJRT_Extension_Type_Profiler;
  profiler.base.struct_size = PJRT_Profiler_Extension_STRUCT_SIZE;
  return (int)PJRT_Api_STRUCT_SIZE + (int)(value.value.int64_value - 1) +
         (int)(profiler.base.struct_size - PJRT_Profiler_Extension_STRUCT_SIZE);
}
