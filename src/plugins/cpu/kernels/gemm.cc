#include "src/plugins/cpu/kernels/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
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
#include "src/plugins/cpu/kernels/onednn_common.h"
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
std::atomic<int64_t> matmul_runs{0};

// oneDNN's matmul primitive for one f32 product shape (gemm.h says which products take
// it), made once per shape and kept for the process (never destroyed: a run at exit must
// not meet a destroyed primitive). Null where oneDNN refuses the shape or would run
// reference code; the caller then uses oneDNN's sgemm.
using F32Matmul = onednn::Matmul;

void Strided2d(dnnl_memory_desc_t* md, int64_t rows, int64_t cols, int64_t row_stride,
               int64_t col_stride) {
  dnnl_dims_t dims = {rows, cols}, strides = {row_stride, col_stride};
  dnnl_memory_desc_init_by_strides(md, 2, dims, dnnl_f32, strides);
}

// What a primitive computes besides op(A).op(B): nothing (C is written), C's old values
// added (a sum post-op: beta 1), or one row of n added to every row (the bias argument).
enum class MatmulKind : uint8_t { kPlain, kAccumulate, kRowBias };

// One primitive's shape: sizes, leading dimensions, which operands are stored transposed
// (A [k, m], B [n, k]) and what is added.
struct MatmulShape {
  int64_t m, n, k, lda, ldb, ldc;
  bool trans_a, trans_b;
  MatmulKind kind;
  auto Key() const { return std::tuple(m, n, k, lda, ldb, ldc, trans_a, trans_b, kind); }
};

// Call with OpenMP's thread count at 1: oneDNN sizes the primitive's split by it.
const F32Matmul* MakeF32Matmul(const MatmulShape& s) {
  auto mm = std::make_unique<F32Matmul>();
  // A transposed is stored [k, m], B transposed [n, k]: read through swapped strides.
  Strided2d(&mm->a, s.m, s.k, s.trans_a ? 1 : s.lda, s.trans_a ? s.lda : 1);
  Strided2d(&mm->b, s.k, s.n, s.trans_b ? 1 : s.ldb, s.trans_b ? s.ldb : 1);
  Strided2d(&mm->c, s.m, s.n, s.ldc, 1);
  mm->with_bias = s.kind == MatmulKind::kRowBias;
  if (mm->with_bias) Strided2d(&mm->bias, 1, s.n, s.n, 1);
  dnnl_matmul_desc_t desc;
  if (onednn::Engine() == nullptr ||
      dnnl_matmul_desc_init(&desc, &mm->a, &mm->b, mm->with_bias ? &mm->bias : nullptr, &mm->c) !=
          dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_attr_t attr = nullptr;
  if (dnnl_primitive_attr_create(&attr) != dnnl_success) return nullptr;
  dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  dnnl_post_ops_t ops = nullptr;
  if (s.kind == MatmulKind::kAccumulate) {
    if (dnnl_post_ops_create(&ops) != dnnl_success ||
        dnnl_post_ops_append_sum(ops, 1.0f) != dnnl_success ||
        dnnl_primitive_attr_set_post_ops(attr, ops) != dnnl_success) {
      if (ops != nullptr) dnnl_post_ops_destroy(ops);
      dnnl_primitive_attr_destroy(attr);
      return nullptr;
    }
  }
  dnnl_primitive_desc_t pd = nullptr;
  const dnnl_status_t made =
      dnnl_primitive_desc_create(&pd, &desc, attr, onednn::Engine(), nullptr);
  if (ops != nullptr) dnnl_post_ops_destroy(ops);
  dnnl_primitive_attr_destroy(attr);
  if (made != dnnl_success) return nullptr;
  const bool reference = std::string(onednn::ImplementationName(pd)).rfind("ref", 0) == 0;
  mm->scratchpad = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  const bool created = !reference && dnnl_primitive_create(&mm->primitive, pd) == dnnl_success;
  dnnl_primitive_desc_destroy(pd);
  return created ? mm.release() : nullptr;
}

// The primitive for this shape, made on first use; null as MakeF32Matmul says, or once
// kMaxMatmulShapes shapes are kept (a program with that many product shapes keeps sgemm for
// the others).
const F32Matmul* FindF32Matmul(const MatmulShape& shape) {
  constexpr size_t kMaxMatmulShapes = 512;
  using Key = decltype(shape.Key());
  static std::mutex mu;
  static auto* cache = new std::map<Key, const F32Matmul*>;  // never destroyed, as above
  const Key key = shape.Key();
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache->find(key); it != cache->end()) return it->second;
  if (cache->size() >= kMaxMatmulShapes) return nullptr;
  const F32Matmul* made = MakeF32Matmul(shape);
  cache->emplace(key, made);
  return made;
}

// C = op(A).op(B) (or C +=, or + bias) on the primitive; false where oneDNN fails the call.
bool RunF32Matmul(const F32Matmul& mm, const float* a, const float* b, float* c,
                  const float* bias = nullptr) {
  const bool ok = onednn::RunMatmul(mm, a, b, c, bias);
  if (ok) matmul_runs.fetch_add(1, std::memory_order_relaxed);
  return ok;
}

}  // namespace

bool OnMatmulPrimitive(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k) {
  if (!trans_a) return trans_b;
  // Transposed A, B as stored: the primitive for a weight gradient whose C is tall and
  // narrow with a long k (dH^T.X of a layer whose outputs are 4x its inputs, over the
  // batch's tokens). Measured per call shape (BENCHMARKS.md, "Transformer block step",
  // session 32): there the primitive took 0.78-0.90x sgemm's time; with n not a multiple of
  // 64, n under 256, m under 4n or k under 1024 it was level or up to 26% slower, and with
  // n above 512 level to 13% slower.
  return !trans_b && n % 64 == 0 && n >= 256 && n <= 512 && m >= 4 * n && k >= 1024;
}

