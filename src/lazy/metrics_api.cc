// The public metrics API (include/seam/metrics.h) over the runtime's registry.
#include "seam/metrics.h"
#include "src/lazy/runtime.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/metrics.h"
#include "src/runtime/process/runtime.h"

namespace seam::metrics {

std::string CreateMetricReport() {
  std::string report = MetricsReport();
  // The devices' memory figures, when the process's client exists (a report never starts it).
  if (const runtime::ComputationClient* client = lazy::CurrentRuntime().client_if_initialized()) {
    report += runtime::MemoryReport(*client);
  }
  return report;
}

std::string CreateMetricReport(const ReportOptions& options) {
  std::string report = CreateMetricReport();
  if (!options.server) return report;
  const runtime::ComputationClient* client = lazy::CurrentRuntime().client_if_initialized();
  if (client == nullptr) return report + "Server: none (no client yet)\n";
  client->AppendServerReport(&report);
  return report;
}

int64_t MetricTotalSamples(std::string_view name) {
  const Metric* metric = FindMetric(name);
  return metric == nullptr ? 0 : metric->TotalSamples();
}

double MetricAccumulator(std::string_view name) {
  const Metric* metric = FindMetric(name);
  return metric == nullptr ? 0 : metric->Accumulator();
}

int64_t CounterValue(std::string_view name) {
  const Counter* counter = FindCounter(name);
  return counter == nullptr ? 0 : counter->Value();
}

}  // namespace seam::metrics
