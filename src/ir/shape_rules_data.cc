// Shape rules of the ops that move data: broadcast, reshape, transpose, slice,
// concatenate, pad, and of dot_general.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/shape_rules_internal.h"

namespace seam::ir::internal {

absl::StatusOr<Shape> ShapeRuleBroadcastInDim(const Instruction& inst,
                                              const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"dims"}));
  const Shape& operand = operands[0];
  // The result dimensions come from the declaration; only the dtype is inherited.
  Shape result{operand.dtype, inst.shape.dims};
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  const std::vector<int64_t>& dims = inst.attrs.at("dims");
  SEAM_RETURN_IF_ERROR(CheckOnePerDimension(inst, "dims", operand, "operand"));
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= result.rank()) {
      return Error(inst, absl::StrCat("dims[", i, "]=", dims[i], " is out of range for result ",
                                      result.ToString(), " of rank ", result.rank()));
    }
  }
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "dims"));
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t from = operand.dims[i];
    int64_t to = result.dims[dims[i]];
    if (from != to && from != 1) {
      return Error(inst, absl::StrCat("operand ", operand.ToString(), " dimension ", i, " (", from,
                                      ") cannot broadcast to result ", result.ToString(),
                                      " dimension ", dims[i], " (", to, ")"));
    }
  }
  return result;
}

absl::StatusOr<Shape> ShapeRuleReshape(const Instruction& inst,
                                       const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {}));
  const Shape& operand = operands[0];
  Shape result{operand.dtype, inst.shape.dims};
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  if (result.num_elements() != operand.num_elements()) {
    return Error(inst, absl::StrCat("operand ", operand.ToString(), " has ", operand.num_elements(),
                                    " elements, result ", result.ToString(), " has ",
                                    result.num_elements()));
  }
  return result;
}

absl::StatusOr<Shape> ShapeRuleTranspose(const Instruction& inst,
                                         const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"permutation"}));
  const Shape& operand = operands[0];
  SEAM_RETURN_IF_ERROR(CheckOnePerDimension(inst, "permutation", operand, "operand"));
  const std::vector<int64_t>& permutation = inst.attrs.at("permutation");
  std::vector<bool> used(permutation.size(), false);
  Shape result{operand.dtype, {}};
  for (int64_t p : permutation) {
    if (p < 0 || p >= operand.rank() || used[p]) {
      return Error(inst, absl::StrCat("permutation=", Braced(permutation),
                                      " is not a permutation of 0..", operand.rank() - 1));
    }
    used[p] = true;
    result.dims.push_back(operand.dims[p]);
  }
  return result;
}

absl::StatusOr<Shape> ShapeRuleSlice(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"limit", "start", "stride"}));
  const Shape& operand = operands[0];
  for (const char* attr : {"start", "limit", "stride"}) {
    SEAM_RETURN_IF_ERROR(CheckOnePerDimension(inst, attr, operand, "operand"));
  }
  const std::vector<int64_t>& start = inst.attrs.at("start");
  const std::vector<int64_t>& limit = inst.attrs.at("limit");
  const std::vector<int64_t>& stride = inst.attrs.at("stride");
  Shape result{operand.dtype, {}};
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > operand.dims[d]) {
      return Error(inst, absl::StrCat("start[", d, "]=", start[d], " and limit[", d, "]=", limit[d],
                                      " must satisfy 0 <= start <= limit <= ", operand.dims[d],
                                      " (dimension ", d, " of operand ", operand.ToString(), ")"));
    }
    if (stride[d] < 1) {
      return Error(inst, absl::StrCat("stride[", d, "]=", stride[d], " must be >= 1"));
    }
    int64_t extent = limit[d] - start[d];
    result.dims.push_back(extent / stride[d] + (extent % stride[d] != 0));
  }
  return result;
}

absl::StatusOr<Shape> ShapeRuleConcatenate(const Instruction& inst,
                                           const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"dimension"}));
  SEAM_ASSIGN_OR_RETURN(int64_t dimension, SingleValue(inst, "dimension"));
  const Shape& first = operands[0];
  if (dimension < 0 || dimension >= first.rank()) {
    return Error(inst, absl::StrCat("dimension=", dimension, " is out of range for operand 0 ",
                                    first.ToString(), " of rank ", first.rank()));
  }
  Shape result = first;
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& operand = operands[i];
    bool compatible = operand.dtype == first.dtype && operand.rank() == first.rank();
    for (int64_t d = 0; compatible && d < first.rank(); ++d) {
      compatible = d == dimension || operand.dims[d] == first.dims[d];
    }
    if (!compatible) {
      return Error(inst, absl::StrCat("operand ", i, " has shape ", operand.ToString(),
                                      ", which differs from operand 0 ", first.ToString(),
                                      " outside dimension ", dimension));
    }
    if (__builtin_add_overflow(result.dims[dimension], operand.dims[dimension],
                               &result.dims[dimension])) {
      return Error(inst, absl::StrCat("dimension ", dimension, " of the result overflows int64"));
    }
  }
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  return result;
}

