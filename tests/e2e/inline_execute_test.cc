// Small runs on the caller's thread (the CPU plugin's inline fast path, docs/plugins.md):
// taken only when the device is idle and the inputs are ready, with the same outcome as a
// queued run (outputs, errors on the outputs, one ExecuteTime sample per run), and never
// ahead of work queued earlier on the device.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <thread>

#include "seam/metrics.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/plugins/cpu/runtime/worker.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

// 3 element operations on f32[2,2]: far below the default inline bound.
constexpr char kSmall[] = R"(program @small {
  %0 = parameter(0) : f32[2,2]
  %1 = parameter(1) : f32[2,2]
  %2 = multiply(%0, %1) : f32[2,2]
  %3 = add(%2, %0) : f32[2,2]
  return (%3)
}
)";

// A few milliseconds of work on one thread: always queued on the device worker.
constexpr char kLarge[] = R"(program @large {
  %0 = parameter(0) : f32[1024,1024]
  %1 = dot_general(%0, %0), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[1024,1024]
  %2 = dot_general(%1, %0), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[1024,1024]
  return (%2)
}
)";

struct Fixture {
  ComputationClient* client = nullptr;
  std::string device;
  ComputationClient::ComputationPtr Compile(const char* text) {
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    EXPECT_TRUE(program.ok()) << program.status();
    auto compiled = client->Compile({{*program, device}});
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    return compiled->front();
  }
  ComputationClient::DataPtr Upload(const ir::Literal& literal) {
    auto data = client->TransferToDevice({{literal.shape, literal.bytes.data(), device}});
    EXPECT_TRUE(data.ok()) << data.status();
    return data->front();
  }
};

Fixture Start() {
  Fixture f;
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  EXPECT_TRUE(client.ok()) << client.status();
  f.client = *client;
  f.device = f.client->GetDefaultDevice();
  return f;
}

std::vector<float> Read(ComputationClient& client, const ComputationClient::DataPtr& data) {
  auto host = client.TransferFromDevice({data});
  EXPECT_TRUE(host.ok()) << host.status();
  if (!host.ok()) return {};
  const float* values = host->front().f32();
  return std::vector<float>(values, values + host->front().shape.num_elements());
}

TEST(InlineExecuteTest, SmallRunOnAnIdleDeviceIsDoneWhenExecuteReturns) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  auto b = f.Upload(ir::Literal::FromF32({10, 20, 30, 40}, {2, 2}));
  auto result = f.client->ExecuteComputation(*small, {a, b}, f.device, {});
  ASSERT_TRUE(result.ok()) << result.status();
  // Nothing was queued on the device, so the run happened during the call.
  EXPECT_TRUE(result->front()->IsReady());
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
  EXPECT_EQ(Read(*f.client, result->front()), (std::vector<float>{11, 42, 93, 164}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);  // one sample per run
}

TEST(InlineExecuteTest, AHeldDeviceQueuesEvenASmallRun) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  ComputationClient::DataPtr out;
  {
    cpu::testing::ExecutionHold hold;
    auto result = f.client->ExecuteComputation(*small, {a, a}, f.device, {});
    ASSERT_TRUE(result.ok()) << result.status();
    out = result->front();
    EXPECT_FALSE(out->IsReady());
    EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 0);
  }
  EXPECT_EQ(Read(*f.client, out), (std::vector<float>{2, 6, 12, 20}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
}

TEST(InlineExecuteTest, ASmallRunNeverOvertakesWorkQueuedBeforeIt) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto large = f.Compile(kLarge);
  ir::Literal big = ir::Literal::FromF32(std::vector<float>(1024 * 1024, 0.001f), {1024, 1024});
  auto x = f.Upload(big);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  for (int round = 0; round < 3; ++round) {
    auto slow = f.client->ExecuteComputation(*large, {x}, f.device, {});
    ASSERT_TRUE(slow.ok()) << slow.status();
    // Independent of the large run, yet queued behind it: it may not finish first.
    auto fast = f.client->ExecuteComputation(*small, {a, a}, f.device, {});
    ASSERT_TRUE(fast.ok()) << fast.status();
    const bool fast_ready = fast->front()->IsReady();
    const bool slow_ready = slow->front()->IsReady();
    EXPECT_TRUE(!fast_ready || slow_ready) << "round " << round;
    EXPECT_EQ(Read(*f.client, fast->front()), (std::vector<float>{2, 6, 12, 20}));
    EXPECT_TRUE(slow->front()->IsReady());
  }
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 6);
}

