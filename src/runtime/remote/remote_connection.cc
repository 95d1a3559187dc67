#include "src/runtime/remote/remote_connection.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "src/runtime/distributed/grpc_logging.h"
#include "src/runtime/remote/remote_wire.h"

namespace seam::runtime {
namespace {

namespace pb = ::seam::remote;

constexpr std::chrono::seconds kConnectTimeout{10};

std::string Who() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return absl::StrCat("pid ", getpid(), " on ", host[0] == '\0' ? "unknown host" : host);
}

}  // namespace

RemoteConnection::RemoteConnection(std::string address, std::string token)
    : address_(std::move(address)),
      token_(std::move(token)),
      deferred_(wire::kDeferredUploadBytes) {
  QuietGrpcLogging();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, wire::kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, wire::kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetMaxReceiveMessageSize(wire::kMaxMessageBytes);
  args.SetMaxSendMessageSize(wire::kMaxMessageBytes);
  channel_ = grpc::CreateCustomChannel(address_, grpc::InsecureChannelCredentials(), args);
  stub_ = pb::Remote::NewStub(channel_);
}

absl::StatusOr<std::shared_ptr<RemoteConnection>> RemoteConnection::Open(const std::string& address,
                                                                         const std::string& token,
                                                                         pb::SessionEvent* first) {
  std::shared_ptr<RemoteConnection> connection(new RemoteConnection(address, token));
  if (!connection->channel_->WaitForConnected(std::chrono::system_clock::now() + kConnectTimeout)) {
    return absl::UnavailableError(absl::StrCat(
        "SEAM_CLIENT=remote: no seam serve answered at ", address, " (SEAM_REMOTE_ADDRESS) within ",
        kConnectTimeout.count(), " s; start one with `seam serve --address ", address, "`"));
  }
  connection->Prepare(connection->session_context_);
  pb::OpenSessionRequest request;
  request.set_client(Who());
  connection->session_stream_ =
      connection->stub_->OpenSession(&connection->session_context_, request);
  if (!connection->session_stream_->Read(first)) {
    const grpc::Status status = connection->session_stream_->Finish();
    connection->session_stream_.reset();
    connection->closed_ = true;
    return absl::Status(
        static_cast<absl::StatusCode>(status.error_code()),
        absl::StrCat("seam serve at ", address, " refused the session: ", status.error_message()));
  }
  connection->session_ = first->session();
  connection->output_base_ = first->output_handle_base();
  return connection;
}

RemoteConnection::~RemoteConnection() { Close(); }

void RemoteConnection::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
  }
  {
    // A reply normally comes within a round trip; cancelled calls end at once.
    std::lock_guard<std::mutex> lock(pipelined_mu_);
    for (const InFlight& sent : pipelined_) sent.call->context.TryCancel();
  }
  AwaitPipelined();
  replies_.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (replies_.Next(&tag, &ok)) {
  }
  if (session_stream_ != nullptr) {
    session_context_.TryCancel();
    session_stream_->Finish().IgnoreError();  // CANCELLED, as asked
  }
}

void RemoteConnection::Prepare(grpc::ClientContext& context) const {
  if (!token_.empty()) context.AddMetadata(wire::kTokenMetadata, token_);
}

absl::Status RemoteConnection::Error(const grpc::Status& status, const char* operation) const {
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED: {  // the server shut down with the call in progress
      absl::Status lost(code,
                        absl::StrCat(operation, ": lost the connection to seam serve at ", address_,
                                     " (SEAM_REMOTE_ADDRESS): ", status.error_message()));
      std::lock_guard<std::mutex> lock(lost_mu_);
      if (lost_.ok()) lost_ = lost;
      return lost;
    }
    case grpc::StatusCode::UNAUTHENTICATED:
      return absl::Status(code, absl::StrCat(operation, ": ", status.error_message()));
    default:
      return absl::Status(code, status.error_message());
  }
}

absl::Status RemoteConnection::Lost() const {
  std::lock_guard<std::mutex> lock(lost_mu_);
  return lost_;
}

uint64_t RemoteConnection::NameOutput() {
  if (output_base_ == 0) return 0;
  const uint64_t n = outputs_named_.fetch_add(1, std::memory_order_relaxed) + 1;
  // The block holds 2^32 - 1 names; past them, outputs are named by the server again.
  return n < (uint64_t{1} << 32) ? output_base_ + n : 0;
}

void RemoteConnection::SendPipelined(std::shared_ptr<AsyncExecuteCall> call,
                                     std::function<void(const grpc::Status&)> done) {
  AsyncExecuteCall* raw = call.get();
  {
    std::lock_guard<std::mutex> lock(pipelined_mu_);
    // Counted under the lock, so that the in-flight list never misses a sequence number
    // that QueueRelease has seen.
    pipelined_.push_back({std::move(call), pipelined_sent_.fetch_add(1) + 1, std::move(done)});
  }
  raw->reader = stub_->AsyncExecute(&raw->context, raw->request, &replies_);
  raw->reader->Finish(&raw->reply, &raw->status, raw);
}

