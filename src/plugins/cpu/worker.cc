#include "src/plugins/cpu/worker.h"

#include <cstdlib>
#include <set>
#include <utility>

namespace seam::cpu {
namespace {

// The workers alive now. Never destroyed: a leaked client's workers outlive every static.
struct LiveWorkers {
  std::mutex mu;  // held by FinishAllAtExit for the whole drain, by ~Worker to leave
  std::set<Worker*> workers;
  bool handler_registered = false;
};

LiveWorkers& Live() {
  static LiveWorkers* live = new LiveWorkers();
  return *live;
}

}  // namespace

Worker::Worker() : thread_([this] { Loop(); }) {
  LiveWorkers& live = Live();
  std::lock_guard<std::mutex> lock(live.mu);
  live.workers.insert(this);
  if (!live.handler_registered) {
    // Registered after the statics that exist now, so it runs before their destructors,
    // and like every exit handler before the libraries' own destructors (OpenBLAS's).
    live.handler_registered = std::atexit(&Worker::FinishAllAtExit) == 0;
  }
}

Worker::~Worker() {
  {
    LiveWorkers& live = Live();
    // Waits for a drain at exit in progress; after it the thread is joined already.
    std::lock_guard<std::mutex> lock(live.mu);
    live.workers.erase(this);
  }
  RequestStop();
  Join();
}

void Worker::FinishAllAtExit() {
  LiveWorkers& live = Live();
  std::lock_guard<std::mutex> lock(live.mu);
  // Stop all first, join after: the workers drain side by side, so a collective whose
  // replicas sit in different queues still meets.
  for (Worker* worker : live.workers) worker->RequestStop();
  for (Worker* worker : live.workers) worker->Join();
  live.workers.clear();
}

void Worker::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
}

void Worker::Join() {
  // exit() called from work on this worker: it cannot wait for itself.
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void Worker::Enqueue(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
}

bool Worker::TryRunInline(absl::FunctionRef<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || busy_ || !queue_.empty()) return false;
    busy_ = true;
  }
  work();
  bool queued;
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
    queued = !queue_.empty();
  }
  if (queued) cv_.notify_one();  // work enqueued while this ran waited for it
  return true;
}

void Worker::Loop() {
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Never beside an inline run: queued work starts after it, in order.
      cv_.wait(lock, [this] { return !busy_ && (stopping_ || !queue_.empty()); });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      work = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    work();
    std::lock_guard<std::mutex> lock(mu_);
    busy_ = false;
  }
}

}  // namespace seam::cpu
