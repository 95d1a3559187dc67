// dot_general. Both operands are brought to the layout [batch, rows, contracting] x
// [batch, contracting, cols] (copying through a scratch buffer only when the given layout
// is neither that nor its transpose); f32 and f64 then go to gemm (gemm.h: OpenBLAS or
// oneDNN) once per batch, or when tiny (SmallGemmFits) to small_gemm.h's
// loop, the other dtypes to a plain loop. PlanDot decides the layouts and
// sizes once (the executable does it at compile time), RunDot only follows the plan.
// bf16 products run on oneDNN's matmul primitive where the CPU has bf16 instructions
// (dot_onednn.h); elsewhere they widen their operands to f32, multiply with the f32 gemm
// and round the result once. Every path accumulates in f32 and rounds once: only the order
// of the sums differs.
#include <cblas.h>  // blasint: the products' size limit

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "src/ir/bf16.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/kernels/dot_onednn.h"
#include "src/plugins/cpu/kernels/element_types.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/panel_gemm.h"
#include "src/plugins/cpu/kernels/small_gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

using ir::DType;

// A dimension list of one operand (never longer than its rank).
using DimList = absl::InlinedVector<int64_t, 8>;
using Dims = absl::Span<const int64_t>;

DimList Concat(std::initializer_list<Dims> parts) {
  DimList out;
  for (Dims part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

bool IsIdentity(Dims permutation) {
  for (size_t i = 0; i < permutation.size(); ++i) {
    if (permutation[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

int64_t Product(const ir::Shape& shape, Dims dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape.dims[d];
  return n;
}

bool Contains(Dims dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); }

// The dimensions that are neither batch nor contracting, in order.
DimList FreeDims(const ir::Shape& shape, Dims batch, Dims contracting) {
  DimList free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) free.push_back(d);
  }
  return free;
}

// Integer products wrap (so they accumulate unsigned); pred is an OR of ANDs.
template <typename C>
struct DotAccumulator {
  using type = C;
};
template <>
struct DotAccumulator<int32_t> {
  using type = uint32_t;
};
template <>
struct DotAccumulator<int64_t> {
  using type = uint64_t;
};

template <typename E>
void LoopDot(const uint8_t* a_bytes, const uint8_t* b_bytes, uint8_t* c_bytes, int64_t batches,
             int64_t m, int64_t k, int64_t n) {
  using C = typename E::Compute;
  using Acc = typename DotAccumulator<C>::type;
  const auto* a = reinterpret_cast<const typename E::Storage*>(a_bytes);
  const auto* b = reinterpret_cast<const typename E::Storage*>(b_bytes);
  auto* c = reinterpret_cast<typename E::Storage*>(c_bytes);
  std::vector<Acc> row(n);
  for (int64_t batch = 0; batch < batches; ++batch) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), Acc{});
      for (int64_t p = 0; p < k; ++p) {
        Acc av = static_cast<Acc>(E::Load(a[i * k + p]));
        const auto* b_row = b + p * n;
        for (int64_t j = 0; j < n; ++j) {
          if constexpr (std::is_same_v<Acc, bool>) {
            row[j] = row[j] || (av && E::Load(b_row[j]));
          } else {
            row[j] += av * static_cast<Acc>(E::Load(b_row[j]));
          }
        }
      }
      for (int64_t j = 0; j < n; ++j) c[i * n + j] = E::Store(static_cast<C>(row[j]));
    }
    a += m * k;
    b += k * n;
    c += m * n;
  }
}

// C = alpha * A.B + beta * C (beta is 0 or 1 here), through gemm.h. `trans_a`/`trans_b`: A
// is stored [k, m], B [n, k]; the rows of A, B and C lda, ldb and ldc elements apart.
void Gemm(float, bool trans_a, bool trans_b, const uint8_t* a, int64_t lda, const uint8_t* b,
          int64_t ldb, uint8_t* c, int64_t ldc, int64_t m, int64_t k, int64_t n, double alpha,
          double beta) {
  Sgemm(trans_a, trans_b, m, n, k, static_cast<float>(alpha), reinterpret_cast<const float*>(a),
        lda, reinterpret_cast<const float*>(b), ldb, static_cast<float>(beta),
        reinterpret_cast<float*>(c), ldc);
}

