#include "src/runtime/metrics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace seam::metrics {
namespace {

// Metrics and counters are function-local statics that may be constructed during static
// initialization of any translation unit, so the registry is created on first use and never
// destroyed (a static destructor could otherwise run before a late report or lookup).
//
// Both maps hold raw pointers: registered objects must live until exit, as the header says.
// When a second object registers under a name that is taken, the first one is kept; the
// later object still works on its own but is neither reported nor found by name. Keeping the
// first makes lookups stable: a pointer returned by FindMetric never changes meaning.
class Registry {
 public:
  static Registry& Get() {
    static Registry* registry = new Registry();
    return *registry;
  }

  void Register(Metric* metric) {
    std::lock_guard<std::mutex> lock(mu_);
    metrics_.emplace(metric->name(), metric);
  }
  void Register(Counter* counter) {
    std::lock_guard<std::mutex> lock(mu_);
    counters_.emplace(counter->name(), counter);
  }
  void Register(Gauge* gauge) {
    std::lock_guard<std::mutex> lock(mu_);
    gauges_.emplace(gauge->name(), gauge);
  }
  Gauge* FindGauge(std::string_view name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = gauges_.find(name);
    return it == gauges_.end() ? nullptr : it->second;
  }
  std::vector<Gauge*> Gauges() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Gauge*> out;
    for (const auto& [name, gauge] : gauges_) out.push_back(gauge);
    return out;
  }

  Metric* FindMetric(std::string_view name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = metrics_.find(name);
    return it == metrics_.end() ? nullptr : it->second;
  }
  Counter* FindCounter(std::string_view name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counters_.find(name);
    return it == counters_.end() ? nullptr : it->second;
  }

  // Snapshots in name order, so the report is built without holding the registry lock.
  std::vector<Metric*> Metrics() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Metric*> out;
    for (const auto& [name, metric] : metrics_) out.push_back(metric);
    return out;
  }
  std::vector<Counter*> Counters() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Counter*> out;
    for (const auto& [name, counter] : counters_) out.push_back(counter);
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, Metric*, std::less<>> metrics_;
  std::map<std::string, Counter*, std::less<>> counters_;
  std::map<std::string, Gauge*, std::less<>> gauges_;
};

constexpr int64_t kNsPerUs = 1000;
constexpr int64_t kNsPerMs = 1000 * kNsPerUs;
constexpr int64_t kNsPerS = 1000 * kNsPerMs;
constexpr int64_t kNsPerMin = 60 * kNsPerS;
constexpr int64_t kNsPerHour = 60 * kNsPerMin;
constexpr int64_t kNsPerDay = 24 * kNsPerHour;

}  // namespace

std::string FormatTime(double nanoseconds) {
  // Beyond this, llround would overflow; such values are not durations anyway.
  if (!std::isfinite(nanoseconds) || std::fabs(nanoseconds) >= 9e18) {
    return absl::StrFormat("%gns", nanoseconds);
  }
  // The us part shows three decimals, i.e. whole nanoseconds, so rounding once to an integer
  // and splitting with integer arithmetic avoids "345.677" from binary floating error.
  int64_t ns = std::llround(std::fabs(nanoseconds));
  struct Unit {
    int64_t size;
    int width;
    const char* suffix;
  };
  static constexpr Unit kUnits[] = {
      {kNsPerDay, 2, "d"}, {kNsPerHour, 2, "h"}, {kNsPerMin, 2, "m"},
      {kNsPerS, 2, "s"},   {kNsPerMs, 3, "ms"},
  };
  std::string out = ns > 0 && nanoseconds < 0 ? "-" : "";
  bool started = false;
  for (const Unit& unit : kUnits) {
    int64_t count = ns / unit.size;
    if (count == 0 && !started) continue;
    started = true;
    absl::StrAppendFormat(&out, "%0*d%s", unit.width, count, unit.suffix);
    ns -= count * unit.size;
  }
  absl::StrAppendFormat(&out, "%03d.%03dus", ns / kNsPerUs, ns % kNsPerUs);
  return out;
}

std::string FormatBytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  constexpr size_t kLast = sizeof(kUnits) / sizeof(kUnits[0]) - 1;
  size_t unit = 0;
  double value = bytes;
  while (std::fabs(value) >= 1024 && unit < kLast) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.2f%s", value, kUnits[unit]);
}

std::string FormatValue(double value) { return absl::StrFormat("%.2f", value); }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Metric::Metric(std::string name, Formatter formatter)
    : name_(std::move(name)), formatter_(formatter) {
  samples_.reserve(kMaxSamples);
  Registry::Get().Register(this);
}

void Metric::AddSample(double value) { AddSample(NowNs(), value); }

void Metric::AddSample(int64_t timestamp_ns, double value) {
  std::lock_guard<base::SpinLock> lock(mu_);
  if (samples_.size() < kMaxSamples) {
    samples_.push_back({timestamp_ns, value});
  } else {
    samples_[next_] = {timestamp_ns, value};
  }
  next_ = (next_ + 1) % kMaxSamples;
  ++total_samples_;
  accumulator_ += value;
}

int64_t Metric::TotalSamples() const {
  std::lock_guard<base::SpinLock> lock(mu_);
  return total_samples_;
}

