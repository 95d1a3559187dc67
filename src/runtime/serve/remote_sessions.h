// The sessions of `seam serve` (remote_service.h): which client owns which buffer and
// computation handle. A handle is a number unique in the server's life; looking one up in
// the wrong session, or after its release, is an error naming it, never a crash.
#ifndef SEAM_RUNTIME_SERVE_REMOTE_SESSIONS_H_
#define SEAM_RUNTIME_SERVE_REMOTE_SESSIONS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/runtime/computation_client.h"

namespace seam::runtime {

class RemoteSessions {
 public:
  using DataPtr = ComputationClient::DataPtr;
  using ComputationPtr = ComputationClient::ComputationPtr;

  // A new session with an id no other client can guess; ResourceExhausted naming the bound
  // when `max_sessions` are open already.
  absl::StatusOr<uint64_t> Open(const std::string& who, int64_t max_sessions);
  // Frees the session's buffers and computations (after the lock is dropped); what it
  // freed (zero counts for a session that is not open).
  struct Freed {
    int64_t buffers = 0;
    int64_t computations = 0;
  };
  Freed Close(uint64_t session);
  // NotFound naming the session when it is not open.
  absl::Status Check(uint64_t session) const;

  // The buffers named, in order: NotFound for a handle never handed out or already released,
  // PermissionDenied for another session's, InvalidArgument for a computation's handle.
  absl::StatusOr<std::vector<DataPtr>> Buffers(uint64_t session,
                                               absl::Span<const uint64_t> handles) const;
  absl::StatusOr<ComputationPtr> Computation(uint64_t session, uint64_t handle) const;
  // New handles for `buffers` / `computations` in `session` (NotFound when it has closed).
  absl::StatusOr<std::vector<uint64_t>> AddBuffers(uint64_t session,
                                                   const std::vector<DataPtr>& buffers);
  absl::StatusOr<std::vector<uint64_t>> AddComputations(
      uint64_t session, const std::vector<ComputationPtr>& computations);
  // Drops the handles (buffers or computations); the same errors as Buffers (NotFound for a
  // session that is not open, also with no handles). Nothing is
  // released unless every handle is the session's.
  absl::Status Release(uint64_t session, absl::Span<const uint64_t> handles);

  struct Counts {
    int64_t sessions = 0;
    int64_t buffers = 0;
    int64_t computations = 0;
    int64_t session_buffers = 0;  // the session asked about
  };
  Counts GetCounts(uint64_t session = 0) const;

 private:
  struct Session {
    std::string who;
    int64_t buffers = 0;
  };
  struct Entry {
    uint64_t session = 0;
    DataPtr buffer;  // one of the two is set
    ComputationPtr computation;
  };
  // The entry of `handle` when `session` owns it; else the error, naming the handle.
  absl::StatusOr<const Entry*> Find(uint64_t session, uint64_t handle) const;

  mutable std::mutex mu_;
  absl::flat_hash_map<uint64_t, Session> sessions_;
  absl::flat_hash_map<uint64_t, Entry> handles_;
  uint64_t next_handle_ = 1;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_SERVE_REMOTE_SESSIONS_H_
