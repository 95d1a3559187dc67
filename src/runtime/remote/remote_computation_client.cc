#include "src/runtime/remote/remote_computation_client.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>
#include <typeinfo>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/base/env.h"
#include "src/base/status_macros.h"
#include "src/ir/text.h"
#include "src/runtime/remote/remote_connection.h"
#include "src/runtime/remote/remote_pipeline.h"
#include "src/runtime/remote/remote_wire.h"

namespace seam::runtime {
namespace {

namespace pb = ::seam::remote;

// Advises the kernel to back the 2 MiB-aligned part of a fresh host value of `size` bytes
// with transparent huge pages (as the CPU plugin does for its blocks): a 64 MiB download
// then faults its pages in 2 MiB at a time instead of 4 KiB. Advice only: where the kernel
// has no transparent huge pages, or a value is small, nothing changes.
void AdviseHugePages(void* data, size_t size) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (size < 2 * kHuge) return;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t start = (begin + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (begin + size) & ~(kHuge - 1);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address computed from `data`
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
}

// A buffer the server holds for this client's session, or will once the upload kept back
// for it travels (`deferred_`).
class RemoteData final : public ComputationClient::Data {
 public:
  RemoteData(std::string device, std::shared_ptr<const ir::Shape> shape,
             std::shared_ptr<RemoteConnection> connection, uint64_t handle,
             std::shared_ptr<RunRecord> run = nullptr,
             std::shared_ptr<PipelinedExecute> launch = nullptr)
      : Data(std::move(device), std::move(shape)),
        connection_(std::move(connection)),
        handle_(handle),
        run_(std::move(run)),
        launch_(std::move(launch)) {}
  RemoteData(std::string device, std::shared_ptr<const ir::Shape> shape,
             std::shared_ptr<RemoteConnection> connection, std::shared_ptr<DeferredHandle> deferred)
      : Data(std::move(device), std::move(shape)),
        connection_(std::move(connection)),
        deferred_(std::move(deferred)) {}
  ~RemoteData() override {
    if (launch_ != nullptr) {
      launch_->Release(handle_, *connection_);  // once the server has registered it
      return;
    }
    const uint64_t handle = deferred_ == nullptr ? handle_ : deferred_->Abandon();
    if (handle != 0) connection_->QueueRelease(handle);
  }

  bool IsReady() const override {
    if (ready_.load(std::memory_order_acquire)) return true;
    absl::StatusOr<pb::HandlesRequest> request = Request();
    if (!request.ok()) return true;  // AwaitReady reports the failure
    grpc::ClientContext context;
    connection_->Prepare(context);
    pb::IsReadyReply reply;
    // A failed call reads as ready: AwaitReady then reports the failure.
    const grpc::Status status = connection_->stub().IsReady(&context, *request, &reply);
    return !status.ok() || reply.ready();
  }
  absl::Status AwaitReady() const override {
    if (ready_.load(std::memory_order_acquire)) return absl::OkStatus();
    SEAM_ASSIGN_OR_RETURN(pb::HandlesRequest request, Request());
    grpc::ClientContext context;
    connection_->Prepare(context);
    pb::AwaitReadyReply reply;
    const grpc::Status status = connection_->stub().AwaitReady(&context, request, &reply);
    if (!status.ok()) return connection_->Error(status, "AwaitReady");
    MarkReady();
    return absl::OkStatus();
  }
  // The server's handle; for an upload kept back, sends it first when it still waits; for
  // the output of a pipelined execute that failed, that execute's error.
  absl::StatusOr<uint64_t> Handle() const {
    if (launch_ != nullptr) SEAM_RETURN_IF_ERROR(launch_->OutputError());
    if (deferred_ == nullptr) return handle_;
    if (deferred_->state() == DeferredHandle::State::kQueued) {
      SEAM_RETURN_IF_ERROR(connection_->FlushUploads());
    }
    // Carried by a pipelined execute: its reply, which names the buffer, is collected by
    // whoever looks for it.
    if (deferred_->state() == DeferredHandle::State::kSending) connection_->AwaitPipelined();
    return deferred_->Await();
  }
  // The upload kept back for this buffer (nullptr for a buffer placed at once).
  const DeferredHandle* deferred() const { return deferred_.get(); }
  // The server said the value is computed (a read or a wait returned it).
  void MarkReady() const {
    ready_.store(true, std::memory_order_release);
    if (run_ != nullptr) run_->finished.store(true, std::memory_order_release);
  }
  const RemoteConnection* connection() const { return connection_.get(); }

