// One MLP training step through seam's public API (forward, cross-entropy, backward, SGD
// update, step barrier and loss read), and the matrix-product floor of the same step:
// the best sgemm rate of this run and the step's own products called directly on each
// matrix library the CPU plugin can use (OpenBLAS, and oneDNN where built; gemm.h).
// torch_step_bench.cc measures the same step in libtorch; bench/report.py sets them side by
// side. Run with OPENBLAS_NUM_THREADS and OMP_NUM_THREADS set (run_benchmarks.sh does).
#include <benchmark/benchmark.h>
#include <sched.h>

#include <cstdlib>
#include <optional>

#include "bench/bench_util.h"
#include "bench/mlp_shapes.h"
#include "bench/mlp_step.h"
#include "seam/compile.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/kernels/gemm.h"

namespace seam::bench {
namespace {

void SetUpDevice() { setenv("PJRT_DEVICE", "CPU", /*overwrite=*/0); }

void BM_SeamMlpStep(benchmark::State& state) {
  SetUpDevice();
  const MlpShape& shape = MlpShapes()[state.range(0)];
  MlpStepSetUp s(shape);
  float loss_value = 0;
  auto step = [&] {
    Tensor loss = nn::cross_entropy(s.model.forward(s.x), s.y);
    s.sgd.step(loss);
    sync();
    loss_value = loss.item<float>();
  };
  step();  // compiles; later steps hit the compile cache
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(loss_value);
  }
  state.SetLabel(MlpLabel(shape));
  state.counters["matmul_flops"] = MlpStepMatmulFlops(shape);
  state.counters["omp_threads"] = BenchThreads();
}

// The same step through seam::compile (include/seam/compile.h): after the first calls
// capture it, a step runs the cached program without recording the graph.
void BM_CompiledMlpStep(benchmark::State& state) {
  SetUpDevice();
  const MlpShape& shape = MlpShapes()[state.range(0)];
  MlpStepSetUp s(shape);
  CompiledStep step = compile([&](const std::vector<Tensor>& inputs) {
    Tensor loss = nn::cross_entropy(s.model.forward(inputs[0]), inputs[1]);
    s.sgd.step(loss);
    return std::vector<Tensor>{loss};
  });
  float loss_value = 0;
  for (int i = 0; i < 3; ++i) loss_value = step({s.x, s.y})[0].item<float>();  // capture
  for (auto _ : state) {
    loss_value = step({s.x, s.y})[0].item<float>();
    benchmark::DoNotOptimize(loss_value);
  }
  state.SetLabel(MlpLabel(shape));
  state.counters["replayed"] = static_cast<double>(step.replayed_calls());
  state.counters["omp_threads"] = BenchThreads();
}

// The step's matrix products only, with the transpose flags seam's step uses for
// nn::Linear's [out, in] weight W: forward X.W^T, weight gradient G^T.X, input gradient G.W.
// While alive, every f32 product goes to the library of the benchmark's second argument
// (0 OpenBLAS, 1 oneDNN, whatever the size); then the process's choice is put back.
class UseLibrary {
 public:
  explicit UseLibrary(const benchmark::State& state)
      : saved_(cpu::GetGemmLibrary()),
        library_(state.range(1) == 0 ? cpu::GemmLibrary::kOpenBlas : cpu::GemmLibrary::kOneDnn) {
    cpu::SetGemmLibrary(library_);
  }
  ~UseLibrary() { cpu::SetGemmLibrary(saved_); }
  std::string name() const { return std::string(cpu::GemmLibraryName(library_)); }

 private:
  cpu::GemmLibrary saved_, library_;
};

// The bare products run as a client's run would: under the settings a client created from
// this environment installs, among them its kernel threads' poll between loops
// (cpu_settings.h, kernel_spin_us), which the steps' products have.
class ClientSettings {
 public:
  ClientSettings() {
    absl::StatusOr<cpu::CpuSettings> settings = cpu::CpuSettingsFromEnvironment();
    if (settings.ok()) settings_ = *std::move(settings);
    cpu_set_t set;
    CPU_ZERO(&set);
    const int64_t cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
    settings_.kernel_spin_us = cpu::KernelSpin(settings_, 1, cpus);
    scope_.emplace(&settings_);
  }

 private:
  cpu::CpuSettings settings_;
  std::optional<cpu::ScopedCpuSettings> scope_;
};

// Registers each argument once per library this build has.
void PerLibrary(benchmark::internal::Benchmark* b, const std::vector<int64_t>& firsts) {
  for (int64_t first : firsts) {
    for (int64_t library = 0; library < (cpu::OneDnnAvailable() ? 2 : 1); ++library) {
      b->Args({first, library});
    }
  }
}

void BM_GemmOnlyStep(benchmark::State& state) {
  const MlpShape& shape = MlpShapes()[state.range(0)];
  const UseLibrary library(state);
  const ClientSettings settings;
  const auto& s = shape.sizes;
  const int64_t b = shape.batch;
  std::vector<std::vector<float>> acts, weights, grads;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    acts.push_back(RandomFloats(size_t(b) * s[i], 1));
    weights.push_back(RandomFloats(size_t(s[i]) * s[i + 1], 2));
    grads.push_back(RandomFloats(size_t(b) * s[i + 1], 3));
  }
  std::vector<std::vector<float>> outs = grads, weight_grads = weights, input_grads = acts;
  for (auto _ : state) {
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      const int64_t k = s[i], n = s[i + 1];
      cpu::Sgemm(false, true, b, n, k, 1.0f, acts[i].data(), k, weights[i].data(), k, 0.0f,
                 outs[i].data(), n);
    }
    for (size_t i = s.size() - 1; i-- > 0;) {
      const int64_t k = s[i], n = s[i + 1];
      cpu::Sgemm(true, false, n, k, b, 1.0f, grads[i].data(), n, acts[i].data(), k, 0.0f,
                 weight_grads[i].data(), k);
      if (i > 0) {
        cpu::Sgemm(false, false, b, k, n, 1.0f, grads[i].data(), n, weights[i].data(), k, 0.0f,
                   input_grads[i].data(), k);
      }
    }
    benchmark::ClobberMemory();
  }
  state.SetLabel(MlpLabel(shape) + " " + library.name());
  state.counters["matmul_flops"] = MlpStepMatmulFlops(shape);
  state.counters["omp_threads"] = BenchThreads();
}

// The best sgemm rate of this run: square products large enough to reach each library's
// peak (the floor takes the faster library).
void BM_SgemmPeak(benchmark::State& state) {
  const int64_t n = state.range(0);
  const UseLibrary library(state);
  const ClientSettings settings;
  std::vector<float> a = RandomFloats(size_t(n) * n, 1), b = RandomFloats(size_t(n) * n, 2);
  std::vector<float> c(size_t(n) * n);
  for (auto _ : state) {
    cpu::Sgemm(false, false, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.SetLabel(library.name());
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["omp_threads"] = BenchThreads();
}

BENCHMARK(BM_SgemmPeak)
    ->Apply([](benchmark::internal::Benchmark* b) {
      PerLibrary(b, {1024, 2048});
    })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SeamMlpStep)
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_CompiledMlpStep)
    ->DenseRange(0, 2)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();
BENCHMARK(BM_GemmOnlyStep)
    ->Apply([](benchmark::internal::Benchmark* b) {
      PerLibrary(b, {0, 1, 2, 3});
    })
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace seam::bench
