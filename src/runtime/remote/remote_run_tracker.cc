#include "src/runtime/remote/remote_run_tracker.h"

#include <algorithm>
#include <utility>

namespace seam::runtime {

void RunTracker::Launched(const std::string& device, std::shared_ptr<RunRecord> run) {
  std::lock_guard<std::mutex> lock(mu_);
  std::deque<std::shared_ptr<RunRecord>>& runs = runs_[device];
  // Drop what is known finished, so the list stays as long as the runs in flight.
  std::erase_if(runs, [](const std::shared_ptr<RunRecord>& r) {
    return r->finished.load(std::memory_order_acquire);
  });
  runs.push_back(std::move(run));
}

int64_t RunTracker::Unfinished(const std::string& device) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = runs_.find(device);
  if (it == runs_.end()) return 0;
  std::erase_if(it->second, [](const std::shared_ptr<RunRecord>& r) {
    return r->finished.load(std::memory_order_acquire);
  });
  return static_cast<int64_t>(it->second.size());
}

void RunTracker::Bound(const std::string& device, int64_t in_flight) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = runs_.find(device);
  if (it == runs_.end()) return;
  while (static_cast<int64_t>(it->second.size()) > std::max<int64_t>(in_flight, 0)) {
    it->second.pop_front();
  }
}

}  // namespace seam::runtime
