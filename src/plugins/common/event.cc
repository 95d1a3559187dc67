#include "src/plugins/common/event.h"

#include <utility>

#include "src/base/object_pool.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/table.h"

namespace seam::plugin {

// Set publishes ready_ without the lock and takes the lock only when someone may be
// blocked in Await or has registered a callback (slow_ > 0). Both sides use sequentially
// consistent operations in opposite order (Set: store ready_, then read slow_; a slow
// path: raise slow_ under the lock, then read ready_), so at least one of them sees the
// other: either the slow path sees the event ready and does not wait, or Set sees slow_
// and wakes it (or takes its callback) under the lock.

std::shared_ptr<EventState> EventState::Create() {
  return std::allocate_shared<EventState>(base::PoolAllocator<EventState>());
}

std::shared_ptr<EventState> EventState::Ready(absl::Status status) {
  auto event = Create();
  event->Set(std::move(status));
  return event;
}

void EventState::Set(absl::Status status) {
  if (claimed_.exchange(true)) return;  // a second Set: the first outcome stands
  status_ = std::move(status);
  ready_.store(true);
  if (slow_.load() == 0) return;  // nobody waits, no callback registered
  absl::InlinedVector<Callback, 1> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    callbacks.swap(callbacks_);
  }
  cv_.notify_all();
  // Outside the lock: a callback may query this event or register another callback.
  for (Callback& callback : callbacks) callback(status_);
}

bool EventState::IsReady() const { return ready_.load(std::memory_order_acquire); }

absl::Status EventState::Await() const {
  // Ready already (the usual case for a run's inputs): status_ no longer changes.
  if (ready_.load(std::memory_order_acquire)) return status_;
  if (helper_ != nullptr) {
    while (!ready_.load(std::memory_order_acquire) && helper_->HelpOnce()) {
    }
    if (ready_.load(std::memory_order_acquire)) return status_;
  }
  std::unique_lock<std::mutex> lock(mu_);
  slow_.fetch_add(1);
  cv_.wait(lock, [this] { return ready_.load(); });
  slow_.fetch_sub(1);
  return status_;
}

absl::Status EventState::status() const {
  // Before the event is ready there is no outcome yet (the precondition is broken): OK,
  // as a fresh status reads.
  return ready_.load(std::memory_order_acquire) ? status_ : absl::OkStatus();
}

void EventState::OnReady(Callback callback) {
  if (!ready_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    slow_.fetch_add(1);  // kept while the callback is registered: Set takes the lock
    if (!ready_.load()) {
      callbacks_.push_back(std::move(callback));
      return;
    }
    slow_.fetch_sub(1);
  }
  callback(status_);
}

PJRT_Error* EventDestroy(PJRT_Event_Destroy_Args* args) {
  delete args->event;
  return nullptr;
}

PJRT_Error* EventIsReady(PJRT_Event_IsReady_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Event_IsReady, args->event);
  args->is_ready = args->event->state->IsReady();
  return nullptr;
}

PJRT_Error* EventError(PJRT_Event_Error_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Event_Error, args->event);
  if (!args->event->state->IsReady()) {
    return MakeError(absl::FailedPreconditionError(
        "PJRT_Event_Error: the event is not ready yet (await it first)"));
  }
  return MakeError(args->event->state->status());
}

PJRT_Error* EventAwait(PJRT_Event_Await_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Event_Await, args->event);
  return MakeError(args->event->state->Await());
}

PJRT_Error* EventOnReady(PJRT_Event_OnReady_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Event_OnReady, args->event);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Event_OnReady, args->callback);
  PJRT_Event_OnReadyCallback callback = args->callback;
  void* user_arg = args->user_arg;
  args->event->state->OnReady(
      [callback, user_arg](const absl::Status& status) { callback(MakeError(status), user_arg); });
  return nullptr;
}

PJRT_Error* EventCreate(PJRT_Event_Create_Args* args) {
  args->event = new PJRT_Event{EventState::Create()};
  return nullptr;
}

PJRT_Error* EventSet(PJRT_Event_Set_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Event_Set, args->event);
  if (args->error_message == nullptr && args->error_message_size > 0) {
    return MakeError(absl::InvalidArgumentError(
        "PJRT_Event_Set: args->error_message is null with error_message_size > 0"));
  }
  const auto code = static_cast<absl::StatusCode>(RawEnumValue(args->error_code));
  absl::Status status = code == absl::StatusCode::kOk
                            ? absl::OkStatus()
                            : absl::Status(code, args->error_message == nullptr
                                                     ? absl::string_view()
                                                     : absl::string_view(args->error_message,
                                                                         args->error_message_size));
  EventState& state = *args->event->state;
  if (state.IsReady()) {
    return MakeError(absl::FailedPreconditionError("PJRT_Event_Set: the event is already set"));
  }
  state.Set(std::move(status));
  return nullptr;
}

void SetEventFunctions(PJRT_Api& api) {
  SEAM_PLUGIN_SET(api, PJRT_Event_Create, EventCreate);
  SEAM_PLUGIN_SET(api, PJRT_Event_Set, EventSet);
  SEAM_PLUGIN_SET(api, PJRT_Event_Destroy, EventDestroy);
  SEAM_PLUGIN_SET(api, PJRT_Event_IsReady, EventIsReady);
  SEAM_PLUGIN_SET(api, PJRT_Event_Error, EventError);
  SEAM_PLUGIN_SET(api, PJRT_Event_Await, EventAwait);
  SEAM_PLUGIN_SET(api, PJRT_Event_OnReady, EventOnReady);
}

}  // namespace seam::plugin
