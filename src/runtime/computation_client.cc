#include "src/runtime/computation_client.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "src/runtime/trace.h"
#include "src/runtime/upload_progress.h"

namespace seam::runtime {

// Function-local statics, leaked on purpose: runs may finish (and record) during exit.
#define SEAM_DEFINE_METRIC(fn, name, formatter)                 \
  metrics::Metric* ComputationClient::fn() {                    \
    static auto* metric = new metrics::Metric(name, formatter); \
    return metric;                                              \
  }

SEAM_DEFINE_METRIC(TransferToDeviceMetric, "TransferToDeviceTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(TransferFromDeviceMetric, "TransferFromDeviceTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(CompileMetric, "CompileTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(ExecuteMetric, "ExecuteTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(ExecuteReplicatedMetric, "ExecuteReplicatedTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(EagerOpExecuteMetric, "EagerOpExecuteTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(EagerOpCompileMetric, "EagerOpCompileTime", metrics::FormatTime)
SEAM_DEFINE_METRIC(InboundDataMetric, "InboundData", metrics::FormatBytes)
SEAM_DEFINE_METRIC(OutboundDataMetric, "OutboundData", metrics::FormatBytes)
#undef SEAM_DEFINE_METRIC

absl::StatusOr<std::vector<ComputationClient::DataPtr>> ComputationClient::TransferToDevice(
    const std::vector<TensorSource>& tensors) {
  metrics::ScopedTimer timer(TransferToDeviceMetric());
  const trace::Span span("TransferToDevice", "crossing");
  absl::StatusOr<std::vector<DataPtr>> handles = DoTransferToDevice(tensors);
  if (!handles.ok()) return handles;
  for (const TensorSource& tensor : tensors) {
    InboundDataMetric()->AddSample(static_cast<double>(tensor.shape.byte_size()));
  }
  CreateDataHandlesCounter()->Add(static_cast<int64_t>(handles->size()));
  return handles;
}

absl::StatusOr<std::vector<ir::Literal>> ComputationClient::TransferFromDevice(
    const std::vector<DataPtr>& handles) {
  metrics::ScopedTimer timer(TransferFromDeviceMetric());
  const trace::Span span("TransferFromDevice", "crossing");
  return DoTransferFromDevice(handles);
}

absl::Status ComputationClient::TransferFromDeviceInto(const DataPtr& handle,
                                                       absl::Span<uint8_t> destination) {
  const size_t size = handle->shape().byte_size();
  if (destination.size() != size) {  // refused before the device is waited for
    return absl::InvalidArgumentError(
        absl::StrCat("TransferFromDeviceInto: ", handle->shape().ToString(), " needs ", size,
                     " bytes, the destination has ", destination.size()));
  }
  metrics::ScopedTimer timer(TransferFromDeviceMetric());
  const trace::Span span("TransferFromDevice", "crossing");
  return DoTransferFromDeviceInto(handle, destination);
}

absl::Status ComputationClient::DoTransferFromDeviceInto(const DataPtr& handle,
                                                         absl::Span<uint8_t> destination) {
  absl::StatusOr<std::vector<ir::Literal>> literals = DoTransferFromDevice({handle});
  if (!literals.ok()) return literals.status();
  if (!destination.empty()) {
    std::memcpy(destination.data(), literals->front().bytes.data(), destination.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ComputationClient::ComputationPtr>> ComputationClient::Compile(
    std::vector<CompileInstance> instances) {
  const bool eager = !instances.empty() && instances.front().eager_mode;
  metrics::ScopedTimer timer(eager ? EagerOpCompileMetric() : CompileMetric());
  const trace::Span span("Compile", "crossing");
  absl::StatusOr<std::vector<ComputationPtr>> computations = DoCompile(std::move(instances));
  if (computations.ok()) {
    CreateCompileHandlesCounter()->Add(static_cast<int64_t>(computations->size()));
  }
  return computations;
}

namespace {

// The counters of a run that returned `outputs` handles, `replicas` times the program's
// aliases.
void CountRun(const ir::Program& program, size_t outputs, size_t replicas) {
  ComputationClient::CreateDataHandlesCounter()->Add(static_cast<int64_t>(outputs));
  if (!program.aliases.empty()) {
    ComputationClient::InputOutputAliasCounter()->Add(
        static_cast<int64_t>(replicas * program.aliases.size()));
  }
}

}  // namespace

absl::StatusOr<std::vector<ComputationClient::DataPtr>> ComputationClient::ExecuteComputation(
    const Computation& computation, const std::vector<DataPtr>& arguments,
    const std::string& device, const ExecuteComputationOptions& options) {
  const trace::Span span("ExecuteComputation", "crossing");
  absl::StatusOr<std::vector<DataPtr>> results =
      DoExecuteComputation(computation, arguments, device, options);
  if (results.ok()) CountRun(computation.program(), results->size(), 1);
  return results;
}

absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>>
ComputationClient::ExecuteReplicated(const Computation& computation,
                                     const std::vector<std::vector<DataPtr>>& arguments,
                                     const std::vector<std::string>& devices) {
  const trace::Span span("ExecuteReplicated", "crossing");
  absl::StatusOr<std::vector<std::vector<DataPtr>>> results =
      DoExecuteReplicated(computation, arguments, devices);
  if (results.ok()) {
    size_t outputs = 0;
    for (const std::vector<DataPtr>& replica : *results) outputs += replica.size();
    CountRun(computation.program(), outputs, results->size());
  }
  return results;
}

absl::Status ComputationClient::BeginRun(const RunStart&) { return absl::OkStatus(); }

void ComputationClient::AppendServerReport(std::string* report) const {
  absl::StrAppend(report,
                  "Server: none (SEAM_CLIENT is not remote: the devices are this process's)\n");
}

absl::Status ComputationClient::CheckReadRange(const Data& value, size_t offset, size_t size) {
  const size_t total = value.shape().byte_size();
  if (offset > total || size > total - offset) {
    return absl::InvalidArgumentError(
        absl::StrCat("TransferFromDeviceRange: ", size, " bytes at offset ", offset, " reach past ",
                     value.shape().ToString(), " (", total, " bytes)"));
  }
  return absl::OkStatus();
}

absl::Status ComputationClient::TransferFromDeviceRange(const DataPtr& handle, size_t offset,
                                                        absl::Span<uint8_t> destination) {
  if (absl::Status range = CheckReadRange(*handle, offset, destination.size()); !range.ok()) {
    return range;
  }
  absl::StatusOr<std::vector<ir::Literal>> literals = TransferFromDevice({handle});
  if (!literals.ok()) return literals.status();
  if (!destination.empty()) {
    std::memcpy(destination.data(), literals->front().bytes.data() + offset, destination.size());
  }
  return absl::OkStatus();
}

std::vector<size_t> ComputationClient::UploadSizes(const std::vector<UploadTarget>& targets) {
  std::vector<size_t> sizes;
  sizes.reserve(targets.size());
  for (const UploadTarget& target : targets) sizes.push_back(target.shape.byte_size());
  return sizes;
}

namespace {

// The default upload: every tensor's bytes in host memory, handed to TransferToDevice at
// Finish.
class StagedUpload final : public ComputationClient::Upload {
 public:
  StagedUpload(ComputationClient* client, std::vector<ComputationClient::UploadTarget> targets,
               std::vector<std::vector<uint8_t>> bytes)
      : client_(client),
        targets_(std::move(targets)),
        bytes_(std::move(bytes)),
        progress_(ComputationClient::UploadSizes(targets_)) {}

  absl::Status Write(size_t index, size_t offset, absl::Span<const uint8_t> bytes) override {
    if (absl::Status accepted = progress_.Accept(index, offset, bytes.size()); !accepted.ok()) {
      return accepted;
    }
    if (!bytes.empty()) std::memcpy(bytes_[index].data() + offset, bytes.data(), bytes.size());
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<ComputationClient::DataPtr>> Finish() override {
    if (absl::Status complete = progress_.CheckComplete(); !complete.ok()) return complete;
    std::vector<ComputationClient::TensorSource> tensors;
    tensors.reserve(targets_.size());
    for (size_t i = 0; i < targets_.size(); ++i) {
      tensors.push_back({targets_[i].shape, bytes_[i].data(), targets_[i].device});
    }
    return client_->TransferToDevice(tensors);
  }

 private:
  ComputationClient* client_;
  std::vector<ComputationClient::UploadTarget> targets_;
  std::vector<std::vector<uint8_t>> bytes_;
  UploadProgress progress_;
};

}  // namespace

absl::Status ComputationClient::CheckUploadTargets(const std::vector<UploadTarget>& targets) const {
  const std::vector<std::string> devices = GetLocalDevices();
  for (size_t i = 0; i < targets.size(); ++i) {
    if (absl::Status valid = ir::ValidateShape(targets[i].shape); !valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("StartUpload: tensor ", i, ": ", valid.message()));
    }
    if (std::find(devices.begin(), devices.end(), targets[i].device) == devices.end()) {
      return absl::InvalidArgumentError(absl::StrCat("StartUpload: tensor ", i, ": device '",
                                                     targets[i].device,
                                                     "' is not a local device of this client"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ComputationClient::Upload>> ComputationClient::StartUpload(
    std::vector<UploadTarget> targets) {
  if (absl::Status valid = CheckUploadTargets(targets); !valid.ok()) return valid;
  std::vector<std::vector<uint8_t>> bytes(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const size_t size = targets[i].shape.byte_size();
    try {
      bytes[i].resize(size);
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(absl::StrCat("StartUpload: cannot allocate ", size,
                                                       " bytes of host memory for ",
                                                       targets[i].shape.ToString()));
    }
  }
  return std::unique_ptr<Upload>(new StagedUpload(this, std::move(targets), std::move(bytes)));
}

absl::StatusOr<ComputationClient::MemoryStats> ComputationClient::GetMemoryStats(
    const std::string& device) const {
  return absl::UnimplementedError(absl::StrCat("memory figures of ", device, ": the ",
                                               GetPlatformName(), " client has no memory query"));
}

namespace {

std::string Figure(int64_t bytes) {
  return bytes < 0 ? "not reported" : metrics::FormatBytes(static_cast<double>(bytes));
}

}  // namespace

std::string MemoryReport(const ComputationClient& client) {
  std::string out;
  for (const std::string& device : client.GetLocalDevices()) {
    absl::StrAppend(&out, "Memory: ", device, "\n");
    absl::StatusOr<ComputationClient::MemoryStats> stats = client.GetMemoryStats(device);
    if (!stats.ok()) {
      absl::StrAppend(&out, "  Unavailable: ", stats.status().message(), "\n");
      continue;
    }
    absl::StrAppend(&out, "  BytesInUse: ", Figure(stats->bytes_in_use), "\n",
                    "  PeakBytesInUse: ", Figure(stats->peak_bytes_in_use), "\n",
                    "  BytesLimit: ", Figure(stats->bytes_limit), "\n",
                    "  PoolCachedBytes: ", Figure(stats->pool_cached_bytes), "\n");
  }
  return out;
}

metrics::Counter* ComputationClient::CreateDataHandlesCounter() {
  static auto* counter = new metrics::Counter("CreateDataHandles");
  return counter;
}

metrics::Counter* ComputationClient::CreateCompileHandlesCounter() {
  static auto* counter = new metrics::Counter("CreateCompileHandles");
  return counter;
}

metrics::Counter* ComputationClient::InputOutputAliasCounter() {
  static auto* counter = new metrics::Counter("InputOutputAliasCount");
  return counter;
}

}  // namespace seam::runtime
