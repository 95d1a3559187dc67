// The step timeline: spans recorded by the framework and events handed over by plugins,
// written as Chrome-trace JSON (chrome://tracing, ui.perfetto.dev). docs/tracing.md says
// what it shows.
//
//   trace::Span span("Compile", "crossing");   // times a block on this thread's track
//
// While no trace is being recorded a Span costs one relaxed atomic load. Every timestamp
// is CLOCK_MONOTONIC in nanoseconds (std::chrono::steady_clock, metrics::NowNs), the clock
// of the plugin ABI's profiler extension.
#ifndef SEAM_RUNTIME_TRACE_H_
#define SEAM_RUNTIME_TRACE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "src/runtime/trace_event.h"

namespace seam::trace {

// The environment variable naming the file a trace is written to from the client's
// creation until exit (or stop).
inline constexpr char kTraceToVariable[] = "SEAM_TRACE_TO";
// The most framework spans one trace keeps; later ones are dropped and counted.
inline constexpr size_t kMaxFrameworkEvents = size_t{1} << 20;

namespace internal {
extern std::atomic<bool> on;
}  // namespace internal

// Whether a trace is being recorded (relaxed: a span at the moment it starts or stops may
// be kept or not).
inline bool On() { return internal::on.load(std::memory_order_relaxed); }

int64_t NowNs();
// When the trace being recorded started (0 when none is).
int64_t StartedAtNs();

// Keeps a span of the calling thread (its track, "host thread <n>"). `name` and
// `category` are copied.
void Record(std::string_view name, std::string_view category, int64_t begin_ns, int64_t end_ns);
// Keeps a span on the track of the device named `device` ("CPU:0"), e.g. a run's own time.
void RecordOnDevice(std::string_view device, std::string_view name, int64_t begin_ns,
                    int64_t end_ns);

// Times the scope on the calling thread's track when a trace was on at its construction.
// `name` and `category` must outlive the span (literals, usually).
class Span {
 public:
  Span(std::string_view name, std::string_view category)
      : begin_ns_(On() ? NowNs() : -1), name_(name), category_(category) {}
  ~Span() {
    if (begin_ns_ >= 0) Record(name_, category_, begin_ns_, NowNs());
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

 private:
  int64_t begin_ns_;
  std::string_view name_;
  std::string_view category_;
};

// A plugin that records events of its own (the runtime wraps a plugin's profiler
// extension in one). Its calls come from the thread that starts or stops the trace.
class Source {
 public:
  virtual ~Source() = default;
  // "cpu": the plugin's platform, naming its process in the trace.
  virtual std::string name() const = 0;
  virtual absl::Status Start() = 0;
  // Stops recording and hands over what was recorded, adding to `dropped` the events the
  // plugin had to drop.
  virtual absl::Status StopAndCollect(std::vector<PluginEvent>& events, uint64_t& dropped) = 0;
};

// Sources join a trace being recorded at once (started), and every later one. A source
// removed while a trace is on is collected first. Both are no-ops for null.
void AddSource(Source* source);
void RemoveSource(Source* source);

// Starts recording, to be written to `path` at Stop. The file is created (emptied) now, so
// a path that cannot be written is an error here, naming it. An error too when a trace is
// being recorded already.
absl::Status Start(const std::string& path);
// Stops recording, collects every source's events and writes the file. An error when no
// trace is being recorded, or when writing fails (naming the file).
absl::Status Stop();
// Starts a trace to $SEAM_TRACE_TO when it is set and non-empty (and none is on), to be
// written at exit unless stopped before. Called once when the process's client is created.
absl::Status StartFromEnvironment();

}  // namespace seam::trace

#endif  // SEAM_RUNTIME_TRACE_H_