void Gemm(double, bool trans_a, bool trans_b, const uint8_t* a, int64_t lda, const uint8_t* b,
          int64_t ldb, uint8_t* c, int64_t ldc, int64_t m, int64_t k, int64_t n, double alpha,
          double beta) {
  Dgemm(trans_a, trans_b, m, n, k, alpha, reinterpret_cast<const double*>(a), lda,
        reinterpret_cast<const double*>(b), ldb, beta, reinterpret_cast<double*>(c), ldc);
}

// The same on small_gemm.h's loop (plans with `small`; beta 0 or 1 as `accumulate`).
void SmallGemm(float, bool trans_a, bool trans_b, const uint8_t* a, int64_t lda, const uint8_t* b,
               int64_t ldb, uint8_t* c, int64_t ldc, int64_t m, int64_t k, int64_t n, double alpha,
               bool accumulate) {
  SmallSgemm(trans_a, trans_b, m, n, k, static_cast<float>(alpha),
             reinterpret_cast<const float*>(a), lda, reinterpret_cast<const float*>(b), ldb,
             accumulate, reinterpret_cast<float*>(c), ldc);
}

void SmallGemm(double, bool trans_a, bool trans_b, const uint8_t* a, int64_t lda, const uint8_t* b,
               int64_t ldb, uint8_t* c, int64_t ldc, int64_t m, int64_t k, int64_t n, double alpha,
               bool accumulate) {
  SmallDgemm(trans_a, trans_b, m, n, k, alpha, reinterpret_cast<const double*>(a), lda,
             reinterpret_cast<const double*>(b), ldb, accumulate, reinterpret_cast<double*>(c),
             ldc);
}

// One batch of a bf16 product through the f32 gemm: both operands widened (exactly) into
// `wide`, the f32 result rounded to bf16 into `c`. Layouts as Gemm's.
void WidenedBf16Gemm(bool trans_a, bool trans_b, const uint16_t* a, const uint16_t* b, uint16_t* c,
                     int64_t m, int64_t k, int64_t n, std::vector<float>& wide) {
  const int64_t a_size = m * k, b_size = k * n, c_size = m * n;
  wide.resize(static_cast<size_t>(a_size + b_size + c_size));
  float* wa = wide.data();
  float* wb = wa + a_size;
  float* wc = wb + b_size;
  for (int64_t i = 0; i < a_size; ++i) wa[i] = ir::BF16ToFloat(a[i]);
  for (int64_t i = 0; i < b_size; ++i) wb[i] = ir::BF16ToFloat(b[i]);
  Sgemm(trans_a, trans_b, m, n, k, 1.0F, wa, trans_a ? m : k, wb, trans_b ? k : n, 0.0F, wc, n);
  for (int64_t i = 0; i < c_size; ++i) c[i] = ir::FloatToBF16(wc[i]);
}

// An operand in the layout the plan chose: its own memory, or a canonical copy in `scratch`.
const uint8_t* Arranged(const DotPlan::Operand& operand, const uint8_t* data,
                        std::vector<uint8_t>& scratch) {
  if (operand.layout != DotPlan::kCopy) return data;
  scratch.resize(operand.copy_bytes);
  Gather(operand.copy, data, scratch.data());
  return scratch.data();
}

