// A lock for very short critical sections (a tensor handle's node, the live-tensor list,
// a metric's sample ring): one atomic exchange when free, where a mutex costs a library call on
// each side. A waiter yields its core after a few tries, so a preempted holder is not
// spun against for a whole time slice. Meets BasicLockable (std::lock_guard).
#ifndef SEAM_BASE_SPIN_LOCK_H_
#define SEAM_BASE_SPIN_LOCK_H_

#include <atomic>
#include <thread>

namespace seam::base {

class SpinLock {
 public:
  void lock() {
    for (int tries = 0; locked_.exchange(true, std::memory_order_acquire); ++tries) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++tries > 64) std::this_thread::yield();
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace seam::base

#endif  // SEAM_BASE_SPIN_LOCK_H_
