// A rank's connection to the job's coordinator (coordinator_service.h): registration, the
// start-up barrier, the key-value store, and liveness in both directions: a heartbeat every
// interval, and a Watch stream on which the service reports a lost job at once. The client
// notices a dead or unreachable service itself (the stream breaks, or no heartbeat is
// answered for the loss timeout) and then counts rank 0, the service's host, as lost.
#ifndef SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_CLIENT_H_
#define SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/runtime/distributed/distributed_config.h"
#include "src/runtime/distributed/key_value_store.h"

namespace seam::runtime {

// The exit status of a process that stopped at the job's preemption sync step (128 +
// SIGTERM, as a shell reports a process SIGTERM ended).
inline constexpr int kPreemptedExitStatus = 143;

class CoordinatorClient : public KeyValueStore {
 public:
  using Deadline = std::chrono::steady_clock::time_point;
  // Called once, on a thread of the client, when the job is lost (ABORTED naming the rank).
  using LostCallback = std::function<void(const absl::Status&)>;

  // Connects to options.Target() as topology.rank, waiting until `deadline` for the service
  // to come up, then starts the heartbeats and the Watch stream. Errors start with "Failed
  // to initialize distributed runtime client" and name the address.
  static absl::StatusOr<std::unique_ptr<CoordinatorClient>> Connect(
      const CoordinatorOptions& options, const JobTopology& topology, Deadline deadline,
      LostCallback on_lost);
  ~CoordinatorClient() override;

  uint64_t incarnation() const { return incarnation_; }

  // Waits until every rank reaches the barrier `name` (names are single-use), or fails:
  // DEADLINE_EXCEEDED naming the ranks that did not arrive by `deadline`, or the job's error.
  absl::Status Barrier(const std::string& name, Deadline deadline);

  // KeyValueStore. Every call fails at once with the job's error once the job is lost.
  absl::StatusOr<std::string> Get(std::string_view key, std::chrono::milliseconds timeout) override;
  absl::StatusOr<std::string> TryGet(std::string_view key) override;
  absl::Status Put(std::string_view key, std::string_view value) override;

  // OK while the job is whole; its error (ABORTED, naming the lost rank) after. One atomic
  // load on the fast path.
  absl::Status Health() const;

  // Tells the service this process is exiting. With `exit_status` 0 it waits, up to
  // `timeout`, until every other connected rank exits too; with another status the job is
  // lost for the others at once.
  absl::Status Leave(int exit_status, std::chrono::milliseconds timeout);

  // Counts a job-wide step (one whose collective spans every rank) that this process is
  // about to launch. ABORTED naming the rank, and nothing counted, when a rank has left the
  // job (exit status 0) after fewer job-wide steps: the step could never complete. A rank
  // that leaves while this process waits in such a step loses the job for it at once.
  absl::Status BeginJobWideStep();

  // The job's preemption sync (docs/distributed.md, "Preemption"), called by the program
  // once per step with increasing steps. `signaled`: this process got a preemption notice
  // (SIGTERM) that it has not yet passed on. True once `step` is the step every rank agreed
  // to stop at; a rank that has reported the notice waits in its next call until that step
  // is known. The job's error (ABORTED) when it is lost while waiting.
  absl::StatusOr<bool> ReachedPreemptionSyncPoint(int64_t step, bool signaled);
  // This process has reached the agreed sync step.
  bool PreemptionReached() const;

  // The ranks this process has been told left the job with status 0, in that order.
  std::vector<int> DepartedRanks() const;

  // Stops the heartbeats and the Watch stream (no loss is reported after). Idempotent.
  void Close();

  class Impl;

 private:
  CoordinatorClient(std::unique_ptr<Impl> impl, uint64_t incarnation);
  std::unique_ptr<Impl> impl_;
  uint64_t incarnation_;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_CLIENT_H_