TEST(InlineExecuteTest, ARunWhoseInputIsPendingWaitsOnTheDevice) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  ComputationClient::DataPtr first, second;
  {
    cpu::testing::ExecutionHold hold;
    auto r1 = f.client->ExecuteComputation(*small, {a, a}, f.device, {});
    ASSERT_TRUE(r1.ok()) << r1.status();
    first = r1->front();
  }
  // `first` may still be pending; a run reading it is then queued behind its producer.
  auto r2 = f.client->ExecuteComputation(*small, {first, a}, f.device, {});
  ASSERT_TRUE(r2.ok()) << r2.status();
  second = r2->front();
  // first = a*a + a = {2, 6, 12, 20}; second = first*a + first.
  EXPECT_EQ(Read(*f.client, second), (std::vector<float>{4, 18, 48, 100}));
  EXPECT_TRUE(first->IsReady());
}

TEST(InlineExecuteTest, AFailedInlineRunReportsItsErrorOnTheOutputs) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  cpu::testing::RunFailure failure(0, absl::InternalError("injected failure"));
  auto result = f.client->ExecuteComputation(*small, {a, a}, f.device, {});
  ASSERT_TRUE(result.ok()) << result.status();  // the launch itself succeeded
  EXPECT_TRUE(result->front()->IsReady());
  absl::Status status = result->front()->AwaitReady();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("injected failure"), std::string::npos) << status;
  auto host = f.client->TransferFromDevice({result->front()});
  EXPECT_FALSE(host.ok());
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
}

// Two threads launch chains of small runs on the one device at once: some runs go inline,
// others queue behind an inline run or a queued one; every chain still computes in order.
TEST(InlineExecuteTest, ConcurrentCallersKeepEachChainInOrder) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto ones = f.Upload(ir::Literal::FromF32({1, 1, 1, 1}, {2, 2}));
  constexpr int kSteps = 100;  // x -> x*1 + x doubles x: 2^100 is exact in f32
  std::vector<ComputationClient::DataPtr> last(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      ComputationClient::DataPtr x = ones;
      for (int i = 0; i < kSteps; ++i) {
        auto result = f.client->ExecuteComputation(*small, {x, ones}, f.device, {});
        ASSERT_TRUE(result.ok()) << result.status();
        x = result->front();
      }
      last[t] = x;
    });
  }
  for (std::thread& thread : threads) thread.join();
  const float expected = std::ldexp(1.0f, kSteps);
  for (int t = 0; t < 2; ++t) {
    ASSERT_NE(last[t], nullptr);
    EXPECT_EQ(Read(*f.client, last[t]), std::vector<float>(4, expected)) << "thread " << t;
  }
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 2 * kSteps);
}

// Keeps the device's thread from starting queued runs: a run then happens only where a
// waiting thread takes it (Worker::help).
struct PausedWorkers {
  PausedWorkers() { cpu::Worker::PauseThreadsForTesting(true); }
  ~PausedWorkers() { cpu::Worker::PauseThreadsForTesting(false); }
};

// Reads `data` on another thread; whether the read finished within `wait`.
bool ReadFinishesWithin(std::future<std::vector<float>>& read, std::chrono::milliseconds wait) {
  return read.wait_for(wait) == std::future_status::ready;
}

TEST(InlineExecuteTest, AQueuedRunAwaitedBeforeTheDeviceStartsItRunsOnTheWaitingThread) {
  Fixture f = Start();
  auto large = f.Compile(kLarge);
  auto x = f.Upload(ir::Literal::FromF32(std::vector<float>(1024 * 1024, 0.001f), {1024, 1024}));
  PausedWorkers paused;
  auto result = f.client->ExecuteComputation(*large, {x}, f.device, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ComputationClient::DataPtr out = result->front();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(out->IsReady());  // queued, and the device's thread starts nothing
  // The reader's wait runs it (the device's thread is still paused).
  std::future<std::vector<float>> read =
      std::async(std::launch::async, [&] { return Read(*f.client, out); });
  if (!ReadFinishesWithin(read, std::chrono::seconds(60))) {
    cpu::Worker::PauseThreadsForTesting(false);  // lets the read finish before failing
    FAIL() << "the read waited for the paused device thread";
  }
  const std::vector<float> values = read.get();
  ASSERT_EQ(values.size(), 1024u * 1024u);
  // (x·x)·x with every element 0.001: 1024² · 10⁻⁹ each, summed in f32.
  EXPECT_NEAR(values[0], 1024.0f * 1024.0f * 1e-9f, 1e-8f);
  EXPECT_NEAR(values[1024 * 1024 - 1], 1024.0f * 1024.0f * 1e-9f, 1e-8f);
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
}

TEST(InlineExecuteTest, AWaitingThreadRunsTheQueueInOrderUpToItsRun) {
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto large = f.Compile(kLarge);
  auto x = f.Upload(ir::Literal::FromF32(std::vector<float>(1024 * 1024, 0.001f), {1024, 1024}));
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  PausedWorkers paused;
  auto slow = f.client->ExecuteComputation(*large, {x}, f.device, {});
  ASSERT_TRUE(slow.ok()) << slow.status();
  auto fast = f.client->ExecuteComputation(*small, {a, a}, f.device, {});  // queued behind
  ASSERT_TRUE(fast.ok()) << fast.status();
  std::future<std::vector<float>> read =
      std::async(std::launch::async, [&] { return Read(*f.client, fast->front()); });
  if (!ReadFinishesWithin(read, std::chrono::seconds(60))) {
    cpu::Worker::PauseThreadsForTesting(false);
    FAIL() << "the read waited for the paused device thread";
  }
  EXPECT_EQ(read.get(), (std::vector<float>{2, 6, 12, 20}));
  // The run queued first ran first, on the same waiting thread.
  EXPECT_TRUE(slow->front()->IsReady());
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 2);
}

