// Metrics and counters: named, process-wide, thread-safe; and the text report.
//
// A Metric keeps the total sample count and value accumulator for its whole life, plus the
// most recent 1024 samples (value and timestamp) for rates and percentiles. A Counter is an
// int64 that only grows. Both register themselves by name in a process-wide registry when
// constructed; they are meant to be function-local statics that live until exit.
#ifndef SEAM_RUNTIME_METRICS_H_
#define SEAM_RUNTIME_METRICS_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/spin_lock.h"

namespace seam::metrics {

// How a metric's values print in the report.
using Formatter = std::string (*)(double value);
std::string FormatTime(double nanoseconds);  // "06m09s401ms746.001us", "012ms345.678us"
std::string FormatBytes(double bytes);       // "468.00MB" (base 1024: B, KB, MB, GB, TB, PB)
std::string FormatValue(double value);       // "%.2f"

int64_t NowNs();  // monotonic clock, nanoseconds

class Metric {
 public:
  static constexpr size_t kMaxSamples = 1024;

  explicit Metric(std::string name, Formatter formatter = FormatValue);
  Metric(const Metric&) = delete;
  Metric& operator=(const Metric&) = delete;

  const std::string& name() const { return name_; }
  void AddSample(double value);  // timestamped now
  void AddSample(int64_t timestamp_ns, double value);

  int64_t TotalSamples() const;
  double Accumulator() const;
  // The values of the samples kept (the last kMaxSamples), oldest first.
  std::vector<double> KeptValues() const;
  // The entry for the report; empty when the metric has no samples.
  std::string Report() const;

 private:
  struct Sample {
    int64_t timestamp_ns;
    double value;
  };
  std::string name_;
  Formatter formatter_;
  // Taken once per sample (every crossing records one): a spin lock, a single atomic
  // exchange when free. The longest hold is Report's copy of the samples.
  mutable base::SpinLock mu_;
  std::vector<Sample> samples_;  // ring buffer of the last kMaxSamples
  size_t next_ = 0;
  int64_t total_samples_ = 0;
  double accumulator_ = 0;
};

class Counter {
 public:
  explicit Counter(std::string name);
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  const std::string& name() const { return name_; }
  void Add(int64_t delta = 1);
  int64_t Value() const;

 private:
  std::string name_;
  std::atomic<int64_t> value_{0};
};

// A value that goes up and down (live buffers, live bytes): reported while non-zero, after
// the counters, as "Gauge: <name>" with its value printed by the formatter.
class Gauge {
 public:
  explicit Gauge(std::string name, Formatter formatter = nullptr);
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  const std::string& name() const { return name_; }
  void Add(int64_t delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  int64_t Value() const { return value_.load(std::memory_order_relaxed); }
  std::string Report() const;  // empty at 0

 private:
  std::string name_;
  Formatter formatter_;  // null: the integer as it is
  std::atomic<int64_t> value_{0};
};

// Records the time from construction to destruction (nanoseconds) on `metric`.
class ScopedTimer {
 public:
  explicit ScopedTimer(Metric* metric) : metric_(metric), start_ns_(NowNs()) {}
  ~ScopedTimer() { metric_->AddSample(start_ns_, static_cast<double>(NowNs() - start_ns_)); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Metric* metric_;
  int64_t start_ns_;
};

// Every metric with samples, then every non-zero counter and gauge, each group in name
// order (the
// layout of PyTorch/XLA's metrics report; include/seam/metrics.h shows it). The public
// seam::metrics::CreateMetricReport returns this.
std::string MetricsReport();

// Looks up a registered metric or counter; null when none has that name.
Metric* FindMetric(std::string_view name);
Counter* FindCounter(std::string_view name);

// Returns the counter registered under `name`, creating it on first use (for counters used
// in many places, e.g. from the lazy front end).
Counter* GetOrCreateCounter(std::string_view name);
// The same for a gauge (`formatter` is used when the gauge is created here).
Gauge* GetOrCreateGauge(std::string_view name, Formatter formatter = nullptr);
Gauge* FindGauge(std::string_view name);

}  // namespace seam::metrics

#endif  // SEAM_RUNTIME_METRICS_H_
