// What the remote client knows of the runs it launched (remote_computation_client.h): a
// step asks the server about runs in flight only when this client cannot tell that its own
// runs have finished.
#ifndef SEAM_RUNTIME_REMOTE_REMOTE_RUN_TRACKER_H_
#define SEAM_RUNTIME_REMOTE_REMOTE_RUN_TRACKER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace seam::runtime {

// One run this client launched: finished once the server has said that one of its outputs is
// computed (a read or a wait returned it).
struct RunRecord {
  std::atomic<bool> finished{false};
};

// The runs this client launched per device and has not seen finish. Thread-safe.
class RunTracker {
 public:
  void Launched(const std::string& device, std::shared_ptr<RunRecord> run);
  // How many of the device's runs may still be unfinished, as far as this client knows (an
  // upper bound of its runs in flight there).
  int64_t Unfinished(const std::string& device);
  // The server said at most `in_flight` runs are unfinished on the device (all its clients'
  // together): keeps only the newest `in_flight` records, so the list stays bounded when no
  // output is ever read. The count stays an upper bound when the device finishes runs in
  // launch order (the CPU plugin does; docs/remote.md).
  void Bound(const std::string& device, int64_t in_flight);

 private:
  std::mutex mu_;
  std::map<std::string, std::deque<std::shared_ptr<RunRecord>>> runs_;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_REMOTE_RUN_TRACKER_H_
