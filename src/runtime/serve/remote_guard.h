// What keeps `seam serve` (remote_service.h) standing against peers that mean harm, besides
// gRPC's own bounds: a deadline on streams that stop sending, and log lines about refused
// calls written at a bounded rate. docs/remote.md, "Limits".
#ifndef SEAM_RUNTIME_SERVE_REMOTE_GUARD_H_
#define SEAM_RUNTIME_SERVE_REMOTE_GUARD_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>

#include "src/base/logging.h"

namespace seam::runtime {

// Cancels a watched stream when no message arrived on it for `stall` (a peer that opened an
// upload and stopped sending would otherwise hold its thread and its buffers forever).
class StallWatch {
 public:
  using Clock = std::chrono::steady_clock;
  explicit StallWatch(std::chrono::milliseconds stall);
  ~StallWatch();  // stops the watching thread; every Watched must be gone
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  struct Entry {
    grpc::ServerContext* context = nullptr;
    Clock::time_point last_progress;
    bool stalled = false;
    bool done = false;  // the stream's messages are all read: no deadline any more
  };
  // One stream's registration while its handler reads; Progress() after every message, Done()
  // after the last.
  class Watched {
   public:
    Watched(StallWatch& watch, grpc::ServerContext* context);
    ~Watched();
    Watched(const Watched&) = delete;
    Watched& operator=(const Watched&) = delete;
    void Progress();
    // The stream's last message has been read: what the handler does next (a compile, a
    // copy to the device) may take longer than the deadline.
    void Done();
    // Whether the watch cancelled the stream (no message for the stall deadline).
    bool Stalled() const;

   private:
    StallWatch& watch_;
    std::list<Entry>::iterator entry_;
  };

  std::chrono::milliseconds stall() const { return stall_; }
  int64_t cancelled() const;  // streams ended by the deadline so far

 private:
  void Run();

  const std::chrono::milliseconds stall_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::list<Entry> entries_;
  bool stopping_ = false;
  int64_t cancelled_ = 0;
  std::thread thread_;
};

// Log lines at a bounded rate: at most `burst` in any `window`; the lines dropped are counted
// and the next line written says how many.
class RateLimitedLog {
 public:
  using Clock = std::chrono::steady_clock;
  RateLimitedLog(int burst, std::chrono::milliseconds window);
  void Log(base::LogSeverity severity, const std::string& message);
  int64_t dropped_total() const;

 private:
  const int burst_;
  const std::chrono::milliseconds window_;
  mutable std::mutex mu_;
  Clock::time_point window_start_;
  int written_in_window_ = 0;
  int64_t dropped_ = 0;  // since the last line written
  int64_t dropped_total_ = 0;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_SERVE_REMOTE_GUARD_H_
