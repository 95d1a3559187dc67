// Lowerings of the leaves and data-movement ops with attributes: iota, broadcast_in_dim,
// transpose, slice, concatenate, pad (docs/stablehlo.md, "Op by op").
#include "absl/strings/str_cat.h"
#include "src/stablehlo/emit_internal.h"

namespace seam::stablehlo::internal {

Value LowerIota(const Lowering& l) {
  return l.w.Op("stablehlo.iota", {}, l.inst.shape,
                absl::StrCat("iota_dimension = ", l.Single("dimension"), " : i64"));
}

Value LowerBroadcastInDim(const Lowering& l) {
  return l.w.Op("stablehlo.broadcast_in_dim", l.operands, l.inst.shape,
                absl::StrCat("broadcast_dimensions = ", I64Array(l.Attr("dims"))));
}

// Same meaning in both: result dimension i is operand dimension permutation[i].
Value LowerTranspose(const Lowering& l) {
  return l.w.Op("stablehlo.transpose", l.operands, l.inst.shape,
                absl::StrCat("permutation = ", I64Array(l.Attr("permutation"))));
}

// seam's limit is StableHLO's limit_indices (an end, not a size).
Value LowerSlice(const Lowering& l) {
  return l.w.Op("stablehlo.slice", l.operands, l.inst.shape,
                absl::StrCat("start_indices = ", I64Array(l.Attr("start")),
                             ", limit_indices = ", I64Array(l.Attr("limit")),
                             ", strides = ", I64Array(l.Attr("stride"))));
}

Value LowerConcatenate(const Lowering& l) {
  return l.w.Op("stablehlo.concatenate", l.operands, l.inst.shape,
                absl::StrCat("dimension = ", l.Single("dimension"), " : i64"));
}

Value LowerPad(const Lowering& l) {
  return l.w.Op("stablehlo.pad", l.operands, l.inst.shape,
                absl::StrCat("edge_padding_low = ", I64Array(l.Attr("low")),
                             ", edge_padding_high = ", I64Array(l.Attr("high")),
                             ", interior_padding = ", I64Array(l.Attr("interior"))));
}

}  // namespace seam::stablehlo::internal
