#include "src/plugins/cpu/collectives/sigpipe_guard.h"

#include <pthread.h>

#include <ctime>

namespace seam::cpu {
namespace {

sigset_t OnlySigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  return set;
}

}  // namespace

SigpipeGuard::SigpipeGuard() {
  const sigset_t set = OnlySigpipe();
  pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
  was_blocked_ = sigismember(&old_mask_, SIGPIPE) == 1;
}

SigpipeGuard::~SigpipeGuard() {
  if (was_blocked_) return;
  const sigset_t set = OnlySigpipe();
  const timespec now{0, 0};
  // A SIGPIPE raised on this thread while blocked is pending: take it before unblocking.
  while (sigtimedwait(&set, nullptr, &now) == SIGPIPE) {
  }
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

}  // namespace seam::cpu
