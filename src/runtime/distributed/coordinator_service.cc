#include "src/runtime/distributed/coordinator_service.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/coordinator.grpc.pb.h"
#include "src/base/logging.h"
#include "src/runtime/distributed/grpc_logging.h"
#include "src/runtime/distributed/job_secret.h"

namespace seam::runtime {
namespace {

namespace pb = ::seam::coordinator;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often a blocked call checks whether its caller went away or the service stops.
constexpr milliseconds kPollPeriod{100};
constexpr milliseconds kDefaultDrain{2000};
// The longest wait a request may ask for (a larger one is cut to it): no clock overflows.
constexpr int64_t kMaxWaitMs = int64_t{30} * 24 * 3600 * 1000;
// The largest request the service reads (a key and its value, with the framing).
constexpr int kMaxRequestBytes = 16 << 20;
// A refused call is logged at most this often (the count of the others follows).
constexpr milliseconds kRefusalLogPeriod{10000};
// How many refused processes a start-up barrier's timeout may name.
constexpr size_t kRefusedNotes = 4;

Clock::time_point DeadlineIn(int64_t timeout_ms) {
  return Clock::now() + milliseconds(std::clamp<int64_t>(timeout_ms, 0, kMaxWaitMs));
}

grpc::Status Error(grpc::StatusCode code, const std::string& message) { return {code, message}; }

grpc::Status ToGrpc(const absl::Status& status) {
  return {static_cast<grpc::StatusCode>(status.code()), std::string(status.message())};
}

std::string Key(const std::string& key) { return absl::StrCat("'", absl::CHexEscape(key), "'"); }

std::string Ranks(const std::vector<int>& ranks) {
  return absl::StrCat(ranks.size() == 1 ? "rank " : "ranks ", absl::StrJoin(ranks, ", "));
}

// Differs between two services with overwhelming probability, also when they start in the
// same process or at the same instant.
uint64_t NewIncarnation() {
  std::random_device device;
  uint64_t value = (static_cast<uint64_t>(device()) << 32) ^ device();
  value ^= static_cast<uint64_t>(Clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ULL;
  value ^= static_cast<uint64_t>(getpid());
  return value == 0 ? 1 : value;
}

struct RankState {
  bool connected = false;
  bool left = false;  // its process is exiting (Leave)
  std::string who;    // "pid <pid> on <host>"
  Clock::time_point last_heartbeat;
  bool preemption_reported = false;  // ReportPreemption
  int64_t preemption_step = -1;      // the last step it reached when it reported
};

struct BarrierState {
  std::set<int> arrived;
  bool done = false;
  absl::Status failure;  // sticky: a barrier that timed out fails for every rank
};

}  // namespace

class CoordinationService::Impl final : public pb::Coordinator::Service {
 public:
  explicit Impl(Options options)
      : options_(std::move(options)),
        incarnation_(NewIncarnation()),
        ranks_(static_cast<size_t>(options_.world_size)) {
    job_.mutable_preemption()->set_sync_step(-1);
  }

  ~Impl() override { Stop(kDefaultDrain); }

  absl::Status Start() {
    QuietGrpcLogging();
    grpc::ServerBuilder builder;
    int port = 0;
    // Exactly the address given: gRPC adds no wildcard for an explicit host. SO_REUSEPORT
    // off, so that a second service on the same port fails instead of sharing it.
    builder.AddListeningPort(options_.target, grpc::InsecureServerCredentials(), &port);
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // The store is for bootstrapping: a bound on each request keeps a peer that is not of
    // the job (its secret is checked only once the request is read) from filling memory.
    builder.SetMaxReceiveMessageSize(kMaxRequestBytes);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port == 0) {
      if (server_ != nullptr) server_->Shutdown();
      server_.reset();
      return absl::UnavailableError(absl::StrCat(
          "Failed to initialize distributed runtime service. Cannot listen on ", options_.target,
          " (MASTER_ADDR:XLA_COORDINATOR_PORT): the port is in use, or the address is not one "
          "of this machine's"));
    }
    checker_ = std::thread([this] { CheckHeartbeats(); });
    return absl::OkStatus();
  }

