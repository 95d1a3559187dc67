#include "src/runtime/trace.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/logging.h"
#include "src/base/settings.h"
#include "src/runtime/trace_writer.h"

namespace seam::trace {
namespace internal {
std::atomic<bool> on{false};
}  // namespace internal

namespace {

// Framework tracks: host threads count from 1; devices from kFirstDeviceTrack.
constexpr int64_t kFirstDeviceTrack = 1000;

struct State {
  std::mutex mu;  // guards everything below
  std::string path;
  std::FILE* file = nullptr;
  TraceData data;
  std::vector<Source*> sources;
  std::map<std::string, int64_t, std::less<>> device_tracks;
  int64_t next_thread_track = 1;
  bool exit_handler_registered = false;
};

// Never destroyed: spans may end on plugin threads while the process exits.
State& GetState() {
  static State* state = new State();
  return *state;
}

// The calling thread's track, named when first used (mu held).
int64_t ThreadTrack(State& state) {
  thread_local int64_t track = 0;
  if (track == 0) track = state.next_thread_track++;
  if (state.data.framework_tracks.find(track) == state.data.framework_tracks.end()) {
    state.data.framework_tracks[track] = absl::StrCat("host thread ", track);
  }
  return track;
}

void Keep(State& state, std::string_view name, std::string_view category, int64_t track,
          int64_t begin_ns, int64_t end_ns) {
  if (state.data.framework.size() >= kMaxFrameworkEvents) {
    ++state.data.framework_dropped;
    return;
  }
  state.data.framework.push_back(
      {std::string(name), std::string(category), track, begin_ns, end_ns});
}

// Stops a source and adds its events to the trace as the next plugin (mu held).
void CollectSource(State& state, Source* source) {
  PluginTrace plugin;
  plugin.name = source->name();
  absl::Status status = source->StopAndCollect(plugin.events, plugin.dropped);
  if (!status.ok()) plugin.error = std::string(status.message());
  state.data.plugins.push_back(std::move(plugin));
}

void StartSource(Source* source) {
  absl::Status status = source->Start();
  if (!status.ok()) {
    base::Log(base::LogSeverity::kWarning,
              absl::StrCat("trace: the plugin '", source->name(),
                           "' could not start recording its events: ", status.message()));
  }
}

void StopAtExit() {
  if (!On()) return;
  absl::Status status = Stop();
  if (!status.ok()) base::Log(base::LogSeverity::kError, std::string(status.message()));
}

}  // namespace

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t StartedAtNs() {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  return state.file == nullptr ? 0 : state.data.start_ns;
}

void Record(std::string_view name, std::string_view category, int64_t begin_ns, int64_t end_ns) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.file == nullptr) return;  // stopped meanwhile
  Keep(state, name, category, ThreadTrack(state), begin_ns, end_ns);
}

void RecordOnDevice(std::string_view device, std::string_view name, int64_t begin_ns,
                    int64_t end_ns) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.file == nullptr) return;
  auto it = state.device_tracks.find(device);
  if (it == state.device_tracks.end()) {
    const auto track = kFirstDeviceTrack + static_cast<int64_t>(state.device_tracks.size());
    it = state.device_tracks.emplace(std::string(device), track).first;
    state.data.framework_tracks[track] = absl::StrCat(std::string(device), " runs");
  }
  Keep(state, name, "device", it->second, begin_ns, end_ns);
}

void AddSource(Source* source) {
  if (source == nullptr) return;
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  state.sources.push_back(source);
  if (state.file != nullptr) StartSource(source);
}

void RemoveSource(Source* source) {
  if (source == nullptr) return;
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  auto it = std::find(state.sources.begin(), state.sources.end(), source);
  if (it == state.sources.end()) return;
  state.sources.erase(it);
  if (state.file != nullptr) CollectSource(state, source);
}

absl::Status Start(const std::string& path) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.file != nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("trace: cannot start a trace to '", path,
                                                      "': a trace to '", state.path,
                                                      "' is being recorded (stop it first)"));
  }
  if (path.empty()) return absl::InvalidArgumentError("trace: the trace file's path is empty");
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("trace: cannot open '", path, "' for writing: ", std::strerror(errno)));
  }
  state.file = file;
  state.path = path;
  state.data = TraceData{};
  state.device_tracks.clear();
  state.data.start_ns = NowNs();
  internal::on.store(true, std::memory_order_relaxed);
  for (Source* source : state.sources) StartSource(source);
  return absl::OkStatus();
}

absl::Status Stop() {
  State& state = GetState();
  std::unique_lock<std::mutex> lock(state.mu);
  if (state.file == nullptr) {
    return absl::FailedPreconditionError("trace: no trace is being recorded (start one first)");
  }
  internal::on.store(false, std::memory_order_relaxed);
  state.data.stop_ns = NowNs();
  for (Source* source : state.sources) CollectSource(state, source);
  std::FILE* file = std::exchange(state.file, nullptr);
  const std::string path = std::move(state.path);
  TraceData data = std::move(state.data);
  state.data = TraceData{};
  lock.unlock();  // the JSON and the write need no lock: new spans see no file and return

  const std::string json = ToChromeTraceJson(data);
  const bool written = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  const int write_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    return absl::DataLossError(absl::StrCat(
        "trace: writing '", path, "' failed: ", std::strerror(written ? errno : write_errno)));
  }
  return absl::OkStatus();
}

absl::Status StartFromEnvironment() {
  std::optional<std::string> path = base::ReadSetting(base::Setting::kSeamTraceTo);
  if (!path.has_value() || path->empty() || On()) return absl::OkStatus();
  absl::Status status = Start(*path);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat(kTraceToVariable, ": ", status.message()));
  }
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (!state.exit_handler_registered) {
    state.exit_handler_registered = std::atexit(&StopAtExit) == 0;
  }
  return absl::OkStatus();
}

}  // namespace seam::trace
