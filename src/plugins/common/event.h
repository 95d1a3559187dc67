// The kit's event: a one-shot completion signal with a status, shared by the work and its
// observers (EventState), the ABI's PJRT_Event that holds one, and the seven PJRT_Event_*
// functions of the table over it.
#ifndef SEAM_PLUGINS_COMMON_EVENT_H_
#define SEAM_PLUGINS_COMMON_EVENT_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "seam/c/pjrt_c_api.h"
#include "src/base/object_pool.h"

namespace seam::plugin {

// Something a thread about to block on an event can do to bring it closer (the CPU plugin:
// run its device's oldest queued run on the waiting thread, which would otherwise sleep
// while the device's thread wakes up to run it). HelpOnce does one piece of such work and
// returns true, or returns false when there is none to do now; it is called only while
// the event is not ready, from any thread that awaits it.
class EventHelper {
 public:
  virtual ~EventHelper() = default;
  virtual bool HelpOnce() = 0;
};

class EventState {
 public:
  using Callback = std::function<void(const absl::Status&)>;

  static std::shared_ptr<EventState> Create();  // from the object pool
  static std::shared_ptr<EventState> Ready(absl::Status status = absl::OkStatus());

  // Marks the event ready with `status` and runs the registered callbacks, in order, on
  // the calling thread. A second Set is ignored (the first outcome stands).
  void Set(absl::Status status);
  bool IsReady() const;
  // Blocks until ready; returns the outcome. With a helper, the waiting thread first does
  // what the helper offers while the event is not ready.
  absl::Status Await() const;
  // Sets the helper; only before the event is shared with another thread.
  void SetHelper(std::shared_ptr<EventHelper> helper) { helper_ = std::move(helper); }
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
  std::shared_ptr<EventHelper> helper_;         // fixed once the event is shared
};

}  // namespace seam::plugin

// Gives a handle type class-level new/delete from the object pool (src/base/object_pool.h):
// the handles a run hands out are allocated and freed on every step.
#define SEAM_PLUGIN_POOLED_NEW                                                      \
  static void* operator new(size_t size) { return seam::base::PoolAllocate(size); } \
  static void operator delete(void* block, size_t size) { seam::base::PoolFree(block, size); }

// An event handle given to the caller, who frees it with PJRT_Event_Destroy. Several
// handles may share one state (a buffer's ready event, asked for twice).
struct PJRT_Event {
  std::shared_ptr<seam::plugin::EventState> state;
  SEAM_PLUGIN_POOLED_NEW
};

namespace seam::plugin {

// The table's event functions over PJRT_Event; put them in a table with SetEventFunctions.
PJRT_Error* EventDestroy(PJRT_Event_Destroy_Args* args);
PJRT_Error* EventIsReady(PJRT_Event_IsReady_Args* args);
PJRT_Error* EventError(PJRT_Event_Error_Args* args);
PJRT_Error* EventAwait(PJRT_Event_Await_Args* args);
PJRT_Error* EventOnReady(PJRT_Event_OnReady_Args* args);
// An event the caller completes (PJRT_Event_Create), and its completion (PJRT_Event_Set:
// error_code OK for success, else the code and message; FAILED_PRECONDITION for an event
// already set).
PJRT_Error* EventCreate(PJRT_Event_Create_Args* args);
PJRT_Error* EventSet(PJRT_Event_Set_Args* args);
// The seven PJRT_Event_* slots.
void SetEventFunctions(PJRT_Api& api);

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_EVENT_H_
