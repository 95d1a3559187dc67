#include "src/runtime/computation_client.h"

#include <cstring>

#include "absl/strings/str_cat.h"

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

absl::Status ComputationClient::TransferFromDeviceInto(const DataPtr& handle,
                                                       absl::Span<uint8_t> destination) {
  const size_t size = handle->shape().byte_size();
  if (destination.size() != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("TransferFromDeviceInto: ", handle->shape().ToString(), " needs ", size,
                     " bytes, the destination has ", destination.size()));
  }
  absl::StatusOr<std::vector<ir::Literal>> literals = TransferFromDevice({handle});
  if (!literals.ok()) return literals.status();
  if (size != 0) std::memcpy(destination.data(), literals->front().bytes.data(), size);
  return absl::OkStatus();
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
