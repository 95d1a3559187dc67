#include "src/plugins/cpu/kernels/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/logging.h"
#include "src/base/settings.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/kernels/blas_core.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

#ifdef SEAM_HAVE_ONEDNN
#include <omp.h>

#include "oneapi/dnnl/dnnl.h"
#endif

namespace seam::cpu {
namespace {

std::atomic<GemmLibrary> chosen{GemmLibrary::kAuto};

CBLAS_TRANSPOSE BlasTranspose(bool transposed) { return transposed ? CblasTrans : CblasNoTrans; }

void OpenBlasSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                   int64_t ldc) {
  cblas_sgemm(CblasRowMajor, BlasTranspose(trans_a), BlasTranspose(trans_b),
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, a,
              static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c,
              static_cast<blasint>(ldc));
}

#ifdef SEAM_HAVE_ONEDNN
// One oneDNN call on the calling thread. oneDNN (Debian's build uses OpenMP) takes as many
// threads as the caller's OpenMP setting allows; that setting is 1 for the call and then
// put back, so the caller's own OpenMP use is left as it was. A failing call (oneDNN
// refuses only arguments that this plugin never passes) falls back to OpenBLAS.
void OneDnnSgemmOnThisThread(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                             float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float beta, float* c, int64_t ldc) {
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a,
                                    lda, b, ldb, beta, c, ldc);
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  if (status != dnnl_success) {
    OpenBlasSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

// Splits C into as many row (or column) blocks as there are kernel threads, each a
// multiple of 16 long, and computes each block with one call.
void OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  constexpr int64_t kAlign = 16;
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  int64_t parts = 1;
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >=
      kSplitMinimumWork) {
    parts = std::min<int64_t>(KernelThreads(), (extent + kAlign - 1) / kAlign);
  }
  if (parts <= 1) {
    OneDnnSgemmOnThisThread(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  const int64_t blocks = (extent + kAlign - 1) / kAlign;
  ParallelFor(parts, [&](int64_t first, int64_t last) {
    for (int64_t part = first; part < last; ++part) {
      const int64_t begin = std::min(extent, blocks * part / parts * kAlign);
      const int64_t end = std::min(extent, blocks * (part + 1) / parts * kAlign);
      if (begin >= end) continue;
      if (by_rows) {
        const float* a_part = trans_a ? a + begin : a + begin * lda;
        OneDnnSgemmOnThisThread(trans_a, trans_b, end - begin, n, k, alpha, a_part, lda, b, ldb,
                                beta, c + begin * ldc, ldc);
      } else {
        const float* b_part = trans_b ? b + begin * ldb : b + begin;
        OneDnnSgemmOnThisThread(trans_a, trans_b, m, end - begin, k, alpha, a, lda, b_part, ldb,
                                beta, c + begin, ldc);
      }
    }
  });
}
#endif

}  // namespace

std::string_view GemmLibraryName(GemmLibrary library) {
  switch (library) {
    case GemmLibrary::kAuto:
      return "auto";
    case GemmLibrary::kOpenBlas:
      return "openblas";
    case GemmLibrary::kOneDnn:
      return "onednn";
  }
  return "auto";
}

bool OneDnnAvailable() {
#ifdef SEAM_HAVE_ONEDNN
  return true;
#else
  return false;
#endif
}

bool OneDnnHasAvx512() {
#ifdef SEAM_HAVE_ONEDNN
  static const bool avx512 = [] {
    const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const unsigned core = static_cast<unsigned>(dnnl_cpu_isa_avx512_core);
    return (isa & core) == core;
  }();
  return avx512;
#else
  return false;
#endif
}

absl::StatusOr<GemmLibrary> GemmLibraryFromEnvironment() {
  absl::StatusOr<CpuSettings> settings = CpuSettingsFromEnvironment();
  if (!settings.ok()) return settings.status();
  if (absl::Status built = CheckGemmLibraryBuilt(*settings); !built.ok()) return built;
  return settings->gemm;
}

absl::Status CheckGemmLibraryBuilt(const CpuSettings& settings) {
  if (settings.gemm != GemmLibrary::kOneDnn || OneDnnAvailable()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "PJRT_Client_Create: ",
      settings.gemm_given ? absl::StrCat("option '", kGemmOption, "' is onednn")
                          : absl::StrCat("environment variable ", kGemmVariable, "=onednn"),
      ", but this build of the CPU plugin has no oneDNN (install libdnnl-dev and rebuild)"));
}

