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
#include "src/plugins/cpu/kernels/small_gemm.h"

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
// is stored [k, m], B [n, k].
void Gemm(float, bool trans_a, bool trans_b, const uint8_t* a, const uint8_t* b, uint8_t* c,
          int64_t m, int64_t k, int64_t n, double alpha, double beta) {
  Sgemm(trans_a, trans_b, m, n, k, static_cast<float>(alpha), reinterpret_cast<const float*>(a),
        trans_a ? m : k, reinterpret_cast<const float*>(b), trans_b ? k : n,
        static_cast<float>(beta), reinterpret_cast<float*>(c), n);
}

void Gemm(double, bool trans_a, bool trans_b, const uint8_t* a, const uint8_t* b, uint8_t* c,
          int64_t m, int64_t k, int64_t n, double alpha, double beta) {
  Dgemm(trans_a, trans_b, m, n, k, alpha, reinterpret_cast<const double*>(a), trans_a ? m : k,
        reinterpret_cast<const double*>(b), trans_b ? k : n, beta, reinterpret_cast<double*>(c), n);
}

// The same on small_gemm.h's loop (plans with `small`; beta 0 or 1 as `accumulate`).
void SmallGemm(float, bool trans_a, bool trans_b, const uint8_t* a, const uint8_t* b, uint8_t* c,
               int64_t m, int64_t k, int64_t n, double alpha, bool accumulate) {
  SmallSgemm(trans_a, trans_b, m, n, k, static_cast<float>(alpha),
             reinterpret_cast<const float*>(a), trans_a ? m : k, reinterpret_cast<const float*>(b),
             trans_b ? k : n, accumulate, reinterpret_cast<float*>(c), n);
}

void SmallGemm(double, bool trans_a, bool trans_b, const uint8_t* a, const uint8_t* b, uint8_t* c,
               int64_t m, int64_t k, int64_t n, double alpha, bool accumulate) {
  SmallDgemm(trans_a, trans_b, m, n, k, alpha, reinterpret_cast<const double*>(a), trans_a ? m : k,
             reinterpret_cast<const double*>(b), trans_b ? k : n, accumulate,
             reinterpret_cast<double*>(c), n);
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
      for (int64_t i = 0; i < batches; ++i) {
        if (plan.small) {
          SmallGemm(typename E::Storage{}, trans_a, trans_b, a, b, out + i * m * n * size, m, k, n,
                    alpha, accumulate);
        } else {
          Gemm(typename E::Storage{}, trans_a, trans_b, a, b, out + i * m * n * size, m, k, n,
               alpha, accumulate ? 1.0 : 0.0);
        }
        a += m * k * size;
        b += k * n * size;
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

// `canonical` and `swapped` are the operand's dimension orders that give the canonical
// layout and its transpose. `allow_swapped` is false where the consumer cannot use it.
DotPlan::Operand PlanOperand(const ir::Shape& shape, Dims canonical, Dims swapped,
                             bool allow_swapped) {
  DotPlan::Operand operand;
  if (IsIdentity(canonical)) return operand;
  if (allow_swapped && IsIdentity(swapped)) {
    operand.layout = DotPlan::kTransposed;
    return operand;
  }
  operand.layout = DotPlan::kCopy;
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
  plan.lhs = PlanOperand(lhs_shape, Concat({dims.lhs_batch, lhs_free, dims.lhs_contracting}),
                         Concat({dims.lhs_batch, dims.lhs_contracting, lhs_free}), plan.blas);
  plan.rhs = PlanOperand(rhs_shape, Concat({dims.rhs_batch, dims.rhs_contracting, rhs_free}),
                         Concat({dims.rhs_batch, rhs_free, dims.rhs_contracting}), plan.blas);
  plan.small = (plan.dtype == DType::kF32 || plan.dtype == DType::kF64) && plan.blas &&
               SmallGemmFits(plan.m, plan.n, plan.k);
  if (plan.dtype == DType::kBF16) plan.bf16_matmul = MakeBf16Matmul(plan);
  return plan;
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
  const auto* a = reinterpret_cast<const float*>(lhs);
  const auto* b = reinterpret_cast<const float*>(rhs);
  auto* c = reinterpret_cast<float*>(out);
  for (int64_t r = first; r < last;) {
    const int64_t batch = r / m, row = r % m;
    const int64_t rows = std::min(last - r, m - row);  // within one batch
    const float* a_rows = a + batch * m * k + (trans_a ? row : row * k);
    if (plan.small) {
      SmallSgemm(trans_a, trans_b, rows, n, k, alpha, a_rows, trans_a ? m : k, b + batch * k * n,
                 trans_b ? k : n, accumulate, c + (batch * m + row) * n, n);
      r += rows;
      continue;
    }
    SgemmOnThisThread(trans_a, trans_b, rows, n, k, alpha, a_rows, trans_a ? m : k,
                      b + batch * k * n, trans_b ? k : n, accumulate ? 1.0F : 0.0F,
                      c + (batch * m + row) * n, n);
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
