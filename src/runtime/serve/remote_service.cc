#include "src/runtime/serve/remote_service.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "proto/remote.grpc.pb.h"
#include "src/base/logging.h"
#include "src/base/status_macros.h"
#include "src/ir/text.h"
#include "src/runtime/remote/remote_wire.h"
#include "src/runtime/serve/remote_guard.h"
#include "src/runtime/serve/remote_sessions.h"

namespace seam::runtime {
namespace {

namespace pb = ::seam::remote;
using wire::Quote;
using wire::ToGrpc;

// How often an open session's stream checks whether its client went away.
constexpr std::chrono::milliseconds kPollPeriod{100};
// A connection must complete HTTP/2's opening within this.
constexpr int kHandshakeTimeoutMs = 10000;

template <typename Repeated>
absl::Span<const uint64_t> Handles(const Repeated& handles) {
  return absl::MakeConstSpan(handles.data(), static_cast<size_t>(handles.size()));
}

// Equal tokens, compared in a time that does not depend on where they first differ.
bool SameToken(const std::string& given, const std::string& expected) {
  if (given.size() != expected.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
  }
  return diff == 0;
}

absl::StatusOr<ir::Shape> ShapeOf(const pb::TensorHeader& header, int index) {
  std::optional<ir::DType> dtype = ir::ParseDType(header.dtype());
  if (!dtype.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor ", index, ": unknown dtype '", Quote(header.dtype()), "'"));
  }
  ir::Shape shape{*dtype, {header.dims().begin(), header.dims().end()}};
  if (absl::Status valid = ir::ValidateShape(shape); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor ", index, ": ", valid.message()));
  }
  return shape;
}

}  // namespace

// Every call's handler runs once its metadata has arrived, before its request is read (gRPC's
// "streamed" forms of unary and server-streaming methods): the token is checked first, so a
// peer without it cannot make the server read a request (gRPC reads a plain unary request
// whole before a handler could look at it, and checks --max-message-mib only afterwards).
class RemoteService::Impl final : public pb::Remote::StreamedService {
 public:
  Impl(ComputationClient* client, RemoteService::Options options)
      : client_(client),
        options_(std::move(options)),
        stall_watch_(options_.stall_timeout),
        quota_("seam serve") {}

  ~Impl() override { Stop(); }

