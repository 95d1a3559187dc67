#include "src/plugins/cpu/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "src/base/settings.h"
#include "src/plugins/cpu/api/cpu_settings.h"

namespace seam::cpu {
namespace {

std::atomic<int> override_threads{0};
std::atomic<int> last_loop_threads{0};

int DefaultThreads() {
  static const int threads = [] {
    const std::optional<std::string> setting = base::ReadSetting(base::Setting::kSeamCpuThreads);
    if (setting.has_value()) {
      const char* env = setting->c_str();
      char* end = nullptr;
      long value = std::strtol(env, &end, 10);
      if (end != env && *end == '\0' && value > 0) return static_cast<int>(std::min(value, 256L));
    }
    unsigned hardware = std::thread::hardware_concurrency();
    return hardware == 0 ? 1 : static_cast<int>(hardware);
  }();
  return threads;
}

// One ParallelFor call: ranges are claimed by index until none is left.
struct Job {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t tasks = 0;
  int64_t ranges = 0;
  const CpuSettings* settings = nullptr;  // the caller's, installed on each helper
  // The caller's poll (SpinNs), copied: a helper may take the job after the caller has
  // returned, when `settings` may be gone.
  int64_t spin_ns = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mu;
  std::condition_variable finished;

  // Runs ranges until none is left; true if this call finished the last one.
  void Work() {
    for (int64_t r = next.fetch_add(1); r < ranges; r = next.fetch_add(1)) {
      int64_t begin = tasks * r / ranges, end = tasks * (r + 1) / ranges;
      if (begin < end) (*fn)(begin, end);
      if (done.fetch_add(1) + 1 == ranges) {
        std::lock_guard<std::mutex> lock(mu);
        finished.notify_all();
      }
    }
  }
};

// How long a kernel thread polls for the next loop, and a loop's caller for its last part,
// before sleeping: the caller's client's setting (cpu_settings.h, kernel_spin_us), none
// outside a client.
int64_t SpinNs(const CpuSettings* settings) {
  return settings != nullptr ? settings->kernel_spin_us.value_or(0) * 1000 : 0;
}

// The CPU's hint that this thread spins (it frees the core's resources for its sibling).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `waiting` (with the CPU's pause hint between looks) while it holds, for at most
// `ns` nanoseconds.
template <typename Waiting>
void PollWhile(Waiting waiting, int64_t ns) {
  if (ns <= 0 || !waiting()) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (waiting() && std::chrono::steady_clock::now() < until) {
    for (int k = 0; k < 32; ++k) CpuRelax();
  }
}

class Pool {
 public:
  // Helper threads start on first use, up to the largest count asked for.
  void Post(const std::shared_ptr<Job>& job, int helpers) {
    std::lock_guard<std::mutex> lock(mu_);
    while (static_cast<int>(threads_.size()) < helpers) {
      threads_.emplace_back([this] { Loop(); });
      threads_.back().detach();  // the pool lives for the whole process
    }
    for (int i = 0; i < helpers; ++i) queue_.push_back(job);
    queued_.fetch_add(helpers);
    if (sleeping_ > 0) cv_.notify_all();
  }

 private:
  void Loop() {
    int64_t spin_ns = 0;  // the last loop's caller's setting
    for (;;) {
      std::shared_ptr<Job> job;
      // A step's loops come tens of microseconds apart: polling briefly for the next one
      // spares it this thread's wake-up.
      PollWhile([this] { return queued_.load(std::memory_order_relaxed) == 0; }, spin_ns);
      {
        std::unique_lock<std::mutex> lock(mu_);
        ++sleeping_;
        cv_.wait(lock, [this] { return !queue_.empty(); });
        --sleeping_;
        job = std::move(queue_.front());
        queue_.pop_front();
        queued_.fetch_sub(1);
      }
      const ScopedCpuSettings scope(job->settings);
      spin_ns = job->spin_ns;
      job->Work();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int sleeping_ = 0;  // under mu_
  std::atomic<int> queued_{0};
  std::deque<std::shared_ptr<Job>> queue_;
  std::vector<std::thread> threads_;
};

Pool& ThePool() {
  static Pool* pool = new Pool;  // never destroyed: its threads run until the process ends
  return *pool;
}

}  // namespace

int KernelThreads() {
  int forced = override_threads.load(std::memory_order_relaxed);
  if (forced > 0) return forced;
  const CpuSettings* settings = ActiveCpuSettings();
  return settings != nullptr && settings->kernel_threads > 0 ? settings->kernel_threads
                                                             : DefaultThreads();
}

int LastLoopThreads() { return last_loop_threads.load(std::memory_order_relaxed); }

void SetKernelThreads(int threads) { override_threads.store(std::max(threads, 0)); }

void ParallelFor(int64_t tasks, const std::function<void(int64_t, int64_t)>& fn) {
  if (tasks <= 0) return;
  const int threads = static_cast<int>(std::min<int64_t>(KernelThreads(), tasks));
  last_loop_threads.store(threads, std::memory_order_relaxed);
  if (threads <= 1) return fn(0, tasks);
  auto job = std::make_shared<Job>();
  job->settings = ActiveCpuSettings();
  job->spin_ns = SpinNs(job->settings);
  job->fn = &fn;
  job->tasks = tasks;
  // A few ranges per thread, so that a thread slowed by other work on the machine does not
  // hold up the whole loop.
  job->ranges = std::min<int64_t>(tasks, int64_t{threads} * 4);
  ThePool().Post(job, threads - 1);
  job->Work();
  // The part a kernel thread still runs is usually short: poll for it before sleeping.
  PollWhile([&] { return job->done.load(std::memory_order_relaxed) != job->ranges; }, job->spin_ns);
  std::unique_lock<std::mutex> lock(job->mu);
  job->finished.wait(lock, [&] { return job->done.load() == job->ranges; });
}

}  // namespace seam::cpu
