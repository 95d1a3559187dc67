// seam's profiler extension (SEAM_Profiler_*, type SEAM_Extension_Type_Profiler), for a
// plugin that offers it: the events of a compile
// and a run are well formed and lie within the collection window, and a stopped plugin
// records nothing.
#include <time.h>

#include "seam/c/pjrt_c_api_profiler.h"
#include "src/base/status_macros.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

// The events a Collect handed over, each checked against the window [begin_ns, end_ns].
absl::Status CheckEvents(const SEAM_Profiler_Collect_Args& collect, int64_t begin_ns,
                         int64_t end_ns, int& compiles, int& runs) {
  if (collect.num_events > 0 && collect.events == nullptr) {
    return absl::InternalError(
        absl::StrCat("SEAM_Profiler_Collect: ", collect.num_events, " events and a null array"));
  }
  for (size_t i = 0; i < collect.num_events; ++i) {
    const SEAM_Profiler_Event* e = collect.events[i];
    const std::string which = absl::StrCat("event ", i);
    if (e == nullptr) return absl::InternalError(absl::StrCat(which, " is null"));
    if (e->struct_size < SEAM_Profiler_Event_STRUCT_SIZE) {
      return absl::InternalError(absl::StrCat(which, " has struct_size ", e->struct_size,
                                              ", expected at least ",
                                              SEAM_Profiler_Event_STRUCT_SIZE));
    }
    if (e->name == nullptr || e->name[0] == '\0') {
      return absl::InternalError(absl::StrCat(which, " has an empty name"));
    }
    const std::string name = absl::StrCat(which, " ('", e->name, "')");
    if (e->category == nullptr || e->category[0] == '\0') {
      return absl::InternalError(absl::StrCat(name, " has an empty category"));
    }
    if (e->begin_ns > e->end_ns) {
      return absl::InternalError(
          absl::StrCat(name, " ends before it begins: ", e->begin_ns, " > ", e->end_ns));
    }
    if (e->begin_ns < begin_ns || e->end_ns > end_ns) {
      return absl::InternalError(absl::StrCat(name, " spans ", e->begin_ns, " to ", e->end_ns,
                                              " ns, outside the collection window ", begin_ns,
                                              " to ", end_ns, " (CLOCK_MONOTONIC)"));
    }
    if (e->device_id < -1 || e->thread_id < 0) {
      return absl::InternalError(
          absl::StrCat(name, " has device_id ", e->device_id, " and thread_id ", e->thread_id));
    }
    const std::string_view category = e->category;
    if (category == "compile") ++compiles;
    if (category == "run" || category == "kernel") {
      if (e->device_id < 0) {
        return absl::InternalError(
            absl::StrCat(name, " is a ", std::string(category), " on device_id ", e->device_id));
      }
      ++runs;
    }
  }
  return absl::OkStatus();
}

// The extension in the plugin's chain, or null: links are read through
// SEAM_ExtensionTypeOf, a link smaller than this header's struct is passed over, and at
// most 64 links are followed.
const SEAM_Profiler_Extension* FindProfiler(const PJRT_Api* api) {
  const PJRT_Extension_Base* link = api->extension_start;
  for (int i = 0; link != nullptr && i < 64; ++i, link = link->next) {
    if (SEAM_ExtensionTypeOf(link) == SEAM_Extension_Type_Profiler &&
        link->struct_size >= SEAM_Profiler_Extension_STRUCT_SIZE) {
      return reinterpret_cast<const SEAM_Profiler_Extension*>(link);
    }
  }
  return nullptr;
}

}  // namespace

void CheckProfiler(Suite& suite) {
  suite.Optional("profiler", "SEAM_Profiler: events of a compile and a run", [&]() -> absl::Status {
    const SEAM_Profiler_Extension* profiler = FindProfiler(suite.api());
    if (profiler == nullptr) {
      return absl::UnimplementedError(
          "the profiler extension (SEAM_Extension_Type_Profiler) is not implemented by this "
          "plugin");
    }
    if (profiler->start == nullptr || profiler->stop == nullptr || profiler->collect == nullptr) {
      return absl::InternalError("the profiler extension has a null function");
    }
    if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
    if (absl::StatusOr<ProbeProgram> program = suite.DoubleProgram(false); !program.ok()) {
      return program.status();
    }
    const int64_t begin_ns = MonotonicNs();
    auto start = SEAM_PJRT_ARGS(SEAM_Profiler_Start_Args);
    SEAM_RETURN_IF_ERROR(suite.Call(profiler->start(&start)));
    absl::Status work = CompileRunAndReadBack(suite);
    auto stop = SEAM_PJRT_ARGS(SEAM_Profiler_Stop_Args);
    SEAM_RETURN_IF_ERROR(suite.Call(profiler->stop(&stop)));
    const int64_t end_ns = MonotonicNs();
    SEAM_RETURN_IF_ERROR(work);
    auto collect = SEAM_PJRT_ARGS(SEAM_Profiler_Collect_Args);
    SEAM_RETURN_IF_ERROR(suite.Call(profiler->collect(&collect)));
    int compiles = 0, runs = 0;
    SEAM_RETURN_IF_ERROR(CheckEvents(collect, begin_ns, end_ns, compiles, runs));
    if (compiles == 0 || runs == 0) {
      return absl::InternalError(absl::StrCat(
          "a compile and a run gave ", collect.num_events, " events, ", compiles,
          " of category \"compile\" and ", runs, " of \"run\" or \"kernel\" (each needs one)"));
    }
    // Stopped: more work adds nothing, and the events handed over are not handed again.
    SEAM_RETURN_IF_ERROR(CompileRunAndReadBack(suite));
    auto again = SEAM_PJRT_ARGS(SEAM_Profiler_Collect_Args);
    SEAM_RETURN_IF_ERROR(suite.Call(profiler->collect(&again)));
    return Expect(again.num_events == 0,
                  absl::StrCat("after Stop and Collect, a compile and a run gave ",
                               again.num_events, " more events (expected none)"));
  });
}

}  // namespace seam::conformance
