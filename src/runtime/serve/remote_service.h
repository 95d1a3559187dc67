// `seam serve`'s service: the seam's operations over gRPC for RemoteComputationClient
// (remote.proto, docs/remote.md). It serves one ComputationClient, created by the caller
// the usual way; each client connection opens a session that owns the buffers and
// computations it creates, freed when the session's stream ends.
#ifndef SEAM_RUNTIME_SERVE_REMOTE_SERVICE_H_
#define SEAM_RUNTIME_SERVE_REMOTE_SERVICE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/runtime/computation_client.h"

namespace seam::runtime {

class RemoteService {
 public:
  // The bounds that keep a peer from exhausting the server (docs/remote.md, "Limits"); the
  // defaults are `seam serve`'s flags' defaults.
  struct Options {
    std::string address;  // "host:port" to bind, exactly (port 0: any free port)
    std::string token;    // empty: no token required
    // The largest single message received (gRPC reads a unary request's body whole before
    // any handler runs, so this bounds what a call without a token makes the server read).
    int max_message_bytes = 4 << 20;
    int max_sessions = 64;                            // open sessions at once, all clients
    int max_streams_per_connection = 32;              // calls in progress on one connection
    std::chrono::milliseconds stall_timeout{30000};   // an upload or compile stream's silence
    std::chrono::milliseconds idle_timeout{60000};    // a connection with no call in progress
    int64_t memory_quota_bytes = int64_t{512} << 20;  // gRPC's buffers, all connections
    int max_threads = 256;                            // gRPC's threads; each open session holds one
  };
  struct Stats {
    int64_t sessions = 0;
    int64_t buffers = 0;
    int64_t computations = 0;
    int64_t stalled_streams = 0;  // ended by Options::stall_timeout
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

#endif  // SEAM_RUNTIME_SERVE_REMOTE_SERVICE_H_
