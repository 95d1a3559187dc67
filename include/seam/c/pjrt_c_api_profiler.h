/* seam's profiler extension to the PJRT C API: chained from PJRT_Api.extension_start with
 * the private type id SEAM_Extension_Type_Profiler, far from upstream's PJRT_Extension_Type
 * values (a framework that does not know it skips it). Its names carry seam's prefix, not
 * PJRT_: upstream has a profiler extension of its own (PJRT_Profiler_Extension), another
 * struct. Plain C99, like the table's header; docs/abi.md has the rules. */
#ifndef SEAM_C_PJRT_C_API_PROFILER_H_
#define SEAM_C_PJRT_C_API_PROFILER_H_

#include <string.h>

#include "seam/c/pjrt_c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `type` of this extension's PJRT_Extension_Base. The value lies outside
 * PJRT_Extension_Type's enumerators, and C++ may not hold it in that enum type (UBSan's
 * enum check says so), so read and write the field as the int it is stored as with these
 * two helpers (PJRT_Extension_Type is int-sized on every ABI seam builds for). */
#define SEAM_Extension_Type_Profiler 0x5EA00001
static inline int SEAM_ExtensionTypeOf(const PJRT_Extension_Base* link) {
  int type;
  memcpy(&type, &link->type, sizeof type);
  return type;
}
static inline void SEAM_SetExtensionType(PJRT_Extension_Base* link, int type) {
  memcpy(&link->type, &type, sizeof type);
}

/* The profiler extension: the plugin records timed events of its own work (compile
 * passes, kernel runs) while the framework collects, and hands them over on request; the
 * framework puts them on its timeline (docs/tracing.md). It covers the whole plugin in
 * this process, every client included. Optional: a plugin without it contributes no
 * events. While no collection is on, the plugin's cost should be a relaxed atomic load
 * per would-be event. The functions are thread-safe against each other and against the
 * plugin's other work. A plugin that offers it records, while collecting, at least one
 * "compile" event per PJRT_Client_Compile and one "run" or "kernel" event on the device
 * per run of PJRT_LoadedExecutable_Execute (the conformance suite checks it).
 *
 * Clock: every timestamp is CLOCK_MONOTONIC in nanoseconds (clock_gettime; on Linux also
 * what std::chrono::steady_clock reads), the same clock for framework and plugin. */
struct SEAM_Profiler_Event {
  size_t struct_size; /* SEAM_Profiler_Event_STRUCT_SIZE of the plugin's header */
  /* What ran, e.g. "simplify" or "fused loop #3": owned by the plugin, NUL-terminated,
   * never empty; lives until the next call of any function of this extension. */
  const char* name;
  /* The kind: "compile" (a compile pass), "run" (one device's run of a program),
   * "kernel" (one kernel of a run) or another plugin-chosen word; same lifetime. */
  const char* category;
  int64_t device_id; /* PJRT_DeviceDescription_Id of the device, or -1 (e.g. a compile) */
  int64_t thread_id; /* the plugin's own id of the thread that did it, >= 0, stable */
  int64_t begin_ns;  /* CLOCK_MONOTONIC ns */
  int64_t end_ns;    /* CLOCK_MONOTONIC ns, >= begin_ns */
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Profiler_Event, end_ns);

struct SEAM_Profiler_Start_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  /* The most events kept until the next SEAM_Profiler_Collect; later ones are dropped
   * and counted. 0 asks for the plugin's default. The plugin may keep fewer (it reports
   * the drops either way). */
  size_t max_events;
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Profiler_Start_Args, max_events);
/* Starts a collection: forgets events kept before, zeroes the drop count and records
 * from now on. Starting while a collection is on starts a new one. */
typedef PJRT_Error* SEAM_Profiler_Start(SEAM_Profiler_Start_Args* args);

struct SEAM_Profiler_Stop_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Profiler_Stop_Args, extension_start);
/* Stops recording; the events kept stay until collected. Stopping when nothing is
 * collecting is not an error. */
typedef PJRT_Error* SEAM_Profiler_Stop(SEAM_Profiler_Stop_Args* args);

struct SEAM_Profiler_Collect_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  /* out: the events kept since Start or the previous Collect, each ended before this call
   * (an event still running is handed over by a later Collect), in no particular order.
   * An array of num_events pointers, owned by the plugin; the array and the events live
   * until the next call of any function of this extension. Each event's struct_size says
   * which of its fields exist. */
  const SEAM_Profiler_Event* const* events;
  size_t num_events;    /* out */
  uint64_t num_dropped; /* out: events dropped since Start because the buffer was full */
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Profiler_Collect_Args, num_dropped);
/* Hands over the events kept so far and forgets them in the plugin (a collection that is
 * on goes on). */
typedef PJRT_Error* SEAM_Profiler_Collect(SEAM_Profiler_Collect_Args* args);

struct SEAM_Profiler_Extension {
  /* struct_size = SEAM_Profiler_Extension_STRUCT_SIZE, type = SEAM_Extension_Type_Profiler */
  PJRT_Extension_Base base;
  SEAM_Profiler_Start* start;     /* never NULL */
  SEAM_Profiler_Stop* stop;       /* never NULL */
  SEAM_Profiler_Collect* collect; /* never NULL */
};
PJRT_DEFINE_STRUCT_TRAITS(SEAM_Profiler_Extension, collect);

#ifdef __cplusplus
}
#endif

#endif /* SEAM_C_PJRT_C_API_PROFILER_H_ */
