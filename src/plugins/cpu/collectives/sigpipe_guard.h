// Gloo writes to its sockets with writev(2), which raises SIGPIPE when the peer has gone:
// by default that signal ends the process. While a SigpipeGuard is alive, SIGPIPE is
// blocked on the calling thread, so such a write fails with EPIPE instead (an error Gloo
// reports); at destruction a SIGPIPE raised meanwhile is discarded and the thread's mask
// put back. Threads started meanwhile (Gloo's event loop) inherit the blocked mask for
// good. Where the thread had SIGPIPE blocked already, nothing changes.
#ifndef SEAM_PLUGINS_CPU_SIGPIPE_GUARD_H_
#define SEAM_PLUGINS_CPU_SIGPIPE_GUARD_H_

#include <signal.h>

namespace seam::cpu {

class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_mask_;
  bool was_blocked_ = false;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_SIGPIPE_GUARD_H_
