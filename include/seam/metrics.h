// Public view of seam's metrics: the report and single values, for users and tests.
#ifndef SEAM_METRICS_H_
#define SEAM_METRICS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace seam::metrics {

// Every metric with samples, then every non-zero counter and gauge, each group in name
// order, then, once the process's client exists, one memory entry per local device (the
// figures of seam::memory_stats, include/seam/runtime.h):
//   Metric: CompileTime
//     TotalSamples: 1
//     Accumulator: 012ms345.678us
//     ValueRate: 012ms345.678us / second
//     Rate: 0 / second
//     Percentiles: 1%=...; 5%=...; 10%=...; 20%=...; 50%=...; 80%=...; 90%=...; 95%=...; 99%=...
//   Counter: CachedCompile
//     Value: 9
//   Gauge: LiveBytes[CPU:0]
//     Value: 1.00KB
//   Memory: CPU:0
//     BytesInUse: 1.00KB
//     PeakBytesInUse: 4.00KB
//     BytesLimit: not reported
//     PoolCachedBytes: 64.00KB
// A memory figure the plugin does not report reads "not reported"; a device whose plugin has
// no memory query shows "  Unavailable: <why>" instead. LiveBytes[<device>] counts the
// buffer handles the framework holds, BytesInUse the memory the plugin holds: with no run in
// flight they are equal (docs/architecture.md, "Memory figures").
std::string CreateMetricReport();

// Number of samples ever recorded on the named metric (0 when it does not exist).
int64_t MetricTotalSamples(std::string_view name);
// Sum of every sample ever recorded (0 when the metric does not exist); times in ns.
double MetricAccumulator(std::string_view name);
// The counter's value (0 when it does not exist).
int64_t CounterValue(std::string_view name);

}  // namespace seam::metrics

#endif  // SEAM_METRICS_H_
