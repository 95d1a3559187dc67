#include "src/runtime/metrics.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "seam/metrics.h"

namespace seam::metrics {
namespace {

// Registered objects must live until exit, so tests leak them on purpose; every test uses
// its own names so that none depends on running in a fresh process.
Metric* NewMetric(const std::string& name, Formatter formatter = FormatValue) {
  return new Metric(name, formatter);
}
Counter* NewCounter(const std::string& name) { return new Counter(name); }

// The part of the report from "Metric: <name>" / "Counter: <name>" up to the next entry.
std::string EntryOf(const std::string& report, const std::string& header) {
  size_t start = report.find(header + "\n");
  if (start == std::string::npos) return "";
  size_t end = report.find("\nMetric: ", start);
  size_t counter_end = report.find("\nCounter: ", start);
  end = std::min(end, counter_end);
  return report.substr(start, end == std::string::npos ? std::string::npos : end + 1 - start);
}

TEST(FormatTimeTest, Examples) {
  EXPECT_EQ(FormatTime(369401746001), "06m09s401ms746.001us");
  EXPECT_EQ(FormatTime(12345678), "012ms345.678us");
  EXPECT_EQ(FormatTime(500), "000.500us");
  EXPECT_EQ(FormatTime(0), "000.000us");
  EXPECT_EQ(FormatTime(3600e9), "01h00m00s000ms000.000us");
}

TEST(FormatTimeTest, EdgeCases) {
  EXPECT_EQ(FormatTime(1), "000.001us");
  EXPECT_EQ(FormatTime(999), "000.999us");
  EXPECT_EQ(FormatTime(1000), "001.000us");
  EXPECT_EQ(FormatTime(999999), "999.999us");
  EXPECT_EQ(FormatTime(1e6), "001ms000.000us");
  EXPECT_EQ(FormatTime(1e9), "01s000ms000.000us");
  EXPECT_EQ(FormatTime(59.5e9), "59s500ms000.000us");
  EXPECT_EQ(FormatTime(60e9), "01m00s000ms000.000us");
  EXPECT_EQ(FormatTime(86400e9), "01d00h00m00s000ms000.000us");
  EXPECT_EQ(FormatTime(86400e9 + 3661e9 + 1), "01d01h01m01s000ms000.001us");
  EXPECT_EQ(FormatTime(120 * 86400e9), "120d00h00m00s000ms000.000us");
  // Sub-nanosecond fractions round to the nearest nanosecond.
  EXPECT_EQ(FormatTime(0.4), "000.000us");
  EXPECT_EQ(FormatTime(1999.6), "002.000us");
  EXPECT_EQ(FormatTime(12345678.0 - 1e-7), "012ms345.678us");
  EXPECT_EQ(FormatTime(-1500), "-001.500us");
}

TEST(FormatBytesTest, Examples) {
  EXPECT_EQ(FormatBytes(490733568), "468.00MB");
  EXPECT_EQ(FormatBytes(0), "0.00B");
  EXPECT_EQ(FormatBytes(1536), "1.50KB");
}

TEST(FormatBytesTest, EdgeCases) {
  EXPECT_EQ(FormatBytes(1), "1.00B");
  EXPECT_EQ(FormatBytes(1023), "1023.00B");
  EXPECT_EQ(FormatBytes(1024), "1.00KB");
  EXPECT_EQ(FormatBytes(1024.0 * 1024 * 1024), "1.00GB");
  EXPECT_EQ(FormatBytes(1024.0 * 1024 * 1024 * 1024), "1.00TB");
  EXPECT_EQ(FormatBytes(1024.0 * 1024 * 1024 * 1024 * 1024), "1.00PB");
  // PB is the largest unit.
  EXPECT_EQ(FormatBytes(2048.0 * 1024 * 1024 * 1024 * 1024 * 1024), "2048.00PB");
}

TEST(FormatValueTest, TwoDecimals) {
  EXPECT_EQ(FormatValue(0), "0.00");
  EXPECT_EQ(FormatValue(3.14159), "3.14");
  EXPECT_EQ(FormatValue(-2.5), "-2.50");
  EXPECT_EQ(FormatValue(1e6), "1000000.00");
}

TEST(MetricTest, RingBufferKeepsLast1024) {
  Metric* metric = NewMetric("test.ring_buffer");
  constexpr int kSamples = 3000;
  for (int i = 0; i < kSamples; ++i) metric->AddSample(int64_t{i} * 1000, i);
  EXPECT_EQ(metric->TotalSamples(), kSamples);
  EXPECT_EQ(metric->Accumulator(), kSamples * (kSamples - 1) / 2.0);

  // Kept values are 1976..2999; percentiles and rates are computed over those only.
  std::string report = metric->Report();
  int64_t first = kSamples - static_cast<int64_t>(Metric::kMaxSamples);
  EXPECT_NE(report.find("  Percentiles: 1%=" + FormatValue(first + 1023 / 100) + ";"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("99%=" + FormatValue(first + 99 * 1023 / 100) + "\n"), std::string::npos)
      << report;
  // 1024 samples spanning 1023 us.
  double seconds = 1023 * 1000 / 1e9;
  char rate[64];
  snprintf(rate, sizeof(rate), "  Rate: %.6g / second\n", 1024 / seconds);
  EXPECT_NE(report.find(rate), std::string::npos) << report;
  EXPECT_NE(report.find("  TotalSamples: 3000\n"), std::string::npos) << report;
}

TEST(MetricTest, ExactReportEntry) {
  Metric* metric = NewMetric("test.exact.CompileTime", FormatTime);
  // Three samples (out of time order) over two seconds: Rate = 3 / 2 s, ValueRate =
  // 6.500002e6 ns / 2 s; n = 3 gives percentile indices floor(p * 2 / 100) = 0 to 20%, then 1.
  metric->AddSample(int64_t{5'000'000'000}, 1e6);
  metric->AddSample(int64_t{7'000'000'000}, 3'500'002);
  metric->AddSample(int64_t{6'000'000'000}, 2e6);
  const std::string expected =
      "Metric: test.exact.CompileTime\n"
      "  TotalSamples: 3\n"
      "  Accumulator: 006ms500.002us\n"
      "  ValueRate: 003ms250.001us / second\n"
      "  Rate: 1.5 / second\n"
      "  Percentiles: 1%=001ms000.000us; 5%=001ms000.000us; 10%=001ms000.000us; "
      "20%=001ms000.000us; 50%=002ms000.000us; 80%=002ms000.000us; 90%=002ms000.000us; "
      "95%=002ms000.000us; 99%=002ms000.000us\n";
  EXPECT_EQ(metric->Report(), expected);
  EXPECT_EQ(EntryOf(CreateMetricReport(), "Metric: test.exact.CompileTime"), expected);
}

TEST(MetricTest, PercentilesAndFractionalRate) {
  Metric* metric = NewMetric("test.percentiles");
  // Out-of-order timestamps: the window is earliest to latest, 3 s here.
  const double values[] = {50, 10, 40, 30, 20, 100, 90, 80, 70, 60, 0};
  int64_t t = 1'000'000'000;
  for (double v : values) metric->AddSample(t + static_cast<int64_t>(v) * 30'000'000, v);
  // n = 11: indices floor(p * 10 / 100) = 0, 0, 1, 2, 5, 8, 9, 9, 9.
  const std::string expected =
      "Metric: test.percentiles\n"
      "  TotalSamples: 11\n"
      "  Accumulator: 550.00\n"
      "  ValueRate: 183.33 / second\n"
      "  Rate: 3.66667 / second\n"
      "  Percentiles: 1%=0.00; 5%=0.00; 10%=10.00; 20%=20.00; 50%=50.00; 80%=80.00; "
      "90%=90.00; 95%=90.00; 99%=90.00\n";
  EXPECT_EQ(metric->Report(), expected);
}

TEST(MetricTest, RatesAreZeroForOneSampleOrNoElapsedTime) {
  Metric* single = NewMetric("test.zero_rate.single", FormatTime);
  single->AddSample(int64_t{42}, 12345678);
  EXPECT_EQ(single->Report(),
            "Metric: test.zero_rate.single\n"
            "  TotalSamples: 1\n"
            "  Accumulator: 012ms345.678us\n"
            "  ValueRate: 000.000us / second\n"
            "  Rate: 0 / second\n"
            "  Percentiles: 1%=012ms345.678us; 5%=012ms345.678us; 10%=012ms345.678us; "
            "20%=012ms345.678us; 50%=012ms345.678us; 80%=012ms345.678us; "
            "90%=012ms345.678us; 95%=012ms345.678us; 99%=012ms345.678us\n");

  Metric* same_time = NewMetric("test.zero_rate.same_time", FormatBytes);
  same_time->AddSample(int64_t{7}, 1024);
  same_time->AddSample(int64_t{7}, 2048);
  std::string report = same_time->Report();
  EXPECT_NE(report.find("  Accumulator: 3.00KB\n"), std::string::npos) << report;
  EXPECT_NE(report.find("  ValueRate: 0.00B / second\n"), std::string::npos) << report;
  EXPECT_NE(report.find("  Rate: 0 / second\n"), std::string::npos) << report;
}

TEST(ReportTest, LeavesOutEmptyMetricsAndZeroCounters) {
  Metric* empty = NewMetric("test.omit.empty_metric");
  Counter* zero = NewCounter("test.omit.zero_counter");
  Counter* back_to_zero = NewCounter("test.omit.back_to_zero");
  back_to_zero->Add(3);
  back_to_zero->Add(-3);
  EXPECT_EQ(empty->Report(), "");
  EXPECT_EQ(zero->Value(), 0);
  std::string report = CreateMetricReport();
  EXPECT_EQ(report.find("test.omit."), std::string::npos) << report;

  zero->Add(2);
  report = CreateMetricReport();
  EXPECT_EQ(EntryOf(report, "Counter: test.omit.zero_counter"),
            "Counter: test.omit.zero_counter\n  Value: 2\n");
  EXPECT_EQ(report.find("test.omit.empty_metric"), std::string::npos) << report;
}

TEST(ReportTest, NameOrderAndCountersAfterMetrics) {
  // Registered out of order on purpose.
  Counter* c_b = NewCounter("test.order.b_counter");
  Metric* m_c = NewMetric("test.order.c_metric");
  Counter* c_a = NewCounter("test.order.a_counter");
  Metric* m_a = NewMetric("test.order.a_metric");
  Metric* m_b = NewMetric("test.order.b_metric");
  for (Metric* m : {m_c, m_a, m_b}) m->AddSample(int64_t{1}, 1);
  c_b->Add(5);
  c_a->Add();

  std::string report = CreateMetricReport();
  size_t ma = report.find("Metric: test.order.a_metric\n");
  size_t mb = report.find("Metric: test.order.b_metric\n");
  size_t mc = report.find("Metric: test.order.c_metric\n");
  size_t ca = report.find("Counter: test.order.a_counter\n  Value: 1\n");
  size_t cb = report.find("Counter: test.order.b_counter\n  Value: 5\n");
  ASSERT_NE(ma, std::string::npos) << report;
  ASSERT_NE(mb, std::string::npos) << report;
  ASSERT_NE(mc, std::string::npos) << report;
  ASSERT_NE(ca, std::string::npos) << report;
  ASSERT_NE(cb, std::string::npos) << report;
  EXPECT_LT(ma, mb);
  EXPECT_LT(mb, mc);
  EXPECT_LT(ca, cb);
  // Every counter comes after every metric, whatever the names.
  size_t first_counter = report.find("Counter: ");
  size_t last_metric = report.rfind("Metric: ");
  EXPECT_LT(last_metric, first_counter);
  EXPECT_EQ(report.back(), '\n');
}

TEST(RegistryTest, LookupAndPublicAccessors) {
  Metric* metric = NewMetric("test.lookup.metric", FormatBytes);
  Counter* counter = NewCounter("test.lookup.counter");
  EXPECT_EQ(FindMetric("test.lookup.metric"), metric);
  EXPECT_EQ(FindCounter("test.lookup.counter"), counter);
  EXPECT_EQ(FindMetric("test.lookup.counter"), nullptr);
  EXPECT_EQ(FindCounter("test.lookup.metric"), nullptr);

  metric->AddSample(100);
  metric->AddSample(28);
  counter->Add(7);
  EXPECT_EQ(MetricTotalSamples("test.lookup.metric"), 2);
  EXPECT_EQ(MetricAccumulator("test.lookup.metric"), 128);
  EXPECT_EQ(CounterValue("test.lookup.counter"), 7);

  EXPECT_EQ(MetricTotalSamples("test.lookup.unknown"), 0);
  EXPECT_EQ(MetricAccumulator("test.lookup.unknown"), 0);
  EXPECT_EQ(CounterValue("test.lookup.unknown"), 0);
}

TEST(RegistryTest, DuplicateNameKeepsFirst) {
  // The later objects are never registered, so they can live on the stack.
  Metric* first = NewMetric("test.dup.metric");
  Metric second("test.dup.metric");
  first->AddSample(int64_t{1}, 1);
  second.AddSample(int64_t{1}, 5);
  second.AddSample(int64_t{2}, 5);
  EXPECT_EQ(FindMetric("test.dup.metric"), first);
  EXPECT_EQ(second.TotalSamples(), 2);  // still usable on its own
  EXPECT_EQ(MetricTotalSamples("test.dup.metric"), 1);
  std::string report = CreateMetricReport();
  EXPECT_NE(report.find("Metric: test.dup.metric\n  TotalSamples: 1\n"), std::string::npos);
  EXPECT_EQ(report.find("Metric: test.dup.metric\n  TotalSamples: 2\n"), std::string::npos);

  Counter* c1 = NewCounter("test.dup.counter");
  Counter c2("test.dup.counter");
  c2.Add(4);
  EXPECT_EQ(FindCounter("test.dup.counter"), c1);
  EXPECT_EQ(CounterValue("test.dup.counter"), 0);
  EXPECT_EQ(c2.Value(), 4);
}

TEST(RegistryTest, GetOrCreateCounter) {
  EXPECT_EQ(FindCounter("test.get_or_create"), nullptr);
  Counter* counter = GetOrCreateCounter("test.get_or_create");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->name(), "test.get_or_create");
  EXPECT_EQ(GetOrCreateCounter("test.get_or_create"), counter);
  EXPECT_EQ(FindCounter("test.get_or_create"), counter);
  counter->Add(3);
  EXPECT_EQ(CounterValue("test.get_or_create"), 3);

  // An existing static-style counter is returned rather than shadowed.
  Counter* existing = NewCounter("test.get_or_create.existing");
  EXPECT_EQ(GetOrCreateCounter("test.get_or_create.existing"), existing);
}

TEST(ConcurrencyTest, AddSampleFromManyThreads) {
  Metric* metric = NewMetric("test.concurrent.metric");
  Counter* counter = NewCounter("test.concurrent.counter");
  constexpr int kThreads = 8;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([=] {
      for (int i = 0; i < kPerThread; ++i) {
        metric->AddSample(static_cast<double>(t + 1));
        counter->Add();
        GetOrCreateCounter("test.concurrent.shared")->Add(2);
        if (i % 1000 == 0) (void)CreateMetricReport();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(metric->TotalSamples(), kThreads * kPerThread);
  // Sum over t of (t + 1) * kPerThread; exact in double.
  EXPECT_EQ(metric->Accumulator(), kPerThread * kThreads * (kThreads + 1) / 2.0);
  EXPECT_EQ(counter->Value(), kThreads * kPerThread);
  EXPECT_EQ(CounterValue("test.concurrent.shared"), 2 * kThreads * kPerThread);
}

TEST(ScopedTimerTest, RecordsOneSample) {
  Metric* metric = NewMetric("test.scoped_timer", FormatTime);
  int64_t before = NowNs();
  {
    ScopedTimer timer(metric);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  int64_t after = NowNs();
  EXPECT_EQ(metric->TotalSamples(), 1);
  EXPECT_GE(metric->Accumulator(), 2e6);
  EXPECT_LE(metric->Accumulator(), static_cast<double>(after - before));
}

TEST(NowNsTest, Monotonic) {
  int64_t a = NowNs();
  int64_t b = NowNs();
  EXPECT_GE(b, a);
  EXPECT_GT(a, 0);
}

}  // namespace
}  // namespace seam::metrics
