// Process exit with device work still queued: the CPU plugin's exit handler finishes the
// work and joins the device threads before later exit handlers and the libraries'
// destructors run (OpenBLAS frees its buffers in its own destructor; a device thread still
// inside a matmul then crashed the process after the tests had passed).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "seam/metrics.h"
#include "seam/tensor.h"
#include "src/plugins/cpu/api/testing_hooks.h"

namespace seam {
namespace {

// Registered before the client exists, so it runs after the plugin's handler (exit
// handlers run in reverse order of registration): every launched run must be done by now.
void CheckTheRunFinished() {
  const int64_t runs = metrics::MetricTotalSamples("ExecuteTime");
  std::fprintf(stderr, "runs finished before the later exit handlers: %lld\n",
               static_cast<long long>(runs));
  std::fflush(stderr);
  if (runs != 1) std::_Exit(1);
}

void ExitWithARunInFlight() {
  if (std::atexit(&CheckTheRunFinished) != 0) std::_Exit(3);
  Tensor x = Tensor::randn({192, 192}, 7);
  Tensor y = x;
  for (int i = 0; i < 12; ++i) y = y.matmul(x) * 0.05f;  // a few ms of BLAS on the worker
  {
    cpu::testing::ExecutionHold hold;
    sync();
    if (metrics::MetricTotalSamples("ExecuteTime") != 0) {
      std::fprintf(stderr, "the run finished while held\n");
      std::_Exit(2);
    }
  }  // released: the worker starts the run as the process begins to exit
  std::exit(0);
}

TEST(ExitDrainTest, QueuedWorkFinishesBeforeLaterExitHandlers) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child starts its own client
  EXPECT_EXIT(ExitWithARunInFlight(), testing::ExitedWithCode(0),
              "runs finished before the later exit handlers: 1\n");
}

}  // namespace
}  // namespace seam
