#include "src/runtime/serve/remote_guard.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace seam::runtime {

StallWatch::StallWatch(std::chrono::milliseconds stall) : stall_(stall) {
  thread_ = std::thread([this] { Run(); });
}

StallWatch::~StallWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void StallWatch::Run() {
  // Checked a few times per deadline: a stream ends between 1 and 1.25 deadlines after its
  // last message.
  const auto period = std::clamp<std::chrono::milliseconds>(
      stall_ / 4, std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, period);
    const Clock::time_point now = Clock::now();
    for (Entry& entry : entries_) {
      if (entry.stalled || entry.done || now - entry.last_progress < stall_) continue;
      entry.stalled = true;
      ++cancelled_;
      entry.context->TryCancel();  // the handler's blocked Read returns false
    }
  }
}

int64_t StallWatch::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

StallWatch::Watched::Watched(StallWatch& watch, grpc::ServerContext* context) : watch_(watch) {
  std::lock_guard<std::mutex> lock(watch_.mu_);
  entry_ = watch_.entries_.insert(watch_.entries_.end(), Entry{context, Clock::now()});
}

StallWatch::Watched::~Watched() {
  std::lock_guard<std::mutex> lock(watch_.mu_);
  watch_.entries_.erase(entry_);
}

void StallWatch::Watched::Progress() {
  std::lock_guard<std::mutex> lock(watch_.mu_);
  entry_->last_progress = Clock::now();
}

void StallWatch::Watched::Done() {
  std::lock_guard<std::mutex> lock(watch_.mu_);
  entry_->done = true;
}

bool StallWatch::Watched::Stalled() const {
  std::lock_guard<std::mutex> lock(watch_.mu_);
  return entry_->stalled;
}

RateLimitedLog::RateLimitedLog(int burst, std::chrono::milliseconds window)
    : burst_(burst), window_(window), window_start_(Clock::now()) {}

void RateLimitedLog::Log(base::LogSeverity severity, const std::string& message) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Clock::time_point now = Clock::now();
    if (now - window_start_ >= window_) {
      window_start_ = now;
      written_in_window_ = 0;
    }
    if (written_in_window_ >= burst_) {
      ++dropped_;
      ++dropped_total_;
      return;
    }
    ++written_in_window_;
    line = dropped_ == 0 ? message
                         : absl::StrCat(message, " (", dropped_,
                                        " similar line(s) not logged "
                                        "before this one)");
    dropped_ = 0;
  }
  base::Log(severity, line);
}

int64_t RateLimitedLog::dropped_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_total_;
}

}  // namespace seam::runtime
