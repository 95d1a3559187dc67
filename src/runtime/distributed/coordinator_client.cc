#include "src/runtime/distributed/coordinator_client.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "proto/coordinator.grpc.pb.h"
#include "src/runtime/distributed/grpc_logging.h"
#include "src/runtime/distributed/job_secret.h"

namespace seam::runtime {
namespace {

namespace pb = ::seam::coordinator;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Extra time an RPC's own deadline gets beyond the wait the service is asked for, so that
// the service's answer (naming what it waited for) normally arrives first.
constexpr milliseconds kRpcMargin{2000};
// The message gRPC gives a call that reached its own deadline (no answer from the service).
constexpr char kGrpcDeadlineMessage[] = "Deadline Exceeded";
// The longest wait a caller may ask for (a larger one is cut to it): no clock overflows.
constexpr milliseconds kMaxWait{int64_t{30} * 24 * 3600 * 1000};

void SetDeadline(grpc::ClientContext& context, Clock::time_point deadline) {
  context.set_deadline(std::chrono::system_clock::now() + (deadline - Clock::now()));
}

int64_t MillisUntil(Clock::time_point deadline) {
  return std::max<int64_t>(
      0, std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count());
}

absl::Status FromGrpc(const grpc::Status& status) {
  return {static_cast<absl::StatusCode>(status.error_code()), status.error_message()};
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown host";
  return name;
}

}  // namespace

class CoordinatorClient::Impl {
 public:
  Impl(CoordinatorOptions options, JobTopology topology, LostCallback on_lost)
      : options_(std::move(options)), topology_(topology), on_lost_(std::move(on_lost)) {
    QuietGrpcLogging();
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
    // While rank 0 starts up, retry the connection often (gRPC's default backoff grows to
    // two minutes).
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    args.SetMaxReceiveMessageSize(-1);
    channel_ =
        grpc::CreateCustomChannel(options_.Target(), grpc::InsecureChannelCredentials(), args);
    stub_ = pb::Coordinator::NewStub(channel_);
  }

  ~Impl() { Close(); }