  void Stop(milliseconds drain) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    if (checker_.joinable()) checker_.join();
    // Blocked calls see stopping_ within kPollPeriod; `drain` bounds the wait for calls of a
    // peer that no longer reads (a stopped process keeps its connection open).
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now() + drain);
  }

  uint64_t incarnation() const { return incarnation_; }

  grpc::Status Connect(grpc::ServerContext* context, const pb::ConnectRequest* request,
                       pb::ConnectReply* reply) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::lock_guard<std::mutex> lock(mu_);
    const int rank = request->rank();
    const std::string who = absl::StrCat("pid ", request->pid(), " on ", request->host());
    if (request->world_size() != options_.world_size) {
      // Only the newcomer fails: it may be a stray process of another job.
      std::string reason = absl::StrCat(
          "The ranks disagree about the world size: rank 0 (which hosts the coordinator) has "
          "world size ",
          options_.world_size, ", rank ", rank, " (", who, ") has world size ",
          request->world_size(), ". The coordinator at ", options_.target,
          " refused this process; its job goes on");
      NoteRefusedLocked(absl::StrCat(who, " connected as rank ", rank, " with world size ",
                                     request->world_size(), " and was refused"));
      return Error(grpc::StatusCode::FAILED_PRECONDITION, reason);
    }
    if (rank < 0 || rank >= options_.world_size) {
      return Error(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrCat("Rank ", rank, " is not below the world size ", options_.world_size));
    }
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    RankState& state = ranks_[static_cast<size_t>(rank)];
    if (state.connected) {
      return Error(
          grpc::StatusCode::ALREADY_EXISTS,
          absl::StrCat("Rank ", rank, " is already connected to the coordinator at ",
                       options_.target, " (", state.who, "), and ", who, " connects as rank ", rank,
                       " too: two processes with the same rank, or a second job on the "
                       "same address and port"));
    }
    state.connected = true;
    state.who = who;
    state.last_heartbeat = Clock::now();
    reply->set_incarnation(incarnation_);
    return grpc::Status::OK;
  }

  grpc::Status Barrier(grpc::ServerContext* context, const pb::BarrierRequest* request,
                       pb::BarrierReply* /*reply*/) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::unique_lock<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), request->rank());
        !status.ok()) {
      return status;
    }
    BarrierState& barrier = barriers_[request->name()];
    if (!barrier.failure.ok()) return ToGrpc(barrier.failure);
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    barrier.arrived.insert(request->rank());
    if (static_cast<int>(barrier.arrived.size()) == options_.world_size) {
      barrier.done = true;
      cv_.notify_all();
      return grpc::Status::OK;
    }
    const auto deadline = DeadlineIn(request->timeout_ms());
    WaitLocked(lock, context, deadline, [&] {
      FailIfDepartedLocked(request->name(), barrier);
      return barrier.done || !barrier.failure.ok() || job_.lost();
    });
    if (barrier.done) return grpc::Status::OK;
    if (!barrier.failure.ok()) return ToGrpc(barrier.failure);
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    if (grpc::Status status = Interrupted(context); !status.ok()) return status;
    std::vector<int> missing;
    std::vector<int> never_connected;
    for (int r = 0; r < options_.world_size; ++r) {
      if (barrier.arrived.count(r) != 0) continue;
      missing.push_back(r);
      if (!ranks_[static_cast<size_t>(r)].connected) never_connected.push_back(r);
    }
    std::string text =
        absl::StrCat("Barrier '", request->name(), "' timed out after ", request->timeout_ms(),
                     " ms: ", Ranks(missing), " of ", options_.world_size, " did not arrive");
    if (!never_connected.empty()) {
      absl::StrAppend(&text, " (", Ranks(never_connected), " never connected to the coordinator",
                      refused_.empty() ? "" : "; refused: ", absl::StrJoin(refused_, "; "), ")");
    }
    barrier.failure = absl::DeadlineExceededError(text);
    cv_.notify_all();
    return ToGrpc(barrier.failure);
  }

  grpc::Status Heartbeat(grpc::ServerContext* context, const pb::HeartbeatRequest* request,
                         pb::HeartbeatReply* reply) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::lock_guard<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), request->rank());
        !status.ok()) {
      return status;
    }
    ranks_[static_cast<size_t>(request->rank())].last_heartbeat = Clock::now();
    *reply->mutable_state() = job_;
    return grpc::Status::OK;
  }

  grpc::Status Watch(grpc::ServerContext* context, const pb::WatchRequest* request,
                     grpc::ServerWriter<pb::JobState>* writer) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::unique_lock<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), request->rank());
        !status.ok()) {
      return status;
    }
    const auto rank = static_cast<size_t>(request->rank());
    // The first message tells the client that the service watches it from now on.
    pb::JobState first = job_;
    int sent_departures = first.departed_size();
    int sent_preemption = preemption_changes_;
    lock.unlock();
    writer->Write(first);
    lock.lock();
    while (true) {
      if (!job_.lost() &&
          (job_.departed_size() > sent_departures || preemption_changes_ > sent_preemption)) {
        pb::JobState state = job_;
        sent_departures = state.departed_size();
        sent_preemption = preemption_changes_;
        lock.unlock();
        writer->Write(state);
        lock.lock();
        continue;
      }
      if (job_.lost()) {
        pb::JobState state = job_;
        lock.unlock();
        writer->Write(state);
        return grpc::Status::OK;
      }
      if (stopping_) return grpc::Status::OK;
      if (context->IsCancelled()) {
        if (!ranks_[rank].left) {
          MarkLostLocked(request->rank(),
                         "its connection to the coordinator closed before it left the job (the "
                         "process was killed or crashed)");
        }
        return grpc::Status::CANCELLED;
      }
      cv_.wait_for(lock, kPollPeriod);
    }
  }

  grpc::Status Leave(grpc::ServerContext* context, const pb::LeaveRequest* request,
                     pb::LeaveReply* /*reply*/) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::unique_lock<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), request->rank());
        !status.ok()) {
      return status;
    }
    RankState& leaver = ranks_[static_cast<size_t>(request->rank())];
    if (leaver.left) return grpc::Status::OK;
    leaver.left = true;
    if (request->exit_status() != 0 && !request->preempted()) {
      MarkLostLocked(request->rank(),
                     absl::StrCat("its process is exiting with status ", request->exit_status()));
      return grpc::Status::OK;
    }
    // The others learn it at once (Watch): a collective that needs this rank can no longer
    // complete, and they fail instead of waiting for it.
    pb::Departure* departure = job_.add_departed();
    departure->set_rank(request->rank());
    departure->set_who(leaver.who);
    departure->set_job_steps(request->job_steps());
    DecidePreemptionLocked();  // a rank that left no longer needs to report
    cv_.notify_all();
    // An orderly exit waits for the other connected ranks, so that none of them loses the
    // coordinator while it still works.
    const auto deadline = DeadlineIn(request->timeout_ms());
    WaitLocked(lock, context, deadline, [&] { return job_.lost() || AllConnectedLeftLocked(); });
    return grpc::Status::OK;
  }

  grpc::Status Put(grpc::ServerContext* context, const pb::PutRequest* request,
                   pb::PutReply* /*reply*/) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::lock_guard<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), -1); !status.ok()) {
      return status;
    }
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    if (!kv_.try_emplace(request->key(), request->value()).second) {
      return Error(grpc::StatusCode::ALREADY_EXISTS,
                   absl::StrCat("Key ", Key(request->key()),
                                " is already set (a key is written once per job)"));
    }
    cv_.notify_all();
    return grpc::Status::OK;
  }

  grpc::Status Get(grpc::ServerContext* context, const pb::GetRequest* request,
                   pb::GetReply* reply) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::unique_lock<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), -1); !status.ok()) {
      return status;
    }
    const auto deadline = DeadlineIn(request->timeout_ms());
    WaitLocked(lock, context, deadline,
               [&] { return job_.lost() || kv_.contains(request->key()); });
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    if (auto it = kv_.find(request->key()); it != kv_.end()) {
      reply->set_value(it->second);
      return grpc::Status::OK;
    }
    if (grpc::Status status = Interrupted(context); !status.ok()) return status;
    return Error(grpc::StatusCode::DEADLINE_EXCEEDED,
                 absl::StrCat("Key ", Key(request->key()), " was not set within ",
                              request->timeout_ms(), " ms"));
  }

  // The first report of each rank counts; once every rank has reported (or left the job),
  // the sync step is the largest step reported plus one: no rank has passed it, since a
  // rank that has reported waits in its next call until the step is known.
  grpc::Status ReportPreemption(grpc::ServerContext* context, const pb::PreemptionReport* request,
                                pb::PreemptionReply* reply) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::lock_guard<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), request->rank());
        !status.ok()) {
      return status;
    }
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    RankState& reporter = ranks_[static_cast<size_t>(request->rank())];
    if (!reporter.preemption_reported) {
      reporter.preemption_reported = true;
      reporter.preemption_step = std::max<int64_t>(-1, request->step());
      pb::Preemption& preemption = *job_.mutable_preemption();
      if (!preemption.noticed()) {
        preemption.set_noticed(true);
        preemption.set_first_rank(request->rank());
      }
      DecidePreemptionLocked();
      ++preemption_changes_;
      cv_.notify_all();
    }
    *reply->mutable_preemption() = job_.preemption();
    return grpc::Status::OK;
  }

  grpc::Status TryGet(grpc::ServerContext* context, const pb::TryGetRequest* request,
                      pb::GetReply* reply) override {
    if (grpc::Status status = Authenticate(*context); !status.ok()) return status;
    std::lock_guard<std::mutex> lock(mu_);
    if (grpc::Status status = CheckCallerLocked(request->incarnation(), -1); !status.ok()) {
      return status;
    }
    if (job_.lost()) return Error(grpc::StatusCode::ABORTED, job_.reason());
    auto it = kv_.find(request->key());
    if (it == kv_.end()) {
      return Error(grpc::StatusCode::NOT_FOUND,
                   absl::StrCat("Key ", Key(request->key()), " is not set"));
    }
    reply->set_value(it->second);
    return grpc::Status::OK;
  }

 private:
  void DecidePreemptionLocked() {
    pb::Preemption& preemption = *job_.mutable_preemption();
    if (!preemption.noticed() || preemption.sync_step() >= 0) return;
    int64_t last = -1;
    for (const RankState& rank : ranks_) {
      if (rank.left && !rank.preemption_reported) continue;
      if (!rank.preemption_reported) return;
      last = std::max(last, rank.preemption_step);
    }
    preemption.set_sync_step(last + 1);
    ++preemption_changes_;
    base::Log(base::LogSeverity::kInfo,
              absl::StrCat("Preemption: every rank reported the notice; the job stops at step ",
                           last + 1, " (first reported by rank ", preemption.first_rank(), ")"));
  }

  // The caller's job secret against the job's (in constant time); a refusal is logged
  // (rate-limited) and touches nothing else.
  grpc::Status Authenticate(const grpc::ServerContext& context) {
    const auto& metadata = context.client_metadata();
    const auto found = metadata.find(kJobSecretMetadataKey);
    const bool sent = found != metadata.end();
    if (options_.secret.empty()) {
      if (!sent) return grpc::Status::OK;
      return Refuse(context, grpc::StatusCode::PERMISSION_DENIED,
                    absl::StrCat("The coordinator at ", options_.target,
                                 " serves a job without a secret, and the caller sent one: give "
                                 "every rank of a job the same SEAM_JOB_SECRET_FILE, or none"));
    }
    if (!sent) {
      return Refuse(context, grpc::StatusCode::UNAUTHENTICATED,
                    absl::StrCat("The coordinator at ", options_.target,
                                 " serves a job that has a secret, and the caller sent none: a "
                                 "process of this job needs its SEAM_JOB_SECRET_FILE (seam "
                                 "launch sets it for the ranks it starts)"));
    }
    const std::string_view secret(found->second.data(), found->second.size());
    if (!SecretsEqual(secret, options_.secret)) {
      return Refuse(context, grpc::StatusCode::PERMISSION_DENIED,
                    absl::StrCat("The coordinator at ", options_.target,
                                 " refused the caller's job secret: it is not the secret of the "
                                 "job it serves (a process of another job?)"));
    }
    return grpc::Status::OK;
  }

  grpc::Status Refuse(const grpc::ServerContext& context, grpc::StatusCode code,
                      const std::string& message) {
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(log_mu_);
    if (now < next_refusal_log_) {
      ++refusals_unlogged_;
      return Error(code, message);
    }
    next_refusal_log_ = now + kRefusalLogPeriod;
    base::Log(
        base::LogSeverity::kWarning,
        absl::StrCat(
            "The coordinator refused a call from ", context.peer(), ": ",
            code == grpc::StatusCode::UNAUTHENTICATED ? "no job secret" : "a wrong job secret",
            refusals_unlogged_ == 0 ? ""
                                    : absl::StrCat(" (and ", refusals_unlogged_,
                                                   " refusals not logged since the last line)")));
    refusals_unlogged_ = 0;
    return Error(code, message);
  }

  // Keeps the last few refused processes, to name them should a rank never connect.
  void NoteRefusedLocked(std::string note) {
    if (refused_.size() == kRefusedNotes) refused_.erase(refused_.begin());
    refused_.push_back(std::move(note));
  }

  // A barrier that a rank which has left the job never reached can never complete: it
  // fails for every rank, naming the one that left.
  void FailIfDepartedLocked(const std::string& name, BarrierState& barrier) {
    if (barrier.done || !barrier.failure.ok()) return;
    for (const pb::Departure& departure : job_.departed()) {
      if (barrier.arrived.count(departure.rank()) != 0) continue;
      barrier.failure = absl::AbortedError(absl::StrCat(
          "Barrier '", name, "' cannot complete: rank ", departure.rank(), " (", departure.who(),
          ") exited (status 0) and left the job without reaching it"));
      cv_.notify_all();
      return;
    }
  }

  // The request's job incarnation, and its rank (unless -1) as a connected rank.
  grpc::Status CheckCallerLocked(uint64_t incarnation, int rank) const {
    if (incarnation != incarnation_) {
      return Error(grpc::StatusCode::FAILED_PRECONDITION,
                   absl::StrCat("The coordinator at ", options_.target, " serves job incarnation ",
                                absl::Hex(incarnation_, absl::kZeroPad16),
                                ", not the caller's job incarnation ",
                                absl::Hex(incarnation, absl::kZeroPad16),
                                " (a process of an earlier job on the same address and port?)"));
    }
    if (rank == -1) return grpc::Status::OK;
    if (rank < 0 || rank >= options_.world_size || !ranks_[static_cast<size_t>(rank)].connected) {
      return Error(
          grpc::StatusCode::FAILED_PRECONDITION,
          absl::StrCat("Rank ", rank, " is not connected to the coordinator at ", options_.target));
    }
    return grpc::Status::OK;
  }

  // Why a blocked call ended early: the service stops, or the caller went away.
  grpc::Status Interrupted(grpc::ServerContext* context) const {
    if (stopping_) {
      return Error(grpc::StatusCode::UNAVAILABLE,
                   absl::StrCat("The coordinator at ", options_.target, " is shutting down"));
    }
    if (context->IsCancelled())
      return Error(grpc::StatusCode::CANCELLED, "Cancelled by the caller");
    return grpc::Status::OK;
  }

  template <typename Done>
  void WaitLocked(std::unique_lock<std::mutex>& lock, grpc::ServerContext* context,
                  Clock::time_point deadline, Done done) {
    while (!done() && !stopping_ && !context->IsCancelled()) {
      const auto now = Clock::now();
      if (now >= deadline) return;
      cv_.wait_until(lock, std::min(deadline, now + kPollPeriod));
    }
  }

  bool AllConnectedLeftLocked() const {
    return std::all_of(ranks_.begin(), ranks_.end(),
                       [](const RankState& r) { return !r.connected || r.left; });
  }

  void FailJobLocked(int rank, const std::string& reason) {
    if (job_.lost()) return;
    job_.set_lost(true);
    job_.set_lost_rank(rank);
    job_.set_reason(reason);
    cv_.notify_all();
  }

  void MarkLostLocked(int rank, const std::string& what) {
    FailJobLocked(rank, absl::StrCat("The job has lost rank ", rank, " (",
                                     ranks_[static_cast<size_t>(rank)].who, "): ", what));
  }

  void CheckHeartbeats() {
    const milliseconds period =
        std::clamp(options_.loss_timeout / 20, milliseconds(20), milliseconds(500));
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, period);
      if (stopping_ || job_.lost()) continue;
      const auto now = Clock::now();
      for (size_t r = 0; r < ranks_.size(); ++r) {
        const RankState& state = ranks_[r];
        if (!state.connected || state.left || now - state.last_heartbeat <= options_.loss_timeout) {
          continue;
        }
        const auto silent = std::chrono::duration_cast<milliseconds>(now - state.last_heartbeat);
        MarkLostLocked(static_cast<int>(r),
                       absl::StrCat("it sent no heartbeat for ", silent.count(), " ms (limit ",
                                    options_.loss_timeout_source,
                                    "): its host is unreachable, or the process is stopped"));
        break;
      }
    }
  }

  const Options options_;
  const uint64_t incarnation_;
  std::unique_ptr<grpc::Server> server_;
  std::thread checker_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<RankState> ranks_;
  pb::JobState job_;
  int preemption_changes_ = 0;  // Watch writes the state again when it grows
  std::map<std::string, BarrierState> barriers_;
  absl::flat_hash_map<std::string, std::string> kv_;
  std::vector<std::string> refused_;  // the last few processes refused by Connect

  std::mutex log_mu_;  // the refusal log's rate limit
  Clock::time_point next_refusal_log_{};
  int64_t refusals_unlogged_ = 0;
};

absl::StatusOr<std::unique_ptr<CoordinationService>> CoordinationService::Start(
    const Options& options) {
  if (options.world_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Coordinator world size must be at least 1, got ", options.world_size));
  }
  auto impl = std::make_unique<Impl>(options);
  if (absl::Status status = impl->Start(); !status.ok()) return status;
  return std::unique_ptr<CoordinationService>(new CoordinationService(std::move(impl)));
}

CoordinationService::CoordinationService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CoordinationService::~CoordinationService() { impl_->Stop(kDefaultDrain); }

uint64_t CoordinationService::incarnation() const { return impl_->incarnation(); }

void CoordinationService::Stop(std::chrono::milliseconds drain) { impl_->Stop(drain); }

}  // namespace seam::runtime