void SetGemmLibrary(GemmLibrary library) { chosen.store(library, std::memory_order_relaxed); }

GemmLibrary GetGemmLibrary() {
  const CpuSettings* settings = ActiveCpuSettings();
  return settings != nullptr ? settings->gemm : chosen.load(std::memory_order_relaxed);
}

const GemmHost& ThisGemmHost() {
  static const GemmHost host{OneDnnAvailable(), OneDnnHasAvx512(), ThisBlasCore().generic};
  return host;
}

GemmLibrary ChooseSgemmLibrary(GemmLibrary choice, const GemmHost& host, int64_t m, int64_t n,
                               int64_t k) {
  switch (choice) {
    case GemmLibrary::kOpenBlas:
      return GemmLibrary::kOpenBlas;
    case GemmLibrary::kOneDnn:
      return host.onednn ? GemmLibrary::kOneDnn : GemmLibrary::kOpenBlas;
    case GemmLibrary::kAuto:
      break;
  }
  if (!host.onednn) return GemmLibrary::kOpenBlas;
  if (host.blas_generic) return GemmLibrary::kOneDnn;
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return host.onednn_avx512 && work >= kOneDnnMinimumWork ? GemmLibrary::kOneDnn
                                                          : GemmLibrary::kOpenBlas;
}

GemmLibrary SgemmLibraryFor(int64_t m, int64_t n, int64_t k) {
  return ChooseSgemmLibrary(GetGemmLibrary(), ThisGemmHost(), m, n, k);
}

std::string BlasCoreNote(GemmLibrary choice) {
  // A generic core sends every f32 product of `auto` to oneDNN: a 1x1x1 product says where
  // they all go.
  const bool f32_elsewhere =
      ChooseSgemmLibrary(choice, ThisGemmHost(), 1, 1, 1) == GemmLibrary::kOneDnn;
  return GenericBlasCoreNote(ThisBlasCore(), f32_elsewhere);
}

void InitializeGemmLibrariesOnce() {
#ifdef SEAM_HAVE_ONEDNN
  static std::mutex mu;
  static bool initialized = false;
  std::lock_guard<std::mutex> lock(mu);
  const GemmLibrary choice = GetGemmLibrary();
  const GemmHost& host = ThisGemmHost();
  const int64_t large = 4096;
  if (initialized ||
      (ChooseSgemmLibrary(choice, host, 1, 1, 1) != GemmLibrary::kOneDnn &&
       ChooseSgemmLibrary(choice, host, large, large, large) != GemmLibrary::kOneDnn)) {
    return;  // done already, or no product under this choice goes to oneDNN (a later
             // client with another SEAM_CPU_GEMM may still need it)
  }
  // One product of the size class the training steps use, so oneDNN builds its kernels
  // and its own statics now, on this thread.
  constexpr int64_t kSide = 64;
  std::vector<float> a(kSide * kSide, 1.0f), c(kSide * kSide, 0.0f);
  OneDnnSgemmOnThisThread(false, false, kSide, kSide, kSide, 1.0f, a.data(), kSide, a.data(), kSide,
                          0.0f, c.data(), kSide);
  initialized = true;
#endif
}

void LogBlasCoreOnce() {
  static std::atomic<bool> logged{false};
  if (logged.exchange(true)) return;
  if (std::string note = BlasCoreNote(GetGemmLibrary()); !note.empty()) {
    base::Log(base::LogSeverity::kWarning, absl::StrCat("cpu plugin: ", note));
  }
}

void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
#ifdef SEAM_HAVE_ONEDNN
  if (SgemmLibraryFor(m, n, k) == GemmLibrary::kOneDnn) {
    OneDnnSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
#endif
  OpenBlasSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void SgemmOnThisThread(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc) {
#ifdef SEAM_HAVE_ONEDNN
  OneDnnSgemmOnThisThread(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#else
  OpenBlasSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
}

void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
           const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
           int64_t ldc) {
  cblas_dgemm(CblasRowMajor, BlasTranspose(trans_a), BlasTranspose(trans_b),
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha, a,
              static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c,
              static_cast<blasint>(ldc));
}

}  // namespace seam::cpu
