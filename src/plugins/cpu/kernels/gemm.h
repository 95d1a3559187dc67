// The CPU plugin's matrix products: which library computes a row-major gemm, and the call.
//
// f64 always goes to OpenBLAS (oneDNN has no f64 gemm). f32 goes to oneDNN's sgemm or to
// OpenBLAS, as SEAM_CPU_GEMM says (read at client creation, docs/cpu-plugin.md "Matrix
// products"):
//   auto      (the default) oneDNN for every product when OpenBLAS runs generic kernels on
//             a CPU with AVX2 or AVX-512 (blas_core.h: Debian's OpenBLAS has taken an AVX-512
//             CPU for `Prescott`, 5x slower than the CPU allows); otherwise oneDNN for
//             products of at least kOneDnnMinimumWork multiply-adds on a CPU where oneDNN
//             runs AVX-512 code, else OpenBLAS. Both were measured on the shapes of the
//             training steps (BENCHMARKS.md, "BLAS choice"): with AVX-512
//             oneDNN is the faster on large products and OpenBLAS on small ones (oneDNN's
//             call costs about 0.2 us more); with AVX2 only, OpenBLAS was the faster
//             everywhere.
//             Products of attention's sizes (panel_gemm.h: PanelGemmChosen, decided when
//             the product's plan is made) run on the plugin's own AVX-512 kernel instead.
//   openblas  every product on OpenBLAS.
//   onednn    every f32 product on oneDNN, whatever its size (an error at client creation
//             when this build has no oneDNN).
// oneDNN's products of at least kSplitMinimumWork multiply-adds are split by rows (or
// columns) over the kernel threads (thread_pool.h), each part one single-threaded oneDNN
// call; OpenBLAS splits its products over its own threads (OPENBLAS_NUM_THREADS).
// On oneDNN, C = op(A).op(B) or C += op(A).op(B) (alpha 1, beta 0 or 1) of at least
// kOneDnnMinimumWork multiply-adds runs on oneDNN's matmul primitive (its brgemm kernels read
// transposed operands through strides), made once per shape and kept, where
// OnMatmulPrimitive says; the other products on dnnl_sgemm.
#ifndef SEAM_PLUGINS_CPU_GEMM_H_
#define SEAM_PLUGINS_CPU_GEMM_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/kernels/gemm_library.h"