 private:
  absl::StatusOr<pb::HandlesRequest> Request() const {
    SEAM_ASSIGN_OR_RETURN(uint64_t handle, Handle());
    pb::HandlesRequest request;
    request.set_session(connection_->session());
    request.add_handles(handle);
    return request;
  }

  std::shared_ptr<RemoteConnection> connection_;
  uint64_t handle_ = 0;
  std::shared_ptr<DeferredHandle> deferred_;
  // The run that computes this buffer (outputs of an execute), marked finished once the
  // server has said so for any of its outputs.
  std::shared_ptr<RunRecord> run_;
  // The pipelined execute that names this output (nullptr otherwise).
  std::shared_ptr<PipelinedExecute> launch_;
  mutable std::atomic<bool> ready_{false};
};

class RemoteComputation final : public ComputationClient::Computation {
 public:
  RemoteComputation(ir::Program program, std::shared_ptr<RemoteConnection> connection,
                    uint64_t handle)
      : Computation(std::move(program)),
        connection_(std::move(connection)),
        handle_(handle),
        parameters_(this->program().num_parameters()) {
    for (const ir::Shape& shape : result_shapes()) {
      output_shapes_.push_back(std::make_shared<const ir::Shape>(shape));
    }
  }
  ~RemoteComputation() override { connection_->QueueRelease(handle_); }
  uint64_t handle() const { return handle_; }
  int parameters() const { return parameters_; }
  const RemoteConnection* connection() const { return connection_.get(); }
  const std::vector<std::shared_ptr<const ir::Shape>>& output_shapes() const {
    return output_shapes_;
  }

 private:
  std::shared_ptr<RemoteConnection> connection_;
  uint64_t handle_;
  int parameters_;
  std::vector<std::shared_ptr<const ir::Shape>> output_shapes_;
};

template <typename T, typename Base>
const T* AsExactly(const Base* object) {
  if (object == nullptr || typeid(*object) != typeid(T)) return nullptr;
  return static_cast<const T*>(object);
}

// `data` as this connection's RemoteData; else InvalidArgument naming `what`.
absl::StatusOr<const RemoteData*> RemoteDataOf(const ComputationClient::DataPtr& data,
                                               const RemoteConnection* connection,
                                               const std::string& what) {
  const auto* remote_data = AsExactly<RemoteData>(data.get());
  if (remote_data == nullptr || remote_data->connection() != connection) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not from this client"));
  }
  return remote_data;
}

// The handle of `data` when it is this connection's (sending its upload first when it was
// kept back); else InvalidArgument naming `what`.
absl::StatusOr<uint64_t> HandleOf(const ComputationClient::DataPtr& data,
                                  const RemoteConnection* connection, const std::string& what) {
  SEAM_ASSIGN_OR_RETURN(const RemoteData* remote_data, RemoteDataOf(data, connection, what));
  return remote_data->Handle();
}

absl::StatusOr<const RemoteComputation*> ComputationOf(const ComputationClient::Computation& c,
                                                       const RemoteConnection* connection,
                                                       const char* operation) {
  const auto* computation = AsExactly<RemoteComputation>(&c);
  if (computation == nullptr || computation->connection() != connection) {
    return absl::InvalidArgumentError(
        absl::StrCat(operation, ": computation is not from this client"));
  }
  return computation;
}

// Names the arguments in `request`: an argument whose upload `batch` carries by its index
// there, any other by its handle (waiting for another call that carries it). On an error
// the batch is sent on its own first: its tensors may belong to other buffers.
absl::Status AddArguments(const std::vector<const RemoteData*>& arguments,
                          DeferredUploads::Batch& batch, RemoteConnection& connection,
                          pb::ExecuteRequest& request) {
  bool any_inline = false;
  for (const RemoteData* argument : arguments) {
    int inline_index = -1;
    for (size_t k = 0; k < batch.handles.size(); ++k) {
      if (argument->deferred() == batch.handles[k].get()) inline_index = static_cast<int>(k);
    }
    request.add_argument_inline(inline_index);
    any_inline = any_inline || inline_index >= 0;
    if (inline_index >= 0) {
      request.add_arguments(0);
      continue;
    }
    // Already placed, or carried by another thread's call right now (waits for it).
    absl::StatusOr<uint64_t> handle = argument->Handle();
    if (!handle.ok()) {
      // The batch still has to reach the server: its tensors belong to other buffers.
      if (!batch.empty()) {
        DeferredUploads::Batch carried = std::move(batch);
        batch = DeferredUploads::Batch();
        connection.SendDeferred(carried)
            .IgnoreError();  // its own failure is recorded in its handles
      }
      return handle.status();
    }
    request.add_arguments(*handle);
  }
  if (!any_inline) request.clear_argument_inline();
  return absl::OkStatus();
}

// This host's physical memory in bytes; 0 when the system does not say.
uint64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

}  // namespace

