// Collectives across processes in the CPU plugin, with real processes: each test starts
// cpu_gloo_worker processes on 127.0.0.1 that share a key-value store in a temporary
// directory (src/testing/file_kv_store.h) and checks what they report.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "src/testing/file_kv_store.h"
#include "src/testing/worker_process.h"

namespace seam::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

// Starts `cpu_gloo_worker <scenario>` as process `index` of `count` on `store`.
std::unique_ptr<WorkerProcess> Start(const std::string& scenario, const TempDir& store, int index,
                                     int count, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {scenario, "store=" + store.path(),
                                   "index=" + std::to_string(index),
                                   "count=" + std::to_string(count)};
  args.insert(args.end(), more.begin(), more.end());
  return std::make_unique<WorkerProcess>(SEAM_GLOO_WORKER, args);
}

// The number after `prefix` in `text` (-1 when absent).
int NumberAfter(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  return at == std::string::npos ? -1 : std::stoi(text.substr(at + prefix.size()));
}

bool HasKeyStartingWith(const TempDir& store, const std::string& prefix) {
  const std::vector<std::string> keys = FileKvStore(store.path()).Keys();
  return std::any_of(keys.begin(), keys.end(),
                     [&](const std::string& key) { return key.rfind(prefix, 0) == 0; });
}

// Every process runs the whole matrix (ops x dtypes x layouts) and must report success.
void RunMatrix(int processes, int devices) {
  TempDir store;
  ASSERT_FALSE(store.path().empty());
  std::vector<std::unique_ptr<WorkerProcess>> workers;
  for (int i = 0; i < processes; ++i) {
    workers.push_back(Start("matrix", store, i, processes,
                            {"devices=" + std::to_string(devices), "timeout_ms=60000"}));
  }
  for (int i = 0; i < processes; ++i) {
    std::optional<int> status = workers[i]->Wait(seconds(240));
    EXPECT_EQ(status, 0) << "process " << i << ":\n" << workers[i]->output();
    EXPECT_NE(workers[i]->output().find("matrix ok"), std::string::npos) << workers[i]->output();
    EXPECT_NE(workers[i]->output().find("all on 127.0.0.1"), std::string::npos);
  }
  // One context over all processes (generation 0), and one per pair of the "pairs" layout.
  EXPECT_TRUE(HasKeyStartingWith(
      store, "cpu/gloo/" + std::string(processes == 2 ? "0-1" : "0-1-2-3") + "/0/"));
}

TEST(CpuGlooProcessTest, TwoProcessesEveryOpDTypeAndLayout) { RunMatrix(2, 1); }

TEST(CpuGlooProcessTest, FourProcessesEveryOpDTypeAndLayout) { RunMatrix(4, 1); }

TEST(CpuGlooProcessTest, TwoProcessesOfTwoDevicesEveryOpDTypeAndLayout) { RunMatrix(2, 2); }

// bf16 travels in two bytes: the bytes-sent counter reads half of f32's for the same
// element count, and f32's is what Gloo's ring sends, 2 (P - 1) ceil(4 N / P).
TEST(CpuGlooProcessTest, Bf16AllReduceSendsHalfTheBytesOfF32) {
  TempDir store;
  constexpr int64_t kElements = 100003;
  const std::vector<std::string> more = {"elements=" + std::to_string(kElements),
                                         "timeout_ms=60000"};
  std::vector<std::unique_ptr<WorkerProcess>> workers;
  for (int i = 0; i < 2; ++i) workers.push_back(Start("bytes", store, i, 2, more));
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(workers[i]->Wait(seconds(120)), 0) << workers[i]->output();
    const std::string& out = workers[i]->output();
    const int f32 = NumberAfter(out, "bytes f32 ");
    const int bf16 = NumberAfter(out, "bytes bf16 ");
    EXPECT_EQ(f32, 2 * 1 * ((4 * kElements + 1) / 2)) << out;
    EXPECT_EQ(2 * bf16, f32) << out;
  }
}

