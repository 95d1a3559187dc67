#include "src/plugins/common/profiler.h"

#include <time.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/common/entry.h"

namespace seam::plugin::profiler {
namespace internal {
std::atomic<bool> collecting{false};
}  // namespace internal

namespace {

struct RawEvent {
  std::string_view name;
  std::string_view category;
  int64_t index;
  int64_t device_id;
  int64_t thread_id;
  int64_t begin_ns;
  int64_t end_ns;
};

// The events handed over by the last Collect: alive until the next extension call.
struct Batch {
  std::vector<std::string> names;
  std::vector<std::string> categories;
  std::vector<SEAM_Profiler_Event> events;
  std::vector<const SEAM_Profiler_Event*> pointers;
  void Clear() {
    names.clear();
    categories.clear();
    events.clear();
    pointers.clear();
  }
};

struct State {
  std::mutex mu;
  std::vector<RawEvent> kept;  // capacity reserved at Start: never grows past max_events
  size_t max_events = 0;
  uint64_t dropped = 0;
  Batch batch;
};

// Never destroyed: kernels on worker threads may record during exit.
State& GetState() {
  static State* state = new State();
  return *state;
}

int64_t ThreadId() {
  static std::atomic<int64_t> next{0};
  thread_local const int64_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

thread_local int64_t current_device = -1;

PJRT_Error* Start(SEAM_Profiler_Start_Args* args) {
  const size_t max_events = args->max_events == 0 ? kDefaultMaxEvents : args->max_events;
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  state.batch.Clear();
  state.kept.clear();
  // Reserved up front so a recording kernel never allocates; a request beyond the default
  // is capped there (the drops are counted and reported).
  state.max_events = std::min(max_events, kDefaultMaxEvents);
  state.kept.reserve(state.max_events);
  state.dropped = 0;
  internal::collecting.store(true, std::memory_order_relaxed);
  return nullptr;
}

PJRT_Error* Stop(SEAM_Profiler_Stop_Args* /*args*/) {
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  state.batch.Clear();
  internal::collecting.store(false, std::memory_order_relaxed);
  return nullptr;
}

PJRT_Error* Collect(SEAM_Profiler_Collect_Args* args) {
  State& state = GetState();
  size_t capacity = 0;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    capacity = state.max_events;
  }
  std::vector<RawEvent> raw;
  raw.reserve(capacity);  // allocated outside the lock: recording threads do not wait on it
  std::lock_guard<std::mutex> lock(state.mu);
  raw.swap(state.kept);  // the buffer keeps a full reservation for what comes next
  Batch& batch = state.batch;
  batch.Clear();
  batch.names.reserve(raw.size());
  batch.categories.reserve(raw.size());
  batch.events.reserve(raw.size());
  for (const RawEvent& e : raw) {
    batch.names.push_back(e.index >= 0 ? absl::StrCat(std::string(e.name), " #", e.index)
                                       : std::string(e.name));
    batch.categories.emplace_back(e.category);
  }
  for (size_t i = 0; i < raw.size(); ++i) {
    const RawEvent& e = raw[i];
    SEAM_Profiler_Event event{};
    event.struct_size = SEAM_Profiler_Event_STRUCT_SIZE;
    event.name = batch.names[i].c_str();
    event.category = batch.categories[i].c_str();
    event.device_id = e.device_id;
    event.thread_id = e.thread_id;
    event.begin_ns = e.begin_ns;
    event.end_ns = e.end_ns;
    batch.events.push_back(event);
  }
  for (const SEAM_Profiler_Event& event : batch.events) batch.pointers.push_back(&event);
  args->events = batch.pointers.data();
  args->num_events = batch.pointers.size();
  args->num_dropped = state.dropped;
  return nullptr;
}

SEAM_Profiler_Extension MakeExtension() {
  SEAM_Profiler_Extension extension{};
  extension.base.struct_size = SEAM_Profiler_Extension_STRUCT_SIZE;
  SEAM_SetExtensionType(&extension.base, SEAM_Extension_Type_Profiler);
  extension.base.next = nullptr;
  extension.start = Entry<&Start>;
  extension.stop = Entry<&Stop>;
  extension.collect = Entry<&Collect>;
  return extension;
}

}  // namespace

int64_t NowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

void Record(std::string_view name, int64_t index, std::string_view category, int64_t device_id,
            int64_t begin_ns, int64_t end_ns) {
  if (!On()) return;
  const int64_t thread_id = ThreadId();
  State& state = GetState();
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.kept.size() >= state.max_events) {
    ++state.dropped;
    return;
  }
  state.kept.push_back({name, category, index, device_id, thread_id, begin_ns, end_ns});
}

int64_t CurrentDevice() { return current_device; }

DeviceScope::DeviceScope(int64_t device_id) : previous_(current_device) {
  current_device = device_id;
}

DeviceScope::~DeviceScope() { current_device = previous_; }

PJRT_Extension_Base* Extension() {
  static SEAM_Profiler_Extension extension = MakeExtension();
  return &extension.base;
}

}  // namespace seam::plugin::profiler