absl::Status RemoteComputationClient::CheckUploadSizes(
    const std::vector<TensorSource>& tensors) const {
  static const uint64_t physical = PhysicalMemoryBytes();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorSource& tensor = tensors[i];
    absl::Status valid = ir::ValidateShape(tensor.shape);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("TransferToDevice: tensor ", i, ": ", valid.message()));
    }
    const uint64_t size = tensor.shape.byte_size();
    // The bytes are read from the caller's memory, so more than this host holds cannot be
    // there: refuse before reading one (the in-process client's plugin refuses the
    // allocation before it reads, too).
    if (physical > 0 && size > physical) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "TransferToDevice: cannot send ", size, " bytes for ", tensor.shape.ToString(),
          " (tensor ", i, "): more than this host's physical memory (", physical,
          " bytes), so the data cannot be in this process"));
    }
    for (size_t d = 0; d < devices_.size(); ++d) {
      if (devices_[d].name != tensor.device || device_limits_[d] <= 0) continue;
      if (size > static_cast<uint64_t>(device_limits_[d])) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "TransferToDevice: cannot allocate ", size, " bytes of device memory for ",
            tensor.shape.ToString(), " (tensor ", i, "): ", tensor.device, " on seam serve at ",
            connection_->address(), " allocates at most ", device_limits_[d], " bytes"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<RemoteClientOptions> ReadRemoteClientOptions(
    const std::function<std::optional<std::string>(const char*)>& get) {
  RemoteClientOptions options;
  std::optional<std::string> address = get("SEAM_REMOTE_ADDRESS");
  if (!address.has_value() || address->empty()) {
    return absl::FailedPreconditionError(
        "SEAM_CLIENT=remote needs SEAM_REMOTE_ADDRESS=HOST:PORT, the address `seam serve` "
        "listens on (e.g. 127.0.0.1:8548); it is not set");
  }
  SEAM_ASSIGN_OR_RETURN(wire::HostPort parsed, wire::ParseHostPort(*address, "SEAM_REMOTE_ADDRESS",
                                                                   /*allow_port_zero=*/false));
  options.address = parsed.ToString();
  std::optional<std::string> token_file = get("SEAM_REMOTE_TOKEN_FILE");
  if (token_file.has_value() && !token_file->empty()) {
    SEAM_ASSIGN_OR_RETURN(options.token,
                          wire::ReadTokenFile(*token_file, "SEAM_REMOTE_TOKEN_FILE"));
  }
  std::optional<std::string> pipeline = get("SEAM_REMOTE_PIPELINE");
  if (pipeline.has_value() && !pipeline->empty()) {
    if (*pipeline != "0" && *pipeline != "1") {
      return absl::InvalidArgumentError(
          absl::StrCat("SEAM_REMOTE_PIPELINE must be 0 (every execute waits for its reply) or 1 ",
                       "(executes are pipelined), got '", *pipeline, "'"));
    }
    options.pipeline = *pipeline == "1";
  }
  return options;
}

absl::StatusOr<std::unique_ptr<RemoteComputationClient>> RemoteComputationClient::Connect(
    const RemoteClientOptions& options) {
  pb::SessionEvent first;
  SEAM_ASSIGN_OR_RETURN(std::shared_ptr<RemoteConnection> connection,
                        RemoteConnection::Open(options.address, options.token, &first));
  if (!options.pipeline) connection->StopNamingOutputs();
  if (first.devices().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("seam serve at ", options.address, " reported no devices"));
  }
  std::unique_ptr<RemoteComputationClient> client(
      new RemoteComputationClient(std::move(connection)));
  client->platform_ = first.platform();
  client->default_device_ = first.default_device();
  for (const pb::Device& device : first.devices()) {
    client->devices_.push_back({device.name(), device.id(), device.kind()});
    client->device_limits_.push_back(device.bytes_limit());
  }
  return client;
}

