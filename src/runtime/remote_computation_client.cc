#include "src/runtime/remote_computation_client.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <new>
#include <typeinfo>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/base/status_macros.h"
#include "src/ir/text.h"
#include "src/runtime/remote_connection.h"
#include "src/runtime/remote_wire.h"
#include "src/runtime/trace.h"

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

// A buffer the server holds for this client's session.
class RemoteData final : public ComputationClient::Data {
 public:
  RemoteData(std::string device, std::shared_ptr<const ir::Shape> shape,
             std::shared_ptr<RemoteConnection> connection, uint64_t handle)
      : Data(std::move(device), std::move(shape)),
        connection_(std::move(connection)),
        handle_(handle) {}
  ~RemoteData() override { connection_->QueueRelease(handle_); }

  bool IsReady() const override {
    if (ready_.load(std::memory_order_acquire)) return true;
    pb::HandlesRequest request = Request();
    grpc::ClientContext context;
    connection_->Prepare(context);
    pb::IsReadyReply reply;
    // A failed call reads as ready: AwaitReady then reports the failure.
    const grpc::Status status = connection_->stub().IsReady(&context, request, &reply);
    return !status.ok() || reply.ready();
  }
  absl::Status AwaitReady() const override {
    if (ready_.load(std::memory_order_acquire)) return absl::OkStatus();
    pb::HandlesRequest request = Request();
    grpc::ClientContext context;
    connection_->Prepare(context);
    pb::AwaitReadyReply reply;
    const grpc::Status status = connection_->stub().AwaitReady(&context, request, &reply);
    if (!status.ok()) return connection_->Error(status, "AwaitReady");
    ready_.store(true, std::memory_order_release);
    return absl::OkStatus();
  }
  uint64_t handle() const { return handle_; }
  const RemoteConnection* connection() const { return connection_.get(); }

 private:
  pb::HandlesRequest Request() const {
    pb::HandlesRequest request;
    request.set_session(connection_->session());
    request.add_handles(handle_);
    return request;
  }

  std::shared_ptr<RemoteConnection> connection_;
  uint64_t handle_;
  mutable std::atomic<bool> ready_{false};
};

class RemoteComputation final : public ComputationClient::Computation {
 public:
  RemoteComputation(ir::Program program, std::shared_ptr<RemoteConnection> connection,
                    uint64_t handle)
      : Computation(std::move(program)), connection_(std::move(connection)), handle_(handle) {
    for (const ir::Shape& shape : result_shapes()) {
      output_shapes_.push_back(std::make_shared<const ir::Shape>(shape));
    }
  }
  ~RemoteComputation() override { connection_->QueueRelease(handle_); }
  uint64_t handle() const { return handle_; }
  const RemoteConnection* connection() const { return connection_.get(); }
  const std::vector<std::shared_ptr<const ir::Shape>>& output_shapes() const {
    return output_shapes_;
  }

 private:
  std::shared_ptr<RemoteConnection> connection_;
  uint64_t handle_;
  std::vector<std::shared_ptr<const ir::Shape>> output_shapes_;
};

template <typename T, typename Base>
const T* AsExactly(const Base* object) {
  if (object == nullptr || typeid(*object) != typeid(T)) return nullptr;
  return static_cast<const T*>(object);
}

// The handle of `data` when it is this connection's; else InvalidArgument naming `what`.
absl::StatusOr<uint64_t> HandleOf(const ComputationClient::DataPtr& data,
                                  const RemoteConnection* connection, const std::string& what) {
  const auto* remote_data = AsExactly<RemoteData>(data.get());
  if (remote_data == nullptr || remote_data->connection() != connection) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not from this client"));
  }
  return remote_data->handle();
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
  return options;
}

