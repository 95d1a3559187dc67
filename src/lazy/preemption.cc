// The public preemption sync (include/seam/distributed.h; docs/distributed.md,
// "Preemption"): a SIGTERM handler that only sets a flag, and the per-step question, which
// the coordinator answers for a job of several processes.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "seam/distributed.h"
#include "src/lazy/tensor_internal.h"
#include "src/runtime/distributed/coordinator.h"

namespace seam {
namespace {

// Set by the handler: a lock-free atomic is async-signal-safe to store to.
std::atomic<int> g_notice{0};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<bool> g_active{false};

void OnPreemptionNotice(int /*signal*/) { g_notice.store(1, std::memory_order_relaxed); }

// The thread that takes SIGTERM for every thread started after activation (they inherit the
// blocked mask): a signal handler that runs in a thread of a math library in the middle of
// its work was seen to leave oneDNN's state corrupt at exit (1 run in 5 of a 2-process job),
// so the signal goes to this thread, which only waits for it.
void WatchNotices() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  while (true) {
    int signal = 0;
    if (sigwait(&set, &signal) == 0 && signal == SIGTERM) {
      g_notice.store(1, std::memory_order_relaxed);
    }
  }
}

// A child forked after activation starts with SIGTERM unblocked, as it would have without it
// (a program the child runs should not inherit the mask).
void UnblockInChild() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace

void activate_preemption_sync() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = &OnPreemptionNotice;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // a blocking call in progress goes on, not EINTR
    if (sigaction(SIGTERM, &action, nullptr) != 0) {
      lazy::Throw(absl::InternalError(absl::StrCat(
          "activate_preemption_sync: cannot install the SIGTERM handler: ", std::strerror(errno))));
    }
    // Threads started before this call keep SIGTERM unblocked: the handler serves them.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(&WatchNotices).detach();
    pthread_atfork(nullptr, nullptr, &UnblockInChild);
    g_active.store(true);
  });
}

bool preemption_noticed() { return g_notice.load(std::memory_order_relaxed) != 0; }

bool reached_preemption_sync_point(int64_t step) {
  if (!g_active.load()) {
    lazy::Throw(absl::FailedPreconditionError(
        "reached_preemption_sync_point: call seam::activate_preemption_sync() first (without it "
        "SIGTERM ends the process and there is no notice to agree on)"));
  }
  if (step < 0) {
    lazy::ThrowInvalid(
        absl::StrCat("reached_preemption_sync_point: the step must be 0 or more, got ", step));
  }
  process_count();  // starts the client, and with it the coordinator of a job of several
  absl::StatusOr<bool> reached = runtime::ReachedPreemptionSyncPoint(step, preemption_noticed());
  if (!reached.ok()) lazy::Throw(reached.status());
  return *reached;
}

}  // namespace seam
