// A one-shot completion signal with a status, shared by the work and its observers.
#ifndef SEAM_PLUGINS_CPU_EVENT_H_
#define SEAM_PLUGINS_CPU_EVENT_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"

namespace seam::cpu {

class EventState {
 public:
  using Callback = std::function<void(const absl::Status&)>;

  static std::shared_ptr<EventState> Create();  // from the object pool
  static std::shared_ptr<EventState> Ready(absl::Status status = absl::OkStatus());

  // Marks the event ready with `status` and runs the registered callbacks, in order, on
  // the calling thread. A second Set is ignored (the first outcome stands).
  void Set(absl::Status status);
  bool IsReady() const;
  // Blocks until ready; returns the outcome.
  absl::Status Await() const;
  // Precondition: IsReady().
  absl::Status status() const;
  // Runs `callback` once the event is ready (at once, on this thread, if it already is).
  void OnReady(Callback callback);

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  // See event.cc for how these work without the lock on the common paths.
  std::atomic<bool> claimed_{false};  // Set was called
  std::atomic<bool> ready_{false};    // status_ is final (written before this)
  mutable std::atomic<int> slow_{0};  // threads in Await's wait, plus callbacks registered
  absl::Status status_;
  absl::InlinedVector<Callback, 1> callbacks_;  // usually one: no heap block
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_EVENT_H_
