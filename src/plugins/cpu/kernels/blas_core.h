// Which kernels OpenBLAS runs on this CPU, and whether they fit it.
//
// OpenBLAS picks its kernels ("core") from the CPU's model when the library loads. A CPU
// newer than the library may be taken for an old one: Debian 12's OpenBLAS 0.3.21 has run
// an Intel AVX-512 CPU as `Prescott` (SSE3 kernels, 15-21 GFLOP/s where 111 were
// possible). The decision here is a pure function of the core's name and the CPU's
// features, so that it can be tested on any machine; the routing of products that follows
// from it is in gemm.h.
#ifndef SEAM_PLUGINS_CPU_BLAS_CORE_H_
#define SEAM_PLUGINS_CPU_BLAS_CORE_H_

#include <string>
#include <string_view>

namespace seam::cpu {

struct CpuFeatures {
  bool avx2 = false;
  bool avx512 = false;  // AVX-512 F, BW, DQ and VL (what OpenBLAS's SkylakeX kernels use)
};

// This CPU's features (cpuid, through the compiler's __builtin_cpu_supports).
CpuFeatures DetectCpuFeatures();

// Whether OpenBLAS core `core` (openblas_get_corename) runs kernels older than `cpu`
// allows: a core whose kernels predate AVX2 (Prescott, Core2, Nehalem, Sandybridge,
// Bulldozer, ..., and OpenBLAS's plain C "Generic" and "Unknown") on a CPU with AVX2.
// Names are compared without regard to case (a DYNAMIC_ARCH build says "Haswell", a
// single-target build "HASWELL"); a name not in that list (Haswell, Zen, SkylakeX, a core
// newer than this list) counts as fitting.
bool IsGenericBlasCore(std::string_view core, CpuFeatures cpu);

// The OPENBLAS_CORETYPE that gives `cpu` fitting kernels: "SkylakeX" with AVX-512,
// "Haswell" with AVX2, "" without either.
std::string_view SuggestedCoreType(CpuFeatures cpu);

// The facts of this process, found once (OpenBLAS reads OPENBLAS_CORETYPE when it loads,
// so they never change afterwards).
struct BlasCore {
  std::string name;  // openblas_get_corename()
  CpuFeatures cpu;
  bool generic = false;  // IsGenericBlasCore(name, cpu)
};
const BlasCore& ThisBlasCore();

// What a user should know about a generic core: which products it slows (f64 always; f32
// too unless `f32_elsewhere`, i.e. they go to oneDNN) and the variable that fixes it.
// Empty when the core fits the CPU.
std::string GenericBlasCoreNote(const BlasCore& core, bool f32_elsewhere);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_BLAS_CORE_H_
