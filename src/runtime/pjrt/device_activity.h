// What the runtime knows about one device's work: the runs launched on it and not finished
// yet (so that a step barrier can wait for them), the time each run really took, and the
// buffers alive on it (gauges LiveBuffers[<device>] and LiveBytes[<device>]).
//
// Runs finish in launch order on a device (the plugin contract: one queue per device, and
// a run is only executed on the calling thread when the device is idle), so a run's own
// time is from the later of its launch and the previous run's end, to its end: time spent
// waiting in the device's queue is not counted.
#ifndef SEAM_RUNTIME_PJRT_DEVICE_ACTIVITY_H_
#define SEAM_RUNTIME_PJRT_DEVICE_ACTIVITY_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "src/runtime/metrics.h"

namespace seam::runtime {

// Thread-safe: runs are launched by the host's threads and finish on the plugin's.
class DeviceActivity {
 public:
  // The process's record for the device named `device`: made on first use and never freed,
  // like the gauges it updates, so that a buffer handle that outlives its client (or a
  // second client of the same devices, in tests) still finds it.
  static DeviceActivity* For(const std::string& device);

  DeviceActivity(const DeviceActivity&) = delete;
  DeviceActivity& operator=(const DeviceActivity&) = delete;

  // A run was launched and has not finished yet.
  void Launched();
  // The run launched at `launch_ns` ended at `done_ns`. Returns when the run itself began:
  // max(launch, the previous run's end).
  int64_t Ended(int64_t launch_ns, int64_t done_ns);
  // A launched run (Launched() was called for it) is no longer in flight. Called after the
  // run's metrics sample is recorded, so that whoever waits for the device (a step barrier,
  // seam::wait_device_ops) reads complete metrics.
  void Retired();
  // Blocks until fewer than `limit` launched runs are unfinished.
  void AwaitInFlightBelow(int64_t limit);
  int64_t InFlight() const;

  // A buffer of `bytes` bytes was created on / released from the device.
  void BufferCreated(int64_t bytes) {
    live_buffers_->Add(1);
    live_bytes_->Add(bytes);
  }
  void BufferReleased(int64_t bytes) {
    live_buffers_->Add(-1);
    live_bytes_->Add(-bytes);
  }

 private:
  explicit DeviceActivity(const std::string& device);

  const std::string device_;
  metrics::Gauge* live_buffers_;
  metrics::Gauge* live_bytes_;
  mutable std::mutex mu_;
  std::condition_variable finished_;
  int64_t in_flight_ = 0;     // guarded by mu_
  int64_t last_done_ns_ = 0;  // guarded by mu_
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_DEVICE_ACTIVITY_H_