// out = lhs.rhs; with `accumulate`, out += alpha * lhs.rhs instead (f32 and f64 only).
template <typename E>
void DotT(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out,
          bool accumulate, double alpha) {
  const int64_t batches = plan.batches, m = plan.m, k = plan.k, n = plan.n;
  const size_t size = sizeof(typename E::Storage);
  if (batches * m * n == 0) return;
  if (k == 0 && accumulate) return;  // adds nothing
  if (k == 0) {
    // An empty sum: zeros (false for pred), whatever gemm would make of it.
    std::memset(out, 0, static_cast<size_t>(batches * m * n) * size);
    return;
  }
  std::vector<uint8_t> lhs_scratch, rhs_scratch;
  const uint8_t* a = Arranged(plan.lhs, lhs, lhs_scratch);
  const uint8_t* b = Arranged(plan.rhs, rhs, rhs_scratch);
  constexpr bool kBlas =
      std::is_same_v<typename E::Storage, float> || std::is_same_v<typename E::Storage, double>;
  if constexpr (kBlas) {
    if (plan.blas) {
      if constexpr (std::is_same_v<typename E::Storage, float>) {
        if (plan.causal != nullptr && !accumulate) {
          return RunCausalDot(plan, *plan.causal, reinterpret_cast<const float*>(a),
                              reinterpret_cast<const float*>(b), reinterpret_cast<float*>(out));
        }
      }
      const bool trans_a = plan.lhs.layout == DotPlan::kTransposed;
      const bool trans_b = plan.rhs.layout == DotPlan::kTransposed;
      const int64_t lda = plan.lhs.ld, ldb = plan.rhs.ld, ldc = plan.out.ld;
      if constexpr (std::is_same_v<typename E::Storage, float>) {
        if (plan.panel) {
          // Batches over the kernel threads (each element's sum is the same on any thread).
          const auto* af = reinterpret_cast<const float*>(a);
          const auto* bf = reinterpret_cast<const float*>(b);
          auto* cf = reinterpret_cast<float*>(out);
          const auto run = [&](int64_t first, int64_t last) {
            for (int64_t i = first; i < last; ++i) {
              PanelSgemm(trans_a, trans_b, m, n, k, static_cast<float>(alpha),
                         af + plan.lhs.BatchOffset(i), lda, bf + plan.rhs.BatchOffset(i), ldb,
                         accumulate, cf + plan.out.BatchOffset(i), ldc);
            }
          };
          if (batches > 1 && KernelThreads() > 1) {
            ParallelFor(batches, run);
          } else {
            run(0, batches);
          }
          return;
        }
      }
      for (int64_t i = 0; i < batches; ++i) {
        const uint8_t* ai = a + plan.lhs.BatchOffset(i) * size;
        const uint8_t* bi = b + plan.rhs.BatchOffset(i) * size;
        uint8_t* ci = out + plan.out.BatchOffset(i) * size;
        if (plan.small) {
          SmallGemm(typename E::Storage{}, trans_a, trans_b, ai, lda, bi, ldb, ci, ldc, m, k, n,
                    alpha, accumulate);
        } else {
          Gemm(typename E::Storage{}, trans_a, trans_b, ai, lda, bi, ldb, ci, ldc, m, k, n, alpha,
               accumulate ? 1.0 : 0.0);
        }
      }
      return;
    }
  }
  if constexpr (std::is_same_v<typename E::Storage, uint16_t>) {  // bf16
    if (plan.bf16_matmul != nullptr && RunBf16Matmul(*plan.bf16_matmul, a, b, out)) return;
    if (plan.blas) {
      const bool trans_a = plan.lhs.layout == DotPlan::kTransposed;
      const bool trans_b = plan.rhs.layout == DotPlan::kTransposed;
      std::vector<float> wide;
      for (int64_t i = 0; i < batches; ++i) {
        WidenedBf16Gemm(trans_a, trans_b, reinterpret_cast<const uint16_t*>(a),
                        reinterpret_cast<const uint16_t*>(b),
                        reinterpret_cast<uint16_t*>(out + i * m * n * size), m, k, n, wide);
        a += m * k * size;
        b += k * n * size;
      }
      return;
    }
  }
  LoopDot<E>(a, b, out, batches, m, k, n);
}

