// One training step of a pre-norm transformer block through seam's public API (issue 16):
// width 256, 4 heads, sequence 128, batch 16, causal; forward, loss mean(y^2), backward and
// an AdamW update. torch_transformer_bench.cc does the same step in libtorch;
// transformer_bench.sh runs both with the same threads and prints the ratio.
//   lazy      the step recorded each time, then sync() and the loss read
//   compiled  the same step through seam::compile (captured once, replayed)
//   compile   the CompileTime metric of the step's program (the first step's compile), and
//             that first step's whole time
// Output: one "key: value" line per fact, then one line per mode with the median and best
// step time over the timed steps (after warm-up). Arguments: [steps] (default 20).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "bench/steps_argument.h"
#include "seam/compile.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

extern "C" char* openblas_get_corename(void);

namespace {

constexpr int64_t kWidth = 256, kHeads = 4, kSeq = 128, kBatch = 16;

std::string CpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "(unset)" : value;
}

// This process's CPU time (every thread), in ms: on a shared machine it moves less with
// the load than the wall clock does.
double CpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

template <typename Step>
void Time(const char* mode, int steps, Step&& step) {
  for (int i = 0; i < 3; ++i) step();  // warm-up (and capture, for the compiled step)
  std::vector<double> ms, cpu;
  float loss = 0;
  for (int i = 0; i < steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = CpuMs();
    loss = step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    cpu.push_back(CpuMs() - cpu_start);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf("seam %-9s median_ms %8.2f best_ms %8.2f cpu_median_ms %8.2f loss %.6f\n", mode,
              ms[ms.size() / 2], ms.front(), cpu[cpu.size() / 2], static_cast<double>(loss));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace seam;  // NOLINT(google-build-using-namespace)
  setenv("PJRT_DEVICE", "CPU", /*overwrite=*/0);
  const int steps = seam::bench::StepsArgument(argc, argv, 20);
  std::printf(
      "cpu: %s\nopenblas_core: %s\nthreads: SEAM_CPU_THREADS=%s OMP_NUM_THREADS=%s "
      "OPENBLAS_NUM_THREADS=%s\nshape: width %lld heads %lld seq %lld batch %lld causal "
      "adamw\n",
      CpuName().c_str(), openblas_get_corename(), Env("SEAM_CPU_THREADS"), Env("OMP_NUM_THREADS"),
      Env("OPENBLAS_NUM_THREADS"), static_cast<long long>(kWidth), static_cast<long long>(kHeads),
      static_cast<long long>(kSeq), static_cast<long long>(kBatch));
  const Tensor x = Tensor::randn({kBatch, kSeq, kWidth}, /*seed=*/2);
  {
    nn::TransformerBlock block(kWidth, kHeads, /*seed=*/1);
    optim::AdamW adamw(block, 1e-4F);
    const auto step = [&] {
      const Tensor y = block.forward(x);
      const Tensor loss = (y * y).mean();
      adamw.step(loss);
      seam::sync();
      return loss.item<float>();
    };
    const double compile_before = metrics::MetricAccumulator("CompileTime");
    const int64_t compiles_before = metrics::MetricTotalSamples("CompileTime");
    const auto first_start = std::chrono::steady_clock::now();
    step();
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_start)
            .count();
    std::printf(
        "compile_ms: %.1f (%lld programs compiled by the first step; that step took %.1f ms in "
        "all: recording, compile, run)\n",
        (metrics::MetricAccumulator("CompileTime") - compile_before) / 1e6,
        static_cast<long long>(metrics::MetricTotalSamples("CompileTime") - compiles_before),
        first_ms);
    Time("lazy", steps, step);
  }
  {
    nn::TransformerBlock block(kWidth, kHeads, /*seed=*/1);
    optim::AdamW adamw(block, 1e-4F);
    CompiledStep step = compile([&](const std::vector<Tensor>& inputs) {
      const Tensor y = block.forward(inputs[0]);
      const Tensor loss = (y * y).mean();
      adamw.step(loss);
      return std::vector<Tensor>{loss};
    });
    Time("compiled", steps, [&] { return step({x})[0].item<float>(); });
  }
  return 0;
}