absl::StatusOr<std::unique_ptr<RemoteComputationClient>> RemoteComputationClient::Connect(
    const RemoteClientOptions& options) {
  pb::SessionEvent first;
  SEAM_ASSIGN_OR_RETURN(std::shared_ptr<RemoteConnection> connection,
                        RemoteConnection::Open(options.address, options.token, &first));
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

absl::StatusOr<std::vector<ComputationClient::DataPtr>> RemoteComputationClient::TransferToDevice(
    const std::vector<TensorSource>& tensors) {
  metrics::ScopedTimer timer(TransferToDeviceMetric());
  const trace::Span span("TransferToDevice", "crossing");
  SEAM_RETURN_IF_ERROR(CheckUploadSizes(tensors));
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::TransferToDeviceReply reply;
  std::unique_ptr<grpc::ClientWriter<pb::TransferToDeviceChunk>> writer =
      connection_->stub().TransferToDevice(&context, &reply);
  pb::TransferToDeviceChunk chunk;
  chunk.set_session(connection_->session());
  for (uint64_t handle : connection_->TakeReleases()) chunk.add_release(handle);
  for (const TensorSource& tensor : tensors) {
    pb::TensorHeader* header = chunk.add_tensors();
    header->set_dtype(std::string(ir::DTypeName(tensor.shape.dtype)));
    for (int64_t dim : tensor.shape.dims) header->add_dims(dim);
    header->set_device(tensor.device);
  }
  // The bytes of every tensor in order, cut into chunks of at most kChunkBytes; the first
  // chunk also carries the headers.
  bool sent = true;
  std::string* data = chunk.mutable_data();
  for (const TensorSource& tensor : tensors) {
    const auto* bytes = static_cast<const char*>(tensor.data);
    const size_t size = tensor.shape.byte_size();
    for (size_t at = 0; at < size && sent;) {
      const size_t n = std::min(wire::kChunkBytes - data->size(), size - at);
      data->append(bytes + at, n);
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
  if (!status.ok()) return connection_->Error(status, "TransferToDevice");
  if (reply.handles_size() != static_cast<int>(tensors.size())) {
    return absl::InternalError(absl::StrCat("TransferToDevice: seam serve returned ",
                                            reply.handles_size(), " handles for ", tensors.size(),
                                            " tensors"));
  }
  std::vector<DataPtr> handles;
  handles.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    InboundDataMetric()->AddSample(static_cast<double>(tensors[i].shape.byte_size()));
    handles.push_back(std::make_shared<RemoteData>(
        tensors[i].device, std::make_shared<const ir::Shape>(tensors[i].shape), connection_,
        reply.handles(static_cast<int>(i))));
  }
  CreateDataHandlesCounter()->Add(static_cast<int64_t>(handles.size()));
  return handles;
}

absl::StatusOr<std::vector<ir::Literal>> RemoteComputationClient::TransferFromDevice(
    const std::vector<DataPtr>& handles) {
  metrics::ScopedTimer timer(TransferFromDeviceMetric());
  const trace::Span span("TransferFromDevice", "crossing");
  pb::TransferFromDeviceRequest request;
  request.set_session(connection_->session());
  for (size_t i = 0; i < handles.size(); ++i) {
    SEAM_ASSIGN_OR_RETURN(
        uint64_t handle,
        HandleOf(handles[i], connection_.get(), absl::StrCat("TransferFromDevice: handle ", i)));
    request.add_handles(handle);
  }
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  grpc::ClientContext context;
  connection_->Prepare(context);
  std::unique_ptr<grpc::ClientReader<pb::DataChunk>> reader =
      connection_->stub().TransferFromDevice(&context, request);
  std::vector<ir::Literal> literals(handles.size());
  size_t index = 0;  // the literal being filled
  pb::DataChunk chunk;
  absl::Status status;
  while (reader->Read(&chunk) && status.ok()) {
    size_t at = 0;
    const std::string& data = chunk.data();
    while (at < data.size() && status.ok()) {
      while (index < handles.size() &&
             literals[index].bytes.size() == handles[index]->shape().byte_size()) {
        ++index;
      }
      if (index == handles.size()) {
        status = absl::InternalError("TransferFromDevice: seam serve sent more bytes than asked");
        break;
      }
      ir::Literal& literal = literals[index];
      // Sized once, by this process's own shape, when its first bytes arrive: the server
      // sends only values it has read, so a failed run's error comes before any sizing.
      if (literal.bytes.empty()) {
        literal.bytes.reserve(handles[index]->shape().byte_size());
        AdviseHugePages(literal.bytes.data(), literal.bytes.capacity());
      }
      const size_t n =
          std::min(data.size() - at, handles[index]->shape().byte_size() - literal.bytes.size());
      literal.bytes.insert(literal.bytes.end(), data.begin() + static_cast<ptrdiff_t>(at),
                           data.begin() + static_cast<ptrdiff_t>(at + n));
      at += n;
    }
  }
  if (!status.ok()) context.TryCancel();
  const grpc::Status finished = reader->Finish();
  SEAM_RETURN_IF_ERROR(status);
  if (!finished.ok()) return connection_->Error(finished, "TransferFromDevice");
  for (size_t i = 0; i < handles.size(); ++i) {
    literals[i].shape = handles[i]->shape();
    if (literals[i].bytes.size() != literals[i].shape.byte_size()) {
      return absl::InternalError(absl::StrCat("TransferFromDevice: seam serve sent ",
                                              literals[i].bytes.size(), " bytes for value ", i,
                                              " of shape ", literals[i].shape.ToString()));
    }
    OutboundDataMetric()->AddSample(static_cast<double>(literals[i].bytes.size()));
  }
  return literals;
}

absl::StatusOr<std::vector<ComputationClient::ComputationPtr>> RemoteComputationClient::Compile(
    std::vector<CompileInstance> instances) {
  const bool eager = !instances.empty() && instances.front().eager_mode;
  metrics::ScopedTimer timer(eager ? EagerOpCompileMetric() : CompileMetric());
  const trace::Span span("Compile", "crossing");
  pb::CompileRequest request;
  request.set_session(connection_->session());
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  for (const CompileInstance& instance : instances) {
    pb::CompileInstance* sent = request.add_instances();
    sent->set_program(ir::PrintProgram(instance.program));
    sent->set_compilation_device(instance.compilation_device);
    sent->set_eager_mode(instance.eager_mode);
  }
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::CompileReply reply;
  const grpc::Status status = connection_->stub().Compile(&context, request, &reply);
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
    CreateCompileHandlesCounter()->Add(1);
  }
  return computations;
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>> RemoteComputationClient::ExecuteComputation(
    const Computation& computation, const std::vector<DataPtr>& arguments,
    const std::string& device, const ExecuteComputationOptions& options) {
  const trace::Span span("ExecuteComputation", "crossing");
  SEAM_ASSIGN_OR_RETURN(const RemoteComputation* remote_computation,
                        ComputationOf(computation, connection_.get(), "ExecuteComputation"));
  pb::ExecuteRequest request;
  request.set_session(connection_->session());
  request.set_computation(remote_computation->handle());
  for (size_t i = 0; i < arguments.size(); ++i) {
    SEAM_ASSIGN_OR_RETURN(uint64_t handle,
                          HandleOf(arguments[i], connection_.get(),
                                   absl::StrCat("ExecuteComputation: argument ", i)));
    request.add_arguments(handle);
  }
  request.set_device(device);
  request.set_eager_mode(options.eager_mode);
  for (uint64_t handle : connection_->TakeReleases()) request.add_release(handle);
  // The sample covers the launch's round trip: the run itself is timed by the server.
  metrics::ScopedTimer timer(options.eager_mode ? EagerOpExecuteMetric() : ExecuteMetric());
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::ExecuteReply reply;
  const grpc::Status status = connection_->stub().Execute(&context, request, &reply);
  if (!status.ok()) return connection_->Error(status, "ExecuteComputation");
  const auto& shapes = remote_computation->output_shapes();
  if (reply.outputs_size() != static_cast<int>(shapes.size())) {
    return absl::InternalError(absl::StrCat("ExecuteComputation: seam serve returned ",
                                            reply.outputs_size(), " outputs, the program has ",
                                            shapes.size()));
  }
  std::vector<DataPtr> results;
  results.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    results.push_back(std::make_shared<RemoteData>(device, shapes[i], connection_,
                                                   reply.outputs(static_cast<int>(i))));
  }
  CreateDataHandlesCounter()->Add(static_cast<int64_t>(results.size()));
  if (!computation.program().aliases.empty()) {
    InputOutputAliasCounter()->Add(static_cast<int64_t>(computation.program().aliases.size()));
  }
  return results;
}

absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>>
RemoteComputationClient::ExecuteReplicated(const Computation& computation,
                                           const std::vector<std::vector<DataPtr>>& arguments,
                                           const std::vector<std::string>& devices) {
  const trace::Span span("ExecuteReplicated", "crossing");
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
  for (size_t d = 0; d < devices.size(); ++d) {
    const pb::HandleList& list = reply.outputs(static_cast<int>(d));
    if (list.handles_size() != static_cast<int>(shapes.size())) {
      return absl::InternalError(absl::StrCat("ExecuteReplicated: seam serve returned ",
                                              list.handles_size(), " outputs for device ", d,
                                              ", the program has ", shapes.size()));
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
      results[d].push_back(std::make_shared<RemoteData>(devices[d], shapes[i], connection_,
                                                        list.handles(static_cast<int>(i))));
    }
  }
  CreateDataHandlesCounter()->Add(static_cast<int64_t>(devices.size() * shapes.size()));
  if (!computation.program().aliases.empty()) {
    InputOutputAliasCounter()->Add(
        static_cast<int64_t>(devices.size() * computation.program().aliases.size()));
  }
  return results;
}

absl::Status RemoteComputationClient::AwaitRunsInFlightBelow(const std::string& device,
                                                             int64_t limit) {
  if (limit <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("AwaitRunsInFlightBelow: the limit must be at least 1, got ", limit));
  }
  pb::RunsInFlightRequest request;
  request.set_session(connection_->session());
  request.set_device(device);
  request.set_limit(limit);
  grpc::ClientContext context;
  connection_->Prepare(context);
  pb::RunsInFlightReply reply;
  const grpc::Status status = connection_->stub().RunsInFlight(&context, request, &reply);
  return status.ok() ? absl::OkStatus() : connection_->Error(status, "AwaitRunsInFlightBelow");
}

absl::StatusOr<int64_t> RemoteComputationClient::RunsInFlight(const std::string& device) const {
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
  // Buffers this client dropped count as freed, as they do in process.
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

std::string ServerReport(const ComputationClient& client) {
  const auto* remote = dynamic_cast<const RemoteComputationClient*>(&client);
  if (remote == nullptr) {
    return "Server: none (SEAM_CLIENT is not remote: the devices are this process's)\n";
  }
  std::string out = absl::StrCat("Server: ", remote->address(), "\n");
  absl::StatusOr<RemoteComputationClient::ServerStats> stats = remote->GetServerStats();
  if (!stats.ok()) return absl::StrCat(out, "  Unavailable: ", stats.status().message(), "\n");
  absl::StrAppend(&out, "  Sessions: ", stats->sessions, "\n", "  Buffers: ", stats->buffers, "\n",
                  "  Computations: ", stats->computations, "\n",
                  "  SessionBuffers: ", stats->session_buffers, "\n");
  for (absl::string_view line : absl::StrSplit(stats->metrics_report, '\n', absl::SkipEmpty())) {
    absl::StrAppend(&out, "  ", line, "\n");
  }
  return out;
}

}  // namespace seam::runtime