void RemoteConnection::CollectPipelined(bool block) {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(pipelined_mu_);
      if (pipelined_.empty()) return;
    }
    // A blocking wait looks again every 100 ms: another thread may take the last reply.
    const auto deadline = block ? std::chrono::system_clock::now() + std::chrono::milliseconds(100)
                                : std::chrono::system_clock::time_point();
    void* tag = nullptr;
    bool ok = false;
    const grpc::CompletionQueue::NextStatus next = replies_.AsyncNext(&tag, &ok, deadline);
    if (next == grpc::CompletionQueue::SHUTDOWN) return;
    if (next == grpc::CompletionQueue::TIMEOUT) {
      if (!block) return;
      continue;
    }
    InFlight settled;
    {
      std::lock_guard<std::mutex> lock(pipelined_mu_);
      auto it = std::find_if(pipelined_.begin(), pipelined_.end(),
                             [&](const InFlight& sent) { return sent.call.get() == tag; });
      if (it == pipelined_.end()) continue;
      settled = std::move(*it);
      pipelined_.erase(it);
    }
    settled.done(settled.call->status);
  }
}

void RemoteConnection::QueueRelease(uint64_t handle) {
  const uint64_t after = pipelined_sent_.load();
  std::lock_guard<std::mutex> lock(mu_);
  if (!closed_) releases_.push_back({handle, after});
}

std::vector<uint64_t> RemoteConnection::TakeReleases() {
  CollectPipelined(/*block=*/false);
  // Every execute up to `settled` has had its reply.
  uint64_t settled = 0;
  {
    std::lock_guard<std::mutex> lock(pipelined_mu_);
    settled = pipelined_sent_.load();
    for (const InFlight& sent : pipelined_) settled = std::min(settled, sent.sequence - 1);
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t> taken;
  std::erase_if(releases_, [&](const Release& release) {
    if (release.after > settled) return false;
    taken.push_back(release.handle);
    return true;
  });
  return taken;
}

absl::Status RemoteConnection::FlushReleases() {
  std::vector<uint64_t> handles = TakeReleases();
  if (handles.empty()) return absl::OkStatus();
  pb::HandlesRequest request;
  request.set_session(session_);
  for (uint64_t handle : handles) request.add_handles(handle);
  grpc::ClientContext context;
  Prepare(context);
  pb::ReleaseReply reply;
  const grpc::Status status = stub_->Release(&context, request, &reply);
  return status.ok() ? absl::OkStatus() : Error(status, "Release");
}

absl::Status RemoteConnection::FlushUploads() {
  DeferredUploads::Batch batch = deferred_.TakeAll();
  return SendDeferred(batch);
}

absl::Status RemoteConnection::SendDeferred(DeferredUploads::Batch& batch) {
  if (batch.empty()) return absl::OkStatus();
  std::vector<UploadPiece> pieces;
  for (const pb::InlineTensor& tensor : batch.tensors) {
    pieces.push_back({&tensor.header(), tensor.data().data(), tensor.data().size()});
  }
  absl::StatusOr<std::vector<uint64_t>> handles = Upload(pieces);
  if (!handles.ok()) {
    DeferredUploads::Fail(batch, handles.status());
    return handles.status();
  }
  for (uint64_t handle : DeferredUploads::Resolve(batch, *handles)) QueueRelease(handle);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> RemoteConnection::Upload(
    const std::vector<UploadPiece>& pieces) {
  grpc::ClientContext context;
  Prepare(context);
  pb::TransferToDeviceReply reply;
  std::unique_ptr<grpc::ClientWriter<pb::TransferToDeviceChunk>> writer =
      stub_->TransferToDevice(&context, &reply);
  pb::TransferToDeviceChunk chunk;
  chunk.set_session(session_);
  for (uint64_t handle : TakeReleases()) chunk.add_release(handle);
  for (const UploadPiece& piece : pieces) *chunk.add_tensors() = *piece.header;
  // The bytes of every tensor in order, cut into chunks of at most kChunkBytes; the first
  // chunk also carries the headers.
  bool sent = true;
  std::string* data = chunk.mutable_data();
  for (const UploadPiece& piece : pieces) {
    for (size_t at = 0; at < piece.size && sent;) {
      const size_t n = std::min(wire::kChunkBytes - data->size(), piece.size - at);
      data->append(piece.data + at, n);
      at += n;
      if (data->size() == wire::kChunkBytes) {
        sent = writer->Write(chunk);
        chunk.Clear();
        data = chunk.mutable_data();
      }
    }
  }
  if (sent && (chunk.session() != 0 || !data->empty())) sent = writer->Write(chunk);
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  if (!status.ok()) return Error(status, "TransferToDevice");
  if (reply.handles_size() != static_cast<int>(pieces.size())) {
    return absl::InternalError(absl::StrCat("TransferToDevice: seam serve returned ",
                                            reply.handles_size(), " handles for ", pieces.size(),
                                            " tensors"));
  }
  return std::vector<uint64_t>(reply.handles().begin(), reply.handles().end());
}

}  // namespace seam::runtime
