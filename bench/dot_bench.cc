// f32 matrix products: seam's dot_general through the seam (compile once, run) beside the
// BLAS it calls, called directly on the same data.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cstdlib>
#include <string>

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

// The char transformer's feed-forward layer as its training step computes it: x.W + b, then
// the exact GELU and the values its gradient keeps (three outputs of the product's shape).
// Argument 0: rows; 1: in, 2: out features; 3: 1 with product epilogues (the group runs
// interleaved with the product's rows, product_epilogue.h), 0 with SEAM_CPU_EPILOGUES=off.
std::string FeedForwardText(int64_t rows, int64_t in, int64_t out) {
  const std::string x = absl::StrCat("f32[", rows, ",", in, "]");
  const std::string y = absl::StrCat("f32[", rows, ",", out, "]");
  return absl::StrCat(
      "program @feed_forward {\n  %x = parameter(0) : ", x, "\n  %w = parameter(1) : f32[", in, ",",
      out, "]\n  %b = parameter(2) : f32[", out,
      "]\n  %d = dot_general(%x, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, "
      "rhs_contracting={0} : ",
      y, "\n  %bb = broadcast_in_dim(%b), dims={1} : ", y, "\n  %h = add(%d, %bb) : ", y,
      "\n  %c = constant(0.70710678) : f32[]\n  %cb = broadcast_in_dim(%c), dims={} : ", y,
      "\n  %s = multiply(%h, %cb) : ", y, "\n  %e = erf(%s) : ", y,
      "\n  %half = constant(0.5) : f32[]\n  %hb = broadcast_in_dim(%half), dims={} : ", y,
      "\n  %t = multiply(%e, %hb) : ", y, "\n  %t2 = add(%t, %hb) : ", y,
      "\n  %g = multiply(%h, %t2) : ", y, "\n  %s2 = multiply(%s, %s) : ", y,
      "\n  %n = neg(%s2) : ", y, "\n  %p = exp(%n) : ", y, "\n  return (%g, %t2, %p)\n}\n");
}

void BM_FeedForward(benchmark::State& state) {
  const int64_t rows = state.range(0), in = state.range(1), out = state.range(2);
  setenv("SEAM_CPU_EPILOGUES", state.range(3) != 0 ? "on" : "off", 1);
  auto computation = CompileText(FeedForwardText(rows, in, out));
  unsetenv("SEAM_CPU_EPILOGUES");
  auto args = Upload({ir::Literal::FromF32(RandomFloats(size_t(rows * in), 1), {rows, in}),
                      ir::Literal::FromF32(RandomFloats(size_t(in * out), 2), {in, out}),
                      ir::Literal::FromF32(RandomFloats(size_t(out), 3), {out})});
  for (auto _ : state) RunAndWait(*computation, args);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(rows * in * out),
                                                 benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}

BENCHMARK(BM_FeedForward)
    ->ArgNames({"rows", "in", "out", "interleaved"})
    ->Args({2048, 128, 512, 0})
    ->Args({2048, 128, 512, 1})
    ->Args({2048, 256, 1024, 0})
    ->Args({2048, 256, 1024, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

BENCHMARK(BM_BlasSgemm)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeamDotGeneral)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seam::bench