namespace seam::cpu {

inline constexpr char kGemmVariable[] = "SEAM_CPU_GEMM";
inline constexpr double kOneDnnMinimumWork = 1024.0 * 1024;     // m * n * k
inline constexpr double kSplitMinimumWork = 4.0 * 1024 * 1024;  // m * n * k

// Whether a oneDNN product of this layout and these sizes runs on the matmul primitive
// rather than dnnl_sgemm (measured on this plugin's training steps): A.B^T always
// (nn::Linear's forward X.W^T with the weight stored [out, in]: sgemm's transposed-B case
// measured 5-10% slower, BENCHMARKS.md table 2), A^T.B with n a multiple of 64 from 256 to
// 512, m >= 4n and k >= 1024 (a weight gradient with a narrow C: sgemm 11-28% slower), A.B
// and other A^T.B shapes never (the primitive level or up to 26% slower). Each call's own
// shape decides: a part of a product split over the threads may take the other path.
bool OnMatmulPrimitive(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k);

// "auto", "openblas" or "onednn".
std::string_view GemmLibraryName(GemmLibrary library);

// How many products have run on oneDNN's matmul primitive in this process (tests: that the
// path above ran).
int64_t OneDnnMatmulRuns();

// Whether this build links oneDNN, and whether oneDNN runs AVX-512 code on this CPU.
bool OneDnnAvailable();
bool OneDnnHasAvx512();

// SEAM_CPU_GEMM parsed (unset or empty: auto) with the other settings of the environment
// (cpu_settings.h); an error names the variable and the value, also when it asks for oneDNN
// in a build without it.
absl::StatusOr<GemmLibrary> GemmLibraryFromEnvironment();

// FAILED_PRECONDITION when `settings` ask for oneDNN in a build without it, naming the option
// or the variable (PJRT_Client_Create checks it after ResolveCpuSettings).
absl::Status CheckGemmLibraryBuilt(const CpuSettings& settings);

// The choice: the active client's (cpu_settings.h) during its compiles and runs, else the
// process-wide one (auto until set; PJRT_Client_Create sets it to its client's, which the
// plugin's attributes report).
void SetGemmLibrary(GemmLibrary library);
GemmLibrary GetGemmLibrary();

// What `auto` reads besides the product's size: facts of the process (ThisGemmHost finds
// them once), passed in so that the rule can be tested for any machine.
struct GemmHost {
  bool onednn = false;         // this build links oneDNN
  bool onednn_avx512 = false;  // and oneDNN runs AVX-512 code on this CPU
  bool blas_generic = false;   // OpenBLAS runs generic kernels on a CPU with AVX2 (blas_core.h)
};
const GemmHost& ThisGemmHost();

// The rule above: the library for an f32 product of these sizes under `choice` on `host`
// (kOpenBlas or kOneDnn, never kAuto).
GemmLibrary ChooseSgemmLibrary(GemmLibrary choice, const GemmHost& host, int64_t m, int64_t n,
                               int64_t k);

// ChooseSgemmLibrary under the current choice on this host.
GemmLibrary SgemmLibraryFor(int64_t m, int64_t n, int64_t k);

// What a user should know about OpenBLAS's kernels here under `choice` (GenericBlasCoreNote:
// which products stay on the slow kernels and how OPENBLAS_CORETYPE fixes it); empty when
// its kernels fit the CPU. `seam info` shows it (the plugin attribute blas_note).
std::string BlasCoreNote(GemmLibrary choice);

// Runs one small product on oneDNN, once per process, as soon as the chosen library can send
// any product there: oneDNN sets itself up (its kernels, its statics) on its first product,
// and that must happen before the device threads' exit handler is registered, or a first
// product still running at exit meets oneDNN statics that exit is destroying
// (tests/e2e/exit_drain_test.cc). PJRT_Client_Create calls it after SetGemmLibrary.
void InitializeGemmLibrariesOnce();

// Logs BlasCoreNote(GetGemmLibrary()) as a warning, once per process, when it is not empty.
// PJRT_Client_Create calls it.
void LogBlasCoreOnce();

// C = A.op(B) + bias: A [m, k] not transposed, B stored [n, k] (trans_b: nn::Linear's
// `[out, in]` weight) or [k, n], bias one row of n floats added to every row of C (a linear
// layer's forward with its bias), on oneDNN's matmul primitive with its bias argument: no
// pass fills C with the bias first and the product never reads C. Split over the kernel
// threads by rows (or columns) as Sgemm splits a oneDNN product, or one call with
// `on_this_thread`. Where oneDNN refuses the shape (or in a build without it) C is filled
// with the bias and the product accumulated, as before. Call only where
// RowBiasSgemmAvailable() and the product would go to oneDNN (dot_update.h decides once
// per product, so every part of it takes the same path).
bool RowBiasSgemmAvailable();
void RowBiasSgemm(bool on_this_thread, bool trans_b, int64_t m, int64_t n, int64_t k,
                  const float* a, int64_t lda, const float* b, int64_t ldb, const float* bias,
                  float* c, int64_t ldc);

// C[m,n] = alpha * op(A) . op(B) + beta * C, row-major; op(A) is [m,k] (A is stored [k,m]
// when trans_a), op(B) is [k,n] (B stored [n,k] when trans_b). With beta = 0, C's old
// values are never read. Sizes must fit BLAS's int (kernels_dot.cc checks).
void Sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// Sgemm on the calling thread alone (oneDNN's call with one OpenMP thread where this build
// has oneDNN, else OpenBLAS, which may still use its own threads): for callers that split a
// product over the kernel threads themselves (product_epilogue.h).
void SgemmOnThisThread(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc);
void Dgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
           const double* a, int64_t lda, const double* b, int64_t ldb, double beta, double* c,
           int64_t ldc);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_GEMM_H_