RemoteComputationClient::RemoteComputationClient(std::shared_ptr<RemoteConnection> connection)
    : connection_(std::move(connection)) {}

RemoteComputationClient::~RemoteComputationClient() { connection_->Close(); }

uint64_t RemoteComputationClient::session() const { return connection_->session(); }

const std::string& RemoteComputationClient::address() const { return connection_->address(); }

std::vector<std::string> RemoteComputationClient::GetLocalDevices() const {
  std::vector<std::string> names;
  for (const DeviceInfo& device : devices_) names.push_back(device.name);
  return names;
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>> RemoteComputationClient::DoTransferToDevice(
    const std::vector<TensorSource>& tensors) {
  SEAM_RETURN_IF_ERROR(CheckUploadSizes(tensors));
  std::vector<DataPtr> handles(tensors.size());
  std::vector<pb::TensorHeader> headers(tensors.size());
  std::vector<RemoteConnection::UploadPiece> pieces;  // the tensors sent now
  std::vector<size_t> sent;                           // their indices in `tensors`
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorSource& tensor = tensors[i];
    pb::TensorHeader& header = headers[i];
    header.set_dtype(std::string(ir::DTypeName(tensor.shape.dtype)));
    for (int64_t dim : tensor.shape.dims) header.add_dims(dim);
    header.set_device(tensor.device);
    const size_t size = tensor.shape.byte_size();
    auto shape = std::make_shared<const ir::Shape>(tensor.shape);
    // Small tensors for a device the server named are kept back for the next execute;
    // anything else (and an unknown device, whose error the server words) goes now.
    std::shared_ptr<DeferredHandle> deferred;
    if (DeviceIndex(tensor.device) >= 0) {
      deferred = connection_->deferred().TryQueue(header, tensor.data, size);
    }
    if (deferred != nullptr) {
      handles[i] = std::make_shared<RemoteData>(tensor.device, std::move(shape), connection_,
                                                std::move(deferred));
    } else {
      pieces.push_back({&header, static_cast<const char*>(tensor.data), size});
      sent.push_back(i);
    }
  }
  if (!pieces.empty()) {
    SEAM_ASSIGN_OR_RETURN(std::vector<uint64_t> placed, connection_->Upload(pieces));
    for (size_t k = 0; k < sent.size(); ++k) {
      const TensorSource& tensor = tensors[sent[k]];
      handles[sent[k]] = std::make_shared<RemoteData>(
          tensor.device, std::make_shared<const ir::Shape>(tensor.shape), connection_, placed[k]);
    }
  }
  return handles;
}

int RemoteComputationClient::DeviceIndex(const std::string& device) const {
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (devices_[d].name == device) return static_cast<int>(d);
  }
  return -1;
}

absl::StatusOr<std::vector<ir::Literal>> RemoteComputationClient::DoTransferFromDevice(
    const std::vector<DataPtr>& handles) {
  std::vector<ir::Literal> literals(handles.size());
  for (size_t i = 0; i < handles.size(); ++i) literals[i].shape = handles[i]->shape();
  auto append = [&](size_t index, size_t offset, const uint8_t* data, size_t n) {
    std::vector<uint8_t>& bytes = literals[index].bytes;
    // Sized once, by this process's own shape, when its first bytes arrive: the server
    // sends only values it has read, so a failed run's error comes before any sizing.
    if (offset == 0) {
      bytes.reserve(literals[index].shape.byte_size());
      AdviseHugePages(bytes.data(), bytes.capacity());
    }
    bytes.insert(bytes.end(), data, data + n);
  };
  SEAM_RETURN_IF_ERROR(ReadStream(handles, append, "TransferFromDevice"));
  return literals;
}

