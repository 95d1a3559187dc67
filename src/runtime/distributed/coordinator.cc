#include "src/runtime/distributed/coordinator.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "src/base/logging.h"
#include "src/runtime/distributed/coordinator_client.h"
#include "src/runtime/distributed/coordinator_service.h"

namespace seam::runtime {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::atomic<Coordinator*> g_coordinator{nullptr};

// The lost-job rule (docs/distributed.md, "Failure behaviour"). The loss is reported once;
// the exit is armed only once InitializeCoordinator has succeeded (a loss during start-up
// is that call's error instead).
struct LostJob {
  std::mutex mu;
  bool armed = false;
  bool reported = false;
  absl::Status status;
  std::chrono::seconds grace{10};
};

LostJob& Lost() {
  static auto* lost = new LostJob();  // leaked: read by threads while the process exits
  return *lost;
}

// Written with write(2): the main thread may hold stdio's locks (stuck inside a call).
void WriteStderr(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// The status passed to exit() once the process has begun to exit (-1 before).
std::atomic<int> g_exit_status{-1};

void EndLostProcess(const absl::Status& status, std::chrono::seconds grace) {
  const int exiting = g_exit_status.load();
  if (exiting > 0) {
    // Already exiting with an error status of its own, but slowly (its exit handlers wait
    // for a lost peer): keep that status.
    WriteStderr(absl::StrCat("seam E Ending the exit with status ", exiting, ": ", status.message(),
                             ". The exit took longer than ", grace.count(),
                             " s (SEAM_LOST_JOB_GRACE_SEC)\n"));
    _exit(exiting);
  }
  WriteStderr(absl::StrCat("seam E Exiting with status 1: ", status.message(),
                           ". This process did not end within ", grace.count(),
                           " s (SEAM_LOST_JOB_GRACE_SEC) of learning it (stuck in a collective "
                           "with the lost rank?)\n"));
  _exit(1);
}

void ReportLostLocked(LostJob& lost) {
  if (lost.reported || !lost.armed || lost.status.ok()) return;
  lost.reported = true;
  base::Log(base::LogSeverity::kError,
            absl::StrCat(lost.status.message(), ". This process ends with exit status 1 in ",
                         lost.grace.count(), " s unless it ends sooner (SEAM_LOST_JOB_GRACE_SEC)"));
  const absl::Status status = lost.status;
  const std::chrono::seconds grace = lost.grace;
  if (grace.count() == 0) EndLostProcess(status, grace);
  std::thread([status, grace] {
    std::this_thread::sleep_for(grace);
    EndLostProcess(status, grace);
  }).detach();
}

void OnJobLost(const absl::Status& status) {
  LostJob& lost = Lost();
  std::lock_guard<std::mutex> lock(lost.mu);
  if (lost.status.ok()) lost.status = status;
  ReportLostLocked(lost);
}

void ArmLostJobExit(std::chrono::seconds grace) {
  LostJob& lost = Lost();
  std::lock_guard<std::mutex> lock(lost.mu);
  lost.grace = grace;
  lost.armed = true;
  ReportLostLocked(lost);
}

void OnProcessExit(int exit_status, void* /*arg*/) {
  g_exit_status.store(exit_status);
  Coordinator* coordinator = g_coordinator.load(std::memory_order_acquire);
  if (coordinator != nullptr) coordinator->Shutdown(exit_status);
}

}  // namespace

Coordinator::Coordinator(JobTopology topology, CoordinatorOptions options,
                         std::unique_ptr<CoordinationService> service,
                         std::shared_ptr<CoordinatorClient> client)
    : topology_(topology),
      options_(std::move(options)),
      service_(std::move(service)),
      client_(std::move(client)) {}

Coordinator::~Coordinator() { Shutdown(0); }

uint64_t Coordinator::incarnation() const { return client_->incarnation(); }

std::shared_ptr<KeyValueStore> Coordinator::store() const { return client_; }

JobKeyValueStore Coordinator::PluginStore() const {
  return JobKeyValueStore{client_, PluginKeyPrefix(client_->incarnation())};
}

absl::Status Coordinator::Barrier(const std::string& name, milliseconds timeout) {
  const milliseconds limit =
      std::clamp(timeout, milliseconds(0), milliseconds(std::chrono::hours(24 * 30)));
  return client_->Barrier("user:" + name, Clock::now() + limit);
}

absl::Status Coordinator::Health() const { return client_->Health(); }

absl::Status Coordinator::BeginJobWideStep() { return client_->BeginJobWideStep(); }

absl::StatusOr<bool> Coordinator::ReachedPreemptionSyncPoint(int64_t step, bool signaled) {
  return client_->ReachedPreemptionSyncPoint(step, signaled);
}

void Coordinator::Shutdown(int exit_status) {
  if (shut_down_) return;
  shut_down_ = true;
  const bool whole = client_->Health().ok();
  if (whole) {
    // A process that stops at the job's preemption sync step leaves like one that finished.
    const bool orderly =
        exit_status == 0 || (exit_status == kPreemptedExitStatus && client_->PreemptionReached());
    const milliseconds wait = orderly ? milliseconds(options_.shutdown_timeout) : milliseconds(0);
    client_->Leave(exit_status, wait).IgnoreError();
  }
  client_->Close();
  // A lost job may have a stopped peer whose calls never finish: do not wait for them.
  if (service_ != nullptr) service_->Stop(whole ? milliseconds(2000) : milliseconds(100));
}

absl::StatusOr<Coordinator*> InitializeCoordinator(const JobTopology& topology,
                                                   const CoordinatorOptions& options) {
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) {
    return absl::FailedPreconditionError("Can only initialize the XlaCoordinator once.");
  }
  base::Log(base::LogSeverity::kInfo, absl::StrCat("Creating coordinator for rank=", topology.rank,
                                                   ", world size=", topology.world_size,
                                                   ", coordinator address=", options.Target()));
  const Clock::time_point deadline = Clock::now() + options.startup_timeout;
  std::unique_ptr<CoordinationService> service;
  if (topology.rank == 0) {
    CoordinationService::Options service_options;
    service_options.target = options.Target();
    service_options.world_size = topology.world_size;
    service_options.loss_timeout = options.LossTimeout();
    service_options.secret = options.secret;
    service_options.loss_timeout_source =
        absl::StrCat(options.LossTimeout().count(), " ms = DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC ",
                     options.heartbeat_interval.count(), " x DIST_SERVICE_MAX_MISSING_HEARTBEATS ",
                     options.max_missing_heartbeats);
    absl::StatusOr<std::unique_ptr<CoordinationService>> started =
        CoordinationService::Start(service_options);
    if (!started.ok()) return started.status();
    service = *std::move(started);
  }
  absl::StatusOr<std::unique_ptr<CoordinatorClient>> client =
      CoordinatorClient::Connect(options, topology, deadline, &OnJobLost);
  if (!client.ok()) return client.status();
  std::shared_ptr<CoordinatorClient> shared = *std::move(client);
  if (absl::Status barrier = shared->Barrier("seam:startup", deadline); !barrier.ok()) {
    shared->Close();
    return absl::Status(barrier.code(),
                        absl::StrCat("Failed to initialize distributed runtime client: the "
                                     "start-up barrier failed (SEAM_COORDINATOR_TIMEOUT_SEC=",
                                     options.startup_timeout.count(), "): ", barrier.message()));
  }
  // Never destroyed: the plugin's client keeps the store until the process ends, and the
  // exit handler leaves the job.
  auto* coordinator = new Coordinator(topology, options, std::move(service), std::move(shared));
  g_coordinator.store(coordinator, std::memory_order_release);
  on_exit(&OnProcessExit, nullptr);
  ArmLostJobExit(options.lost_job_grace);
  return coordinator;
}

absl::StatusOr<Coordinator*> GetCoordinator() {
  Coordinator* coordinator = g_coordinator.load(std::memory_order_acquire);
  if (coordinator == nullptr) {
    return absl::FailedPreconditionError("XlaCoordinator has not been initialized");
  }
  return coordinator;
}

absl::Status JobHealth() {
  Coordinator* coordinator = g_coordinator.load(std::memory_order_acquire);
  return coordinator == nullptr ? absl::OkStatus() : coordinator->Health();
}

absl::Status BeginJobWideStep() {
  Coordinator* coordinator = g_coordinator.load(std::memory_order_acquire);
  return coordinator == nullptr ? absl::OkStatus() : coordinator->BeginJobWideStep();
}

absl::StatusOr<bool> ReachedPreemptionSyncPoint(int64_t step, bool signaled) {
  Coordinator* coordinator = g_coordinator.load(std::memory_order_acquire);
  if (coordinator == nullptr) return signaled;
  return coordinator->ReachedPreemptionSyncPoint(step, signaled);
}

}  // namespace seam::runtime
