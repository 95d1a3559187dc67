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

struct ReportOptions {
  // Also the figures of the `seam serve` whose devices this process uses (SEAM_CLIENT=remote,
  // docs/remote.md), after the report above: one remote call when asked, none otherwise.
  //   Server: 127.0.0.1:8548
  //     Sessions: 2          (open sessions, every client's)
  //     Buffers: 12          (live buffers, every session's)
  //     Computations: 3
  //     SessionBuffers: 6    (this process's)
  //     Metric: ExecuteTime  (the server's own report, indented: the runs timed where
  //       TotalSamples: 40    they ran; the client's timers above time the whole calls)
  //     ...
  // A server that cannot be asked gives "  Unavailable: <why>" instead; a process whose
  // devices are its own gives one line, "Server: none (SEAM_CLIENT is not remote: the
  // devices are this process's)"; before the process's client exists, "Server: none (no
  // client yet)" (asking creates none).
  bool server = false;
};
std::string CreateMetricReport(const ReportOptions& options);

// Number of samples ever recorded on the named metric (0 when it does not exist).
int64_t MetricTotalSamples(std::string_view name);
// Sum of every sample ever recorded (0 when the metric does not exist); times in ns.
double MetricAccumulator(std::string_view name);
// The counter's value (0 when it does not exist).
int64_t CounterValue(std::string_view name);

}  // namespace seam::metrics

#endif  // SEAM_METRICS_H_