absl::Status RemoteComputationClient::DoTransferFromDeviceInto(const DataPtr& handle,
                                                               absl::Span<uint8_t> destination) {
  // Straight into the caller's memory: no fresh host value.
  auto copy = [&](size_t, size_t offset, const uint8_t* data, size_t n) {
    std::memcpy(destination.data() + offset, data, n);
  };
  return ReadStream({handle}, copy, "TransferFromDeviceInto");
}

absl::Status RemoteComputationClient::ReadStream(const std::vector<DataPtr>& handles,
                                                 const ByteSink& sink, const char* operation) {
  pb::TransferFromDeviceRequest request;
  request.set_session(connection_->session());
  for (size_t i = 0; i < handles.size(); ++i) {
    SEAM_ASSIGN_OR_RETURN(uint64_t handle, HandleOf(handles[i], connection_.get(),
                                                    absl::StrCat(operation, ": handle ", i)));
    request.add_handles(handle);
  }
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  grpc::ClientContext context;
  connection_->Prepare(context);
  std::unique_ptr<grpc::ClientReader<pb::DataChunk>> reader =
      connection_->stub().TransferFromDevice(&context, request);
  size_t index = 0;   // the value being filled
  size_t filled = 0;  // its bytes so far
  // Moves past the values that are complete (zero-sized ones included).
  auto skip_complete = [&] {
    while (index < handles.size() && filled == handles[index]->shape().byte_size()) {
      ++index;
      filled = 0;
    }
  };
  pb::DataChunk chunk;
  absl::Status status;
  while (status.ok() && reader->Read(&chunk)) {
    const auto* data = reinterpret_cast<const uint8_t*>(chunk.data().data());
    const size_t size = chunk.data().size();
    for (size_t at = 0; at < size;) {
      skip_complete();
      if (index == handles.size()) {
        status =
            absl::InternalError(absl::StrCat(operation, ": seam serve sent more bytes than asked"));
        break;
      }
      const size_t n = std::min(size - at, handles[index]->shape().byte_size() - filled);
      sink(index, filled, data + at, n);
      filled += n;
      at += n;
    }
  }
  if (!status.ok()) context.TryCancel();
  const grpc::Status finished = reader->Finish();
  SEAM_RETURN_IF_ERROR(status);
  if (!finished.ok()) return connection_->Error(finished, operation);
  skip_complete();
  if (index != handles.size()) {
    return absl::InternalError(absl::StrCat(operation, ": seam serve sent ", filled,
                                            " bytes for value ", index, " of shape ",
                                            handles[index]->shape().ToString()));
  }
  for (const DataPtr& handle : handles) {
    OutboundDataMetric()->AddSample(static_cast<double>(handle->shape().byte_size()));
    // Read, so computed: the run that produced it has finished.
    static_cast<const RemoteData*>(handle.get())->MarkReady();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ComputationClient::ComputationPtr>> RemoteComputationClient::DoCompile(
    std::vector<CompileInstance> instances) {
  pb::CompileRequest request;
  request.set_session(connection_->session());
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  for (const CompileInstance& instance : instances) {
    pb::CompileInstance* sent = request.add_instances();
    sent->set_program(ir::PrintProgram(instance.program));
    sent->set_compilation_device(instance.compilation_device);
    sent->set_eager_mode(instance.eager_mode);
  }
  // Streamed in chunks: a program with large constants may be far larger than the server's
  // largest single message.
  const std::string serialized = request.SerializeAsString();
  grpc::ClientContext context;
  connection_->Prepare(context);
  context.set_initial_metadata_corked(true);  // sent with the first chunk
  pb::CompileReply reply;
  std::unique_ptr<grpc::ClientWriter<pb::CompileChunk>> writer =
      connection_->stub().Compile(&context, &reply);
  pb::CompileChunk chunk;
  // The last chunk carries the end of the stream with it (one operation fewer: most programs
  // are one chunk). A failed write means the server ended the call: Finish says why.
  size_t at = 0;
  while (serialized.size() - at > wire::kChunkBytes) {
    chunk.set_data(serialized.data() + at, wire::kChunkBytes);
    if (!writer->Write(chunk)) break;
    at += wire::kChunkBytes;
  }
  if (serialized.size() - at <= wire::kChunkBytes) {
    chunk.set_data(serialized.data() + at, serialized.size() - at);
    writer->WriteLast(chunk, grpc::WriteOptions());
  } else {
    writer->WritesDone();
  }
  const grpc::Status status = writer->Finish();
  if (!status.ok()) return connection_->Error(status, "Compile");
  if (reply.computations_size() != static_cast<int>(instances.size())) {
    return absl::InternalError(absl::StrCat("Compile: seam serve returned ",
                                            reply.computations_size(), " computations for ",
                                            instances.size(), " programs"));
  }
  std::vector<ComputationPtr> computations;
  for (size_t i = 0; i < instances.size(); ++i) {
    computations.push_back(std::make_shared<RemoteComputation>(
        std::move(instances[i].program), connection_, reply.computations(static_cast<int>(i))));
  }
  return computations;
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>>
RemoteComputationClient::DoExecuteComputation(const Computation& computation,
                                              const std::vector<DataPtr>& arguments,
                                              const std::string& device,
                                              const ExecuteComputationOptions& options) {
  SEAM_ASSIGN_OR_RETURN(const RemoteComputation* remote_computation,
                        ComputationOf(computation, connection_.get(), "ExecuteComputation"));
  // Checked here as well as by the server: a pipelined execute's launch errors otherwise
  // reach the caller only when an output is used.
  if (static_cast<int>(arguments.size()) != remote_computation->parameters()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ExecuteComputation: ", arguments.size(), " arguments for a program with ",
                     remote_computation->parameters(), " parameters"));
  }
  SEAM_RETURN_IF_ERROR(connection_->Lost());
  std::vector<const RemoteData*> remote_arguments;
  for (size_t i = 0; i < arguments.size(); ++i) {
    SEAM_ASSIGN_OR_RETURN(remote_arguments.emplace_back(),
                          RemoteDataOf(arguments[i], connection_.get(),
                                       absl::StrCat("ExecuteComputation: argument ", i)));
  }
  pb::ExecuteRequest request;
  request.set_session(connection_->session());
  request.set_computation(remote_computation->handle());
  // The uploads kept back travel with this call (all of them: the next step's batch too).
  DeferredUploads::Batch batch = connection_->deferred().TakeAll();
  SEAM_RETURN_IF_ERROR(AddArguments(remote_arguments, batch, *connection_, request));
  for (pb::InlineTensor& tensor : batch.tensors) *request.add_inline_tensors() = std::move(tensor);
  request.set_device(device);
  request.set_eager_mode(options.eager_mode);
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  const auto& shapes = remote_computation->output_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint64_t name = connection_->NameOutput();
    if (name == 0) break;
    request.add_output_handles(name);
  }
  if (request.output_handles_size() == static_cast<int>(shapes.size()) && !shapes.empty()) {
    return ExecutePipelined(std::move(request), std::move(batch), shapes, device, options);
  }
  request.clear_output_handles();
  // The sample covers the launch's round trip: the run itself is timed by the server.
  metrics::ScopedTimer timer(options.eager_mode ? EagerOpExecuteMetric() : ExecuteMetric());
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::ExecuteReply reply;
  const grpc::Status status = connection_->stub().Execute(&context, request, &reply);
  SEAM_RETURN_IF_ERROR(SettleInline(batch, *connection_, status, reply));
  if (!status.ok()) return connection_->Error(status, "ExecuteComputation");
  if (reply.launch_error_code() != 0) {
    return absl::Status(static_cast<absl::StatusCode>(reply.launch_error_code()),
                        reply.launch_error());
  }
  if (reply.outputs_size() != static_cast<int>(shapes.size())) {
    return absl::InternalError(absl::StrCat("ExecuteComputation: seam serve returned ",
                                            reply.outputs_size(), " outputs, the program has ",
                                            shapes.size()));
  }
  auto run = std::make_shared<RunRecord>();
  std::vector<DataPtr> results;
  results.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    results.push_back(std::make_shared<RemoteData>(device, shapes[i], connection_,
                                                   reply.outputs(static_cast<int>(i)), run));
  }
  runs_.Launched(device, std::move(run));
  return results;
}

