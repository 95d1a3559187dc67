// SEAM_KERNEL_CLONES: a kernel entry point in an AVX-512, an AVX2 and a default version,
// picked at load time (target_clones; the same bits from each where the kernel does one
// IEEE operation per lane, with no contraction), with everything it calls inlined into each
// (flatten). clang refuses flatten beside target_clones, and ThreadSanitizer builds crash
// in the clones' resolvers at start-up: those builds get one version.
#ifndef SEAM_PLUGINS_CPU_TARGET_CLONES_H_
#define SEAM_PLUGINS_CPU_TARGET_CLONES_H_

#include "src/base/sanitizers.h"

#if SEAM_TSAN
#define SEAM_KERNEL_CLONES
#elif defined(__clang__)
#define SEAM_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SEAM_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#endif

#endif  // SEAM_PLUGINS_CPU_TARGET_CLONES_H_
