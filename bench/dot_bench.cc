// f32 matrix products: seam's dot_general through the seam (compile once, run) beside the
// BLAS it calls, called directly on the same data.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"

namespace seam::bench {
namespace {

void BM_BlasSgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<float> a = RandomFloats(size_t(n) * n, 1), b = RandomFloats(size_t(n) * n, 2);
  std::vector<float> c(size_t(n) * n);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

void BM_SeamDotGeneral(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::string shape = absl::StrCat("f32[", n, ",", n, "]");
  auto computation = CompileText(absl::StrCat(
      "program @dot {\n  %0 = parameter(0) : ", shape, "\n  %1 = parameter(1) : ", shape,
      "\n  %2 = dot_general(%0, %1), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, "
      "rhs_contracting={0} : ",
      shape, "\n  return (%2)\n}\n"));
  auto args = Upload({ir::Literal::FromF32(RandomFloats(size_t(n) * n, 1), {n, n}),
                      ir::Literal::FromF32(RandomFloats(size_t(n) * n, 2), {n, n})});
  for (auto _ : state) RunAndWait(*computation, args);
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

BENCHMARK(BM_BlasSgemm)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeamDotGeneral)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seam::bench