// An operand whose batches are `rows` x `cols` matrices one after the other (stored
// transposed for kTransposed).
DotPlan::Operand DenseOperand(DotPlan::Layout layout, int64_t batches, int64_t rows, int64_t cols) {
  DotPlan::Operand operand;
  operand.layout = layout;
  operand.ld = std::max<int64_t>(1, layout == DotPlan::kTransposed ? rows : cols);
  operand.batch_sizes = {batches};
  operand.batch_strides = {rows * cols};
  return operand;
}

// The operand read in place with its batch dimensions anywhere: one free and one
// contracting dimension, one of them the last (unit stride). `lhs`: the matrix is
// [free, contracting], else [contracting, free].
std::optional<DotPlan::Operand> StridedOperand(const ir::Shape& shape, Dims batch, Dims free,
                                               Dims contracting, bool lhs) {
  if (free.size() != 1 || contracting.size() != 1) return std::nullopt;
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int64_t d = rank - 1; d > 0; --d) strides[d - 1] = strides[d] * shape.dims[d];
  const int64_t row = lhs ? free[0] : contracting[0];
  const int64_t col = lhs ? contracting[0] : free[0];
  DotPlan::Operand operand;
  if (col == rank - 1) {
    operand.layout = DotPlan::kAsIs;
    operand.ld = std::max<int64_t>(1, strides[row]);
  } else if (row == rank - 1) {
    operand.layout = DotPlan::kTransposed;
    operand.ld = std::max<int64_t>(1, strides[col]);
  } else {
    return std::nullopt;
  }
  if (!batch.empty()) {
    operand.batch_sizes.clear();
    operand.batch_strides.clear();
    for (int64_t d : batch) {
      operand.batch_sizes.push_back(shape.dims[d]);
      operand.batch_strides.push_back(strides[d]);
    }
  }
  return operand;
}

// `lhs`: the canonical layout is [batch, free, contracting], else [batch, contracting,
// free]; its transpose swaps the inner two. `blas` allows the transpose, `strided` the
// strided view (StridedOperand); anything else is copied.
DotPlan::Operand PlanOperand(const ir::Shape& shape, Dims batch, Dims free, Dims contracting,
                             bool lhs, bool blas, bool strided) {
  const DimList canonical =
      lhs ? Concat({batch, free, contracting}) : Concat({batch, contracting, free});
  const DimList swapped =
      lhs ? Concat({batch, contracting, free}) : Concat({batch, free, contracting});
  const int64_t batches = Product(shape, batch);
  const int64_t rows = Product(shape, lhs ? free : contracting);
  const int64_t cols = Product(shape, lhs ? contracting : free);
  if (IsIdentity(canonical)) return DenseOperand(DotPlan::kAsIs, batches, rows, cols);
  if (blas && IsIdentity(swapped)) return DenseOperand(DotPlan::kTransposed, batches, rows, cols);
  if (strided) {
    if (std::optional<DotPlan::Operand> operand =
            StridedOperand(shape, batch, free, contracting, lhs)) {
      return *operand;
    }
  }
  DotPlan::Operand operand = DenseOperand(DotPlan::kCopy, batches, rows, cols);
  operand.copy = PlanTranspose(shape, std::vector<int64_t>(canonical.begin(), canonical.end()));
  operand.copy_bytes = shape.byte_size();
  return operand;
}

}  // namespace

