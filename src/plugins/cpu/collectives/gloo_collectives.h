// All-reduce across the processes of a job, over Gloo's TCP transport (docs/cpu-plugin.md,
// "Multi-process collectives"). One per client of a multi-process job; nothing of it
// exists in a single-process job.
#ifndef SEAM_PLUGINS_CPU_GLOO_COLLECTIVES_H_
#define SEAM_PLUGINS_CPU_GLOO_COLLECTIVES_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/plugins/common/kv_store.h"
#include "src/plugins/cpu/collectives/local_address.h"

namespace gloo {
class Context;
namespace transport {
class Device;
}  // namespace transport
}  // namespace gloo

namespace seam::cpu {

struct GlooConfig {
  plugin::KvStore store;
  int64_t process_index = 0;
  int64_t process_count = 1;
  int64_t local_devices = 1;    // every process of the job must have as many
  SocketAddress local_address;  // the interface that routes to MASTER_ADDR
  std::chrono::milliseconds timeout{0};
  // How long a device's thread polls for an overlapped all_reduce before it sleeps
  // (Rendezvous::FinishAcrossProcesses); 0: it sleeps at once.
  std::chrono::microseconds finish_spin{0};
};

class GlooCollectives {
 public:
  explicit GlooCollectives(GlooConfig config);
  ~GlooCollectives();
  GlooCollectives(const GlooCollectives&) = delete;
  GlooCollectives& operator=(const GlooCollectives&) = delete;

  // All-reduces `count` elements among the processes `processes` (ascending process
  // indices, this process among them, at least two). This process contributes its
  // `inputs` (its members of the group, in the group's order: folded in that order) and
  // every one of `outputs` receives the result. Builds the Gloo context of that set of
  // processes on first use. Every dtype travels as it is (bf16 in two bytes, each fold
  // rounded to bf16 as within a process): f32, f64, bf16, s32 and s64; any other dtype is
  // UNIMPLEMENTED. A failure
  // (a peer died, the timeout passed) returns UNAVAILABLE or DEADLINE_EXCEEDED and breaks
  // the context: the next collective among these processes builds a new one under the
  // next generation's key prefix. Never throws.
  absl::Status AllReduce(const std::vector<int64_t>& processes, ir::Op op, ir::DType dtype,
                         const std::vector<const uint8_t*>& inputs,
                         const std::vector<uint8_t*>& outputs, int64_t count);

  // Closes every connected context (peers waiting on this process fail at once instead of
  // at their timeout) and moves each to its next generation. For a launch that fails
  // before its last collective.
  void BreakAll();

  // Runs `task` on this client's communication thread (started on first use), after every
  // task posted before it: the all_reduces of an executable that overlaps its collectives
  // with its kernels (executable.h) run there while the device's thread goes on. Tasks
  // posted in the same order in every process meet in that order. `task` must not throw.
  void Post(std::function<void()> task);

  const GlooConfig& config() const { return config_; }

 private:
  void CommunicationLoop();

  struct Group {
    int64_t generation = 0;
    std::shared_ptr<gloo::Context> context;  // null until built and after a failure
    uint32_t next_tag = 0;
  };

  // Precondition: mu_ held.
  absl::Status Connect(const std::vector<int64_t>& processes, Group& group);
  absl::Status ConnectAt(const std::vector<int64_t>& processes, const std::string& prefix,
                         Group& group);
  void Break(const std::vector<int64_t>& processes, Group& group);
  std::string Prefix(const std::vector<int64_t>& processes, int64_t generation) const;

  const GlooConfig config_;
  std::mutex mu_;
  std::map<std::vector<int64_t>, Group> groups_;
  std::shared_ptr<gloo::transport::Device> device_;  // created with the first context

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::function<void()>> queue_;  // guarded by queue_mu_
  bool stopping_ = false;                    // guarded by queue_mu_
  std::thread communication_;                // started by the first Post
};

// The key prefix of the Gloo context of `processes` (ascending) at `generation`, under
// the job's store: "cpu/gloo/<p0>-<p1>-.../<generation>/".
std::string GlooKeyPrefix(const std::vector<int64_t>& processes, int64_t generation);

// How many Gloo contexts this process has built (for tests: none in a single-process job).
int64_t GlooContextsBuilt();

// The bytes this process has sent in cross-process all_reduces since it started: per
// completed all_reduce of B bytes (the count times the size of the element type handed to
// Gloo: 2 for bf16) among P processes,
// 2 (P - 1) ceil(B / P), what Gloo's ring sends (reduce-scatter, then all-gather).
int64_t GlooBytesSent();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_GLOO_COLLECTIVES_H_
