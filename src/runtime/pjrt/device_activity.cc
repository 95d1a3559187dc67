#include "src/runtime/pjrt/device_activity.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "src/runtime/trace.h"

namespace seam::runtime {

DeviceActivity* DeviceActivity::For(const std::string& device) {
  static std::mutex mu;
  static auto* records = new std::map<std::string, DeviceActivity*>();
  std::lock_guard<std::mutex> lock(mu);
  DeviceActivity*& record = (*records)[device];
  if (record == nullptr) record = new DeviceActivity(device);
  return record;
}

DeviceActivity::DeviceActivity(const std::string& device)
    : device_(device),
      live_buffers_(metrics::GetOrCreateGauge(absl::StrCat("LiveBuffers[", device, "]"))),
      live_bytes_(metrics::GetOrCreateGauge(absl::StrCat("LiveBytes[", device, "]"),
                                            metrics::FormatBytes)) {}

void DeviceActivity::Launched() {
  std::lock_guard<std::mutex> lock(mu_);
  ++in_flight_;
}

int64_t DeviceActivity::Ended(int64_t launch_ns, int64_t done_ns) {
  int64_t began;
  {
    std::lock_guard<std::mutex> lock(mu_);
    began = std::max(launch_ns, last_done_ns_);
    last_done_ns_ = std::max(last_done_ns_, done_ns);
  }
  began = std::min(began, done_ns);
  // The run's own time on the device's track of the timeline.
  if (trace::On()) trace::RecordOnDevice(device_, "run", began, done_ns);
  return began;
}

void DeviceActivity::Retired() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
  }
  finished_.notify_all();
}

void DeviceActivity::AwaitInFlightBelow(int64_t limit) {
  std::unique_lock<std::mutex> lock(mu_);
  finished_.wait(lock, [&] { return in_flight_ < limit; });
}

int64_t DeviceActivity::InFlight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_flight_;
}

}  // namespace seam::runtime