std::vector<ComputationClient::DataPtr> RemoteComputationClient::ExecutePipelined(
    pb::ExecuteRequest request, DeferredUploads::Batch batch,
    const std::vector<std::shared_ptr<const ir::Shape>>& shapes, const std::string& device,
    const ExecuteComputationOptions& options) {
  // The sample covers sending the call: its reply is not waited for.
  metrics::ScopedTimer timer(options.eager_mode ? EagerOpExecuteMetric() : ExecuteMetric());
  auto call = std::make_shared<PipelinedExecute>();
  call->request = std::move(request);
  call->batch = std::move(batch);
  connection_->Prepare(call->context);
  auto run = std::make_shared<RunRecord>();
  std::vector<DataPtr> results;
  results.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    results.push_back(
        std::make_shared<RemoteData>(device, shapes[i], connection_,
                                     call->request.output_handles(static_cast<int>(i)), run, call));
  }
  runs_.Launched(device, run);
  PipelinedExecute* sent = call.get();
  RemoteConnection* connection = connection_.get();  // outlives the call (Close awaits it)
  connection_->SendPipelined(std::move(call), [sent, connection, run](const grpc::Status& status) {
    // A run that was never launched is not in flight.
    if (!sent->Settle(status, *connection).ok()) {
      run->finished.store(true, std::memory_order_release);
    }
  });
  return results;
}

absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>>
RemoteComputationClient::DoExecuteReplicated(const Computation& computation,
                                             const std::vector<std::vector<DataPtr>>& arguments,
                                             const std::vector<std::string>& devices) {
  SEAM_ASSIGN_OR_RETURN(const RemoteComputation* remote_computation,
                        ComputationOf(computation, connection_.get(), "ExecuteReplicated"));
  pb::ExecuteReplicatedRequest request;
  request.set_session(connection_->session());
  request.set_computation(remote_computation->handle());
  for (size_t d = 0; d < arguments.size(); ++d) {
    pb::HandleList* list = request.add_arguments();
    for (size_t i = 0; i < arguments[d].size(); ++i) {
      SEAM_ASSIGN_OR_RETURN(uint64_t handle, HandleOf(arguments[d][i], connection_.get(),
                                                      absl::StrCat("ExecuteReplicated: argument ",
                                                                   i, " of device ", d)));
      list->add_handles(handle);
    }
  }
  for (const std::string& device : devices) request.add_devices(device);
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  metrics::ScopedTimer timer(ExecuteReplicatedMetric());
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::ExecuteReplicatedReply reply;
  const grpc::Status status = connection_->stub().ExecuteReplicated(&context, request, &reply);
  if (!status.ok()) return connection_->Error(status, "ExecuteReplicated");
  const auto& shapes = remote_computation->output_shapes();
  if (reply.outputs_size() != static_cast<int>(devices.size())) {
    return absl::InternalError(absl::StrCat("ExecuteReplicated: seam serve returned ",
                                            reply.outputs_size(), " output lists for ",
                                            devices.size(), " devices"));
  }
  std::vector<std::vector<DataPtr>> results(devices.size());
  std::vector<std::shared_ptr<RunRecord>> runs(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    runs[d] = std::make_shared<RunRecord>();
    const pb::HandleList& list = reply.outputs(static_cast<int>(d));
    if (list.handles_size() != static_cast<int>(shapes.size())) {
      return absl::InternalError(absl::StrCat("ExecuteReplicated: seam serve returned ",
                                              list.handles_size(), " outputs for device ", d,
                                              ", the program has ", shapes.size()));
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
      results[d].push_back(std::make_shared<RemoteData>(
          devices[d], shapes[i], connection_, list.handles(static_cast<int>(i)), runs[d]));
    }
  }
  for (size_t d = 0; d < devices.size(); ++d) runs_.Launched(devices[d], runs[d]);
  return results;
}

absl::Status RemoteComputationClient::AwaitRunsInFlightBelow(const std::string& device,
                                                             int64_t limit) {
  if (limit <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("AwaitRunsInFlightBelow: the limit must be at least 1, got ", limit));
  }
  // Fewer of this client's runs than the limit can still be unfinished: no need to ask (a
  // step that read its loss has seen its run finish). Other clients' runs on a shared server
  // do not hold this one back.
  if (runs_.Unfinished(device) < limit) return absl::OkStatus();
  connection_->AwaitPipelined();  // the server counts the runs it has launched
  pb::RunsInFlightRequest request;
  request.set_session(connection_->session());
  request.set_device(device);
  request.set_limit(limit);
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::RunsInFlightReply reply;
  const grpc::Status status = connection_->stub().RunsInFlight(&context, request, &reply);
  if (!status.ok()) return connection_->Error(status, "AwaitRunsInFlightBelow");
  runs_.Bound(device, reply.in_flight());
  return absl::OkStatus();
}

