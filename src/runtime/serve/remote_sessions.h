// The sessions of `seam serve` (remote_service.h): which client owns which buffer and
// computation handle. A handle is a number unique in the server's life; looking one up in
// the wrong session, or after its release, is an error naming it, never a crash.
//
// Each session also owns a block of handles its client names itself for an execute's
// outputs (docs/remote.md, "Pipelined executes"): a later call may name such a handle before
// the execute that registers it was handled (gRPC handles calls in any order), so a lookup
// of a block handle not registered yet waits for it, up to `pending_wait`.
#ifndef SEAM_RUNTIME_SERVE_REMOTE_SESSIONS_H_
#define SEAM_RUNTIME_SERVE_REMOTE_SESSIONS_H_

#include <chrono>
#include <condition_variable>
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

  // Handles of the sessions' blocks have this bit set; the server's own never do.
  static constexpr uint64_t kNamedBit = uint64_t{1} << 63;
  static constexpr uint64_t kBlockSize = uint64_t{1} << 32;

  explicit RemoteSessions(std::chrono::milliseconds pending_wait = std::chrono::seconds(10))
      : pending_wait_(pending_wait) {}

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
  // The base of the session's block: its client may name base + 1 to base + kBlockSize - 1.
  absl::StatusOr<uint64_t> NamedBase(uint64_t session) const;

  // The buffers named, in order: NotFound for a handle never handed out or already released
  // (for a handle of the session's block, once `pending_wait` has passed without its
  // execute), PermissionDenied for another session's, InvalidArgument for a computation's
  // handle; for a failed execute's output, that execute's error as it is.
  absl::StatusOr<std::vector<DataPtr>> Buffers(uint64_t session,
                                               absl::Span<const uint64_t> handles) const;
  absl::StatusOr<ComputationPtr> Computation(uint64_t session, uint64_t handle) const;
  // New handles for `buffers` / `computations` in `session` (NotFound when it has closed).
  absl::StatusOr<std::vector<uint64_t>> AddBuffers(uint64_t session,
                                                   const std::vector<DataPtr>& buffers);
  absl::StatusOr<std::vector<uint64_t>> AddComputations(
      uint64_t session, const std::vector<ComputationPtr>& computations);
  // For an execute whose client named its outputs: InvalidArgument naming the handle unless
  // every one is in the session's block, named once and not in use; NotFound for a session
  // that is not open.
  absl::Status CheckNamed(uint64_t session, absl::Span<const uint64_t> handles) const;
  // Registers `buffers` under the client's names (checked by CheckNamed), one each.
  absl::Status AddNamed(uint64_t session, absl::Span<const uint64_t> handles,
                        const std::vector<DataPtr>& buffers);
  // Registers the names as failures: a call naming one gets `error`.
  void FailNamed(uint64_t session, absl::Span<const uint64_t> handles, const absl::Status& error);
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
    uint64_t named_base = 0;
  };
  struct Entry {
    uint64_t session = 0;
    DataPtr buffer;  // at most one of the two is set; neither: a failed execute's output
    ComputationPtr computation;
    absl::Status failed;
  };
  // The entry of `handle` when `session` owns it (waiting for a handle of the session's
  // block not registered yet); else the error, naming the handle.
  absl::StatusOr<const Entry*> Find(std::unique_lock<std::mutex>& lock, uint64_t session,
                                    uint64_t handle) const;

  const std::chrono::milliseconds pending_wait_;
  mutable std::mutex mu_;
  mutable std::condition_variable
      registered_;  // a block handle was registered, or a session closed
  uint64_t next_block_ = 0;
  absl::flat_hash_map<uint64_t, Session> sessions_;
  absl::flat_hash_map<uint64_t, Entry> handles_;
  uint64_t next_handle_ = 1;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_SERVE_REMOTE_SESSIONS_H_
