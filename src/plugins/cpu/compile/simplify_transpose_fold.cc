// Transpose folding: a dot_general whose operand is a transpose reads the transpose's own
// operand instead, with its batch and contracting dimensions renamed through the
// permutation (dot_general takes them in any position), where the CPU kernels then read
// that operand in place (DotReadsInPlace, kernels.h: each batch's matrix a strided view).
// The transpose's copy disappears once no other instruction reads it. In a transformer's
// attention the heads' split, [batch, seq, heads, dim] -> [batch, heads, seq, dim], feeds
// only products: the forward's q, k and v and the backward's output gradient.
//
// The product's value is the same (the same terms, each batch's matrix read from other
// addresses); only its order of sums may change where a gemm takes a different path for a
// strided operand.
#include <utility>
#include <vector>

#include "src/plugins/cpu/compile/simplify_internal.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

using ir::DType;
using ir::Op;

// The dot with operand `side` (0: lhs, 1: rhs) replaced by the source of its transpose,
// or nullopt where that operand is no transpose or the kernels would copy its source.
std::optional<ir::Instruction> FoldSide(const Rewriter& rw, const ir::Instruction& dot, int side) {
  const ir::Instruction& transpose = rw.at(dot.operands[side]);
  if (transpose.op != Op::kTranspose) return std::nullopt;
  const DType dtype = transpose.shape.dtype;
  if (dtype != DType::kF32 && dtype != DType::kF64) return std::nullopt;
  const std::vector<int64_t>& permutation = transpose.attrs.at("permutation");
  const char* batch_name = side == 0 ? "lhs_batch" : "rhs_batch";
  const char* contracting_name = side == 0 ? "lhs_contracting" : "rhs_contracting";
  const std::vector<int64_t>& batch = dot.attrs.at(batch_name);
  const std::vector<int64_t>& contracting = dot.attrs.at(contracting_name);
  // Dimension d of the transpose's result is dimension permutation[d] of its operand.
  std::vector<bool> used(permutation.size(), false);
  std::vector<int64_t> source_batch, source_contracting;
  for (int64_t d : batch) {
    source_batch.push_back(permutation[d]);
    used[d] = true;
  }
  for (int64_t d : contracting) {
    source_contracting.push_back(permutation[d]);
    used[d] = true;
  }
  // The free dimensions enter the result in increasing order: in the source they must keep
  // the order they have in the transpose's result.
  int64_t previous = -1;
  for (size_t d = 0; d < permutation.size(); ++d) {
    if (used[d]) continue;
    if (permutation[d] < previous) return std::nullopt;
    previous = permutation[d];
  }
  const ir::Shape& source = rw.at(transpose.operands[0]).shape;
  if (!DotReadsInPlace(dtype, source, source_batch, source_contracting, side == 0)) {
    return std::nullopt;
  }
  ir::Instruction folded = dot;
  folded.operands[side] = transpose.operands[0];
  folded.attrs[batch_name] = std::move(source_batch);
  folded.attrs[contracting_name] = std::move(source_contracting);
  return folded;
}

}  // namespace

std::optional<int> FoldTransposeIntoDot(Rewriter& rewriter, const ir::Instruction& inst) {
  if (inst.op != Op::kDotGeneral || inst.operands.size() != 2) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    if (std::optional<ir::Instruction> folded = FoldSide(rewriter, inst, side)) {
      // Visited again: the other operand may fold too.
      return rewriter.Visit(*std::move(folded));
    }
  }
  return std::nullopt;
}

}  // namespace seam::cpu
