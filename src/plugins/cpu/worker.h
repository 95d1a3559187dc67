// One thread per device that runs the device's work in submission order.
//
// Shutdown order: a client the runtime never destroys (it is leaked on purpose) keeps its
// workers alive until the process exits. Work still queued then would run on while exit()
// tears down the libraries it calls (OpenBLAS frees its buffers in its own destructor), so
// the first Worker registers an exit handler that finishes every live worker's queue and
// joins its thread before the later exit handlers and library destructors run.
#ifndef SEAM_PLUGINS_CPU_WORKER_H_
#define SEAM_PLUGINS_CPU_WORKER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/functional/function_ref.h"

namespace seam::cpu {

class Worker {
 public:
  Worker();
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

  // Process exit: stops every live worker after its queued work and joins its thread.
  // Registered with std::atexit by the first Worker; public only so that it has a name.
  static void FinishAllAtExit();

 private:
  void Loop();
  void RequestStop();
  void Join();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  bool busy_ = false;  // a piece of work is running (on the thread or inline)
  std::thread thread_;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_WORKER_H_
