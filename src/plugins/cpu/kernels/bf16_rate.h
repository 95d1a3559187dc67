// How fast this CPU's bf16 dot-product instruction is against its f32 FMA, measured: what
// decides whether a bf16 product should keep its operands in bf16 (oneDNN's matmul) or
// widen them to f32 (dot_onednn.h). The ratio is a property of the core, not of oneDNN:
// AMD Zen 4 and Zen 5 do twice the multiply-adds per cycle in bf16, while Intel cores
// without AMX (Cooper Lake, and Sapphire or Emerald Rapids where a VM hides AMX) issue
// AVX512_BF16's vdpbf16ps at half the rate of vfmadd231ps, so that bf16 products run at
// half the speed of f32 ones there (BENCHMARKS.md "bf16 products").
#ifndef SEAM_PLUGINS_CPU_KERNELS_BF16_RATE_H_
#define SEAM_PLUGINS_CPU_KERNELS_BF16_RATE_H_

namespace seam::cpu {

// Multiply-adds per second of 512-bit vdpbf16ps (32 per instruction) over those of 512-bit
// vfmadd231ps (16 per instruction), on the calling thread, each the best of five short
// runs of twelve independent chains (about 0.1 ms in all). Measured once per process, at
// the first call (thread-safe); 0 where the CPU lacks AVX512_BF16. The two kinds of CPU
// above give about 2 and about 0.5.
double Bf16DotRateOverFma();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_BF16_RATE_H_
