// The Chrome-trace JSON of one recorded trace (trace.h): what was recorded, in, the file's
// text, out. Separate from the recording so that it can be tested on its own.
#ifndef SEAM_RUNTIME_TRACE_WRITER_H_
#define SEAM_RUNTIME_TRACE_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/runtime/trace_event.h"

namespace seam::trace {

// One plugin's part of a trace.
struct PluginTrace {
  std::string name;  // the plugin's platform
  std::vector<PluginEvent> events;
  uint64_t dropped = 0;
  std::string error;  // why its events could not be collected; empty when they were
};

struct TraceData {
  int64_t start_ns = 0;  // ts 0 in the file
  int64_t stop_ns = 0;
  std::vector<FrameworkEvent> framework;
  std::map<int64_t, std::string> framework_tracks;  // track -> its name
  uint64_t framework_dropped = 0;
  std::vector<PluginTrace> plugins;
};

// The process ids in the file: the framework's, then one per plugin from kFirstPluginPid.
inline constexpr int kFrameworkPid = 1;
inline constexpr int kFirstPluginPid = 2;

// The JSON object: "traceEvents" (process and thread names as "M" events, then every
// event as an "X" complete event, ts and dur in microseconds from start_ns, ordered by
// process, track and start) and "otherData" (clock, window, drop counts, plugin errors).
// Sorts the events in place.
std::string ToChromeTraceJson(TraceData& data);

// `text` as a JSON string literal, quotes included.
std::string JsonString(std::string_view text);

}  // namespace seam::trace

#endif  // SEAM_RUNTIME_TRACE_WRITER_H_
