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
    if (ready_.load(std::memory_order_relaxed)) return;
    status_ = std::move(status);
    // Release: a reader that sees ready_ without the lock also sees status_.
    ready_.store(true, std::memory_order_release);
    if (!callbacks_.empty()) callbacks.swap(callbacks_);
  }
  cv_.notify_all();
  // Outside the lock: a callback may query this event or register another callback.
  for (Callback& callback : callbacks) callback(status_);
}

bool EventState::IsReady() const { return ready_.load(std::memory_order_acquire); }

absl::Status EventState::Await() const {
  // Ready already (the usual case for a run's inputs): status_ no longer changes.
  if (ready_.load(std::memory_order_acquire)) return status_;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return ready_.load(std::memory_order_relaxed); });
  return status_;
}

absl::Status EventState::status() const {
  if (ready_.load(std::memory_order_acquire)) return status_;
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void EventState::OnReady(Callback callback) {
  if (!ready_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ready_.load(std::memory_order_relaxed)) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback(status_);
}

}  // namespace seam::cpu
