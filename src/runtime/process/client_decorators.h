// The decorators the process's client is created under
// (src/runtime/forwarding_client.h): job health and the tests' fault injection, both acting
// at the crossings of the step runner (src/lazy/step_runner.h) without it knowing of them.
#ifndef SEAM_RUNTIME_PROCESS_CLIENT_DECORATORS_H_
#define SEAM_RUNTIME_PROCESS_CLIENT_DECORATORS_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "src/runtime/forwarding_client.h"

namespace seam::runtime {

// A job of several processes: every program run fails, naming the lost process, once the
// job has lost one; a job-wide run fails at once when a process has left the job before
// reaching it; and a run or read that fails as a collective with a lost peer does
// (unavailable, aborted, deadline exceeded, cancelled) names the lost process, its own
// error following.
class JobHealthClient final : public ForwardingClient {
 public:
  struct Probe {
    // OK while the job is whole; else the error naming the lost process (JobHealth).
    std::function<absl::Status()> health;
    // Before a job-wide run: counts it, or fails naming a process that left
    // (BeginJobWideStep).
    std::function<absl::Status()> begin_job_wide;
    // How long a failed run or read waits for `health` to report a lost process (the
    // coordinator usually knows within 100 ms of a kill; a collective with the dead peer
    // may fail sooner).
    std::chrono::milliseconds loss_notice_wait{3000};
  };
  // Over the coordinator's JobHealth and BeginJobWideStep (coordinator.h).
  explicit JobHealthClient(std::unique_ptr<ComputationClient> inner);
  JobHealthClient(std::unique_ptr<ComputationClient> inner, Probe probe);

  // JobHealth, then (a job-wide run) BeginJobWideStep, then the wrapped client's.
  absl::Status BeginRun(const RunStart& run) override;
  absl::Status AwaitRunsInFlightBelow(const std::string& device, int64_t limit) override;

 protected:
  absl::StatusOr<std::vector<ir::Literal>> DoTransferFromDevice(
      const std::vector<DataPtr>& handles) override;
  absl::Status DoTransferFromDeviceInto(const DataPtr& handle,
                                        absl::Span<uint8_t> destination) override;
  absl::StatusOr<std::vector<DataPtr>> DoExecuteComputation(
      const Computation& computation, const std::vector<DataPtr>& arguments,
      const std::string& device, const ExecuteComputationOptions& options) override;
  absl::StatusOr<std::vector<std::vector<DataPtr>>> DoExecuteReplicated(
      const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
      const std::vector<std::string>& devices) override;

 private:
  // `status` unless the job has several processes, `status` is a collective's failure and
  // the job reports a lost process within loss_notice_wait: then that report, naming it,
  // with "(the step failed: <status's message>)".
  absl::Status NameLostProcess(absl::Status status) const;

  const Probe probe_;
};

// The tests' hooks, counted over the steps (RunStart::step: a barrier's or a replay's run)
// this client begins, from 1:
//   SEAM_TEST_KILL_AT_STEP=N: the process ends itself with SIGKILL as it launches step N
//     (docs/checkpoints.md: a rank killed at a known point in the middle of an epoch);
//   SEAM_TEST_SIGTERM_AT_STEP=N: a SIGTERM goes, as step N launches, to the process
//     SEAM_TEST_SIGTERM_PID names (this one when unset or 0: e.g. `seam launch`, a rank's
//     parent), as a scheduler's notice at a known point of training (docs/distributed.md,
//     "Preemption").
// A value that is not an integer fails every step with the settings' error naming it.
class FaultInjectionClient final : public ForwardingClient {
 public:
  struct Plan {
    absl::StatusOr<int64_t> kill_at_step = 0;  // 0 or less: never
    absl::StatusOr<int64_t> sigterm_at_step = 0;
    absl::StatusOr<int64_t> sigterm_pid = 0;  // 0 or less: this process
    // Sends the signal (kill(2); tests record it instead).
    std::function<void(pid_t pid, int signal)> send;
  };
  // The plan the three variables above give.
  static Plan PlanFromEnvironment();
  // Whether `plan` does anything (a value set, or an unreadable one to report).
  static bool Acts(const Plan& plan);

  FaultInjectionClient(std::unique_ptr<ComputationClient> inner, Plan plan);

  absl::Status BeginRun(const RunStart& run) override;

 private:
  const Plan plan_;
  std::atomic<int64_t> steps_{0};
};

// The process's client as the job needs it: under a FaultInjectionClient when a test
// variable above is set, under a JobHealthClient when the process is part of a job with a
// coordinator (coordinator.h); `client` itself otherwise.
std::unique_ptr<ComputationClient> DecorateForJob(std::unique_ptr<ComputationClient> client);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PROCESS_CLIENT_DECORATORS_H_
