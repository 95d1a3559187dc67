// The events of a trace as recorded (trace.h) and as written (trace_writer.h).
#ifndef SEAM_RUNTIME_TRACE_EVENT_H_
#define SEAM_RUNTIME_TRACE_EVENT_H_

#include <cstdint>
#include <string>

namespace seam::trace {

// One event of a plugin's, as the profiler extension hands it over.
struct PluginEvent {
  std::string name;
  std::string category;
  int64_t device_id = -1;  // -1: not tied to a device
  int64_t thread_id = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

// A framework span on one of the framework's tracks.
struct FrameworkEvent {
  std::string name;
  std::string category;
  int64_t track = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

}  // namespace seam::trace

#endif  // SEAM_RUNTIME_TRACE_EVENT_H_
