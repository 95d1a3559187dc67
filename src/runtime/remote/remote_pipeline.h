// Executes sent without waiting for their reply (docs/remote.md, "Pipelined executes"). The
// server gives each session a block of handles its client names itself; the remote client
// names an execute's outputs from it, sends the call and returns at once, so a step's read
// of its loss travels right behind its execute: one round trip per step instead of two. The
// server registers the names, as the outputs or as the launch's failure, when it handles the
// call; a call that names one first waits there for it.
//
// PipelinedExecute is one such call until its reply: what the call needs kept alive, and
// what the reply decides for its outputs (their error; when their handles may be released).
// Thread-safe: the reply arrives on a gRPC thread.
#ifndef SEAM_RUNTIME_REMOTE_REMOTE_PIPELINE_H_
#define SEAM_RUNTIME_REMOTE_REMOTE_PIPELINE_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "proto/remote.grpc.pb.h"
#include "src/runtime/remote/remote_connection.h"
#include "src/runtime/remote/remote_deferred.h"

namespace seam::runtime {

// Gives the tensors an execute carried (`batch`) their handles from its reply, or the call's
// failure. An error only for a reply that does not match the batch.
absl::Status SettleInline(DeferredUploads::Batch& batch, RemoteConnection& connection,
                          const grpc::Status& status, const ::seam::remote::ExecuteReply& reply);

class PipelinedExecute : public AsyncExecuteCall {
 public:
  DeferredUploads::Batch batch;  // the uploads it carries

  // OK while the reply has not come, or when the run was launched; else why the outputs
  // have no value (the launch's error, or the call's).
  absl::Status OutputError() const;
  // An output's buffer went away: its handle is released with a later call once the server
  // has registered it (at once when the reply has come; never when the call failed).
  void Release(uint64_t handle, RemoteConnection& connection);
  // The reply (or the call's failure): settles the uploads the call carried, decides the
  // outputs' error and releases what went away meanwhile. Returns the outputs' error.
  absl::Status Settle(const grpc::Status& status, RemoteConnection& connection);

 private:
  mutable std::mutex mu_;
  bool settled_ = false;
  bool registered_ = false;  // the server holds the outputs' names (a successful call)
  absl::Status error_;
  std::vector<uint64_t> parked_;  // released before the reply
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_REMOTE_PIPELINE_H_
