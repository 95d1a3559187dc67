// Every function of the PJRT C API table at 0.94, in slot order (X-macro), for the checks
// that visit each slot: X(PJRT_Name). The list is src/abi/pjrt_slots.h, shared with the plugin kit.
#ifndef SEAM_CONFORMANCE_SLOTS_H_
#define SEAM_CONFORMANCE_SLOTS_H_

#include "src/abi/pjrt_slots.h"

#define SEAM_CONFORMANCE_SLOTS(X) SEAM_PJRT_VOID_SLOTS(X) SEAM_PJRT_ERROR_SLOTS(X)

#endif  // SEAM_CONFORMANCE_SLOTS_H_
