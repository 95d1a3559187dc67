// The 10-op elementwise chain on 4M f32 of issue 5's performance goal, as IR text: run by
// bench/elementwise_bench.cc beside a hand-fused loop, and read back from the optimized
// dump by tests/unit/cpu_dump_test.cc (it must become one fused kernel).
#ifndef SEAM_BENCH_TEN_OP_CHAIN_H_
#define SEAM_BENCH_TEN_OP_CHAIN_H_

namespace seam::bench {

// y = ((((x*a + b) * x - a) maximum b) * a + x) ... ten ops, mirrored by HandFused in
// bench/elementwise_bench.cc.
inline constexpr char kTenOpChain[] = R"(program @chain {
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

}  // namespace seam::bench

#endif  // SEAM_BENCH_TEN_OP_CHAIN_H_
