// The process's coordinator of a multi-process job (PyTorch/XLA's XlaCoordinator): rank 0
// hosts the service (coordinator_service.h) on MASTER_ADDR:XLA_COORDINATOR_PORT, every rank
// (0 too) connects as a client (coordinator_client.h), and all meet at a start-up barrier.
// It gives the job's key-value store (a plugin receives it through PJRT_Client_Create) and
// the job's health. Created by client selection (pjrt_registry.cc) for a plugin that
// requires it, and for PJRT_DEVICE=CPU when the world size is above 1. docs/distributed.md.
#ifndef SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_H_
#define SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/runtime/distributed/distributed_config.h"
#include "src/runtime/distributed/key_value_store.h"

namespace seam::runtime {

class CoordinationService;
class CoordinatorClient;

class Coordinator {
 public:
  Coordinator(JobTopology topology, CoordinatorOptions options,
              std::unique_ptr<CoordinationService> service,
              std::shared_ptr<CoordinatorClient> client);
  ~Coordinator();

  const JobTopology& topology() const { return topology_; }
  const CoordinatorOptions& options() const { return options_; }
  // Agreed by every rank of the job; differs between two jobs on the same address.
  uint64_t incarnation() const;

  // The job's store, keys as given.
  std::shared_ptr<KeyValueStore> store() const;
  // The store as a plugin receives it: every key prefixed with "pjrt:<incarnation>/".
  JobKeyValueStore PluginStore() const;

  // Waits until every rank calls Barrier with the same `name` (each name once per job).
  absl::Status Barrier(const std::string& name, std::chrono::milliseconds timeout);
  // OK while the job is whole; ABORTED naming the lost rank after.
  absl::Status Health() const;
  // CoordinatorClient::BeginJobWideStep.
  absl::Status BeginJobWideStep();
  // CoordinatorClient::ReachedPreemptionSyncPoint.
  absl::StatusOr<bool> ReachedPreemptionSyncPoint(int64_t step, bool signaled);

  // Leaves the job: with `exit_status` 0, or 143 once past the preemption sync step, waits (up to
  // DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN) for the other ranks to leave too, then stops the client
  // and, on rank 0, the service. Run by the process's exit handler; idempotent.
  void Shutdown(int exit_status);

 private:
  const JobTopology topology_;
  const CoordinatorOptions options_;
  std::unique_ptr<CoordinationService> service_;  // rank 0 only
  std::shared_ptr<CoordinatorClient> client_;
  bool shut_down_ = false;
};

// Creates the process's coordinator and waits at the start-up barrier, all within
// SEAM_COORDINATOR_TIMEOUT_SEC. Logs "Creating coordinator for rank=<r>, world size=<w>,
// coordinator address=<addr>:<port>" first. Once per process, whatever the outcome: a second
// call is FailedPrecondition "Can only initialize the XlaCoordinator once.". On success the
// process also gets
//   - an exit handler (Coordinator::Shutdown with the exit status), and
//   - the lost-job rule: once the job loses a rank, this process is ended with status 1
//     after SEAM_LOST_JOB_GRACE_SEC unless it ends sooner (a message on stderr says so).
absl::StatusOr<Coordinator*> InitializeCoordinator(const JobTopology& topology,
                                                   const CoordinatorOptions& options);

// The coordinator; FailedPrecondition "XlaCoordinator has not been initialized" before.
absl::StatusOr<Coordinator*> GetCoordinator();

// OK without a coordinator or while the job is whole; ABORTED naming the lost rank once
// the job has lost one. An atomic load when all is well: for the step barrier.
absl::Status JobHealth();

// Before a job-wide step (an all_reduce over every process) is launched: OK without a
// coordinator; else counts the step, or fails (ABORTED) naming a rank that has left the
// job before reaching it (CoordinatorClient::BeginJobWideStep).
absl::Status BeginJobWideStep();

// The job's preemption sync point (docs/distributed.md, "Preemption"): without a
// coordinator, `signaled` (a single process stops at the first step after its notice);
// else CoordinatorClient::ReachedPreemptionSyncPoint.
absl::StatusOr<bool> ReachedPreemptionSyncPoint(int64_t step, bool signaled);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_H_
