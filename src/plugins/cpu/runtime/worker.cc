#include "src/plugins/cpu/runtime/worker.h"

#include <unistd.h>

#include <cstdlib>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"

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

// The first half of the exit drain (worker.h). exit() runs the exiting thread's
// thread_local destructors before any exit handler or static destructor (glibc's
// __run_exit_handlers calls __call_tls_dtors first), so the main thread's instance drains
// the workers while every library is still whole, however late a library created its
// statics (oneDNN makes a product kernel on its first product of each kind, on whichever
// thread runs it). Any other thread's instance does nothing at that thread's end.
struct MainThreadExitDrain {
  ~MainThreadExitDrain() {
    if (gettid() == getpid()) Worker::FinishAllAtExit();
  }
};

std::atomic<bool> threads_paused{false};  // PauseThreadsForTesting

void ArmExitDrain() {
  thread_local MainThreadExitDrain drain;
  (void)drain;
}

}  // namespace

Worker::Worker(bool (*may_help)())
    : help_(std::make_shared<WorkerHelp>(this, may_help)), thread_([this] { Loop(); }) {
  ArmExitDrain();
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
  help_->Detach();  // no waiting thread runs work from here on
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

void Worker::PauseThreadsForTesting(bool paused) {
  threads_paused.store(paused);
  if (paused) return;
  LiveWorkers& live = Live();
  std::lock_guard<std::mutex> lock(live.mu);
  for (Worker* worker : live.workers) {
    { std::lock_guard<std::mutex> worker_lock(worker->mu_); }
    worker->cv_.notify_all();
  }
}

void Worker::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    state_.fetch_or(kStopping);
  }
  cv_.notify_all();
}

void Worker::Join() {
  // exit() called from work on this worker: it cannot wait for itself.
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void Worker::Enqueue(std::function<void()> work) {
  ArmExitDrain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    queue_.push_back(std::move(work));
    state_.fetch_add(kQueued);
  }
  cv_.notify_one();
}

bool Worker::TryRunInline(absl::FunctionRef<void()> work) {
  // Idle means state_ == 0: nothing queued, nothing running, not stopping. While kBusy is
  // set here, the thread starts nothing (Loop waits for it to clear) and other callers'
  // attempts fail.
  uint64_t idle = 0;
  if (!state_.compare_exchange_strong(idle, kBusy)) return false;
  work();
  EndBusy();
  return true;
}

void Worker::EndBusy() {
  if (state_.fetch_sub(kBusy) != kBusy) {
    // Work was queued (or a stop requested) while this ran; the thread may have checked
    // state_ before the clear and be about to sleep, so wake it under the lock.
    { std::lock_guard<std::mutex> lock(mu_); }
    cv_.notify_one();
  }
}

bool Worker::RunOldest() {
  std::function<void()> work;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // As Loop takes a piece: never beside a running one, the oldest first.
    if ((state_.load() & kBusy) != 0 || stopping_ || queue_.empty()) return false;
    work = std::move(queue_.front());
    queue_.pop_front();
    state_.fetch_sub(kQueued - kBusy);
  }
  work();
  EndBusy();
  return true;
}

bool WorkerHelp::HelpOnce() {
  // A piece this thread runs for a worker may itself wait for an event: that wait sleeps
  // (no piece inside a piece, and never a second lock of mu_ by the thread that holds it).
  thread_local bool helping = false;
  if (helping) return false;
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock() || worker_ == nullptr) return false;
  if (may_help_ != nullptr && !may_help_()) return false;
  helping = true;
  const absl::Cleanup done = [] { helping = false; };
  return worker_->RunOldest();
}

void WorkerHelp::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  worker_ = nullptr;
}

void Worker::Loop() {
  for (;;) {
    std::function<void()> work;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Never beside an inline run: queued work starts after it, in order.
      cv_.wait(lock, [this] {
        return (state_.load() & kBusy) == 0 &&
               (stopping_ || (!queue_.empty() && !threads_paused.load()));
      });
      if (queue_.empty()) return;  // stopping, and everything queued has run
      work = std::move(queue_.front());
      queue_.pop_front();
      // One piece fewer queued, and busy. No inline run can start meanwhile: one needs
      // state_ == 0, and the queue was not empty.
      state_.fetch_sub(kQueued - kBusy);
    }
    work();
    state_.fetch_sub(kBusy);
  }
}

}  // namespace seam::cpu
