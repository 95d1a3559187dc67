#include "src/runtime/process/client_decorators.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"
#include "src/runtime/distributed/coordinator.h"

namespace seam::runtime {

JobHealthClient::JobHealthClient(std::unique_ptr<ComputationClient> inner)
    : JobHealthClient(std::move(inner),
                      Probe{[] { return JobHealth(); }, [] { return BeginJobWideStep(); },
                            std::chrono::milliseconds(3000)}) {}

JobHealthClient::JobHealthClient(std::unique_ptr<ComputationClient> inner, Probe probe)
    : ForwardingClient(std::move(inner)), probe_(std::move(probe)) {}

absl::Status JobHealthClient::BeginRun(const RunStart& run) {
  // A job that lost a process fails every run, naming it (an atomic load when whole).
  SEAM_RETURN_IF_ERROR(probe_.health());
  // A job-wide run needs every process: one that has left the job fails it at once.
  if (run.job_wide) SEAM_RETURN_IF_ERROR(probe_.begin_job_wide());
  return ForwardingClient::BeginRun(run);
}

absl::Status JobHealthClient::AwaitRunsInFlightBelow(const std::string& device, int64_t limit) {
  return NameLostProcess(ForwardingClient::AwaitRunsInFlightBelow(device, limit));
}

absl::StatusOr<std::vector<ir::Literal>> JobHealthClient::DoTransferFromDevice(
    const std::vector<DataPtr>& handles) {
  absl::StatusOr<std::vector<ir::Literal>> read = ForwardingClient::DoTransferFromDevice(handles);
  if (!read.ok()) return NameLostProcess(read.status());
  return read;
}

absl::Status JobHealthClient::DoTransferFromDeviceInto(const DataPtr& handle,
                                                       absl::Span<uint8_t> destination) {
  return NameLostProcess(ForwardingClient::DoTransferFromDeviceInto(handle, destination));
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>> JobHealthClient::DoExecuteComputation(
    const Computation& computation, const std::vector<DataPtr>& arguments,
    const std::string& device, const ExecuteComputationOptions& options) {
  absl::StatusOr<std::vector<DataPtr>> outputs =
      ForwardingClient::DoExecuteComputation(computation, arguments, device, options);
  if (!outputs.ok()) return NameLostProcess(outputs.status());
  return outputs;
}

absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>>
JobHealthClient::DoExecuteReplicated(const Computation& computation,
                                     const std::vector<std::vector<DataPtr>>& arguments,
                                     const std::vector<std::string>& devices) {
  absl::StatusOr<std::vector<std::vector<DataPtr>>> outputs =
      ForwardingClient::DoExecuteReplicated(computation, arguments, devices);
  if (!outputs.ok()) return NameLostProcess(outputs.status());
  return outputs;
}

absl::Status JobHealthClient::NameLostProcess(absl::Status status) const {
  if (status.ok() || GetNumProcesses() <= 1) return status;
  const absl::StatusCode code = status.code();
  if (code != absl::StatusCode::kUnavailable && code != absl::StatusCode::kAborted &&
      code != absl::StatusCode::kDeadlineExceeded && code != absl::StatusCode::kCancelled) {
    return status;
  }
  const auto deadline = std::chrono::steady_clock::now() + probe_.loss_notice_wait;
  for (;;) {
    absl::Status health = probe_.health();
    if (!health.ok()) {
      return absl::Status(
          health.code(),
          absl::StrCat(health.message(), " (the step failed: ", status.message(), ")"));
    }
    if (std::chrono::steady_clock::now() >= deadline) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

namespace {

// A signal this process sends itself stays pending until a thread that does not block it
// takes it: with preemption sync active, the thread that waits for SIGTERM
// (src/lazy/preemption.cc), which a loaded 2-vCPU machine may not run for longer than a
// step (the preemption test of `make test` once saw its single process stop past step 7).
// The step waits, up to two seconds, until the signal is no longer pending: the notice is
// then in when the step's own check comes.
void AwaitDelivery(int signal) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    sigset_t pending;
    sigemptyset(&pending);
    if (sigpending(&pending) != 0 || sigismember(&pending, signal) != 1) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace

FaultInjectionClient::Plan FaultInjectionClient::PlanFromEnvironment() {
  Plan plan;
  plan.kill_at_step = base::ReadIntSetting(base::Setting::kSeamTestKillAtStep, 0);
  plan.sigterm_at_step = base::ReadIntSetting(base::Setting::kSeamTestSigtermAtStep, 0);
  plan.sigterm_pid = base::ReadIntSetting(base::Setting::kSeamTestSigtermPid, 0);
  return plan;
}

bool FaultInjectionClient::Acts(const Plan& plan) {
  for (const absl::StatusOr<int64_t>* value :
       {&plan.kill_at_step, &plan.sigterm_at_step, &plan.sigterm_pid}) {
    if (!value->ok() || **value != 0) return true;
  }
  return false;
}

FaultInjectionClient::FaultInjectionClient(std::unique_ptr<ComputationClient> inner, Plan plan)
    : ForwardingClient(std::move(inner)), plan_(std::move(plan)) {}

absl::Status FaultInjectionClient::BeginRun(const RunStart& run) {
  if (run.step) {
    SEAM_RETURN_IF_ERROR(plan_.kill_at_step.status());
    SEAM_RETURN_IF_ERROR(plan_.sigterm_at_step.status());
    SEAM_RETURN_IF_ERROR(plan_.sigterm_pid.status());
    const int64_t step = steps_.fetch_add(1) + 1;
    const auto send = [&](pid_t pid, int signal) {
      if (plan_.send) {
        plan_.send(pid, signal);
      } else {
        kill(pid, signal);
      }
    };
    if (*plan_.kill_at_step > 0 && step == *plan_.kill_at_step) send(getpid(), SIGKILL);
    if (*plan_.sigterm_at_step > 0 && step == *plan_.sigterm_at_step) {
      const pid_t pid = *plan_.sigterm_pid > 0 ? static_cast<pid_t>(*plan_.sigterm_pid) : getpid();
      send(pid, SIGTERM);
      if (pid == getpid() && !plan_.send) AwaitDelivery(SIGTERM);
    }
  }
  return ForwardingClient::BeginRun(run);
}

std::unique_ptr<ComputationClient> DecorateForJob(std::unique_ptr<ComputationClient> client) {
  FaultInjectionClient::Plan plan = FaultInjectionClient::PlanFromEnvironment();
  if (FaultInjectionClient::Acts(plan)) {
    client = std::make_unique<FaultInjectionClient>(std::move(client), std::move(plan));
  }
  if (GetCoordinator().ok()) client = std::make_unique<JobHealthClient>(std::move(client));
  return client;
}

}  // namespace seam::runtime
