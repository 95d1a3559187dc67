#include "src/runtime/computation_client.h"

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