  absl::Status Start() {
    // The devices' own limits (static), for the uploads' checks.
    for (const ComputationClient::DeviceInfo& info : client_->GetDeviceInfos()) {
      absl::StatusOr<ComputationClient::MemoryStats> memory = client_->GetMemoryStats(info.name);
      if (memory.ok() && memory->bytes_limit > 0) limits_[info.name] = memory->bytes_limit;
    }
    grpc::ServerBuilder builder;
    // Exactly the address given: gRPC adds no wildcard for an explicit host. SO_REUSEPORT
    // off, so that a second server on the same port fails instead of sharing it.
    builder.AddListeningPort(options_.address, grpc::InsecureServerCredentials(), &port_);
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // Clients ping every kKeepaliveTimeMs, also between calls: allow it.
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                               wire::kKeepaliveTimeMs / 2);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, wire::kKeepaliveTimeMs);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, wire::kKeepaliveTimeoutMs);
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    // The bounds on what a peer may make the server hold (docs/remote.md, "Limits").
    builder.SetMaxReceiveMessageSize(options_.max_message_bytes);
    builder.SetMaxSendMessageSize(wire::kMaxMessageBytes);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                               options_.max_streams_per_connection);
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                               static_cast<int>(options_.idle_timeout.count()));
    builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, kHandshakeTimeoutMs);
    quota_.Resize(static_cast<size_t>(options_.memory_quota_bytes));
    quota_.SetMaxThreads(options_.max_threads);
    builder.SetResourceQuota(quota_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port_ == 0) {
      if (server_ != nullptr) server_->Shutdown();
      server_.reset();
      return absl::UnavailableError(
          absl::StrCat("seam serve: cannot listen on ", options_.address,
                       ": the port is in use, or the address is not one of this machine's"));
    }
    return absl::OkStatus();
  }

  // The first caller shuts the server down; any other waits until that is done.
  void Stop() {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stopping_) {
        cv_.wait(lock, [this] { return stopped_; });
        return;
      }
      stopping_ = true;
    }
    cv_.notify_all();  // open sessions' streams end within kPollPeriod
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
  }

  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stopped_; });
  }

  int port() const { return port_; }
  RemoteSessions::Counts Counts() const { return sessions_.GetCounts(); }
  int64_t StalledStreams() const { return stall_watch_.cancelled(); }

  // A unary call: the token, then the request (under the stall deadline), then the body.
  template <typename Request, typename Reply>
  grpc::Status Unary(grpc::ServerContext* context,
                     grpc::ServerUnaryStreamer<Request, Reply>* stream, const char* method,
                     grpc::Status (Impl::*body)(grpc::ServerContext*, const Request*, Reply*)) {
    if (grpc::Status auth = Authorize(*context, method); !auth.ok()) return auth;
    Request request;
    if (grpc::Status read = ReadRequest(context, stream, method, request); !read.ok()) return read;
    Reply reply;
    grpc::Status status = (this->*body)(context, &request, &reply);
    if (status.ok()) stream->Write(reply);
    return status;
  }

  // A server-streaming call's single request, read after the token was checked.
  template <typename Request, typename Reply>
  grpc::Status Split(grpc::ServerContext* context,
                     grpc::ServerSplitStreamer<Request, Reply>* stream, const char* method,
                     grpc::Status (Impl::*body)(grpc::ServerContext*, const Request*,
                                                grpc::internal::WriterInterface<Reply>*)) {
    if (grpc::Status auth = Authorize(*context, method); !auth.ok()) return auth;
    Request request;
    if (grpc::Status read = ReadRequest(context, stream, method, request); !read.ok()) return read;
    return (this->*body)(context, &request, stream);
  }

  template <typename Stream, typename Request>
  grpc::Status ReadRequest(grpc::ServerContext* context, Stream* stream, const char* method,
                           Request& request) {
    StallWatch::Watched watched(stall_watch_, context);
    if (stream->Read(&request)) return grpc::Status::OK;
    return EndedEarly(watched, method, "no request was sent");
  }

  grpc::Status StreamedExecute(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::ExecuteRequest, pb::ExecuteReply>* stream) override {
    return Unary(context, stream, "Execute", &Impl::ServeExecute);
  }
  grpc::Status StreamedExecuteReplicated(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::ExecuteReplicatedRequest, pb::ExecuteReplicatedReply>* stream)
      override {
    return Unary(context, stream, "ExecuteReplicated", &Impl::ServeExecuteReplicated);
  }
  grpc::Status StreamedAwaitReady(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::HandlesRequest, pb::AwaitReadyReply>* stream) override {
    return Unary(context, stream, "AwaitReady", &Impl::ServeAwaitReady);
  }
  grpc::Status StreamedIsReady(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::HandlesRequest, pb::IsReadyReply>* stream) override {
    return Unary(context, stream, "IsReady", &Impl::ServeIsReady);
  }
  grpc::Status StreamedRelease(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::HandlesRequest, pb::ReleaseReply>* stream) override {
    return Unary(context, stream, "Release", &Impl::ServeRelease);
  }
  grpc::Status StreamedRunsInFlight(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::RunsInFlightRequest, pb::RunsInFlightReply>* stream) override {
    return Unary(context, stream, "RunsInFlight", &Impl::ServeRunsInFlight);
  }
  grpc::Status StreamedMemoryStats(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::MemoryStatsRequest, pb::MemoryStatsReply>* stream) override {
    return Unary(context, stream, "MemoryStats", &Impl::ServeMemoryStats);
  }
  grpc::Status StreamedServerStats(
      grpc::ServerContext* context,
      grpc::ServerUnaryStreamer<pb::ServerStatsRequest, pb::ServerStatsReply>* stream) override {
    return Unary(context, stream, "ServerStats", &Impl::ServeServerStats);
  }
  grpc::Status StreamedOpenSession(
      grpc::ServerContext* context,
      grpc::ServerSplitStreamer<pb::OpenSessionRequest, pb::SessionEvent>* stream) override {
    return Split(context, stream, "OpenSession", &Impl::ServeOpenSession);
  }
  grpc::Status StreamedTransferFromDevice(
      grpc::ServerContext* context,
      grpc::ServerSplitStreamer<pb::TransferFromDeviceRequest, pb::DataChunk>* stream) override {
    return Split(context, stream, "TransferFromDevice", &Impl::ServeTransferFromDevice);
  }

  grpc::Status ServeOpenSession(grpc::ServerContext* context, const pb::OpenSessionRequest* request,
                                grpc::internal::WriterInterface<pb::SessionEvent>* writer) {
    absl::StatusOr<uint64_t> opened =
        sessions_.Open(Quote(request->client()), options_.max_sessions);
    if (!opened.ok()) {
      refused_log_.Log(base::LogSeverity::kWarning,
                       absl::StrCat("serve: refused a session to ", Quote(request->client()), " (",
                                    context->peer(), "): ", opened.status().message()));
      return ToGrpc(opened.status());
    }
    const uint64_t session = *opened;
    base::Log(base::LogSeverity::kInfo,
              absl::StrFormat("serve: session %016x opened by %s (%s)", session,
                              Quote(request->client()), context->peer()));
    pb::SessionEvent event;
    event.set_session(session);
    event.set_platform(client_->GetPlatformName());
    event.set_default_device(client_->GetDefaultDevice());
    if (absl::StatusOr<uint64_t> base = sessions_.NamedBase(session); base.ok()) {
      event.set_output_handle_base(*base);
    }
    for (const ComputationClient::DeviceInfo& info : client_->GetDeviceInfos()) {
      pb::Device* device = event.add_devices();
      device->set_name(info.name);
      device->set_id(info.id);
      device->set_kind(info.kind);
      absl::StatusOr<ComputationClient::MemoryStats> memory = client_->GetMemoryStats(info.name);
      if (memory.ok() && memory->bytes_limit > 0) device->set_bytes_limit(memory->bytes_limit);
    }
    if (writer->Write(event)) {
      std::unique_lock<std::mutex> lock(mu_);
      while (!stopping_ && !context->IsCancelled()) cv_.wait_for(lock, kPollPeriod);
    }
    const RemoteSessions::Freed freed = sessions_.Close(session);
    base::Log(base::LogSeverity::kInfo,
              absl::StrFormat("serve: session %016x ended; freed %d buffer(s) and %d "
                              "computation(s)",
                              session, freed.buffers, freed.computations));
    return grpc::Status::OK;
  }

  grpc::Status TransferToDevice(grpc::ServerContext* context,
                                grpc::ServerReader<pb::TransferToDeviceChunk>* reader,
                                pb::TransferToDeviceReply* reply) override {
    if (grpc::Status auth = Authorize(*context, "TransferToDevice"); !auth.ok()) return auth;
    StallWatch::Watched watched(stall_watch_, context);
    pb::TransferToDeviceChunk chunk;
    if (!reader->Read(&chunk)) {
      return EndedEarly(watched, "TransferToDevice", "no message was sent");
    }
    watched.Progress();
    const uint64_t session = chunk.session();
    if (absl::Status released = sessions_.Release(session, Handles(chunk.release()));
        !released.ok()) {
      return ToGrpc(released);
    }
    std::vector<ComputationClient::UploadTarget> targets;
    size_t total = 0;
    for (int i = 0; i < chunk.tensors_size(); ++i) {
      absl::StatusOr<ir::Shape> shape = ShapeOf(chunk.tensors(i), i);
      if (!shape.ok()) return ToGrpc(shape.status());
      if (shape->byte_size() > std::numeric_limits<size_t>::max() - total) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                absl::StrCat("TransferToDevice: tensor ", i, " (", shape->ToString(),
                             ") takes the request's bytes past what a size can count")};
      }
      total += shape->byte_size();
      targets.push_back({*std::move(shape), chunk.tensors(i).device()});
      if (absl::Status fits = FitsDevice(targets.back(), i); !fits.ok()) return ToGrpc(fits);
    }
    absl::StatusOr<std::vector<ComputationClient::DataPtr>> buffers =
        ReceiveUpload(chunk, reader, watched, std::move(targets), total);
    if (!buffers.ok()) {
      if (watched.Stalled()) return EndedEarly(watched, "TransferToDevice", "");
      return ToGrpc(buffers.status());
    }
    absl::StatusOr<std::vector<uint64_t>> handles = sessions_.AddBuffers(session, *buffers);
    if (!handles.ok()) return ToGrpc(handles.status());
    for (uint64_t handle : *handles) reply->add_handles(handle);
    return grpc::Status::OK;
  }

  grpc::Status ServeTransferFromDevice(grpc::ServerContext* /*context*/,
                                       const pb::TransferFromDeviceRequest* request,
                                       grpc::internal::WriterInterface<pb::DataChunk>* writer) {
    if (absl::Status released = sessions_.Release(request->session(), Handles(request->release()));
        !released.ok()) {
      return ToGrpc(released);
    }
    absl::StatusOr<std::vector<ComputationClient::DataPtr>> buffers =
        sessions_.Buffers(request->session(), Handles(request->handles()));
    if (!buffers.ok()) return ToGrpc(buffers.status());
    // One buffer at a time, each 1 MiB range copied from the device straight into the
    // outgoing message (no host copy of the whole value).
    pb::DataChunk chunk;
    for (const ComputationClient::DataPtr& buffer : *buffers) {
      // A failed run's output reports the run's error here, before anything is sent.
      if (absl::Status ready = buffer->AwaitReady(); !ready.ok()) return ToGrpc(ready);
      const size_t size = buffer->shape().byte_size();
      for (size_t at = 0; at < size; at += wire::kChunkBytes) {
        const size_t n = std::min(wire::kChunkBytes, size - at);
        std::string* data = chunk.mutable_data();
        data->resize(n);  // the same message each time: zeroed once, then reused
        absl::Status read = client_->TransferFromDeviceRange(
            buffer, at, absl::MakeSpan(reinterpret_cast<uint8_t*>(data->data()), n));
        if (!read.ok()) return ToGrpc(read);
        if (!writer->Write(chunk)) {
          return {grpc::StatusCode::CANCELLED, "TransferFromDevice: the client went away"};
        }
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status Compile(grpc::ServerContext* context, grpc::ServerReader<pb::CompileChunk>* reader,
                       pb::CompileReply* reply) override {
    if (grpc::Status auth = Authorize(*context, "Compile"); !auth.ok()) return auth;
    // The request grows with the bytes received, up to kMaxCompileBytes.
    StallWatch::Watched watched(stall_watch_, context);
    std::string serialized;
    pb::CompileChunk chunk;
    while (reader->Read(&chunk)) {
      watched.Progress();
      if (chunk.data().size() > wire::kMaxCompileBytes - serialized.size()) {
        return {grpc::StatusCode::RESOURCE_EXHAUSTED,
                absl::StrCat("Compile: the request exceeds ", wire::kMaxCompileBytes,
                             " bytes, the most seam serve accepts for a compile")};
      }
      serialized.append(chunk.data());
    }
    watched.Done();  // the compile itself may take longer than the deadline
    if (watched.Stalled()) return EndedEarly(watched, "Compile", "");
    pb::CompileRequest request;
    if (!request.ParseFromString(serialized)) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              absl::StrCat("Compile: the ", serialized.size(),
                           " bytes received are not a serialized CompileRequest")};
    }
    std::string().swap(serialized);
    return ToGrpc(CompileRequested(request, *reply));
  }

  absl::Status CompileRequested(const pb::CompileRequest& request, pb::CompileReply& reply) {
    SEAM_RETURN_IF_ERROR(sessions_.Release(request.session(), Handles(request.release())));
    std::vector<ComputationClient::CompileInstance> instances;
    for (int i = 0; i < request.instances_size(); ++i) {
      const pb::CompileInstance& instance = request.instances(i);
      absl::StatusOr<ir::Program> program = ir::ParseProgram(instance.program());
      if (!program.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Compile: program ", i, ": ", program.status().message()));
      }
      instances.push_back(
          {*std::move(program), instance.compilation_device(), instance.eager_mode()});
    }
    SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::ComputationPtr> computations,
                          client_->Compile(std::move(instances)));
    SEAM_ASSIGN_OR_RETURN(std::vector<uint64_t> handles,
                          sessions_.AddComputations(request.session(), computations));
    for (uint64_t handle : handles) reply.add_computations(handle);
    return absl::OkStatus();
  }

  grpc::Status ServeExecute(grpc::ServerContext* /*context*/, const pb::ExecuteRequest* request,
                            pb::ExecuteReply* reply) {
    const uint64_t session = request->session();
    const absl::Span<const uint64_t> named = Handles(request->output_handles());
    if (!named.empty()) {
      if (absl::Status valid = sessions_.CheckNamed(session, named); !valid.ok()) {
        return ToGrpc(valid);
      }
    }
    absl::StatusOr<ComputationClient::ComputationPtr> computation =
        ReleaseThenFindComputation(session, Handles(request->release()), request->computation());
    if (!computation.ok()) return ToGrpc(computation.status());
    // The small uploads the client kept back come first; once placed, their handles go back
    // even when the run cannot be launched (the client holds buffers for them).
    absl::StatusOr<std::vector<ComputationClient::DataPtr>> placed =
        PlaceInline(session, *request, *reply);
    if (!placed.ok()) return ToGrpc(placed.status());
    absl::Status launched = Launch(session, **computation, *request, *placed, *reply);
    if (!launched.ok()) {
      // With outputs the client named, the call succeeds whatever the launch did: the names
      // are registered (as failures here), so later calls naming them learn why.
      if (placed->empty() && named.empty()) return ToGrpc(launched);
      sessions_.FailNamed(session, named, launched);
      reply->set_launch_error_code(static_cast<int32_t>(launched.code()));
      reply->set_launch_error(std::string(launched.message()));
    }
    return grpc::Status::OK;
  }

  // An execute's run: its arguments found, launched, its outputs added to the session under
  // the client's names or new ones (into `reply`).
  absl::Status Launch(uint64_t session, const ComputationClient::Computation& computation,
                      const pb::ExecuteRequest& request,
                      const std::vector<ComputationClient::DataPtr>& placed,
                      pb::ExecuteReply& reply) {
    SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> arguments,
                          ExecuteArguments(session, request, placed));
    const absl::Span<const uint64_t> named = Handles(request.output_handles());
    if (!named.empty() && named.size() != computation.result_shapes().size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Execute: ", named.size(), " output handles for a program with ",
                       computation.result_shapes().size(), " outputs"));
    }
    ComputationClient::ExecuteComputationOptions options;
    options.eager_mode = request.eager_mode();
    SEAM_ASSIGN_OR_RETURN(
        std::vector<ComputationClient::DataPtr> outputs,
        client_->ExecuteComputation(computation, arguments, request.device(), options));
    if (!named.empty()) {
      SEAM_RETURN_IF_ERROR(sessions_.AddNamed(session, named, outputs));
      for (uint64_t handle : named) reply.add_outputs(handle);
      return absl::OkStatus();
    }
    SEAM_ASSIGN_OR_RETURN(std::vector<uint64_t> handles, sessions_.AddBuffers(session, outputs));
    for (uint64_t handle : handles) reply.add_outputs(handle);
    return absl::OkStatus();
  }

  grpc::Status ServeExecuteReplicated(grpc::ServerContext* /*context*/,
                                      const pb::ExecuteReplicatedRequest* request,
                                      pb::ExecuteReplicatedReply* reply) {
    const uint64_t session = request->session();
    absl::StatusOr<ComputationClient::ComputationPtr> computation =
        ReleaseThenFindComputation(session, Handles(request->release()), request->computation());
    if (!computation.ok()) return ToGrpc(computation.status());
    std::vector<std::vector<ComputationClient::DataPtr>> arguments;
    for (const pb::HandleList& list : request->arguments()) {
      absl::StatusOr<std::vector<ComputationClient::DataPtr>> buffers =
          sessions_.Buffers(session, Handles(list.handles()));
      if (!buffers.ok()) return ToGrpc(buffers.status());
      arguments.push_back(*std::move(buffers));
    }
    std::vector<std::string> devices(request->devices().begin(), request->devices().end());
    absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>> outputs =
        client_->ExecuteReplicated(**computation, arguments, devices);
    if (!outputs.ok()) return ToGrpc(outputs.status());
    for (const std::vector<ComputationClient::DataPtr>& replica : *outputs) {
      absl::StatusOr<std::vector<uint64_t>> handles = sessions_.AddBuffers(session, replica);
      if (!handles.ok()) return ToGrpc(handles.status());
      pb::HandleList* list = reply->add_outputs();
      for (uint64_t handle : *handles) list->add_handles(handle);
    }
    return grpc::Status::OK;
  }

  grpc::Status ServeAwaitReady(grpc::ServerContext* /*context*/, const pb::HandlesRequest* request,
                               pb::AwaitReadyReply* /*reply*/) {
    absl::StatusOr<std::vector<ComputationClient::DataPtr>> buffers =
        sessions_.Buffers(request->session(), Handles(request->handles()));
    if (!buffers.ok()) return ToGrpc(buffers.status());
    for (const ComputationClient::DataPtr& buffer : *buffers) {
      if (absl::Status ready = buffer->AwaitReady(); !ready.ok()) return ToGrpc(ready);
    }
    return grpc::Status::OK;
  }

  grpc::Status ServeIsReady(grpc::ServerContext* /*context*/, const pb::HandlesRequest* request,
                            pb::IsReadyReply* reply) {
    absl::StatusOr<std::vector<ComputationClient::DataPtr>> buffers =
        sessions_.Buffers(request->session(), Handles(request->handles()));
    if (!buffers.ok()) return ToGrpc(buffers.status());
    bool ready = true;
    for (const ComputationClient::DataPtr& buffer : *buffers) ready = ready && buffer->IsReady();
    reply->set_ready(ready);
    return grpc::Status::OK;
  }

  grpc::Status ServeRelease(grpc::ServerContext* /*context*/, const pb::HandlesRequest* request,
                            pb::ReleaseReply* /*reply*/) {
    return ToGrpc(sessions_.Release(request->session(), Handles(request->handles())));
  }

  grpc::Status ServeRunsInFlight(grpc::ServerContext* /*context*/,
                                 const pb::RunsInFlightRequest* request,
                                 pb::RunsInFlightReply* reply) {
    if (absl::Status open = sessions_.Check(request->session()); !open.ok()) return ToGrpc(open);
    if (request->limit() > 0) {
      absl::Status waited = client_->AwaitRunsInFlightBelow(request->device(), request->limit());
      if (!waited.ok()) return ToGrpc(waited);
    }
    absl::StatusOr<int64_t> in_flight = client_->RunsInFlight(request->device());
    if (!in_flight.ok()) return ToGrpc(in_flight.status());
    reply->set_in_flight(*in_flight);
    return grpc::Status::OK;
  }

  grpc::Status ServeMemoryStats(grpc::ServerContext* /*context*/,
                                const pb::MemoryStatsRequest* request,
                                pb::MemoryStatsReply* reply) {
    if (absl::Status open = sessions_.Check(request->session()); !open.ok()) return ToGrpc(open);
    absl::StatusOr<ComputationClient::MemoryStats> stats =
        client_->GetMemoryStats(request->device());
    if (!stats.ok()) return ToGrpc(stats.status());
    reply->set_bytes_in_use(stats->bytes_in_use);
    reply->set_peak_bytes_in_use(stats->peak_bytes_in_use);
    reply->set_bytes_limit(stats->bytes_limit);
    reply->set_pool_cached_bytes(stats->pool_cached_bytes);
    return grpc::Status::OK;
  }

  grpc::Status ServeServerStats(grpc::ServerContext* /*context*/,
                                const pb::ServerStatsRequest* request,
                                pb::ServerStatsReply* reply) {
    if (absl::Status open = sessions_.Check(request->session()); !open.ok()) return ToGrpc(open);
    const RemoteSessions::Counts counts = sessions_.GetCounts(request->session());
    reply->set_sessions(counts.sessions);
    reply->set_buffers(counts.buffers);
    reply->set_computations(counts.computations);
    reply->set_session_buffers(counts.session_buffers);
    reply->set_metrics_report(metrics::MetricsReport());
    return grpc::Status::OK;
  }

 private:
  // A tensor larger than its device's limit (when the plugin reports one) is refused before
  // anything is allocated for the upload.
  absl::Status FitsDevice(const ComputationClient::UploadTarget& target, int index) const {
    auto limit = limits_.find(target.device);
    const size_t bytes = target.shape.byte_size();
    if (limit == limits_.end() || bytes <= static_cast<size_t>(limit->second)) {
      return absl::OkStatus();
    }
    return absl::ResourceExhaustedError(absl::StrCat(
        "TransferToDevice: tensor ", index, " (", target.shape.ToString(), ") needs ", bytes,
        " bytes, more than the limit of ", Quote(target.device), " (", limit->second, " bytes)"));
  }

  // The bytes an error reports: what the shapes need against what the request carried.
  static absl::Status SizeMismatch(size_t total, size_t received) {
    return absl::InvalidArgumentError(absl::StrCat("TransferToDevice: the tensors' shapes need ",
                                                   total, " bytes, the request carried ", received,
                                                   received > total ? " or more" : ""));
  }

  // A stream that ended before its request was whole: cut off by the stall deadline (logged,
  // at a bounded rate), or closed by the client.
  grpc::Status EndedEarly(const StallWatch::Watched& watched, const char* method, const char* why) {
    if (!watched.Stalled()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat(method, ": ", why)};
    }
    refused_log_.Log(base::LogSeverity::kWarning,
                     absl::StrCat("serve: ended a ", method, " stream that sent nothing for ",
                                  stall_watch_.stall().count(), " ms (--stall-timeout-s)"));
    return {grpc::StatusCode::DEADLINE_EXCEEDED,
            absl::StrCat(method, ": no message for ", stall_watch_.stall().count(),
                         " ms; seam serve ended the stream")};
  }

  // Keeps an early chunk's bytes: a large one's string as it is (Read fills a fresh one), a
  // small one appended to the last small piece (tiny chunks must not cost a string each).
  static void KeepPiece(std::string& data, std::vector<std::string>& pieces) {
    constexpr size_t kWholeAtLeast = size_t{64} << 10;
    if (data.size() >= kWholeAtLeast) {
      pieces.emplace_back().swap(data);
    } else if (!pieces.empty() && pieces.back().size() < kWholeAtLeast) {
      pieces.back().append(data);
    } else {
      pieces.push_back(data);
    }
  }

  // An upload's bytes, as they arrive. What the server holds follows what the stream carried,
  // never what its header claims: the chunks are kept in host memory until the stream has
  // carried half of the claim; then (for at most kDirectAtMost bytes) the device buffers are
  // started, the kept chunks (KeepPiece) written and every later chunk written straight into
  // them. A larger upload is gathered in host memory and goes to the device at the end.
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> ReceiveUpload(
      pb::TransferToDeviceChunk& chunk, grpc::ServerReader<pb::TransferToDeviceChunk>* reader,
      StallWatch::Watched& watched, std::vector<ComputationClient::UploadTarget> targets,
      size_t total) {
    std::vector<size_t> sizes;
    sizes.reserve(targets.size());
    for (const ComputationClient::UploadTarget& target : targets) {
      sizes.push_back(target.shape.byte_size());
    }
    std::unique_ptr<ComputationClient::Upload> upload;
    const bool direct = total <= kDirectAtMost;
    std::vector<std::string> pieces;  // direct: the chunks received before the buffers
    std::string kept;                 // not direct: every byte received
    size_t received = 0;              // bytes the stream carried
    size_t tensor = 0;  // where the next byte goes on the device: tensor `tensor`, at `offset`
    size_t offset = 0;
    auto write = [&](std::string_view data) -> absl::Status {
      for (size_t at = 0; at < data.size();) {
        while (offset == sizes[tensor]) {  // the tensor is full (or empty): the next one
          ++tensor;
          offset = 0;
        }
        const size_t n = std::min(data.size() - at, sizes[tensor] - offset);
        const auto* bytes = reinterpret_cast<const uint8_t*>(data.data()) + at;
        SEAM_RETURN_IF_ERROR(upload->Write(tensor, offset, absl::MakeConstSpan(bytes, n)));
        at += n;
        offset += n;
      }
      return absl::OkStatus();
    };
    do {
      watched.Progress();
      std::string& data = *chunk.mutable_data();
      if (data.size() > total - received) return SizeMismatch(total, received + data.size());
      received += data.size();
      if (upload == nullptr && direct && 2 * received >= total) {
        SEAM_ASSIGN_OR_RETURN(upload, client_->StartUpload(targets));  // a few shapes, copied
        for (const std::string& piece : pieces) SEAM_RETURN_IF_ERROR(write(piece));
        std::vector<std::string>().swap(pieces);
      }
      if (upload != nullptr) {
        SEAM_RETURN_IF_ERROR(write(data));
      } else if (direct) {
        KeepPiece(data, pieces);
      } else {
        kept.append(data);
      }
    } while (reader->Read(&chunk));
    watched.Done();  // the copy to the device may take longer than the deadline
    if (received != total) return SizeMismatch(total, received);
    if (upload != nullptr) return upload->Finish();
    std::vector<ComputationClient::TensorSource> tensors;
    size_t at = 0;
    for (ComputationClient::UploadTarget& target : targets) {
      const size_t size = target.shape.byte_size();
      tensors.push_back({std::move(target.shape), kept.data() + at, target.device});
      at += size;
    }
    return client_->TransferToDevice(tensors);
  }

  // The start of both executes: the handles the client let go of ride on the execute (a
  // round trip saved) and are released first; then the computation is looked up.
  // Places an execute's inline tensors on their devices and adds them to the session, their
  // handles into `reply`; the buffers, in order.
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> PlaceInline(
      uint64_t session, const pb::ExecuteRequest& request, pb::ExecuteReply& reply) {
    std::vector<ComputationClient::TensorSource> tensors;
    for (int i = 0; i < request.inline_tensors_size(); ++i) {
      const pb::InlineTensor& tensor = request.inline_tensors(i);
      absl::StatusOr<ir::Shape> shape = ShapeOf(tensor.header(), i);
      if (!shape.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Execute: inline ", shape.status().message()));
      }
      if (shape->byte_size() != tensor.data().size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Execute: inline tensor ", i, " of shape ", shape->ToString(), " needs ",
                         shape->byte_size(), " bytes, the request carried ", tensor.data().size()));
      }
      tensors.push_back({*std::move(shape), tensor.data().data(), tensor.header().device()});
    }
    if (tensors.empty()) return std::vector<ComputationClient::DataPtr>();
    SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> buffers,
                          client_->TransferToDevice(tensors));
    SEAM_ASSIGN_OR_RETURN(std::vector<uint64_t> handles, sessions_.AddBuffers(session, buffers));
    for (uint64_t handle : handles) reply.add_inline_handles(handle);
    return buffers;
  }

  // An execute's arguments: by handle, or (argument_inline[i] >= 0) the placed inline tensor.
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> ExecuteArguments(
      uint64_t session, const pb::ExecuteRequest& request,
      const std::vector<ComputationClient::DataPtr>& placed) {
    if (request.argument_inline_size() == 0) {
      return sessions_.Buffers(session, Handles(request.arguments()));
    }
    if (request.argument_inline_size() != request.arguments_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Execute: argument_inline has ", request.argument_inline_size(),
                       " entries for ", request.arguments_size(), " arguments"));
    }
    std::vector<ComputationClient::DataPtr> arguments;
    for (int i = 0; i < request.arguments_size(); ++i) {
      const int32_t k = request.argument_inline(i);
      if (k >= 0 && static_cast<size_t>(k) < placed.size()) {
        arguments.push_back(placed[static_cast<size_t>(k)]);
        continue;
      }
      if (k != -1) {
        return absl::InvalidArgumentError(absl::StrCat("Execute: argument ", i,
                                                       " names inline tensor ", k,
                                                       ", the request "
                                                       "carried ",
                                                       placed.size()));
      }
      const uint64_t handle = request.arguments(i);
      SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> found,
                            sessions_.Buffers(session, absl::MakeConstSpan(&handle, 1)));
      arguments.push_back(std::move(found[0]));
    }
    return arguments;
  }

  absl::StatusOr<ComputationClient::ComputationPtr> ReleaseThenFindComputation(
      uint64_t session, absl::Span<const uint64_t> release, uint64_t computation) {
    if (absl::Status released = sessions_.Release(session, release); !released.ok()) {
      return released;
    }
    return sessions_.Computation(session, computation);
  }

  // The token, checked on the call's metadata: for a streamed call before any message is
  // read. A refusal is logged at a bounded rate (a peer may try many).
  grpc::Status Authorize(const grpc::ServerContext& context, const char* method) {
    if (options_.token.empty()) return grpc::Status::OK;
    const auto& metadata = context.client_metadata();
    auto it = metadata.find(wire::kTokenMetadata);
    grpc::Status refused;
    if (it == metadata.end()) {
      refused = {grpc::StatusCode::UNAUTHENTICATED,
                 "seam serve requires a token and the call carried none (set "
                 "SEAM_REMOTE_TOKEN_FILE to the server's token file)"};
    } else if (!SameToken(std::string(it->second.data(), it->second.size()), options_.token)) {
      refused = {grpc::StatusCode::UNAUTHENTICATED,
                 "seam serve refused the call's token (SEAM_REMOTE_TOKEN_FILE holds another "
                 "token than the server's --token-file)"};
    } else {
      return grpc::Status::OK;
    }
    refused_log_.Log(base::LogSeverity::kWarning,
                     absl::StrCat("serve: refused ", method, " from ", context.peer(), ": ",
                                  it == metadata.end() ? "no token" : "a wrong token"));
    return refused;
  }

  ComputationClient* client_;
  RemoteService::Options options_;
  RemoteSessions sessions_;
  StallWatch stall_watch_;
  // Refused calls and stalled streams: at most 10 lines in any 10 s.
  RateLimitedLog refused_log_{10, std::chrono::seconds(10)};
  grpc::ResourceQuota quota_;
  std::map<std::string, int64_t> limits_;  // device -> bytes_limit, where reported
  // Uploads of at most this many bytes go straight to the device (ReceiveUpload).
  static constexpr size_t kDirectAtMost = size_t{64} << 20;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;  // the server has shut down
};

absl::StatusOr<std::unique_ptr<RemoteService>> RemoteService::Start(ComputationClient* client,
                                                                    const Options& options) {
  auto impl = std::make_unique<Impl>(client, options);
  if (absl::Status started = impl->Start(); !started.ok()) return started;
  return std::unique_ptr<RemoteService>(new RemoteService(std::move(impl)));
}

RemoteService::RemoteService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RemoteService::~RemoteService() = default;
int RemoteService::port() const { return impl_->port(); }
void RemoteService::Wait() { impl_->Wait(); }
void RemoteService::Stop() { impl_->Stop(); }

RemoteService::Stats RemoteService::GetStats() const {
  const RemoteSessions::Counts counts = impl_->Counts();
  return Stats{counts.sessions, counts.buffers, counts.computations, impl_->StalledStreams()};
}

}  // namespace seam::runtime
