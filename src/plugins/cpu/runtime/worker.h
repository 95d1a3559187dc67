// One thread per device that runs the device's work in submission order.
//
// Shutdown order: a client the runtime never destroys (it is leaked on purpose) keeps its
// workers alive until the process exits. Work still queued then would run on while exit()
// tears down the libraries it calls (OpenBLAS frees its buffers in its own destructor;
// oneDNN unmaps a product kernel it made on its first product of that kind), so exit
// finishes every live worker's queue and joins its thread first, before any exit handler
// or static destructor runs: the thread that creates a Worker or queues work gets a
// thread_local whose destructor, on the process's main thread, drains the workers (exit()
// runs the exiting thread's thread_local destructors before everything else). The first
// Worker also registers an exit handler that does the same, for an exit() from a thread
// that never queued work; whatever that handler runs after may already be gone.
#ifndef SEAM_PLUGINS_CPU_WORKER_H_
#define SEAM_PLUGINS_CPU_WORKER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/functional/function_ref.h"
#include "src/plugins/common/event.h"

namespace seam::cpu {

class WorkerHelp;

class Worker {
 public:
  // `may_help`, if given, is asked before each piece a waiting thread would run (false: it
  // sleeps instead); see help().
  explicit Worker(bool (*may_help)() = nullptr);
  ~Worker();  // finishes the queued work, then joins (unless process exit already did)
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Queues `work`. Once the worker is stopping (being destroyed, or the process exiting),
  // new work is dropped without running: nothing could observe its result.
  void Enqueue(std::function<void()> work);

  // Runs `work` on the calling thread, now, when the worker is idle (nothing queued,
  // nothing running, not stopping) and returns true; returns false without running it
  // otherwise. While `work` runs the worker counts as busy: work enqueued meanwhile starts
  // after it, and no other caller runs inline, so the device's submission order holds.
  bool TryRunInline(absl::FunctionRef<void()> work);

  // For the events of queued work (EventState::SetHelper): a thread that awaits one runs
  // the worker's oldest queued piece itself when the worker is not running one, instead of
  // sleeping until the worker thread has woken up, run it and woken the waiter. Pieces run
  // in submission order either way (only the oldest is taken, and never beside a running
  // one). Stays safe to use after the worker is destroyed (it then offers nothing).
  const std::shared_ptr<WorkerHelp>& help() const { return help_; }

  // Tests only: while paused, no worker's thread starts a queued piece (a stopping worker
  // still drains); pieces run only where a waiting thread takes them (help()).
  static void PauseThreadsForTesting(bool paused);

  // Process exit: stops every live worker after its queued work and joins its thread.
  // Called by the main thread's exit drain and registered with std::atexit by the first
  // Worker (a second call finds nothing left); public only so that it has a name.
  static void FinishAllAtExit();

 private:
  friend class WorkerHelp;

  void Loop();
  void RequestStop();
  void Join();
  // Runs the oldest queued piece on the calling thread when nothing runs and the worker is
  // not stopping; false if it ran nothing.
  bool RunOldest();
  // Clears kBusy after a piece run off the thread (inline or by a waiter), waking the thread
  // if work was queued meanwhile.
  void EndBusy();

  // state_ packs what TryRunInline must see at once: kBusy while a piece of work runs (on
  // the thread or inline), kStopping once stopping, plus kQueued per queued piece. It
  // changes under mu_, except that an inline run sets and clears kBusy with single atomic
  // operations, so that a run on an idle worker takes no lock.
  static constexpr uint64_t kBusy = 1;
  static constexpr uint64_t kQueued = 2;
  static constexpr uint64_t kStopping = uint64_t{1} << 62;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // under mu_
  bool stopping_ = false;                    // under mu_
  std::atomic<uint64_t> state_{0};
  std::shared_ptr<WorkerHelp> help_;
  std::thread thread_;
};

class WorkerHelp final : public plugin::EventHelper {
 public:
  WorkerHelp(Worker* worker, bool (*may_help)()) : worker_(worker), may_help_(may_help) {}
  // One queued piece run on this thread (Worker::help); one waiting thread at a time.
  bool HelpOnce() override;
  // From now on HelpOnce does nothing; waits for a piece a waiting thread is running.
  void Detach();

 private:
  std::mutex mu_;
  Worker* worker_;  // under mu_; null once detached
  bool (*may_help_)();
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_WORKER_H_
