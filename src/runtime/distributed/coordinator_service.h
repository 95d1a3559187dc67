// The coordinator's service, hosted by rank 0 of a multi-process job: registration of the
// ranks, barriers, the key-value store and liveness (heartbeats, and the Watch stream that
// reports a process whose connection closes). A gRPC server on exactly the address it is
// given. docs/distributed.md describes the protocol and the failure behaviour.
#ifndef SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_SERVICE_H_
#define SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_SERVICE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace seam::runtime {

class CoordinationService {
 public:
  struct Options {
    std::string target;  // "address:port" to bind (never a wildcard added)
    int world_size = 1;  // rank 0's view; a rank that disagrees fails the job
    std::chrono::milliseconds loss_timeout{15000};  // silence after which a rank is lost
    // How the loss timeout is written in messages (which variables set it).
    std::string loss_timeout_source;
    // The job's secret (job_secret.h): every call must carry it. Empty: the job has none,
    // and a call that carries one is refused (the ranks were set up differently).
    std::string secret;
  };

  // Starts the service with a fresh random job incarnation. A call without the job's
  // secret, with another one, or with a world size other than `world_size` is refused and
  // leaves the job as it was. Fails with "Failed to
  // initialize distributed runtime service. ..." naming the target when it cannot bind it
  // (in use, not an address of this machine, or not an address at all).
  static absl::StatusOr<std::unique_ptr<CoordinationService>> Start(const Options& options);
  ~CoordinationService();

  uint64_t incarnation() const;
  // Stops serving: blocked calls return, then the server shuts down, waiting at most
  // `drain` for calls still running (those of a peer that stopped reading). Idempotent.
  void Stop(std::chrono::milliseconds drain = std::chrono::milliseconds(2000));

  class Impl;

 private:
  explicit CoordinationService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_COORDINATOR_SERVICE_H_
