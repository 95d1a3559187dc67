// Gradient rules of gather, scatter_add, scatter_replace, clamp, erf and cumsum (docs/frontend.md
// "Indexing and embeddings"). Used by autodiff.cc's Vjp; only float operands get one (indices
// never).
#ifndef SEAM_LAZY_AUTODIFF_INDEX_H_
#define SEAM_LAZY_AUTODIFF_INDEX_H_

#include <cstddef>

#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// gather: a scatter_add of g into zeros of the operand's shape with the same indices and
// matching dimension numbers (so clamped indices send the gradient where they read).
NodePtr GatherVjp(const Node& node, const NodePtr& g);
// scatter_add: operand 0 gets g; the updates get a gather of g at the same indices.
NodePtr ScatterAddVjp(const Node& node, size_t i, const NodePtr& g);
// scatter_replace: operand 0 gets g with the written positions zeroed; an update gets g
// gathered where it was written if it is the one that stays there (the last in the
// scatter's order), else zero.
NodePtr ScatterReplaceVjp(const Node& node, size_t i, const NodePtr& g);
// clamp(lo, x, hi): g goes to x where lo <= x <= hi, else to the bound the result took.
NodePtr ClampVjp(const Node& node, size_t i, const NodePtr& g);
// erf: g * 2 / sqrt(pi) * exp(-x^2).
NodePtr ErfVjp(const Node& node, const NodePtr& g);
// cumsum: the reverse cumulative sum of g along the axis (total - cumsum(g) + g).
NodePtr CumsumVjp(const Node& node, const NodePtr& g);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_AUTODIFF_INDEX_H_
