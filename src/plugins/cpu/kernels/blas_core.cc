#include "src/plugins/cpu/kernels/blas_core.h"

#include <cblas.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace seam::cpu {
namespace {

// OpenBLAS's x86 cores whose kernels use neither AVX2 nor AVX-512 (the names of its
// dynamic.c, 0.3.21), and the names it reports when it fell back to plain C.
constexpr std::string_view kPreAvx2Cores[] = {
    "Unknown", "Generic",   "Katmai",       "Coppermine", "Northwood",  "Prescott",
    "Banias",  "Atom",      "Core2",        "Penryn",     "Dunnington", "Nehalem",
    "Athlon",  "Opteron",   "Opteron_SSE3", "Barcelona",  "Nano",       "Sandybridge",
    "Bobcat",  "Bulldozer", "Piledriver",   "Steamroller"};

}  // namespace

CpuFeatures DetectCpuFeatures() {
  CpuFeatures cpu;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  cpu.avx2 = __builtin_cpu_supports("avx2") != 0;
  cpu.avx512 = __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0 &&
               __builtin_cpu_supports("avx512dq") != 0 && __builtin_cpu_supports("avx512vl") != 0;
#endif
  return cpu;
}

bool IsGenericBlasCore(std::string_view core, CpuFeatures cpu) {
  if (!cpu.avx2 && !cpu.avx512) return false;
  for (std::string_view name : kPreAvx2Cores) {
    if (absl::EqualsIgnoreCase(absl::string_view(core.data(), core.size()),
                               absl::string_view(name.data(), name.size()))) {
      return true;
    }
  }
  return false;
}

std::string_view SuggestedCoreType(CpuFeatures cpu) {
  if (cpu.avx512) return "SkylakeX";
  if (cpu.avx2) return "Haswell";
  return "";
}

const BlasCore& ThisBlasCore() {
  static const BlasCore* core = [] {
    auto* found = new BlasCore();  // never destroyed: read by device threads until exit
    const char* name = openblas_get_corename();
    found->name = name == nullptr ? "" : name;
    found->cpu = DetectCpuFeatures();
    found->generic = IsGenericBlasCore(found->name, found->cpu);
    return found;
  }();
  return *core;
}

std::string GenericBlasCoreNote(const BlasCore& core, bool f32_elsewhere) {
  if (!core.generic) return "";
  return absl::StrCat(
      "OpenBLAS runs its generic '", core.name, "' kernels on this ",
      core.cpu.avx512 ? "AVX-512" : "AVX2", " CPU, several times slower than the CPU allows; ",
      f32_elsewhere ? "f32 products go to oneDNN instead, f64 products stay on OpenBLAS"
                    : "f32 and f64 products stay on OpenBLAS",
      ". Set OPENBLAS_CORETYPE=", std::string(SuggestedCoreType(core.cpu)),
      " in the environment before the program starts to give OpenBLAS fitting kernels.");
}

}  // namespace seam::cpu
