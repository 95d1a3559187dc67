// Which library computes the CPU plugin's f32 products (gemm.h has the rule): a header of
// its own so that the settings (cpu_settings.h) name it without depending on the products.
#ifndef SEAM_PLUGINS_CPU_GEMM_LIBRARY_H_
#define SEAM_PLUGINS_CPU_GEMM_LIBRARY_H_

namespace seam::cpu {

enum class GemmLibrary { kAuto, kOpenBlas, kOneDnn };

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_GEMM_LIBRARY_H_
