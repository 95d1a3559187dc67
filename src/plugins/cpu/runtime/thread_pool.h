// The CPU plugin's kernel threads: a small process-wide pool that splits one large loop
// over the machine's cores. The calling thread (a device worker) always takes part, so a
// loop never waits for a pool thread that is busy elsewhere. A pool thread that finished
// its part polls for the next loop, and the caller for the parts still running, for the
// caller's client's kernel_spin_us (cpu_settings.h) before sleeping; outside a client
// (the kernels' own tests) they sleep at once.
#ifndef SEAM_PLUGINS_CPU_THREAD_POOL_H_
#define SEAM_PLUGINS_CPU_THREAD_POOL_H_

#include <cstdint>
#include <functional>

namespace seam::cpu {

// Loops with fewer elements than this run on the calling thread alone: below it, waking a
// second thread costs about as much as it saves.
inline constexpr int64_t kParallelMinimumElements = int64_t{64} * 1024;

// How many threads a loop may use (the calling thread included): the active client's
// setting (cpu_settings.h: option `threads`, else SEAM_CPU_THREADS), else SEAM_CPU_THREADS
// when set to a positive number, else the number of hardware threads; at most 256. Client
// creation refuses any other value of the option or the variable. A loop's helper threads
// run with the caller's active settings.
inline constexpr char kKernelThreadsVariable[] = "SEAM_CPU_THREADS";
int KernelThreads();

// The thread count the latest ParallelFor call of the process split its loop over (1: the
// calling thread alone), for tests of the setting.
int LastLoopThreads();

// Overrides KernelThreads() for this process (tests and benchmarks); 0 restores the default.
void SetKernelThreads(int threads);

// Calls fn(begin, end) on disjoint ranges that together cover [0, tasks), each range on one
// thread, and returns when all are done. Which thread runs which range varies; callers
// must produce the same result for any split (each task writes only its own outputs).
void ParallelFor(int64_t tasks, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_THREAD_POOL_H_
