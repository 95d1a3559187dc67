// One thread per device that runs the device's work in submission order.
#ifndef SEAM_PLUGINS_CPU_WORKER_H_
#define SEAM_PLUGINS_CPU_WORKER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace seam::cpu {

class Worker {
 public:
  Worker();
  ~Worker();  // finishes the queued work, then joins
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void Enqueue(std::function<void()> work);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_WORKER_H_
