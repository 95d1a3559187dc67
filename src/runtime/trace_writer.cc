#include "src/runtime/trace_writer.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace seam::trace {
namespace {

// Plugin events go on a track per (device, thread): the device's block of ids, then the
// plugin's thread id within it.
constexpr int64_t kTracksPerDevice = 100000;

int64_t PluginTrack(const PluginEvent& event) {
  return (event.device_id + 1) * kTracksPerDevice + event.thread_id % kTracksPerDevice;
}

std::string PluginTrackName(const PluginEvent& event) {
  if (event.device_id < 0) return absl::StrCat("plugin thread ", event.thread_id);
  return absl::StrCat("device ", event.device_id, " (plugin thread ", event.thread_id, ")");
}

// Nanoseconds as microseconds, exactly: a parent's end and its child's, each ts + dur, are
// equal in the file when they are equal in the recording.
std::string Micros(int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return absl::StrFormat("%s%d.%03d", sign, magnitude / 1000, magnitude % 1000);
}

void AppendName(std::string& out, const char* what, int pid, const int64_t* tid,
                const std::string& name) {
  absl::StrAppend(&out, out.back() == '[' ? "\n" : ",\n", "{\"name\":\"", what,
                  "\",\"ph\":\"M\",\"pid\":", pid);
  if (tid != nullptr) absl::StrAppend(&out, ",\"tid\":", *tid);
  absl::StrAppend(&out, ",\"args\":{\"name\":", JsonString(name), "}}");
}

void AppendSortIndex(std::string& out, int pid, int64_t tid, int64_t index) {
  absl::StrAppend(&out, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":", pid,
                  ",\"tid\":", tid, ",\"args\":{\"sort_index\":", index, "}}");
}

void AppendComplete(std::string& out, const std::string& name, const std::string& category, int pid,
                    int64_t tid, int64_t begin_ns, int64_t end_ns, int64_t start_ns) {
  absl::StrAppend(&out, ",\n{\"name\":", JsonString(name), ",\"cat\":", JsonString(category),
                  ",\"ph\":\"X\",\"ts\":", Micros(begin_ns - start_ns),
                  ",\"dur\":", Micros(std::max<int64_t>(end_ns - begin_ns, 0)), ",\"pid\":", pid,
                  ",\"tid\":", tid, "}");
}

}  // namespace

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          out += absl::StrFormat("\\u%04x", u);
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string ToChromeTraceJson(TraceData& data) {
  // Parents before children: by start, the longer first.
  auto order = [](int64_t track_a, int64_t begin_a, int64_t end_a, int64_t track_b, int64_t begin_b,
                  int64_t end_b) {
    return std::make_tuple(track_a, begin_a, -end_a) < std::make_tuple(track_b, begin_b, -end_b);
  };
  std::sort(data.framework.begin(), data.framework.end(),
            [&](const FrameworkEvent& a, const FrameworkEvent& b) {
              return order(a.track, a.begin_ns, a.end_ns, b.track, b.begin_ns, b.end_ns);
            });
  std::string out = "{\"traceEvents\":[";
  AppendName(out, "process_name", kFrameworkPid, nullptr, "seam framework");
  for (const auto& [track, name] : data.framework_tracks) {
    AppendName(out, "thread_name", kFrameworkPid, &track, name);
    AppendSortIndex(out, kFrameworkPid, track, track);
  }
  for (const FrameworkEvent& e : data.framework) {
    AppendComplete(out, e.name, e.category, kFrameworkPid, e.track, e.begin_ns, e.end_ns,
                   data.start_ns);
  }
  for (size_t p = 0; p < data.plugins.size(); ++p) {
    PluginTrace& plugin = data.plugins[p];
    const int pid = kFirstPluginPid + static_cast<int>(p);
    AppendName(out, "process_name", pid, nullptr, absl::StrCat("plugin ", plugin.name));
    std::sort(plugin.events.begin(), plugin.events.end(),
              [&](const PluginEvent& a, const PluginEvent& b) {
                return order(PluginTrack(a), a.begin_ns, a.end_ns, PluginTrack(b), b.begin_ns,
                             b.end_ns);
              });
    int64_t named = -1;
    for (const PluginEvent& e : plugin.events) {
      const int64_t track = PluginTrack(e);
      if (track != named) {
        AppendName(out, "thread_name", pid, &track, PluginTrackName(e));
        AppendSortIndex(out, pid, track, track);
        named = track;
      }
      AppendComplete(out, e.name, e.category, pid, track, e.begin_ns, e.end_ns, data.start_ns);
    }
  }
  absl::StrAppend(
      &out, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{",
      "\"clock\":\"CLOCK_MONOTONIC\",\"start_ns\":", data.start_ns, ",\"stop_ns\":", data.stop_ns,
      ",\"framework_events_dropped\":", data.framework_dropped, ",\"plugin_events_dropped\":{");
  for (size_t p = 0; p < data.plugins.size(); ++p) {
    absl::StrAppend(&out, p == 0 ? "" : ",", JsonString(data.plugins[p].name), ":",
                    data.plugins[p].dropped);
  }
  absl::StrAppend(&out, "},\"plugin_errors\":{");
  bool first = true;
  for (const PluginTrace& plugin : data.plugins) {
    if (plugin.error.empty()) continue;
    absl::StrAppend(&out, first ? "" : ",", JsonString(plugin.name), ":", JsonString(plugin.error));
    first = false;
  }
  absl::StrAppend(&out, "}}}\n");
  return out;
}

}  // namespace seam::trace
