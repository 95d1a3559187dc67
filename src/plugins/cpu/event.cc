#include "src/plugins/cpu/event.h"

#include <utility>

#include "src/base/object_pool.h"

namespace seam::cpu {

std::shared_ptr<EventState> EventState::Create() {
  return std::allocate_shared<EventState>(base::PoolAllocator<EventState>());
}

std::shared_ptr<EventState> EventState::Ready(absl::Status status) {
  auto event = Create();
  event->Set(std::move(status));
  return event;
}

void EventState::Set(absl::Status status) {
  absl::InlinedVector<Callback, 1> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_) return;
    ready_ = true;
    status_ = std::move(status);
    callbacks.swap(callbacks_);
  }
  cv_.notify_all();
  // Outside the lock: a callback may query this event or register another callback.
  for (Callback& callback : callbacks) callback(status_);
}

bool EventState::IsReady() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ready_;
}

absl::Status EventState::Await() const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return ready_; });
  return status_;
}

absl::Status EventState::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void EventState::OnReady(Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ready_) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback(status_);
}

}  // namespace seam::cpu