double Metric::Accumulator() const {
  std::lock_guard<base::SpinLock> lock(mu_);
  return accumulator_;
}

std::vector<double> Metric::KeptValues() const {
  std::lock_guard<base::SpinLock> lock(mu_);
  std::vector<double> values;
  values.reserve(samples_.size());
  // The ring's oldest entry is at next_ once it has wrapped.
  const size_t n = samples_.size();
  const size_t first = n < kMaxSamples ? 0 : next_;
  for (size_t k = 0; k < n; ++k) values.push_back(samples_[(first + k) % n].value);
  return values;
}

std::string Metric::Report() const {
  std::vector<Sample> samples;
  int64_t total_samples;
  double accumulator;
  {
    std::lock_guard<base::SpinLock> lock(mu_);
    samples = samples_;
    total_samples = total_samples_;
    accumulator = accumulator_;
  }
  if (samples.empty()) return "";

  // Timestamps need not arrive in order (ScopedTimer stamps a sample with its start time,
  // and threads race), so the window is the span from the earliest to the latest kept one.
  auto [min_it, max_it] = std::minmax_element(
      samples.begin(), samples.end(),
      [](const Sample& a, const Sample& b) { return a.timestamp_ns < b.timestamp_ns; });
  double seconds = static_cast<double>(max_it->timestamp_ns - min_it->timestamp_ns) / 1e9;
  double rate = 0;
  double value_rate = 0;
  if (samples.size() >= 2 && seconds > 0) {
    double kept_sum = 0;
    for (const Sample& s : samples) kept_sum += s.value;
    rate = static_cast<double>(samples.size()) / seconds;
    value_rate = kept_sum / seconds;
  }

  std::vector<double> values;
  values.reserve(samples.size());
  for (const Sample& s : samples) values.push_back(s.value);
  std::sort(values.begin(), values.end());

  std::string out = absl::StrFormat("Metric: %s\n", name_);
  absl::StrAppendFormat(&out, "  TotalSamples: %d\n", total_samples);
  absl::StrAppendFormat(&out, "  Accumulator: %s\n", formatter_(accumulator));
  absl::StrAppendFormat(&out, "  ValueRate: %s / second\n", formatter_(value_rate));
  absl::StrAppendFormat(&out, "  Rate: %.6g / second\n", rate);
  out += "  Percentiles: ";
  static constexpr size_t kPercentiles[] = {1, 5, 10, 20, 50, 80, 90, 95, 99};
  for (size_t p : kPercentiles) {
    // Integer arithmetic gives floor(p/100 * (n-1)) without floating error at exact points.
    size_t index = p * (values.size() - 1) / 100;
    if (p != kPercentiles[0]) out += "; ";
    absl::StrAppendFormat(&out, "%d%%=%s", p, formatter_(values[index]));
  }
  out += "\n";
  return out;
}

Counter::Counter(std::string name) : name_(std::move(name)) { Registry::Get().Register(this); }

void Counter::Add(int64_t delta) { value_.fetch_add(delta, std::memory_order_relaxed); }

int64_t Counter::Value() const { return value_.load(std::memory_order_relaxed); }

Gauge::Gauge(std::string name, Formatter formatter)
    : name_(std::move(name)), formatter_(formatter) {
  Registry::Get().Register(this);
}

std::string Gauge::Report() const {
  int64_t value = Value();
  if (value == 0) return "";
  std::string shown =
      formatter_ != nullptr ? formatter_(static_cast<double>(value)) : absl::StrCat(value);
  return absl::StrFormat("Gauge: %s\n  Value: %s\n", name_, shown);
}

Metric* FindMetric(std::string_view name) { return Registry::Get().FindMetric(name); }

Gauge* FindGauge(std::string_view name) { return Registry::Get().FindGauge(name); }

Gauge* GetOrCreateGauge(std::string_view name, Formatter formatter) {
  static std::mutex create_mu;
  std::lock_guard<std::mutex> lock(create_mu);
  if (Gauge* gauge = FindGauge(name)) return gauge;
  new Gauge(std::string(name), formatter);  // NOLINT: lives until exit, owned by the registry
  return FindGauge(name);
}

Counter* FindCounter(std::string_view name) { return Registry::Get().FindCounter(name); }

Counter* GetOrCreateCounter(std::string_view name) {
  // Serializes creators so two first callers do not both allocate; the constructor takes
  // the registry lock itself, so this cannot be that lock.
  static std::mutex create_mu;
  std::lock_guard<std::mutex> lock(create_mu);
  if (Counter* counter = FindCounter(name)) return counter;
  new Counter(std::string(name));  // NOLINT: lives until exit, owned by the registry
  // Look up again rather than returning the new object: a static Counter constructed
  // concurrently under the same name may have registered first.
  return FindCounter(name);
}

std::string MetricsReport() {
  std::string out;
  for (const Metric* metric : Registry::Get().Metrics()) out += metric->Report();
  for (const Counter* counter : Registry::Get().Counters()) {
    int64_t value = counter->Value();
    if (value == 0) continue;
    absl::StrAppendFormat(&out, "Counter: %s\n  Value: %d\n", counter->name(), value);
  }
  for (const Gauge* gauge : Registry::Get().Gauges()) out += gauge->Report();
  return out;
}

}  // namespace seam::metrics