// A peer killed (SIGKILL) while the processes are in back-to-back 16 MiB all_reduces: the
// survivor's run fails (event, output buffer, download) long before its 30 s timeout, the
// process lives on, and a replacement process joins it under the next generation's keys.
TEST(CpuGlooProcessTest, KilledPeerFailsTheRunAndTheContextIsRebuilt) {
  TempDir store;
  const std::vector<std::string> loop = {"elements=4194304", "timeout_ms=30000", "rejoin=1"};
  std::unique_ptr<WorkerProcess> survivor = Start("loop", store, 0, 2, loop);
  std::unique_ptr<WorkerProcess> victim = Start("loop", store, 1, 2, loop);
  ASSERT_TRUE(victim->WaitForLine("round 3 ok", seconds(60))) << victim->output();
  const Clock::time_point killed = Clock::now();
  victim->Kill();
  ASSERT_TRUE(survivor->WaitForLine("failed round", seconds(20))) << survivor->output();
  const auto detected = std::chrono::duration_cast<milliseconds>(Clock::now() - killed);
  EXPECT_LT(detected.count(), 10000) << "the failure must come from the peer's death, not the "
                                        "30 s timeout";
  ASSERT_TRUE(survivor->WaitForLine("download:", seconds(5))) << survivor->output();
  const std::string& out = survivor->output();
  EXPECT_NE(out.find("all_reduce among processes {0, 1} failed (Gloo context generation 0"),
            std::string::npos)
      << out;
  // The same error on the completion event, the output's ready event and the download.
  for (const char* what : {"event: ", "buffer: ", "download: "}) {
    const size_t at = out.find(what);
    ASSERT_NE(at, std::string::npos) << what << out;
    const std::string line = out.substr(at + std::string(what).size(),
                                        out.find('\n', at) - at - std::string(what).size());
    EXPECT_NE(line.find("UNAVAILABLE: %1 (all_reduce_sum): all_reduce among processes {0, 1}"),
              std::string::npos)
        << what << line;
  }
  EXPECT_TRUE(HasKeyStartingWith(store, "cpu/gloo/0-1/0/broken"));

  std::unique_ptr<WorkerProcess> replacement = Start("once", store, 1, 2, loop);
  EXPECT_EQ(replacement->Wait(seconds(60)), 0) << replacement->output();
  EXPECT_NE(replacement->output().find("round 0 ok"), std::string::npos) << replacement->output();
  EXPECT_EQ(survivor->Wait(seconds(60)), 0) << survivor->output();
  EXPECT_NE(survivor->output().find("rejoined ok"), std::string::npos) << survivor->output();
  EXPECT_TRUE(HasKeyStartingWith(store, "cpu/gloo/0-1/1/"));
}

// A peer that stays alive but stops taking part: the run fails with DEADLINE_EXCEEDED
// after the collective timeout (1.5 s here), not later.
TEST(CpuGlooProcessTest, IdlePeerFailsTheRunAtTheTimeout) {
  TempDir store;
  std::unique_ptr<WorkerProcess> idle = Start("idle", store, 1, 2, {"timeout_ms=1500"});
  std::unique_ptr<WorkerProcess> waiter =
      Start("loop", store, 0, 2, {"timeout_ms=1500", "rounds=2"});
  EXPECT_EQ(waiter->Wait(seconds(30)), 0) << waiter->output();
  const std::string& out = waiter->output();
  EXPECT_NE(out.find("round 0 ok"), std::string::npos) << out;
  const int ms = NumberAfter(out, "failed round 1 after ");
  ASSERT_NE(ms, -1) << out;
  EXPECT_GE(ms, 1000) << out;
  EXPECT_LT(ms, 10000) << out;
  EXPECT_NE(out.find("DEADLINE_EXCEEDED: %1 (all_reduce_sum): all_reduce among processes"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Timed out waiting 1500ms"), std::string::npos) << out;
}

// A replica of one process fails before its all_reduce: that process closes its
// connections, so the peer fails at once (not at its 30 s timeout); the next round
// rebuilds the context in both, under generation 1, and succeeds.
TEST(CpuGlooProcessTest, LocalFailureFailsThePeerAtOnceAndBothRebuild) {
  TempDir store;
  std::unique_ptr<WorkerProcess> failing = Start("fail_local", store, 0, 2, {"timeout_ms=30000"});
  std::unique_ptr<WorkerProcess> peer =
      Start("loop", store, 1, 2, {"timeout_ms=30000", "rejoin=1"});
  EXPECT_EQ(failing->Wait(seconds(60)), 0) << failing->output();
  EXPECT_EQ(peer->Wait(seconds(60)), 0) << peer->output();
  EXPECT_NE(failing->output().find("failed round 1 after"), std::string::npos) << failing->output();
  EXPECT_NE(failing->output().find("injected failure on device 0"), std::string::npos);
  EXPECT_NE(failing->output().find("round 2 ok"), std::string::npos) << failing->output();
  const std::string& out = peer->output();
  const int ms = NumberAfter(out, "failed round 1 after ");
  ASSERT_NE(ms, -1) << out;
  EXPECT_LT(ms, 10000) << out;
  EXPECT_NE(out.find("rejoined ok"), std::string::npos) << out;
  EXPECT_TRUE(HasKeyStartingWith(store, "cpu/gloo/0-1/1/"));
}

// Every process of a job must have as many devices: a mismatch fails both processes' first
// collective with FAILED_PRECONDITION naming the counts.
TEST(CpuGlooProcessTest, UnequalDeviceCountsAreRefused) {
  TempDir store;
  std::unique_ptr<WorkerProcess> one =
      Start("once", store, 0, 2, {"devices=1", "timeout_ms=20000"});
  std::unique_ptr<WorkerProcess> two =
      Start("once", store, 1, 2, {"devices=2", "timeout_ms=20000"});
  EXPECT_EQ(one->Wait(seconds(60)), 0);
  EXPECT_EQ(two->Wait(seconds(60)), 0);
  EXPECT_NE(one->output().find("FAILED_PRECONDITION"), std::string::npos) << one->output();
  EXPECT_NE(one->output().find("process 1 has 2 device(s), this process has 1"), std::string::npos)
      << one->output();
  EXPECT_NE(two->output().find("process 0 has 1 device(s), this process has 2"), std::string::npos)
      << two->output();
}

}  // namespace
}  // namespace seam::testing
