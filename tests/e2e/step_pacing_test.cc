// Steps in flight and what the execute timers measure, with a device slower than the host
// (the CPU plugin's RunDelay test hook: every run sleeps a known time d first and runs on
// the device's worker). Each TEST runs in its own process (the client is per process).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "seam/metrics.h"
#include "seam/tensor.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/metrics.h"
#include "src/runtime/process/runtime.h"

namespace seam {
namespace {

using runtime::ComputationClient;

constexpr int64_t kDelayNs = 20'000'000;   // d: each run's sleep
constexpr int64_t kMarginNs = 30'000'000;  // what a loaded machine may add to a sleep

ComputationClient& Client() {
  absl::StatusOr<ComputationClient*> client = runtime::GetComputationClient();
  EXPECT_TRUE(client.ok()) << client.status();
  return **client;
}

int64_t InFlight() {
  absl::StatusOr<int64_t> n = Client().RunsInFlight(Client().GetDefaultDevice());
  EXPECT_TRUE(n.ok()) << n.status();
  return n.ok() ? *n : -1;
}

double NowNs() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

// Records `steps` steps as fast as the host can (no host read) with every run taking d,
// and returns the largest number of runs in flight seen after a barrier.
int64_t RunSteps(int steps, double* wall_ns) {
  Tensor w = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  sync();  // nothing to run: w is host data until a step reads it
  cpu::testing::RunDelay delay(kDelayNs);
  const double start = NowNs();
  int64_t most = 0;
  for (int i = 0; i < steps; ++i) {
    w.assign(w * 0.5f + 1.0f);
    sync();
    most = std::max(most, InFlight());
  }
  std::vector<float> values = w.to_vector<float>();  // waits for the last step
  *wall_ns = NowNs() - start;
  EXPECT_EQ(values.size(), 3u);
  return most;
}

// True when every ExecuteTime sample after `samples_before` lies within [d, d + margin]:
// the run itself, not the time it waited in the device's queue.
bool SamplesAreRuns(int64_t samples_before) {
  std::vector<double> values = ComputationClient::ExecuteMetric()->KeptValues();
  if (values.size() <= static_cast<size_t>(samples_before)) return false;
  for (size_t i = static_cast<size_t>(samples_before); i < values.size(); ++i) {
    if (values[i] < static_cast<double>(kDelayNs)) return false;
    if (values[i] > static_cast<double>(kDelayNs + kMarginNs)) return false;
  }
  return true;
}

// Runs `steps` steps with at most `bound` in flight. The bound, the sample count and the
// timers' sum must hold in every attempt. Reaching the bound, and every sample within d plus
// the margin, need the host to outrun the device and the worker not to be descheduled
// mid-run, which a heavily loaded machine can deny for a while: those must hold in one of
// three attempts (a pacing or timer bug fails all of them: a queued run waits at least d).
void ExpectPacedSteps(int steps, int64_t bound) {
  constexpr int kAttempts = 3;
  bool clean = false;
  for (int attempt = 0; attempt < kAttempts && !clean; ++attempt) {
    const int64_t before = metrics::MetricTotalSamples("ExecuteTime");
    const double accumulated = metrics::MetricAccumulator("ExecuteTime");
    double wall_ns = 0;
    const int64_t most = RunSteps(steps, &wall_ns);
    EXPECT_LE(most, bound) << "attempt " << attempt;
    EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime") - before, steps);
    // One device: the runs' times cannot add up to more than the time that passed.
    EXPECT_LE(metrics::MetricAccumulator("ExecuteTime") - accumulated, wall_ns);
    clean = most == bound && SamplesAreRuns(before);
  }
  EXPECT_TRUE(clean) << "in " << kAttempts << " attempts, never " << bound
                     << " steps in flight with every sample within d + margin";
}

TEST(StepPacingTest, ByDefaultOneStepIsInFlight) { ExpectPacedSteps(6, 1); }

TEST(StepPacingTest, TheVariableAllowsMoreStepsAndNeverMore) {
  setenv("SEAM_MAX_INFLIGHT_STEPS", "3", 1);
  // The host records far faster than d: without the bound all 8 would queue at once.
  ExpectPacedSteps(8, 3);
}

TEST(StepPacingTest, ABadLimitIsAnErrorNamingTheVariable) {
  setenv("SEAM_MAX_INFLIGHT_STEPS", "0", 1);
  Tensor w = Tensor::from_vector({1.0f}, {1});
  w.assign(w + 2.0f);
  try {
    sync();
    FAIL() << "expected seam::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "Environment variable SEAM_MAX_INFLIGHT_STEPS must be at least 1, got 0");
  }
}

TEST(StepPacingTest, EagerCompilesAreTimedOnceUnderTheirOwnMetric) {
  const int64_t compiles = metrics::MetricTotalSamples("CompileTime");
  const int64_t eager_compiles = metrics::MetricTotalSamples("EagerOpCompileTime");
  set_eager(true);
  Tensor x = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor y = x * x;
  set_eager(false);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1.0f, 4.0f}));
  EXPECT_EQ(metrics::MetricTotalSamples("EagerOpCompileTime") - eager_compiles, 1);
  EXPECT_EQ(metrics::MetricTotalSamples("CompileTime") - compiles, 0);
}

// A run that throws (a bug in a kernel, simulated) fails with INTERNAL, on the device's
// worker thread and on the caller's; the thread lives on and the next step runs.
TEST(StepPacingTest, AnExceptionInARunFailsThatRunAndTheDeviceGoesOn) {
  for (bool on_worker : {true, false}) {
    Tensor x = Tensor::from_vector({1.0f, 2.0f}, {2});
    {
      std::optional<cpu::testing::RunDelay> delay;
      if (on_worker) delay.emplace(1'000'000);  // runs go to the worker
      cpu::testing::RunThrow thrown("injected kernel bug");
      Tensor y = x * 3.0f;
      sync();
      try {
        y.to_vector<float>();
        ADD_FAILURE() << "the run's failure did not reach the read";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("internal error while running the program: "
                                             "injected kernel bug"),
                  std::string::npos)
            << e.what();
      }
    }
    Tensor z = x * 4.0f;  // the device still runs steps
    EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{4.0f, 8.0f})) << "worker " << on_worker;
  }
}

TEST(StepPacingTest, LiveBufferGaugesFollowTheHandles) {
  const std::string name = "LiveBuffers[" + Client().GetDefaultDevice() + "]";
  auto live = [&] {
    metrics::Gauge* gauge = metrics::FindGauge(name);
    return gauge == nullptr ? 0 : gauge->Value();
  };
  const int64_t bytes_name_found =
      metrics::FindGauge("LiveBytes[" + Client().GetDefaultDevice() + "]") != nullptr;
  EXPECT_EQ(bytes_name_found, 1);
  const int64_t before = live();
  {
    std::vector<Tensor> kept;
    for (int i = 0; i < 5; ++i) {
      kept.push_back(Tensor::from_vector({1.0f, 2.0f}, {2}) * static_cast<float>(i + 2));
    }
    sync();
    EXPECT_GE(live() - before, 5);  // each result is a live buffer on the device
    EXPECT_NE(metrics::CreateMetricReport().find("Gauge: " + name), std::string::npos);
  }
  EXPECT_EQ(live(), before);  // and none is left once the tensors are gone
}

}  // namespace
}  // namespace seam
