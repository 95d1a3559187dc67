/* seam's counters extension to the PJRT C API: chained from PJRT_Api.extension_start with
 * the private type id SEAM_Extension_Type_Counters (read and written with the helpers of
 * pjrt_c_api_profiler.h, as that extension's id). A plugin reports named totals of its own
 * work that only it can count, e.g. the bytes its collectives sent; the framework shows them
 * in its metrics report as counters of the same names (docs/abi.md). Optional. Plain C99. */
#ifndef SEAM_C_PJRT_C_API_COUNTERS_H_
#define SEAM_C_PJRT_C_API_COUNTERS_H_

#include "seam/c/pjrt_c_api_profiler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SEAM_Extension_Type_Counters 0x5EA00002

struct SEAM_Counters_Read_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  /* Out: `num_counters` names (NUL-terminated, owned by the plugin, static) and their
   * values, totals since the process started that never go down; the arrays live until
   * the next call of this function from any thread is made. */
  const char* const* names;
  const int64_t* values;
  size_t num_counters;
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Counters_Read_Args, num_counters);

/* Thread-safe; the framework serializes its own calls. */
typedef PJRT_Error* SEAM_Counters_Read(SEAM_Counters_Read_Args* args);

struct SEAM_Counters_Extension {
  /* struct_size = SEAM_Counters_Extension_STRUCT_SIZE, type = SEAM_Extension_Type_Counters */
  PJRT_Extension_Base base;
  SEAM_Counters_Read* read; /* never NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Counters_Extension, read);

#ifdef __cplusplus
}
#endif

#endif /* SEAM_C_PJRT_C_API_COUNTERS_H_ */