absl::StatusOr<int64_t> RemoteComputationClient::RunsInFlight(const std::string& device) const {
  connection_->AwaitPipelined();
  pb::RunsInFlightRequest request;
  request.set_session(connection_->session());
  request.set_device(device);
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::RunsInFlightReply reply;
  const grpc::Status status = connection_->stub().RunsInFlight(&context, request, &reply);
  if (!status.ok()) return connection_->Error(status, "RunsInFlight");
  return reply.in_flight();
}

absl::StatusOr<ComputationClient::MemoryStats> RemoteComputationClient::GetMemoryStats(
    const std::string& device) const {
  // Buffers this client dropped count as freed, as they do in process; uploads kept back
  // count as placed, and outputs of executes sent as computed.
  connection_->AwaitPipelined();
  SEAM_RETURN_IF_ERROR(connection_->FlushUploads());
  SEAM_RETURN_IF_ERROR(connection_->FlushReleases());
  pb::MemoryStatsRequest request;
  request.set_session(connection_->session());
  request.set_device(device);
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::MemoryStatsReply reply;
  const grpc::Status status = connection_->stub().MemoryStats(&context, request, &reply);
  if (!status.ok()) return connection_->Error(status, "GetMemoryStats");
  MemoryStats stats;
  stats.bytes_in_use = reply.bytes_in_use();
  stats.peak_bytes_in_use = reply.peak_bytes_in_use();
  stats.bytes_limit = reply.bytes_limit();
  stats.pool_cached_bytes = reply.pool_cached_bytes();
  return stats;
}

absl::StatusOr<RemoteComputationClient::ServerStats> RemoteComputationClient::GetServerStats()
    const {
  connection_->AwaitPipelined();
  SEAM_RETURN_IF_ERROR(connection_->FlushUploads());
  SEAM_RETURN_IF_ERROR(connection_->FlushReleases());
  pb::ServerStatsRequest request;
  request.set_session(connection_->session());
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::ServerStatsReply reply;
  const grpc::Status status = connection_->stub().ServerStats(&context, request, &reply);
  if (!status.ok()) return connection_->Error(status, "GetServerStats");
  return ServerStats{reply.sessions(), reply.buffers(), reply.computations(),
                     reply.session_buffers(), reply.metrics_report()};
}

void RemoteComputationClient::AppendServerReport(std::string* report) const {
  std::string out = absl::StrCat("Server: ", address(), "\n");
  absl::StatusOr<ServerStats> stats = GetServerStats();
  if (!stats.ok()) {
    absl::StrAppend(report, out, "  Unavailable: ", stats.status().message(), "\n");
    return;
  }
  absl::StrAppend(&out, "  Sessions: ", stats->sessions, "\n", "  Buffers: ", stats->buffers, "\n",
                  "  Computations: ", stats->computations, "\n",
                  "  SessionBuffers: ", stats->session_buffers, "\n");
  for (absl::string_view line : absl::StrSplit(stats->metrics_report, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&out, "  ", line, "\n");
  }
  absl::StrAppend(report, out);
}

absl::Status RegisterRemoteClientFactory() {
  ClientFactory factory;
  factory.name = kRemoteClientKind;
  factory.description = "devices of a `seam serve` at SEAM_REMOTE_ADDRESS";
  factory.create = [](ClientChoice* choice) -> absl::StatusOr<std::unique_ptr<ComputationClient>> {
    choice->branch = "remote";
    SEAM_ASSIGN_OR_RETURN(
        RemoteClientOptions options,
        ReadRemoteClientOptions([](const char* name) { return base::GetEnv(name); }));
    choice->remote_address = options.address;
    SEAM_ASSIGN_OR_RETURN(std::unique_ptr<RemoteComputationClient> client,
                          RemoteComputationClient::Connect(options));
    return std::unique_ptr<ComputationClient>(std::move(client));
  };
  return RegisterClientFactory(std::move(factory));
}

}  // namespace seam::runtime
