// bf16 against f32 (issue 16, "bf16 products where the CPU supports it"): seam's
// dot_general on the shapes of MLPs and transformers, and an MLP training step with bf16
// parameters (the optimizer computes its update in f32, docs/frontend.md) beside the same
// step in f32. Each product's label says which path the bf16 products took:
// `onednn_bf16` (oneDNN's matmul primitive, dot_onednn.h) or `widened` (f32 gemm). Run with
// SEAM_CPU_THREADS=1 OMP_NUM_THREADS=1 for the 1-thread figures (BENCHMARKS.md, "bf16
// products"); SEAM_CPU_GEMM=openblas keeps bf16 on the widening path.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "bench/mlp_shapes.h"
#include "bench/mlp_step.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/plugins/cpu/kernels/dot_onednn.h"

namespace seam::bench {
namespace {

struct Product {
  const char* name;
  int64_t batch, m, k, n;
  bool rhs_transposed;          // x . w^T, w stored [n, k] (a linear layer's weights)
  bool lhs_transposed = false;  // x^T . g, x stored [k, m] (a weight gradient)
};

const Product kProducts[] = {
    {"1024x1024x1024", 1, 1024, 1024, 1024, false},
    {"2048x512x2048", 1, 2048, 512, 2048, false},
    {"batched_128x64x32x64", 128, 64, 32, 64, false},
    {"linear_512x1024_by_4096x1024T", 1, 512, 1024, 4096, true},
    {"256x256x256", 1, 256, 256, 256, false},
    {"weight_gradient_[4096,1024]T_by_4096x1024", 1, 1024, 4096, 1024, false, true},
    {"64x64x64", 1, 64, 64, 64, false},
    {"32x32x32", 1, 32, 32, 32, false},
    {"16x16x16", 1, 16, 16, 16, false},
};

std::string Dims(const char* dtype, int64_t batch, int64_t a, int64_t b) {
  return batch > 1 ? absl::StrCat(dtype, "[", batch, ",", a, ",", b, "]")
                   : absl::StrCat(dtype, "[", a, ",", b, "]");
}

ir::Literal Operand(bool bf16, int64_t batch, int64_t a, int64_t b, unsigned seed) {
  std::vector<int64_t> dims = batch > 1 ? std::vector<int64_t>{batch, a, b} : std::vector{a, b};
  std::vector<float> values = RandomFloats(static_cast<size_t>(batch * a * b), seed);
  return bf16 ? ir::Literal::FromBF16(values, dims) : ir::Literal::FromF32(values, dims);
}

// range(0): the product (kProducts), range(1): 1 for bf16, 0 for f32.
void BM_Product(benchmark::State& state) {
  const Product& p = kProducts[state.range(0)];
  const bool bf16 = state.range(1) == 1;
  const char* t = bf16 ? "bf16" : "f32";
  const bool batched = p.batch > 1;
  const std::string rhs =
      p.rhs_transposed ? Dims(t, p.batch, p.n, p.k) : Dims(t, p.batch, p.k, p.n);
  const std::string lhs =
      p.lhs_transposed ? Dims(t, p.batch, p.k, p.m) : Dims(t, p.batch, p.m, p.k);
  const int lhs_contracting = (batched ? 1 : 0) + (p.lhs_transposed ? 0 : 1);
  const std::string dims =
      batched ? absl::StrCat("lhs_batch={0}, rhs_batch={0}, lhs_contracting={", lhs_contracting,
                             "}, rhs_contracting={", p.rhs_transposed ? 2 : 1, "}")
              : absl::StrCat("lhs_batch={}, rhs_batch={}, lhs_contracting={", lhs_contracting,
                             "}, rhs_contracting={", p.rhs_transposed ? 1 : 0, "}");
  auto computation =
      CompileText(absl::StrCat("program @dot {\n  %0 = parameter(0) : ", lhs,
                               "\n  %1 = parameter(1) : ", rhs, "\n  %2 = dot_general(%0, %1), ",
                               dims, " : ", Dims(t, p.batch, p.m, p.n), "\n  return (%2)\n}\n"));
  auto args = Upload(
      {p.lhs_transposed ? Operand(bf16, p.batch, p.k, p.m, 1) : Operand(bf16, p.batch, p.m, p.k, 1),
       p.rhs_transposed ? Operand(bf16, p.batch, p.n, p.k, 2)
                        : Operand(bf16, p.batch, p.k, p.n, 2)});
  RunAndWait(*computation, args);
  const int64_t before = cpu::Bf16MatmulRuns();
  int64_t iterations = 0;
  for (auto _ : state) {
    RunAndWait(*computation, args);
    ++iterations;
  }
  const bool onednn = cpu::Bf16MatmulRuns() - before == iterations;
  state.SetLabel(absl::StrCat(p.name, " ", t, bf16 ? (onednn ? " onednn_bf16" : " widened") : ""));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(p.batch * p.m * p.k * p.n),
      benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// One MLP training step (forward, cross-entropy, backward, SGD) through the public API,
// parameters and input in f32 or bf16. range(0): the MLP shape (mlp_shapes.h), range(1): 1
// for bf16.
void BM_MlpStep(benchmark::State& state) {
  setenv("PJRT_DEVICE", "CPU", /*overwrite=*/0);
  const MlpShape& shape = MlpShapes()[state.range(0)];
  const DType dtype = state.range(1) == 1 ? DType::kBFloat16 : DType::kFloat32;
  nn::Mlp model(shape.sizes, /*seed=*/1, dtype);
  optim::Sgd sgd(model.parameters(), /*lr=*/0.01f);
  Tensor x = Tensor::randn({shape.batch, shape.sizes.front()}, /*seed=*/2, dtype);
  Tensor y = Tensor::from_vector(MlpLabels(shape.batch, shape.sizes.back()), {shape.batch});
  float loss_value = 0;
  auto step = [&] {
    Tensor loss = nn::cross_entropy(model.forward(x), y);
    sgd.step(loss);
    sync();
    loss_value = loss.to(DType::kFloat32).item<float>();
  };
  step();  // compiles
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(loss_value);
  }
  state.SetLabel(absl::StrCat(MlpLabel(shape), dtype == DType::kBFloat16 ? " bf16" : " f32"));
  state.counters["matmul_flops"] = MlpStepMatmulFlops(shape);
}

// Each shape's f32 and bf16 runs side by side (with --benchmark_enable_random_interleaving
// and repetitions, load changes hit both alike).
BENCHMARK(BM_Product)
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (int64_t p = 0; p < static_cast<int64_t>(std::size(kProducts)); ++p) {
        b->Args({p, 0})->Args({p, 1});
      }
    })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MlpStep)->ArgsProduct({{2, 3}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seam::bench
