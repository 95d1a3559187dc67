// The plugin side of the profiler extension (SEAM_Profiler_Extension, seam's extension on
// PJRT_Api's chain): a bounded buffer of timed events that a plugin fills while the framework
// collects, and the extension's three functions over it.
//
//   api.extension_start = seam::plugin::profiler::Extension();   // chain it
//   ...
//   seam::plugin::profiler::Scope pass("simplify", "compile");    // times a block
//   if (seam::plugin::profiler::On()) { ... Record(...) ... }      // or by hand
//
// The buffer is process-wide (every client of the plugin). While no collection is on,
// Scope and On cost one relaxed atomic load. Names and categories passed here must have
// static storage (string literals, ops.def names): the buffer keeps the pointers.
#ifndef SEAM_PLUGINS_COMMON_PROFILER_H_
#define SEAM_PLUGINS_COMMON_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <string_view>

#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"

namespace seam::plugin::profiler {

// The events kept between two collects when the framework asks for the default.
inline constexpr size_t kDefaultMaxEvents = size_t{1} << 18;

namespace internal {
extern std::atomic<bool> collecting;
}  // namespace internal

// Whether a collection is on (a relaxed load: an event at the moment it starts or stops
// may be kept or not).
inline bool On() { return internal::collecting.load(std::memory_order_relaxed); }

// CLOCK_MONOTONIC in nanoseconds, the extension's clock.
int64_t NowNs();

// Keeps one event while a collection is on (dropped and counted when the buffer is full).
// `index` >= 0 is appended to the name as " #<index>" when the events are handed over.
void Record(std::string_view name, int64_t index, std::string_view category, int64_t device_id,
            int64_t begin_ns, int64_t end_ns);

// The device whose run the calling thread is doing (-1: none): kernels record it.
int64_t CurrentDevice();

// Sets the calling thread's current device for the scope's life.
class DeviceScope {
 public:
  explicit DeviceScope(int64_t device_id);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int64_t previous_;
};

// Records the time from construction to destruction, when a collection was on at the
// construction.
class Scope {
 public:
  Scope(std::string_view name, std::string_view category, int64_t device_id = -1,
        int64_t index = -1)
      : begin_ns_(On() ? NowNs() : -1),
        name_(name),
        category_(category),
        device_id_(device_id),
        index_(index) {}
  ~Scope() {
    if (begin_ns_ >= 0) Record(name_, index_, category_, device_id_, begin_ns_, NowNs());
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  int64_t begin_ns_;
  std::string_view name_;
  std::string_view category_;
  int64_t device_id_;
  int64_t index_;
};

// The extension struct to chain from PJRT_Api.extension_start (static, never freed).
PJRT_Extension_Base* Extension();

}  // namespace seam::plugin::profiler

#endif  // SEAM_PLUGINS_COMMON_PROFILER_H_