  // Registers this rank; the job's incarnation.
  absl::StatusOr<uint64_t> Connect(Clock::time_point deadline) {
    grpc::ClientContext context;
    Authenticate(context);
    SetDeadline(context, deadline);
    context.set_wait_for_ready(true);
    pb::ConnectRequest request;
    request.set_rank(topology_.rank);
    request.set_world_size(topology_.world_size);
    request.set_host(HostName());
    request.set_pid(getpid());
    pb::ConnectReply reply;
    const grpc::Status status = stub_->Connect(&context, request, &reply);
    if (status.ok()) {
      incarnation_ = reply.incarnation();
      return incarnation_;
    }
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ||
        status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      return absl::DeadlineExceededError(absl::StrCat(
          "Failed to initialize distributed runtime client: could not reach ", Service(),
          " within ", options_.startup_timeout.count(),
          " s (SEAM_COORDINATOR_TIMEOUT_SEC); is rank 0 running, and are MASTER_ADDR and "
          "XLA_COORDINATOR_PORT the same for every rank? (",
          status.error_message(), ")"));
    }
    std::string text =
        absl::StrCat("Failed to initialize distributed runtime client: ", status.error_message());
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
        status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
      absl::StrAppend(&text,
                      options_.secret_file.empty()
                          ? " (this process has no job secret: SEAM_JOB_SECRET_FILE is unset)"
                          : absl::StrCat(" (this process's secret is from ", kJobSecretFileVariable,
                                         "='", absl::CHexEscape(options_.secret_file), "')"));
    }
    return absl::Status(FromGrpc(status).code(), text);
  }

  // Starts the heartbeats and the Watch stream, and waits until the service watches this
  // process (its first message), so that from the return on the process's end is noticed.
  absl::Status StartLiveness(Clock::time_point deadline) {
    heartbeat_thread_ = std::thread([this] { HeartbeatLoop(); });
    watch_thread_ = std::thread([this] { WatchLoop(); });
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, deadline, [this] { return watched_ || lost_.load(); });
    if (watched_) return absl::OkStatus();
    lock.unlock();
    absl::Status health = Health();
    return absl::DeadlineExceededError(absl::StrCat(
        "Failed to initialize distributed runtime client: ", Service(),
        " did not open the Watch stream by the start-up deadline (SEAM_COORDINATOR_TIMEOUT_SEC)",
        health.ok() ? "" : ": ", health.message()));
  }

  absl::Status Barrier(const std::string& name, Clock::time_point deadline) {
    if (absl::Status lost = Health(); !lost.ok()) return lost;  // a lost job fails every call
    grpc::ClientContext context;
    Authenticate(context);
    SetDeadline(context, deadline + kRpcMargin);
    pb::BarrierRequest request;
    request.set_incarnation(incarnation_);
    request.set_rank(topology_.rank);
    request.set_name(name);
    request.set_timeout_ms(MillisUntil(deadline));
    pb::BarrierReply reply;
    return Answer(stub_->Barrier(&context, request, &reply), "barrier '" + name + "'");
  }

  absl::StatusOr<std::string> Get(std::string_view key, milliseconds timeout) {
    if (absl::Status lost = Health(); !lost.ok()) return lost;  // a lost job fails every call
    timeout = std::clamp(timeout, milliseconds(0), kMaxWait);
    grpc::ClientContext context;
    Authenticate(context);
    SetDeadline(context, Clock::now() + timeout + kRpcMargin);
    pb::GetRequest request;
    request.set_incarnation(incarnation_);
    request.set_key(std::string(key));
    request.set_timeout_ms(timeout.count());
    pb::GetReply reply;
    absl::Status status = Answer(stub_->Get(&context, request, &reply), Describe("get", key));
    if (!status.ok()) return status;
    return std::move(*reply.mutable_value());
  }

  absl::StatusOr<std::string> TryGet(std::string_view key) {
    if (absl::Status lost = Health(); !lost.ok()) return lost;  // a lost job fails every call
    grpc::ClientContext context;
    Authenticate(context);
    SetDeadline(context, Clock::now() + kRpcMargin + options_.LossTimeout());
    pb::TryGetRequest request;
    request.set_incarnation(incarnation_);
    request.set_key(std::string(key));
    pb::GetReply reply;
    absl::Status status =
        Answer(stub_->TryGet(&context, request, &reply), Describe("try-get", key));
    if (!status.ok()) return status;
    return std::move(*reply.mutable_value());
  }

  absl::Status Put(std::string_view key, std::string_view value) {
    if (absl::Status lost = Health(); !lost.ok()) return lost;  // a lost job fails every call
    grpc::ClientContext context;
    Authenticate(context);
    SetDeadline(context, Clock::now() + kRpcMargin + options_.LossTimeout());
    pb::PutRequest request;
    request.set_incarnation(incarnation_);
    request.set_key(std::string(key));
    request.set_value(std::string(value));
    pb::PutReply reply;
    return Answer(stub_->Put(&context, request, &reply), Describe("put", key));
  }

  absl::Status Health() const {
    if (!lost_.load(std::memory_order_acquire)) return absl::OkStatus();
    std::lock_guard<std::mutex> lock(lost_mu_);
    return lost_status_;
  }

  absl::Status Leave(int exit_status, milliseconds timeout) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      leaving_ = true;
    }
    timeout = std::clamp(timeout, milliseconds(0), kMaxWait);
    grpc::ClientContext context;
    Authenticate(context);
    SetDeadline(context, Clock::now() + timeout + kRpcMargin);
    pb::LeaveRequest request;
    request.set_incarnation(incarnation_);
    request.set_rank(topology_.rank);
    request.set_exit_status(exit_status);
    request.set_timeout_ms(timeout.count());
    {
      std::lock_guard<std::mutex> lock(steps_mu_);
      request.set_job_steps(job_steps_);
    }
    request.set_preempted(exit_status == kPreemptedExitStatus && PreemptionReached());
    pb::LeaveReply reply;
    return Answer(stub_->Leave(&context, request, &reply), "leave");
  }

  absl::Status BeginJobWideStep() {
    std::lock_guard<std::mutex> lock(steps_mu_);
    for (const pb::Departure& departure : departed_) {
      if (departure.job_steps() <= job_steps_) {
        return absl::AbortedError(DepartureText(departure, job_steps_ + 1, false));
      }
    }
    ++job_steps_;
    return absl::OkStatus();
  }

  absl::StatusOr<bool> ReachedPreemptionSyncPoint(int64_t step, bool signaled) {
    std::unique_lock<std::mutex> lock(pm_mu_);
    last_step_ = step;
    if (signaled && !reported_) {
      reported_ = true;
      reported_step_ = step;
      lock.unlock();
      ReportPreemption(step);
      lock.lock();
    }
    // Past the step it reported, a rank waits for the sync step: the others' reports may
    // make it any step from here on, and this rank must not run beyond it.
    while (sync_step_ < 0 && reported_ && step > reported_step_) {
      lock.unlock();
      if (absl::Status health = Health(); !health.ok()) return health;
      lock.lock();
      pm_cv_.wait_for(lock, milliseconds(100));
    }
    return sync_step_ >= 0 && step >= sync_step_;
  }

  bool PreemptionReached() const {
    std::lock_guard<std::mutex> lock(pm_mu_);
    return sync_step_ >= 0 && last_step_ >= sync_step_;
  }

  std::vector<int> DepartedRanks() const {
    std::lock_guard<std::mutex> lock(steps_mu_);
    std::vector<int> ranks;
    ranks.reserve(departed_.size());
    for (const pb::Departure& departure : departed_) ranks.push_back(departure.rank());
    return ranks;
  }

  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
      if (watch_context_ != nullptr) watch_context_->TryCancel();
      if (heartbeat_context_ != nullptr) heartbeat_context_->TryCancel();
    }
    cv_.notify_all();
    if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
    if (watch_thread_.joinable()) watch_thread_.join();
  }

 private:
  // Every call carries the job's secret, when it has one.
  void Authenticate(grpc::ClientContext& context) const {
    if (!options_.secret.empty()) context.AddMetadata(kJobSecretMetadataKey, options_.secret);
  }

  std::string Service() const {
    return absl::StrCat("the coordinator at ", options_.Target(), " (hosted by rank 0)");
  }

  static std::string Describe(const char* what, std::string_view key) {
    return absl::StrCat("key-value ", what, " of '",
                        absl::CHexEscape(absl::string_view(key.data(), key.size())), "'");
  }

  // The outcome of an RPC: the job's error once the job is lost (it explains any failure
  // better); the service's own answers as they are; a failure to reach the service named.
  absl::Status Answer(const grpc::Status& status, const std::string& what) const {
    if (status.ok()) return absl::OkStatus();
    // A timeout the service itself reported (a barrier naming the ranks that did not arrive)
    // stands even when the job is found lost just after it: the process hosting the service
    // may exit as soon as it has answered, closing this process's Watch stream before this
    // line runs. Anything the service did not answer defers to the job's health.
    const bool service_timeout = status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED &&
                                 status.error_message() != kGrpcDeadlineMessage;
    if (absl::Status lost = Health(); !lost.ok() && !service_timeout) return lost;
    switch (status.error_code()) {
      case grpc::StatusCode::UNAVAILABLE:
      case grpc::StatusCode::CANCELLED:
      case grpc::StatusCode::UNKNOWN:
      case grpc::StatusCode::INTERNAL:
        return absl::UnavailableError(absl::StrCat(
            what, " failed: ", Service(), " did not answer (", status.error_message(), ")"));
      default:
        return FromGrpc(status);
    }
  }

  static std::string DepartureText(const pb::Departure& departure, int64_t step, bool waits) {
    return absl::StrCat("The job has lost rank ", departure.rank(), " (", departure.who(),
                        "): it exited (status 0) and left the job after ", departure.job_steps(),
                        " job-wide steps, ", waits ? "while this process waits in" : "and",
                        " job-wide step ", step, waits ? ", which needs it" : " needs every rank");
  }

  // The service's word on the job's preemption: once noticed, this rank reports the last
  // step it reached (once); the sync step, once known, releases a waiting rank.
  void NotePreemption(const pb::Preemption& preemption) {
    if (!preemption.noticed()) return;
    std::optional<int64_t> report;
    {
      std::lock_guard<std::mutex> lock(pm_mu_);
      if (preemption.sync_step() >= 0 && sync_step_ < 0) {
        sync_step_ = preemption.sync_step();
        pm_cv_.notify_all();
      }
      if (!reported_) {
        reported_ = true;
        reported_step_ = last_step_;
        report = last_step_;
      }
    }
    if (report.has_value()) ReportPreemption(*report);
  }

  // Sends this rank's report (a few tries while the job is whole) and notes the reply.
  void ReportPreemption(int64_t step) {
    for (int attempt = 0; attempt < 3 && Health().ok(); ++attempt) {
      grpc::ClientContext context;
      Authenticate(context);
      SetDeadline(context, Clock::now() + kRpcMargin + options_.LossTimeout());
      pb::PreemptionReport request;
      request.set_incarnation(incarnation_);
      request.set_rank(topology_.rank);
      request.set_step(step);
      pb::PreemptionReply reply;
      if (stub_->ReportPreemption(&context, request, &reply).ok()) {
        std::lock_guard<std::mutex> lock(pm_mu_);
        if (reply.preemption().sync_step() >= 0 && sync_step_ < 0) {
          sync_step_ = reply.preemption().sync_step();
          pm_cv_.notify_all();
        }
        return;
      }
    }
  }

  // Ranks that left the job: a job-wide step this process launched beyond a leaver's last
  // one can never complete (its collective waits for the leaver), so the job is lost.
  void NoteDepartures(const pb::JobState& state) {
    std::optional<absl::Status> lost;
    {
      std::lock_guard<std::mutex> lock(steps_mu_);
      for (const pb::Departure& departure : state.departed()) {
        const bool known =
            std::any_of(departed_.begin(), departed_.end(),
                        [&](const pb::Departure& d) { return d.rank() == departure.rank(); });
        if (known) continue;
        departed_.push_back(departure);
        if (!lost.has_value() && departure.job_steps() < job_steps_) {
          lost = absl::AbortedError(DepartureText(departure, departure.job_steps() + 1, true));
        }
      }
    }
    if (lost.has_value()) SetLost(*lost);
  }

  // Records the loss (the first one wins) and tells the owner, unless this process is
  // already leaving the job or closing the client.
  void SetLost(const absl::Status& status) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closing_ || leaving_) return;
    }
    {
      std::lock_guard<std::mutex> lock(lost_mu_);
      if (lost_.load(std::memory_order_relaxed)) return;
      lost_status_ = status;
      lost_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
    if (on_lost_) on_lost_(status);
  }

  bool Stopping() {
    std::lock_guard<std::mutex> lock(mu_);
    return closing_ || leaving_ || lost_.load(std::memory_order_acquire);
  }

  void HeartbeatLoop() {
    Clock::time_point last_answer = Clock::now();
    while (!Stopping()) {
      const Clock::time_point sent = Clock::now();
      grpc::ClientContext context;
      Authenticate(context);
      SetDeadline(context, sent + options_.heartbeat_interval);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (closing_) break;
        heartbeat_context_ = &context;
      }
      pb::HeartbeatRequest request;
      request.set_incarnation(incarnation_);
      request.set_rank(topology_.rank);
      pb::HeartbeatReply reply;
      const grpc::Status status = stub_->Heartbeat(&context, request, &reply);
      {
        std::lock_guard<std::mutex> lock(mu_);
        heartbeat_context_ = nullptr;
      }
      const Clock::time_point now = Clock::now();
      if (status.ok()) {
        last_answer = now;
        NoteDepartures(reply.state());
        NotePreemption(reply.state().preemption());
        if (reply.state().lost()) SetLost(absl::AbortedError(reply.state().reason()));
      } else if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        SetLost(absl::AbortedError(absl::StrCat("The job is lost: ", status.error_message())));
      } else if (now - last_answer > options_.LossTimeout()) {
        SetLost(absl::AbortedError(
            absl::StrCat("The job has lost rank 0: ", Service(), " answered no heartbeat for ",
                         std::chrono::duration_cast<milliseconds>(now - last_answer).count(),
                         " ms (limit DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC x "
                         "DIST_SERVICE_MAX_MISSING_HEARTBEATS = ",
                         options_.LossTimeout().count(), " ms; ", status.error_message(), ")")));
      }
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, sent + options_.heartbeat_interval, [this] { return closing_; });
    }
  }

  void WatchLoop() {
    grpc::ClientContext context;
    Authenticate(context);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closing_) return;
      watch_context_ = &context;
    }
    pb::WatchRequest request;
    request.set_incarnation(incarnation_);
    request.set_rank(topology_.rank);
    std::unique_ptr<grpc::ClientReader<pb::JobState>> reader = stub_->Watch(&context, request);
    pb::JobState state;
    while (reader->Read(&state)) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        watched_ = true;
      }
      cv_.notify_all();
      NoteDepartures(state);
      NotePreemption(state.preemption());
      if (state.lost()) SetLost(absl::AbortedError(state.reason()));
    }
    const grpc::Status status = reader->Finish();
    {
      std::lock_guard<std::mutex> lock(mu_);
      watch_context_ = nullptr;
    }
    if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      SetLost(absl::AbortedError(absl::StrCat("The job is lost: ", status.error_message())));
    } else {
      SetLost(absl::AbortedError(absl::StrCat(
          "The job has lost rank 0: the connection to ", Service(), " closed (",
          status.ok() ? "the service is shutting down" : status.error_message(), ")")));
    }
  }

  const CoordinatorOptions options_;
  const JobTopology topology_;
  const LostCallback on_lost_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Coordinator::Stub> stub_;
  uint64_t incarnation_ = 0;

  // Job-wide steps this process launched, and the ranks that left the job.
  mutable std::mutex steps_mu_;
  int64_t job_steps_ = 0;
  std::vector<pb::Departure> departed_;

  // The job's preemption (ReachedPreemptionSyncPoint): the last step this process reached,
  // whether and at which step it reported the notice, and the sync step (-1: not known).
  mutable std::mutex pm_mu_;
  std::condition_variable pm_cv_;
  int64_t last_step_ = -1;
  bool reported_ = false;
  int64_t reported_step_ = -1;
  int64_t sync_step_ = -1;

  std::atomic<bool> lost_{false};
  mutable std::mutex lost_mu_;
  absl::Status lost_status_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool closing_ = false;
  bool leaving_ = false;
  bool watched_ = false;  // the service's first message on the Watch stream arrived
  grpc::ClientContext* watch_context_ = nullptr;
  grpc::ClientContext* heartbeat_context_ = nullptr;
  std::thread heartbeat_thread_;
  std::thread watch_thread_;
};