DotPlan PlanDot(const ir::Shape& lhs_shape, const ir::Shape& rhs_shape, const DotDimensions& dims) {
  DotPlan plan;
  plan.dtype = lhs_shape.dtype;
  DimList lhs_free = FreeDims(lhs_shape, dims.lhs_batch, dims.lhs_contracting);
  DimList rhs_free = FreeDims(rhs_shape, dims.rhs_batch, dims.rhs_contracting);
  plan.batches = Product(lhs_shape, dims.lhs_batch);
  plan.m = Product(lhs_shape, lhs_free);
  plan.k = Product(lhs_shape, dims.lhs_contracting);
  plan.n = Product(rhs_shape, rhs_free);
  constexpr int64_t kBlasMax = std::numeric_limits<blasint>::max();
  plan.blas =
      (plan.dtype == DType::kF32 || plan.dtype == DType::kF64 || plan.dtype == DType::kBF16) &&
      plan.m <= kBlasMax && plan.n <= kBlasMax && plan.k <= kBlasMax;
  // bf16 goes through oneDNN's primitives or widened copies, which take dense batches.
  const bool strided = plan.blas && plan.dtype != DType::kBF16;
  plan.lhs = PlanOperand(lhs_shape, dims.lhs_batch, lhs_free, dims.lhs_contracting, true, plan.blas,
                         strided);
  plan.rhs = PlanOperand(rhs_shape, dims.rhs_batch, rhs_free, dims.rhs_contracting, false,
                         plan.blas, strided);
  plan.out = DenseOperand(DotPlan::kAsIs, plan.batches, plan.m, plan.n);
  plan.small = (plan.dtype == DType::kF32 || plan.dtype == DType::kF64) && plan.blas &&
               SmallGemmFits(plan.m, plan.n, plan.k);
  plan.panel = plan.dtype == DType::kF32 && plan.blas && !plan.small &&
               GetGemmLibrary() == GemmLibrary::kAuto && plan.lhs.layout != DotPlan::kCopy &&
               plan.rhs.layout != DotPlan::kCopy &&
               PanelGemmChosen(plan.m, plan.n, plan.k, plan.rhs.layout == DotPlan::kTransposed) &&
               PanelGemmAvailable();
  if (plan.dtype == DType::kBF16) plan.bf16_matmul = MakeBf16Matmul(plan);
  return plan;
}

bool WriteResultTransposed(DotPlan* plan, const ir::Shape& result, int64_t batch_dims,
                           const std::vector<int64_t>& permutation) {
  const int64_t rank = result.rank();
  if ((plan->dtype != DType::kF32 && plan->dtype != DType::kF64) || !plan->blas ||
      rank != batch_dims + 2 || static_cast<int64_t>(permutation.size()) != rank ||
      result.dims[rank - 2] != plan->m || result.dims[rank - 1] != plan->n ||
      permutation[rank - 1] != rank - 1) {
    return false;
  }
  // Dimension d of the result lands at position `at[d]` of the transposed value.
  std::vector<int64_t> at(static_cast<size_t>(rank)), strides(static_cast<size_t>(rank), 1);
  for (int64_t p = 0; p < rank; ++p) at[permutation[p]] = p;
  for (int64_t p = rank - 1; p > 0; --p) strides[p - 1] = strides[p] * result.dims[permutation[p]];
  DotPlan::Operand out;
  out.ld = std::max<int64_t>(1, strides[at[rank - 2]]);
  if (batch_dims > 0) {
    out.batch_sizes.clear();
    out.batch_strides.clear();
    for (int64_t d = 0; d < batch_dims; ++d) {
      out.batch_sizes.push_back(result.dims[d]);
      out.batch_strides.push_back(strides[at[d]]);
    }
  }
  plan->out = std::move(out);
  return true;
}

bool DotReadsInPlace(DType dtype, const ir::Shape& shape, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& contracting, bool lhs) {
  const bool blas = dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kBF16;
  const bool strided = dtype == DType::kF32 || dtype == DType::kF64;
  const DimList free = FreeDims(shape, batch, contracting);
  return PlanOperand(shape, batch, free, contracting, lhs, blas, strided).layout != DotPlan::kCopy;
}