absl::StatusOr<Shape> ShapeRulePad(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"high", "interior", "low"}));
  const Shape& operand = operands[0];
  Shape value{operand.dtype, {}};
  if (operands[1] != value) {
    return Error(inst, absl::StrCat("operand 1 (the padding value) has shape ",
                                    operands[1].ToString(), ", expected ", value.ToString()));
  }
  for (const char* attr : {"low", "high", "interior"}) {
    SEAM_RETURN_IF_ERROR(CheckOnePerDimension(inst, attr, operand, "operand"));
  }
  const std::vector<int64_t>& low = inst.attrs.at("low");
  const std::vector<int64_t>& high = inst.attrs.at("high");
  const std::vector<int64_t>& interior = inst.attrs.at("interior");
  Shape result{operand.dtype, {}};
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (interior[d] < 0) {
      return Error(inst, absl::StrCat("interior[", d, "]=", interior[d], " is negative"));
    }
    int64_t n = operand.dims[d];
    // 128-bit, so that no choice of attributes can overflow the computation itself.
    __int128 size = static_cast<__int128>(low[d]) + high[d] + n +
                    static_cast<__int128>(n > 0 ? n - 1 : 0) * interior[d];
    if (size < 0 || size > INT64_MAX) {
      return Error(
          inst, absl::StrCat("dimension ", d, " of the result would have size ",
                             size < 0 ? "< 0" : "> int64 max", " (low=", low[d], ", high=", high[d],
                             ", interior=", interior[d], ", operand dimension ", n, ")"));
    }
    result.dims.push_back(static_cast<int64_t>(size));
  }
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  return result;
}

namespace {

// Checks one side's batch and contracting lists: indices in range, none listed twice.
// Returns the side's free dimensions in increasing order.
absl::StatusOr<std::vector<int64_t>> DotSide(const Instruction& inst, const std::string& side,
                                             const Shape& shape) {
  std::vector<bool> used(shape.rank(), false);
  for (const char* kind : {"_batch", "_contracting"}) {
    std::string attr = side + kind;
    const std::vector<int64_t>& dims = inst.attrs.at(attr);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0 || dims[i] >= shape.rank()) {
        return Error(inst, absl::StrCat(attr, "[", i, "]=", dims[i], " is out of range for ", side,
                                        " ", shape.ToString(), " of rank ", shape.rank()));
      }
      if (used[dims[i]]) {
        return Error(
            inst, absl::StrCat(side, " dimension ", dims[i], " is listed more than once in ", side,
                               "_batch and ", side, "_contracting"));
      }
      used[dims[i]] = true;
    }
  }
  std::vector<int64_t> free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!used[d]) free.push_back(d);
  }
  return free;
}

}  // namespace

// Result dimensions: the batch dimensions (in the order of lhs_batch), then lhs's free
// dimensions, then rhs's, each in increasing order, as in XLA's DotGeneral.
absl::StatusOr<Shape> ShapeRuleDotGeneral(const Instruction& inst,
                                          const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(
      CheckAttributes(inst, {"lhs_batch", "lhs_contracting", "rhs_batch", "rhs_contracting"}));
  const Shape& lhs = operands[0];
  const Shape& rhs = operands[1];
  if (lhs.dtype != rhs.dtype) {
    return Error(inst, absl::StrCat("operand dtypes differ: lhs ", lhs.ToString(), ", rhs ",
                                    rhs.ToString()));
  }
  for (const char* kind : {"batch", "contracting"}) {
    const std::vector<int64_t>& l = inst.attrs.at(absl::StrCat("lhs_", kind));
    const std::vector<int64_t>& r = inst.attrs.at(absl::StrCat("rhs_", kind));
    if (l.size() != r.size()) {
      return Error(inst, absl::StrCat("lhs_", kind, "=", Braced(l), " and rhs_", kind, "=",
                                      Braced(r), " have different lengths"));
    }
  }
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> lhs_free, DotSide(inst, "lhs", lhs));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> rhs_free, DotSide(inst, "rhs", rhs));
  for (const char* kind : {"batch", "contracting"}) {
    const std::vector<int64_t>& l = inst.attrs.at(absl::StrCat("lhs_", kind));
    const std::vector<int64_t>& r = inst.attrs.at(absl::StrCat("rhs_", kind));
    for (size_t i = 0; i < l.size(); ++i) {
      if (lhs.dims[l[i]] != rhs.dims[r[i]]) {
        return Error(
            inst, absl::StrCat(kind, " dimension sizes differ: lhs ", lhs.ToString(), " dimension ",
                               l[i], " is ", lhs.dims[l[i]], ", rhs ", rhs.ToString(),
                               " dimension ", r[i], " is ", rhs.dims[r[i]]));
      }
    }
  }
  Shape result{lhs.dtype, {}};
  for (int64_t d : inst.attrs.at("lhs_batch")) result.dims.push_back(lhs.dims[d]);
  for (int64_t d : lhs_free) result.dims.push_back(lhs.dims[d]);
  for (int64_t d : rhs_free) result.dims.push_back(rhs.dims[d]);
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  return result;
}

}  // namespace seam::ir::internal
