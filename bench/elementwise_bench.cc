// A chain of 10 elementwise ops on 4M f32: seam's executable beside a hand-fused C++ loop
// over the same data (the issue's goal is 1.2x of the hand-fused loop once fusion lands;
// today's executor runs one loop per instruction).
#include <benchmark/benchmark.h>

#include <cmath>

#include "bench/bench_util.h"

namespace seam::bench {
namespace {

constexpr int64_t kCount = 4 * 1024 * 1024;

// y = ((((x*a + b) * x - a) maximum b) * a + x) ... ten ops, mirrored by HandFused below.
constexpr char kChain[] = R"(program @chain {
  %x = parameter(0) : f32[4194304]
  %a = parameter(1) : f32[4194304]
  %b = parameter(2) : f32[4194304]
  %1 = multiply(%x, %a) : f32[4194304]
  %2 = add(%1, %b) : f32[4194304]
  %3 = multiply(%2, %x) : f32[4194304]
  %4 = subtract(%3, %a) : f32[4194304]
  %5 = maximum(%4, %b) : f32[4194304]
  %6 = multiply(%5, %a) : f32[4194304]
  %7 = add(%6, %x) : f32[4194304]
  %8 = minimum(%7, %a) : f32[4194304]
  %9 = subtract(%8, %b) : f32[4194304]
  %10 = multiply(%9, %9) : f32[4194304]
  return (%10)
}
)";

void HandFused(const float* x, const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] * a[i] + b[i];
    v = v * x[i] - a[i];
    v = std::max(v, b[i]) * a[i] + x[i];
    v = std::min(v, a[i]) - b[i];
    y[i] = v * v;
  }
}

void BM_HandFusedLoop(benchmark::State& state) {
  std::vector<float> x = RandomFloats(kCount, 1), a = RandomFloats(kCount, 2),
                     b = RandomFloats(kCount, 3), y(kCount);
  for (auto _ : state) {
    HandFused(x.data(), a.data(), b.data(), y.data(), kCount);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_SeamChain(benchmark::State& state) {
  auto computation = CompileText(kChain);
  auto args = Upload({ir::Literal::FromF32(RandomFloats(kCount, 1), {kCount}),
                      ir::Literal::FromF32(RandomFloats(kCount, 2), {kCount}),
                      ir::Literal::FromF32(RandomFloats(kCount, 3), {kCount})});
  for (auto _ : state) RunAndWait(*computation, args);
}

BENCHMARK(BM_HandFusedLoop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeamChain)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seam::bench