DotDimensions DotDimensionsOf(const ir::Instruction& dot) {
  return DotDimensions{dot.attrs.at("lhs_batch"), dot.attrs.at("rhs_batch"),
                       dot.attrs.at("lhs_contracting"), dot.attrs.at("rhs_contracting")};
}

bool DotRowsSupported(const DotPlan& plan) {
  return plan.dtype == DType::kF32 && plan.blas && plan.k > 0 &&
         plan.lhs.layout != DotPlan::kCopy && plan.rhs.layout != DotPlan::kCopy;
}

void RunDotRows(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, int64_t first,
                int64_t last, bool accumulate, float alpha, uint8_t* out) {
  const int64_t m = plan.m, k = plan.k, n = plan.n;
  const bool trans_a = plan.lhs.layout == DotPlan::kTransposed;
  const bool trans_b = plan.rhs.layout == DotPlan::kTransposed;
  const int64_t lda = plan.lhs.ld, ldb = plan.rhs.ld;
  const auto* a = reinterpret_cast<const float*>(lhs);
  const auto* b = reinterpret_cast<const float*>(rhs);
  auto* c = reinterpret_cast<float*>(out);
  for (int64_t r = first; r < last;) {
    const int64_t batch = r / m, row = r % m;
    const int64_t rows = std::min(last - r, m - row);  // within one batch
    const float* a_rows = a + plan.lhs.BatchOffset(batch) + (trans_a ? row : row * lda);
    const float* b_batch = b + plan.rhs.BatchOffset(batch);
    float* c_rows = c + plan.out.BatchOffset(batch) + row * plan.out.ld;
    if (plan.small) {
      SmallSgemm(trans_a, trans_b, rows, n, k, alpha, a_rows, lda, b_batch, ldb, accumulate, c_rows,
                 plan.out.ld);
      r += rows;
      continue;
    }
    if (plan.panel) {
      PanelSgemm(trans_a, trans_b, rows, n, k, alpha, a_rows, lda, b_batch, ldb, accumulate, c_rows,
                 plan.out.ld);
      r += rows;
      continue;
    }
    SgemmOnThisThread(trans_a, trans_b, rows, n, k, alpha, a_rows, lda, b_batch, ldb,
                      accumulate ? 1.0F : 0.0F, c_rows, plan.out.ld);
    r += rows;
  }
}

void RunDotAccumulate(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, double alpha,
                      uint8_t* out) {
  // FindDotUpdates only matches f32 and f64 products within BLAS's sizes.
  if (plan.dtype == DType::kF32) return DotT<Elem<DType::kF32>>(plan, lhs, rhs, out, true, alpha);
  return DotT<Elem<DType::kF64>>(plan, lhs, rhs, out, true, alpha);
}

void RunDot(const DotPlan& plan, const uint8_t* lhs, const uint8_t* rhs, uint8_t* out) {
  switch (plan.dtype) {
    case DType::kF32:
      return DotT<Elem<DType::kF32>>(plan, lhs, rhs, out, false, 1);
    case DType::kF64:
      return DotT<Elem<DType::kF64>>(plan, lhs, rhs, out, false, 1);
    case DType::kBF16:
      return DotT<Elem<DType::kBF16>>(plan, lhs, rhs, out, false, 1);
    case DType::kS32:
      return DotT<Elem<DType::kS32>>(plan, lhs, rhs, out, false, 1);
    case DType::kS64:
      return DotT<Elem<DType::kS64>>(plan, lhs, rhs, out, false, 1);
    case DType::kPred:
      return DotT<Elem<DType::kPred>>(plan, lhs, rhs, out, false, 1);
  }
}

void DotGeneral(const ir::Shape& lhs_shape, const uint8_t* lhs, const ir::Shape& rhs_shape,
                const uint8_t* rhs, const DotDimensions& dims, uint8_t* out) {
  RunDot(PlanDot(lhs_shape, rhs_shape, dims), lhs, rhs, out);
}

}  // namespace seam::cpu