namespace {

// One oneDNN call on the calling thread. oneDNN (Debian's build uses OpenMP) takes as many
// threads as the caller's OpenMP setting allows; that setting is 1 for the call and then
// put back, so the caller's own OpenMP use is left as it was. A failing call (oneDNN
// refuses only arguments that this plugin never passes) falls back to OpenBLAS.
void OneDnnSgemmOnThisThread(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                             float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float beta, float* c, int64_t ldc) {
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  dnnl_status_t status = dnnl_runtime_error;
  // From kOneDnnMinimumWork on: below it the primitive's per-call cost (memory objects, the
  // execution's bookkeeping) is no longer small beside the product.
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (OnMatmulPrimitive(trans_a, trans_b, m, n, k) && alpha == 1.0f &&
      (beta == 0.0f || beta == 1.0f) && work >= kOneDnnMinimumWork) {
    const F32Matmul* mm =
        FindF32Matmul({m, n, k, lda, ldb, ldc, trans_a, trans_b,
                       beta == 1.0f ? MatmulKind::kAccumulate : MatmulKind::kPlain});
    if (mm != nullptr && RunF32Matmul(*mm, a, b, c)) status = dnnl_success;
  }
  if (status != dnnl_success) {
    status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb,
                        beta, c, ldc);
  }
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  if (status != dnnl_success) {
    OpenBlasSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

// Splits C into as many row (or column) blocks as there are kernel threads, each a
// multiple of 16 long, and computes each block with one call of
// part(rows, cols, first_row, first_col).
template <typename Part>
void SplitProduct(int64_t m, int64_t n, int64_t k, Part part) {
  constexpr int64_t kAlign = 16;
  // Rows while every thread gets at least one block of them (each part then reads all of B):
  // on 2 threads that measured faster than splitting B's columns even where n > m (the
  // medium MLP step 4.7 -> 4.4 ms, BENCHMARKS.md "Training step against libtorch"); columns
  // where the rows are too few to share.
  const bool by_rows = m >= kAlign * KernelThreads() || m >= n;
  const int64_t extent = by_rows ? m : n;
  int64_t parts = 1;
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >=
      kSplitMinimumWork) {
    parts = std::min<int64_t>(KernelThreads(), (extent + kAlign - 1) / kAlign);
  }
  if (parts <= 1) {
    part(m, n, 0, 0);
    return;
  }
  const int64_t blocks = (extent + kAlign - 1) / kAlign;
  ParallelFor(parts, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      const int64_t begin = std::min(extent, blocks * p / parts * kAlign);
      const int64_t end = std::min(extent, blocks * (p + 1) / parts * kAlign);
      if (begin >= end) continue;
      if (by_rows) {
        part(end - begin, n, begin, 0);
      } else {
        part(m, end - begin, 0, begin);
      }
    }
  });
}

void OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  SplitProduct(m, n, k, [&](int64_t rows, int64_t cols, int64_t i, int64_t j) {
    OneDnnSgemmOnThisThread(trans_a, trans_b, rows, cols, k, alpha, trans_a ? a + i : a + i * lda,
                            lda, trans_b ? b + j * ldb : b + j, ldb, beta, c + i * ldc + j, ldc);
  });
}

// C = A.op(B) + bias on this thread: the primitive with its bias argument, else (oneDNN
// refused it) C filled with the bias rows and the product accumulated.
void RowBiasOnThisThread(bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                         const float* b, int64_t ldb, const float* bias, float* c, int64_t ldc) {
  const int saved_threads = omp_get_max_threads();
  if (saved_threads != 1) omp_set_num_threads(1);
  const F32Matmul* mm =
      FindF32Matmul({m, n, k, lda, ldb, ldc, false, trans_b, MatmulKind::kRowBias});
  const bool done = mm != nullptr && RunF32Matmul(*mm, a, b, c, bias);
  if (saved_threads != 1) omp_set_num_threads(saved_threads);
  if (done) return;
  for (int64_t i = 0; i < m; ++i) std::memcpy(c + i * ldc, bias, sizeof(float) * n);
  OneDnnSgemmOnThisThread(false, trans_b, m, n, k, 1.0F, a, lda, b, ldb, 1.0F, c, ldc);
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

int64_t OneDnnMatmulRuns() {
#ifdef SEAM_HAVE_ONEDNN
  return matmul_runs.load(std::memory_order_relaxed);
#else
  return 0;
#endif
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

bool RowBiasSgemmAvailable() {
#ifdef SEAM_HAVE_ONEDNN
  return OneDnnAvailable();
#else
  return false;
#endif
}

void RowBiasSgemm(bool on_this_thread, bool trans_b, int64_t m, int64_t n, int64_t k,
                  const float* a, int64_t lda, const float* b, int64_t ldb, const float* bias,
                  float* c, int64_t ldc) {
#ifdef SEAM_HAVE_ONEDNN
  if (on_this_thread) return RowBiasOnThisThread(trans_b, m, n, k, a, lda, b, ldb, bias, c, ldc);
  SplitProduct(m, n, k, [&](int64_t rows, int64_t cols, int64_t i, int64_t j) {
    RowBiasOnThisThread(trans_b, rows, cols, k, a + i * lda, lda, trans_b ? b + j * ldb : b + j,
                        ldb, bias + j, c + i * ldc + j, ldc);
  });
#else
  for (int64_t i = 0; i < m; ++i) std::memcpy(c + i * ldc, bias, sizeof(float) * n);
  (on_this_thread ? SgemmOnThisThread : Sgemm)(false, trans_b, m, n, k, 1.0F, a, lda, b, ldb, 1.0F,
                                               c, ldc);
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
