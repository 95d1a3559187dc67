// One RemoteComputationClient's link to `seam serve`: the channel, the session (an open
// stream whose end makes the server free the session's handles), the token on every call,
// what waits to travel with a later call (released handles, small uploads kept back), the
// streamed upload, and what a failed call's error says.
#ifndef SEAM_RUNTIME_REMOTE_REMOTE_CONNECTION_H_
#define SEAM_RUNTIME_REMOTE_REMOTE_CONNECTION_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/remote.grpc.pb.h"
#include "src/runtime/remote/remote_deferred.h"

namespace seam::runtime {

// An execute sent without waiting for its reply: the call's pieces, alive until the reply
// is collected (PipelinedExecute, remote_pipeline.h, builds on it).
struct AsyncExecuteCall {
  grpc::ClientContext context;
  ::seam::remote::ExecuteRequest request;
  ::seam::remote::ExecuteReply reply;
  grpc::Status status;  // the call's, once its reply came
  std::unique_ptr<grpc::ClientAsyncResponseReader<::seam::remote::ExecuteReply>> reader;
};

class RemoteConnection {
 public:
  // Connects to `address` (waiting up to 10 s) and opens a session; `first` receives the
  // session's first event (its id and the server's devices).
  static absl::StatusOr<std::shared_ptr<RemoteConnection>> Open(
      const std::string& address, const std::string& token, ::seam::remote::SessionEvent* first);
  ~RemoteConnection();

  ::seam::remote::Remote::Stub& stub() const { return *stub_; }
  uint64_t session() const { return session_; }
  const std::string& address() const { return address_; }
  // Adds the token to a call's metadata.
  void Prepare(grpc::ClientContext& context) const;
  // A failed call's status for the caller: the server's own errors as they are; a lost or
  // refused connection says so, naming the server's address, and is remembered (Lost).
  absl::Status Error(const grpc::Status& status, const char* operation) const;
  // OK until a call found the connection lost; then that call's error.
  absl::Status Lost() const;

  // Pipelined executes (remote_pipeline.h). A handle of the session's block, for an output
  // this client names; 0 when the server names every handle (then executes wait for their
  // reply).
  uint64_t NameOutput();
  // From now on NameOutput returns 0 (SEAM_REMOTE_PIPELINE=0). Before the first execute.
  void StopNamingOutputs() { output_base_ = 0; }
  // Sends `call` (its request filled in) without waiting. Its reply is collected by the next
  // call of this connection that looks (no thread of its own waits for it: on a machine with
  // few cores a waiting thread's wake-up costs what the saved round trip gains); `done` then
  // runs with the call's status, after which the connection forgets the call.
  void SendPipelined(std::shared_ptr<AsyncExecuteCall> call,
                     std::function<void(const grpc::Status&)> done);
  // Settles the pipelined executes whose reply has come; with `block`, waits until every
  // one sent so far has (so that the server has registered their outputs: before asking it
  // about runs in flight or memory).
  void CollectPipelined(bool block);
  void AwaitPipelined() { CollectPipelined(/*block=*/true); }

  // A handle the client no longer uses: sent with the next execute, or by FlushReleases.
  void QueueRelease(uint64_t handle);
  // The queued releases that may go now: each once every pipelined execute sent before it
  // was queued has had its reply (the server handles calls in any order, so a release must
  // not overtake an execute that names the handle).
  std::vector<uint64_t> TakeReleases();
  absl::Status FlushReleases();

  // Small uploads kept back until the next execute (remote_deferred.h).
  DeferredUploads& deferred() { return deferred_; }
  // Sends every upload kept back in one TransferToDevice (nothing when none is).
  absl::Status FlushUploads();
  // Sends `batch` (taken from deferred()) in one TransferToDevice and gives its tensors
  // their handles, or the call's failure.
  absl::Status SendDeferred(DeferredUploads::Batch& batch);

  // One tensor of a streamed upload: its header and its bytes (borrowed for the call).
  struct UploadPiece {
    const ::seam::remote::TensorHeader* header;
    const char* data;
    size_t size;
  };
  // Streams the pieces to the server in chunks of at most wire::kChunkBytes (one
  // TransferToDevice call, carrying the queued releases too); their handles, in order.
  absl::StatusOr<std::vector<uint64_t>> Upload(const std::vector<UploadPiece>& pieces);

  // Ends the session (idempotent): the server frees what it holds for this client. Executes
  // still waiting for their reply are cancelled and awaited first.
  void Close();

 private:
  RemoteConnection(std::string address, std::string token);

  std::string address_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<::seam::remote::Remote::Stub> stub_;
  uint64_t session_ = 0;
  grpc::ClientContext session_context_;
  std::unique_ptr<grpc::ClientReader<::seam::remote::SessionEvent>> session_stream_;
  std::mutex mu_;
  struct Release {
    uint64_t handle;
    uint64_t after;  // pipelined executes sent when it was queued
  };
  std::vector<Release> releases_;
  bool closed_ = false;
  DeferredUploads deferred_;
  uint64_t output_base_ = 0;  // SessionEvent.output_handle_base
  std::atomic<uint64_t> outputs_named_{0};
  mutable std::mutex lost_mu_;
  mutable absl::Status lost_;
  std::mutex pipelined_mu_;
  struct InFlight {
    std::shared_ptr<AsyncExecuteCall> call;
    uint64_t sequence;  // 1 for the first execute sent, and so on
    std::function<void(const grpc::Status&)> done;
  };
  grpc::CompletionQueue replies_;    // the pipelined executes' replies
  std::vector<InFlight> pipelined_;  // sent, reply not yet handled
  std::atomic<uint64_t> pipelined_sent_{0};
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_REMOTE_CONNECTION_H_
