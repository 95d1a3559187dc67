// Causal attention's products skip whole tiles (docs/cpu-plugin.md "Causal attention
// products"). In a causal attention step, forward and backward, six batched f32 products
// touch a [L, S] matrix of which only the part a causal mask keeps matters:
//   scores = q.kᵀ and dp = do.vᵀ    only the kept part of the result is read later
//   out = p.v and dq = ds.k          the lhs is zero outside the mask (rows of the result)
//   dv = pᵀ.do and dk = dsᵀ.q        the masked operand is contracted over its rows
// (p the softmax's probabilities, ds the scores' gradient). The compiler proves these facts
// from the program (the mask is evaluated at compile time from its iotas and must keep a
// prefix of each row, the prefixes not shrinking from row to row; zeros are traced through
// select, exp(-inf - row max), multiply, divide and neg), and the product then runs as one
// gemm per block of kCausalBlockRows rows (or columns) over the part that can be nonzero:
// about 5/8 of the work on a 128-position causal mask. The results are those of the whole
// product up to the order of its sums (the skipped terms are zeros), except where a masked
// position of an operand would have multiplied an infinity or a NaN. A result whose kept
// part alone is read gets zeros elsewhere.
//
// SEAM_CPU_ATTENTION=off (or an unfused plan) computes every product whole.
#ifndef SEAM_PLUGINS_CPU_ATTENTION_CAUSAL_H_
#define SEAM_PLUGINS_CPU_ATTENTION_CAUSAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "src/ir/program.h"

namespace seam::cpu {

struct DotPlan;

// Rows (or columns) per gemm call of a causal product.
inline constexpr int64_t kCausalBlockRows = 32;

// Which of a product's matrices the mask describes, in the gemm's terms (C[m, n] =
// A[m, k].B[k, n] per batch), and the mask: row r keeps columns [0, limit[r]).
struct CausalDot {
  enum Kind : uint8_t {
    kOutput,   // C[i][j] is read only where j < limit[i] (the rest is written as 0)
    kLhsRows,  // A[i][kk] is zero where kk >= limit[i]
    kLhsCols,  // A[i][kk] is zero where i >= limit[kk]
    kRhsRows,  // B[kk][j] is zero where j >= limit[kk]
    kRhsCols,  // B[kk][j] is zero where kk >= limit[j]
  };
  Kind kind = kOutput;
  std::vector<int64_t> limit;  // non-decreasing
  // first[c]: the first row whose prefix covers column c (limit.size() where none does).
  std::vector<int64_t> first;
};

// The name of a kind for the optimized dump ("output kept", "lhs rows", ...).
const char* CausalKindName(CausalDot::Kind kind);

// The causal structure of dot_general `dot` (an f32 product with batch dimensions leading,
// one free and one contracted dimension per operand), or null when none is proven.
std::shared_ptr<const CausalDot> PlanCausalDot(const ir::Program& program,
                                               const std::vector<std::vector<int>>& readers,
                                               int dot);

// readers[v]: the instructions that read value v (each once), for PlanCausalDot.
std::vector<std::vector<int>> ReadersOf(const ir::Program& program);

// out = a.b for every batch of `plan` (f32, BLAS sizes), skipping the blocks `causal`
// proves zero or unread. `a` and `b` are in the plan's layouts (copies already made).
void RunCausalDot(const DotPlan& plan, const CausalDot& causal, const float* a, const float* b,
                  float* out);
// Batches [first, last) of the same, on the calling thread alone (a sliced region,
// sliced_region.h); a null `causal` computes each batch whole.
void RunCausalDotBatches(const DotPlan& plan, const CausalDot* causal, const float* a,
                         const float* b, float* out, int64_t first, int64_t last);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_ATTENTION_CAUSAL_H_
