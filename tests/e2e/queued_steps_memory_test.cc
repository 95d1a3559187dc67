// Training steps whose runs go to the device's worker thread recycle the object pool's
// blocks (issue 14, item 7). The calling thread allocates a queued run's objects (the run
// record, its lists, events, timers) and the worker frees them. Before the fix the worker
// kept those blocks in its own lists, up to 4,096 per size class, and once those were full
// the caller took a fresh block from operator new for every run, forever (RSS grew by
// 12-14% over 10,000 steps, bench/soak_bench.cc). Now blocks return to the caller through
// the shared lists, so once warm the steps make (almost) no new blocks. The test counts
// blocks, never time.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/base/object_pool.h"

namespace seam {
namespace {

struct Window {
  int64_t made;         // blocks taken from operator new during the window's steps
  int64_t outstanding;  // blocks the pool held at the end
};

// Runs `warmup` steps of a small MLP, then `steps` more, and counts the second part.
Window CountSteps(bool eager, int warmup, int steps) {
  set_eager(eager);
  nn::Mlp model({8, 8, 4}, /*seed=*/1);
  optim::Sgd sgd(model.parameters(), /*lr=*/0.01f);
  const Tensor x = Tensor::randn({4, 8}, /*seed=*/2);
  const Tensor y = Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  auto step = [&] {
    Tensor loss = nn::cross_entropy(model.forward(x), y);
    sgd.step(loss);
    sync();
    return loss.item<float>();
  };
  for (int s = 0; s < warmup; ++s) step();
  const int64_t made_before = base::GetPoolCounts().made;
  float last = 0;
  for (int s = 0; s < steps; ++s) last = step();
  EXPECT_LT(last, 2.0f);
  const base::PoolCounts after = base::GetPoolCounts();
  return Window{after.made - made_before, after.outstanding};
}

class QueuedStepsMemoryTest : public ::testing::Test {
 protected:
  // Every run to the worker thread (read when the client is made: each test has its own
  // process).
  void SetUp() override { setenv("SEAM_CPU_INLINE_MAX_COST", "0", /*overwrite=*/1); }
};

// Before the fix this window made 65,071 new blocks (about 11 per step: the worker's lists
// were full and it freed what came, while the caller made each run's objects anew). Now a
// few hundred at most: the caller
// and the worker both allocate and free some classes (buffer states, device-memory
// records), and each thread's list of such a class wanders between empty and its bound
// (32 KiB of blocks) before the pair holds enough; what is made is bounded by the lists'
// bounds, not by the number of steps.
TEST_F(QueuedStepsMemoryTest, LazyStepsReuseTheBlocksTheWorkerFrees) {
  const Window window = CountSteps(/*eager=*/false, 1000, 6000);
  EXPECT_LE(window.made, 1500) << "blocks made in the window; " << window.outstanding
                               << " held at the end";
}

// An eager step queues each of its ops: before the fix this window made about 118,000-
// 146,000 new blocks; now up to a few hundred.
TEST_F(QueuedStepsMemoryTest, EagerStepsReuseTheBlocksTheWorkerFrees) {
  const Window window = CountSteps(/*eager=*/true, 200, 300);
  EXPECT_LE(window.made, 1500) << "blocks made in the window; " << window.outstanding
                               << " held at the end";
}

}  // namespace
}  // namespace seam
