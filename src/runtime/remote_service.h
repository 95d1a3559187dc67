// `seam serve`'s service: the seam's operations over gRPC for RemoteComputationClient
// (remote.proto, docs/remote.md). It serves one ComputationClient, created by the caller
// the usual way; each client connection opens a session that owns the buffers and
// computations it creates, freed when the session's stream ends.
#ifndef SEAM_RUNTIME_REMOTE_SERVICE_H_
#define SEAM_RUNTIME_REMOTE_SERVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/runtime/computation_client.h"

namespace seam::runtime {

class RemoteService {
 public:
  struct Options {
    std::string address;  // "host:port" to bind, exactly (port 0: any free port)
    std::string token;    // empty: no token required
  };
  struct Stats {
    int64_t sessions = 0;
    int64_t buffers = 0;
    int64_t computations = 0;
  };

  // Starts serving `client` (which must outlive the service) on exactly options.address.
  // Unavailable naming the address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<RemoteService>> Start(ComputationClient* client,
                                                              const Options& options);
  ~RemoteService();

  int port() const;  // the port bound
  Stats GetStats() const;
  // Blocks until Stop() (called from another thread or a signal watcher) has shut the
  // server down.
  void Wait();
  // Ends the sessions' streams and shuts the server down. Idempotent.
  void Stop();

  class Impl;

 private:
  explicit RemoteService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_SERVICE_H_
