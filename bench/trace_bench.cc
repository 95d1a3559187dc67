// The front end's own costs on tiny tensors, where the device work is negligible:
//  - BM_TraceAndLaunch: recording a 100-op step and launching its cached program (the
//    sync returns once the run is queued), execution excluded: the run is waited for
//    outside the timed region. The per-op counter is the issue-6 figure (goal 0.3 us);
//    cpu_us_per_op is the calling thread's CPU time in the same region (steadier on a
//    busy machine, where wall time includes waiting for a core).
//  - BM_TraceOnly: the recording alone, graph dropped unsynced (the launch is the rest).
//  - BM_EagerOp: eager mode (a barrier after every op, op-level compile cache hit), per op
//    including the run (goal 2 us). Built only when seam::set_eager exists
//    (SEAM_BENCH_HAVE_EAGER is set by bench/CMakeLists.txt when it compiles).
#include <benchmark/benchmark.h>
#include <time.h>

#include <chrono>
#include <cstdlib>

#include "seam/tensor.h"

namespace seam::bench {
namespace {

constexpr int kOps = 100;

void SetUpDevice() { setenv("PJRT_DEVICE", "CPU", /*overwrite=*/0); }

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// kOps elementwise ops on [4] tensors: no broadcasts, so exactly kOps recorded nodes.
Tensor Chain(const Tensor& x, const Tensor& a, const Tensor& b) {
  Tensor t = x;
  for (int i = 0; i < kOps / 2; ++i) t = t * a + b;
  return t;
}

void BM_TraceAndLaunch(benchmark::State& state) {
  SetUpDevice();
  Tensor x = Tensor::from_vector({0.5f, 1.0f, 1.5f, 2.0f}, {4});
  Tensor a = Tensor::from_vector({0.9f, 0.8f, 0.7f, 0.6f}, {4});
  Tensor b = Tensor::from_vector({0.1f, 0.2f, 0.3f, 0.4f}, {4});
  Tensor t = Chain(x, a, b);
  sync();                  // compiles once
  double cpu_seconds = 0;  // the calling thread's CPU time in the timed region
  for (auto _ : state) {
    double cpu_start = ThreadCpuSeconds();
    auto start = std::chrono::steady_clock::now();
    Tensor result = Chain(x, a, b);
    sync();
    auto stop = std::chrono::steady_clock::now();
    cpu_seconds += ThreadCpuSeconds() - cpu_start;
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
    benchmark::DoNotOptimize(result.to_vector<float>());  // waits for the run, untimed
  }
  state.counters["us_per_op"] = benchmark::Counter(
      kOps * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["cpu_us_per_op"] =
      cpu_seconds * 1e6 / (static_cast<double>(state.iterations()) * kOps);
}
BENCHMARK(BM_TraceAndLaunch)->UseManualTime()->Unit(benchmark::kMicrosecond);

// The recording part alone (the graph is dropped without a sync): what the 100 ops cost
// before the barrier, to split BM_TraceAndLaunch into tracing and launching.
void BM_TraceOnly(benchmark::State& state) {
  SetUpDevice();
  Tensor x = Tensor::from_vector({0.5f, 1.0f, 1.5f, 2.0f}, {4});
  Tensor a = Tensor::from_vector({0.9f, 0.8f, 0.7f, 0.6f}, {4});
  Tensor b = Tensor::from_vector({0.1f, 0.2f, 0.3f, 0.4f}, {4});
  for (auto _ : state) {
    Tensor result = Chain(x, a, b);
    benchmark::DoNotOptimize(result);
  }
  state.counters["us_per_op"] = benchmark::Counter(
      kOps * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TraceOnly)->UseRealTime()->Unit(benchmark::kMicrosecond);

#ifdef SEAM_BENCH_HAVE_EAGER
void BM_EagerOp(benchmark::State& state) {
  SetUpDevice();
  Tensor x = Tensor::from_vector({0.5f, 1.0f, 1.5f, 2.0f}, {4});
  Tensor a = Tensor::from_vector({0.9f, 0.8f, 0.7f, 0.6f}, {4});
  Tensor b = Tensor::from_vector({0.1f, 0.2f, 0.3f, 0.4f}, {4});
  set_eager(true);
  benchmark::DoNotOptimize(Chain(x, a, b).to_vector<float>());  // fills the op cache
  for (auto _ : state) {
    benchmark::DoNotOptimize(Chain(x, a, b).to_vector<float>());
  }
  set_eager(false);
  state.counters["us_per_op"] = benchmark::Counter(
      kOps * 1e-6, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EagerOp)->UseRealTime()->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
}  // namespace seam::bench
