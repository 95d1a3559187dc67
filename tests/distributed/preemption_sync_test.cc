// The coordinator's preemption sync (docs/distributed.md, "Preemption") with the service and
// three clients in one process: ranks that learn of the notice at different steps agree on
// one sync step, and a rank that leaves there with status 143 leaves the job in order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "src/runtime/distributed/coordinator_client.h"
#include "src/runtime/distributed/coordinator_service.h"
#include "src/testing/spawn.h"

namespace seam::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

struct Job {
  explicit Job(int world_size) {
    options.address = "127.0.0.1";
    options.port = testing::FreePort();
    options.heartbeat_interval = seconds(1);
    options.max_missing_heartbeats = 2;
    CoordinationService::Options service_options;
    service_options.target = options.Target();
    service_options.world_size = world_size;
    service_options.loss_timeout = options.LossTimeout();
    service_options.loss_timeout_source = "2000 ms";
    auto started = CoordinationService::Start(service_options);
    EXPECT_TRUE(started.ok()) << started.status();
    if (started.ok()) service = *std::move(started);
    for (int rank = 0; rank < world_size; ++rank) {
      JobTopology topology;
      topology.rank = rank;
      topology.world_size = world_size;
      auto client =
          CoordinatorClient::Connect(options, topology, Clock::now() + seconds(10), nullptr);
      EXPECT_TRUE(client.ok()) << client.status();
      if (client.ok()) ranks.push_back(*std::move(client));
    }
  }

  // Calls ReachedPreemptionSyncPoint for steps first, first + 1, ... until it is true (at
  // most up to `last`); the step where it was, or -1.
  int64_t RunUntilSync(int rank, int64_t first, int64_t last) {
    for (int64_t step = first; step <= last; ++step) {
      absl::StatusOr<bool> reached = ranks[rank]->ReachedPreemptionSyncPoint(step, false);
      EXPECT_TRUE(reached.ok()) << reached.status();
      if (reached.ok() && *reached) return step;
      // A step takes time in a real job; here the pause lets the notice reach the others'
      // Watch streams before they run far ahead (the agreement holds either way).
      std::this_thread::sleep_for(milliseconds(2));
    }
    return -1;
  }

  CoordinatorOptions options;
  std::unique_ptr<CoordinationService> service;
  std::vector<std::unique_ptr<CoordinatorClient>> ranks;
};

TEST(PreemptionSync, RanksThatLearnAtDifferentStepsAgreeOnOneStep) {
  Job job(3);
  ASSERT_EQ(job.ranks.size(), 3u);
  // Without a notice nobody stops.
  for (int rank = 0; rank < 3; ++rank) {
    absl::StatusOr<bool> reached = job.ranks[rank]->ReachedPreemptionSyncPoint(0, false);
    ASSERT_TRUE(reached.ok());
    EXPECT_FALSE(*reached);
  }
  // Rank 0 is ahead (step 9), rank 2 behind (step 2) when rank 1 gets the signal at step 4.
  ASSERT_FALSE(*job.ranks[0]->ReachedPreemptionSyncPoint(9, false));
  ASSERT_FALSE(*job.ranks[2]->ReachedPreemptionSyncPoint(2, false));
  absl::StatusOr<bool> signaled = job.ranks[1]->ReachedPreemptionSyncPoint(4, true);
  ASSERT_TRUE(signaled.ok()) << signaled.status();
  EXPECT_FALSE(*signaled) << "the step of the notice itself is not the sync step";
  // The others report the last step they reached from their Watch streams; rank 1's next
  // call waits until every report is in. The sync step is the largest reported + 1: 10.
  std::vector<int64_t> stopped(3, -1);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { stopped[0] = job.RunUntilSync(0, 10, 2000); });
  threads.emplace_back([&] { stopped[1] = job.RunUntilSync(1, 5, 2000); });
  threads.emplace_back([&] { stopped[2] = job.RunUntilSync(2, 3, 2000); });
  for (std::thread& thread : threads) thread.join();
  // One step for all. It is 10 when the notice reaches ranks 0 and 2 before their next
  // step; on a loaded machine a rank may run a few steps before it hears, and the step is
  // then one past the last step it reports.
  EXPECT_GE(stopped[0], 10);
  EXPECT_EQ(stopped, (std::vector<int64_t>(3, stopped[0])));
  for (const auto& rank : job.ranks) EXPECT_TRUE(rank->PreemptionReached());
  // Leaving there with status 143 is an orderly departure, not a loss.
  std::thread leaver([&] { job.ranks[1]->Leave(kPreemptedExitStatus, seconds(20)).IgnoreError(); });
  const auto told_by = Clock::now() + seconds(10);
  while (job.ranks[0]->DepartedRanks().empty() && Clock::now() < told_by) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(job.ranks[0]->DepartedRanks(), std::vector<int>{1});
  EXPECT_TRUE(job.ranks[0]->Health().ok()) << job.ranks[0]->Health();
  std::thread leaver2([&] { job.ranks[2]->Leave(0, seconds(20)).IgnoreError(); });
  job.ranks[0]->Leave(0, seconds(20)).IgnoreError();
  leaver.join();
  leaver2.join();
}

TEST(PreemptionSync, StatusOneFortyThreeWithoutASyncStepLosesTheJob) {
  Job job(2);
  ASSERT_EQ(job.ranks.size(), 2u);
  ASSERT_FALSE(*job.ranks[1]->ReachedPreemptionSyncPoint(3, false));
  job.ranks[1]->Leave(kPreemptedExitStatus, milliseconds(0)).IgnoreError();
  const auto deadline = Clock::now() + seconds(10);
  while (job.ranks[0]->Health().ok() && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_THAT(std::string(job.ranks[0]->Health().message()),
              ::testing::HasSubstr("its process is exiting with status 143"));
}

}  // namespace
}  // namespace seam::runtime
