// The CPU plugin's device worker as seen by a thread that waits for its results
// (Worker::help, docs/architecture.md "Runs taken by their waiter"): the waiter runs the
// oldest queued piece, in order, never beside a running one, and nothing once the worker
// is gone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "src/plugins/cpu/runtime/worker.h"

namespace seam::cpu {
namespace {

// Keeps every worker's thread from starting queued work for the test's length.
struct PausedThreads {
  PausedThreads() { Worker::PauseThreadsForTesting(true); }
  ~PausedThreads() { Worker::PauseThreadsForTesting(false); }
};

struct Ran {
  std::mutex mu;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  void Add(int piece) {
    std::lock_guard<std::mutex> lock(mu);
    order.push_back(piece);
    threads.push_back(std::this_thread::get_id());
  }
};

TEST(CpuWorkerTest, AWaiterRunsTheQueuedPiecesOldestFirstOnItsOwnThread) {
  PausedThreads paused;
  Worker worker;
  Ran ran;
  for (int piece = 0; piece < 3; ++piece) worker.Enqueue([&ran, piece] { ran.Add(piece); });
  for (int piece = 0; piece < 3; ++piece) EXPECT_TRUE(worker.help()->HelpOnce()) << piece;
  EXPECT_FALSE(worker.help()->HelpOnce());  // nothing left
  EXPECT_EQ(ran.order, (std::vector<int>{0, 1, 2}));
  for (const std::thread::id& thread : ran.threads) EXPECT_EQ(thread, std::this_thread::get_id());
}

TEST(CpuWorkerTest, NothingRunsBesideAPieceThatIsRunning) {
  PausedThreads paused;
  Worker worker;
  std::promise<void> started, release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> second{0};
  worker.Enqueue([&] {
    started.set_value();
    released.wait();
  });
  worker.Enqueue([&] { second.fetch_add(1); });
  // A first waiter takes the first piece and stays in it.
  std::thread first([&] { EXPECT_TRUE(worker.help()->HelpOnce()); });
  if (started.get_future().wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    release.set_value();
    first.join();
    FAIL() << "the first waiter did not take the first piece";
  }
  // Another waiter, meanwhile, finds the worker busy: the second piece waits its turn.
  EXPECT_FALSE(worker.help()->HelpOnce());
  EXPECT_EQ(second.load(), 0);
  release.set_value();
  first.join();
  EXPECT_TRUE(worker.help()->HelpOnce());
  EXPECT_EQ(second.load(), 1);
}

TEST(CpuWorkerTest, AHelpThatOutlivesItsWorkerOffersNothing) {
  std::shared_ptr<WorkerHelp> help;
  std::atomic<int> ran{0};
  {
    PausedThreads paused;
    Worker worker;
    help = worker.help();
    worker.Enqueue([&] { ran.fetch_add(1); });
  }  // the destroyed worker drained its queue on its own thread
  EXPECT_EQ(ran.load(), 1);
  EXPECT_FALSE(help->HelpOnce());
}

TEST(CpuWorkerTest, AHelpRefusedByItsPredicateRunsNothing) {
  PausedThreads paused;
  static std::atomic<bool> allowed{false};
  Worker worker([] { return allowed.load(); });
  std::atomic<int> ran{0};
  worker.Enqueue([&] { ran.fetch_add(1); });
  EXPECT_FALSE(worker.help()->HelpOnce());
  EXPECT_EQ(ran.load(), 0);
  allowed = true;
  EXPECT_TRUE(worker.help()->HelpOnce());
  EXPECT_EQ(ran.load(), 1);
}

// Without a waiter, unpausing lets the worker's own thread run what was queued.
TEST(CpuWorkerTest, UnpausedThreadsRunTheQueue) {
  Worker worker;
  std::promise<void> done;
  {
    PausedThreads paused;
    worker.Enqueue([&] { done.set_value(); });
  }
  EXPECT_EQ(done.get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready);
}

}  // namespace
}  // namespace seam::cpu