absl::StatusOr<std::unique_ptr<CoordinatorClient>> CoordinatorClient::Connect(
    const CoordinatorOptions& options, const JobTopology& topology, Deadline deadline,
    LostCallback on_lost) {
  auto impl = std::make_unique<Impl>(options, topology, std::move(on_lost));
  absl::StatusOr<uint64_t> incarnation = impl->Connect(deadline);
  if (!incarnation.ok()) return incarnation.status();
  if (absl::Status started = impl->StartLiveness(deadline); !started.ok()) return started;
  return std::unique_ptr<CoordinatorClient>(new CoordinatorClient(std::move(impl), *incarnation));
}

CoordinatorClient::CoordinatorClient(std::unique_ptr<Impl> impl, uint64_t incarnation)
    : impl_(std::move(impl)), incarnation_(incarnation) {}

CoordinatorClient::~CoordinatorClient() { impl_->Close(); }

absl::Status CoordinatorClient::Barrier(const std::string& name, Deadline deadline) {
  return impl_->Barrier(name, deadline);
}

absl::StatusOr<std::string> CoordinatorClient::Get(std::string_view key,
                                                   std::chrono::milliseconds timeout) {
  return impl_->Get(key, timeout);
}

absl::StatusOr<std::string> CoordinatorClient::TryGet(std::string_view key) {
  return impl_->TryGet(key);
}

absl::Status CoordinatorClient::Put(std::string_view key, std::string_view value) {
  return impl_->Put(key, value);
}

absl::Status CoordinatorClient::Health() const { return impl_->Health(); }

absl::Status CoordinatorClient::Leave(int exit_status, std::chrono::milliseconds timeout) {
  return impl_->Leave(exit_status, timeout);
}

absl::Status CoordinatorClient::BeginJobWideStep() { return impl_->BeginJobWideStep(); }

std::vector<int> CoordinatorClient::DepartedRanks() const { return impl_->DepartedRanks(); }

absl::StatusOr<bool> CoordinatorClient::ReachedPreemptionSyncPoint(int64_t step, bool signaled) {
  return impl_->ReachedPreemptionSyncPoint(step, signaled);
}

bool CoordinatorClient::PreemptionReached() const { return impl_->PreemptionReached(); }

void CoordinatorClient::Close() { impl_->Close(); }

}  // namespace seam::runtime
