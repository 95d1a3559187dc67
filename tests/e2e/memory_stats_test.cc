// seam::memory_stats through the whole stack (front end, runtime, ABI 1.3, CPU plugin): the
// plugin's bytes in use follow the tensors' device buffers, agree with the framework's
// LiveBytes gauge when no run is in flight, and the metrics report shows both the same.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/runtime.h"
#include "seam/tensor.h"
#include "src/runtime/metrics.h"

namespace seam {
namespace {

// Two CPU devices, set before any test starts the client (each test is its own process).
const bool kTwoDevices = [] { return setenv("CPU_NUM_DEVICES", "2", 1) == 0; }();

int64_t LiveBytes(int device) {
  const metrics::Gauge* gauge = metrics::FindGauge(absl::StrCat("LiveBytes[CPU:", device, "]"));
  return gauge == nullptr ? 0 : gauge->Value();
}

// The device's figures once the plugin has let go of what finished runs held: a run's
// queued record drops its references on the device's worker just after the run's events
// fire, so right after a read the plugin may count a released buffer for a moment longer.
MemoryStats SettledStats(int device) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  MemoryStats stats = memory_stats(device);
  while (stats.bytes_in_use != LiveBytes(device) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    stats = memory_stats(device);
  }
  return stats;
}

TEST(MemoryStatsTest, BytesInUseFollowsTheTensorsDeviceBuffers) {
  const MemoryStats base = SettledStats(0);
  EXPECT_EQ(base.bytes_in_use, LiveBytes(0));
  EXPECT_GE(base.peak_bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(base.bytes_limit, -1);  // the CPU plugin sets no limit of its own
  EXPECT_GE(base.pool_cached_bytes, 0);

  // Three results of known shapes: f32[10,100], f64[10,100], i32[37].
  Tensor x = Tensor::from_vector(std::vector<float>(1000, 1.5f), {10, 100});
  Tensor doubled = x + x;
  Tensor wide = (x + 1.0f).to(DType::kFloat64);
  Tensor counts = Tensor::arange(37) * Tensor::from_vector(std::vector<int32_t>(37, 3), {37});
  sync();
  EXPECT_EQ(doubled.to_vector<float>().at(0), 3.0f);  // waits for the run
  EXPECT_EQ(wide.to_vector<double>().at(0), 2.5);
  EXPECT_EQ(counts.to_vector<int32_t>().at(36), 108);
  const int64_t results = 10 * 100 * 4 + 10 * 100 * 8 + 37 * 4;

  const MemoryStats with = SettledStats(0);
  EXPECT_EQ(with.bytes_in_use, LiveBytes(0));  // the report cannot show two numbers
  // The results, plus whatever inputs the front end keeps on the device (x's data): at
  // least the results, and exactly what the framework's handles hold.
  EXPECT_GE(with.bytes_in_use - base.bytes_in_use, results);
  EXPECT_GE(with.peak_bytes_in_use, with.bytes_in_use);

  const int64_t before_drop = with.bytes_in_use;
  doubled = Tensor();
  wide = Tensor();
  counts = Tensor();
  const MemoryStats after = SettledStats(0);
  EXPECT_EQ(after.bytes_in_use, LiveBytes(0));
  EXPECT_EQ(before_drop - after.bytes_in_use, results);  // exactly the three results
  EXPECT_GE(after.peak_bytes_in_use, before_drop);

  x = Tensor();
  EXPECT_EQ(SettledStats(0).bytes_in_use, base.bytes_in_use);
}

TEST(MemoryStatsTest, TheReportShowsEachDevicesFigures) {
  Tensor t = Tensor::from_vector(std::vector<float>(256, 2.0f), {256}) * 3.0f;
  EXPECT_EQ(t.to_vector<float>().at(0), 6.0f);
  const MemoryStats stats = SettledStats(0);
  ASSERT_EQ(stats.bytes_in_use, LiveBytes(0));
  const std::string report = metrics::CreateMetricReport();
  const std::string bytes = metrics::FormatBytes(static_cast<double>(stats.bytes_in_use));
  EXPECT_NE(report.find(absl::StrCat("Gauge: LiveBytes[CPU:0]\n  Value: ", bytes, "\n")),
            std::string::npos)
      << report;
  EXPECT_NE(
      report.find(absl::StrCat("Memory: CPU:0\n  BytesInUse: ", bytes, "\n  PeakBytesInUse: ")),
      std::string::npos)
      << report;
  EXPECT_NE(report.find("\n  BytesLimit: not reported\n  PoolCachedBytes: "), std::string::npos)
      << report;
  ASSERT_TRUE(kTwoDevices);
  ASSERT_EQ(local_device_count(), 2);
  // The second device holds nothing: its entry has its own figure.
  EXPECT_EQ(memory_stats(1).bytes_in_use, 0);
  EXPECT_NE(report.find("Memory: CPU:1\n  BytesInUse: 0.00B\n"), std::string::npos) << report;
}

TEST(MemoryStatsTest, ABadDeviceIndexIsAnErrorNamingIt) {
  const int64_t count = local_device_count();
  for (int device : {-1, static_cast<int>(count)}) {
    try {
      memory_stats(device);
      ADD_FAILURE() << "device " << device << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_EQ(std::string(e.what()),
                absl::StrCat("memory_stats: device ", device, " is out of range: the process has ",
                             count, " local devices (0 to ", count - 1, ")"));
    }
  }
}

}  // namespace
}  // namespace seam