TEST(InlineExecuteTest, AHeldDeviceKeepsItsWaitersAsleep) {
  Fixture f = Start();
  auto large = f.Compile(kLarge);
  auto x = f.Upload(ir::Literal::FromF32(std::vector<float>(1024 * 1024, 0.001f), {1024, 1024}));
  PausedWorkers paused;
  std::future<std::vector<float>> read;
  {
    cpu::testing::ExecutionHold hold;
    auto result = f.client->ExecuteComputation(*large, {x}, f.device, {});
    ASSERT_TRUE(result.ok()) << result.status();
    ComputationClient::DataPtr out = result->front();
    read = std::async(std::launch::async, [&f, out] { return Read(*f.client, out); });
    EXPECT_FALSE(ReadFinishesWithin(read, std::chrono::milliseconds(100)));
    EXPECT_FALSE(out->IsReady());
  }
  cpu::Worker::PauseThreadsForTesting(false);  // the device's thread runs it now
  ASSERT_TRUE(ReadFinishesWithin(read, std::chrono::seconds(60)));
  EXPECT_EQ(read.get().size(), 1024u * 1024u);
}

// SEAM_CPU_INLINE_MAX_COST=0 turns off waiters' runs too: a waiter sleeps until the device's
// thread has run the program.
TEST(InlineExecuteTest, InlineRunsOffKeepWaitersAsleep) {
  setenv("SEAM_CPU_INLINE_MAX_COST", "0", 1);
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  PausedWorkers paused;
  auto result = f.client->ExecuteComputation(*small, {a, a}, f.device, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ComputationClient::DataPtr out = result->front();
  std::future<std::vector<float>> read =
      std::async(std::launch::async, [&] { return Read(*f.client, out); });
  EXPECT_FALSE(ReadFinishesWithin(read, std::chrono::milliseconds(100)));
  cpu::Worker::PauseThreadsForTesting(false);
  ASSERT_TRUE(ReadFinishesWithin(read, std::chrono::seconds(60)));
  EXPECT_EQ(read.get(), (std::vector<float>{2, 6, 12, 20}));
}

TEST(InlineExecuteTest, InlineRunsOffQueueEverySmallRun) {
  setenv("SEAM_CPU_INLINE_MAX_COST", "0", 1);
  Fixture f = Start();
  auto small = f.Compile(kSmall);
  auto a = f.Upload(ir::Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  auto result = f.client->ExecuteComputation(*small, {a, a}, f.device, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(Read(*f.client, result->front()), (std::vector<float>{2, 6, 12, 20}));
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime"), 1);
}

TEST(InlineExecuteTest, ABadBoundIsAClearError) {
  setenv("SEAM_CPU_INLINE_MAX_COST", "lots", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(client.status().message().find("SEAM_CPU_INLINE_MAX_COST"), std::string::npos)
      << client.status();
  EXPECT_NE(client.status().message().find("'lots'"), std::string::npos) << client.status();
}

// SEAM_CPU_INLINE_CROSS_PROCESS is a flag: anything but 0 or 1 fails the creation.
TEST(InlineExecuteTest, ABadCrossProcessFlagIsAClearError) {
  setenv("SEAM_CPU_INLINE_CROSS_PROCESS", "2", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "PJRT_Client_Create: environment variable SEAM_CPU_INLINE_CROSS_PROCESS must be a "
            "flag (0 or 1), got '2'");
}

// SEAM_CPU_THREADS is read by the plugin's kernel threads; client creation refuses a value
// that is not a positive integer instead of ignoring it.
TEST(ClientEnvironmentTest, ABadKernelThreadCountIsAClearError) {
  setenv("SEAM_CPU_THREADS", "0", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(client.status().message().find("SEAM_CPU_THREADS must be a positive integer, got '0'"),
            std::string::npos)
      << client.status();
}

TEST(ClientEnvironmentTest, AKernelThreadCountIsAccepted) {
  setenv("SEAM_CPU_THREADS", "2", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  EXPECT_TRUE(client.ok()) << client.status();
}

}  // namespace
}  // namespace seam::runtime
