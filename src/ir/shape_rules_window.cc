// Shape rules of the windowed ops: convolution, reduce_window_*, select_and_scatter
// (docs/ir.md "Windowed ops"). The result size along a windowed dimension is
// WindowCount (window.h): XLA's and StableHLO's rule.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/shape_rules_internal.h"
#include "src/ir/window.h"

namespace seam::ir::internal {
namespace {

// `attr` has `count` entries.
absl::Status CheckCount(const Instruction& inst, const std::string& attr, size_t count,
                        const std::string& why) {
  const std::vector<int64_t>& values = inst.attrs.at(attr);
  if (values.size() != count) {
    return Error(inst, absl::StrCat(attr, "=", Braced(values), " has ", values.size(),
                                    " entries, expected ", count, " (", why, ")"));
  }
  return absl::OkStatus();
}

// Every entry of `attr` is at least `minimum`.
absl::Status CheckAtLeast(const Instruction& inst, const std::string& attr, int64_t minimum) {
  const std::vector<int64_t>& values = inst.attrs.at(attr);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < minimum) {
      return Error(inst, absl::StrCat(attr, "[", i, "]=", values[i], " must be >= ", minimum));
    }
  }
  return absl::OkStatus();
}

// One operand's (or the result's) dimension numbers: the named single dimensions and the
// spatial list together name every dimension of a rank-`rank` array exactly once.
absl::Status CheckRoles(const Instruction& inst, const std::string& what, int64_t rank,
                        std::initializer_list<std::string> singles, const std::string& spatial) {
  std::vector<bool> seen(rank, false);
  std::vector<std::string> names(singles);
  names.push_back(spatial);
  SEAM_RETURN_IF_ERROR(CheckCount(inst, spatial, static_cast<size_t>(rank - 2),
                                  absl::StrCat("the ", what, " has rank ", rank)));
  for (const std::string& name : names) {
    if (name != spatial) SEAM_RETURN_IF_ERROR(SingleValue(inst, name).status());
    for (int64_t d : inst.attrs.at(name)) {
      if (d < 0 || d >= rank) {
        return Error(inst, absl::StrCat(name, "=", Braced(inst.attrs.at(name)),
                                        " is out of range for the ", what, " of rank ", rank));
      }
      if (seen[d]) {
        return Error(inst, absl::StrCat(what, " dimension ", d, " is given more than one role (in ",
                                        name, ")"));
      }
      seen[d] = true;
    }
  }
  return absl::OkStatus();
}

// The result extent of one windowed dimension, checked to fit int64.
absl::StatusOr<int64_t> WindowedExtent(const Instruction& inst, const WindowDim& w, int64_t input,
                                       int64_t dimension) {
  const __int128 padded = PaddedExtent(w, input);
  if (padded < 0 || padded > INT64_MAX) {
    return Error(inst, absl::StrCat("dimension ", dimension, ": the padded input has size ",
                                    padded < 0 ? "< 0" : "> int64 max", " (input ", input,
                                    ", padding_low ", w.pad_low, ", padding_high ", w.pad_high,
                                    ", dilation ", w.base_dilation, ")"));
  }
  if (DilatedExtent(w.size, w.window_dilation) > INT64_MAX) {
    return Error(inst, absl::StrCat("dimension ", dimension, ": the dilated window (size ", w.size,
                                    ", dilation ", w.window_dilation, ") exceeds int64"));
  }
  return static_cast<int64_t>(WindowCount(w, input));
}

}  // namespace

absl::StatusOr<Shape> ShapeRuleConvolution(const Instruction& inst,
                                           const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(
      inst, {"feature_group_count", "input_batch_dim", "input_feature_dim", "input_spatial_dims",
             "kernel_input_feature_dim", "kernel_output_feature_dim", "kernel_spatial_dims",
             "lhs_dilation", "output_batch_dim", "output_feature_dim", "output_spatial_dims",
             "padding_high", "padding_low", "rhs_dilation", "window_strides"}));
  const Shape& lhs = operands[0];
  const Shape& rhs = operands[1];
  if (lhs.dtype != rhs.dtype) {
    return Error(inst, absl::StrCat("operand dtypes differ: lhs ", lhs.ToString(), ", rhs ",
                                    rhs.ToString()));
  }
  if (lhs.rank() < 2 || rhs.rank() != lhs.rank()) {
    return Error(inst, absl::StrCat("lhs ", lhs.ToString(), " and rhs ", rhs.ToString(),
                                    " must have the same rank, at least 2"));
  }
  const int64_t rank = lhs.rank();
  const size_t spatial = static_cast<size_t>(rank - 2);
  SEAM_RETURN_IF_ERROR(CheckRoles(inst, "lhs", rank, {"input_batch_dim", "input_feature_dim"},
                                  "input_spatial_dims"));
  SEAM_RETURN_IF_ERROR(CheckRoles(inst, "rhs", rank,
                                  {"kernel_input_feature_dim", "kernel_output_feature_dim"},
                                  "kernel_spatial_dims"));
  SEAM_RETURN_IF_ERROR(CheckRoles(inst, "result", rank, {"output_batch_dim", "output_feature_dim"},
                                  "output_spatial_dims"));
  for (const char* attr :
       {"window_strides", "padding_low", "padding_high", "lhs_dilation", "rhs_dilation"}) {
    SEAM_RETURN_IF_ERROR(CheckCount(inst, attr, spatial, "one per spatial dimension"));
  }
  for (const char* attr : {"window_strides", "lhs_dilation", "rhs_dilation"}) {
    SEAM_RETURN_IF_ERROR(CheckAtLeast(inst, attr, 1));
  }
  SEAM_ASSIGN_OR_RETURN(int64_t groups, SingleValue(inst, "feature_group_count"));
  const ConvolutionLayout c = ConvolutionLayoutOf(inst);
  const int64_t features = lhs.dims[c.input_feature];
  const int64_t kernel_in = rhs.dims[c.kernel_input_feature];
  const int64_t kernel_out = rhs.dims[c.kernel_output_feature];
  if (groups < 1 || features % groups != 0 || kernel_out % groups != 0) {
    return Error(inst, absl::StrCat("feature_group_count=", groups,
                                    " must be >= 1 and divide both the lhs feature count ",
                                    features, " and the rhs output feature count ", kernel_out));
  }
  if (kernel_in * groups != features) {
    return Error(inst, absl::StrCat("the rhs input feature count ", kernel_in, " (rhs ",
                                    rhs.ToString(), " dimension ", c.kernel_input_feature,
                                    ") times feature_group_count=", groups,
                                    " must equal the lhs feature count ", features, " (lhs ",
                                    lhs.ToString(), " dimension ", c.input_feature, ")"));
  }
  Shape result{lhs.dtype, std::vector<int64_t>(rank, 0)};
  result.dims[c.output_batch] = lhs.dims[c.input_batch];
  result.dims[c.output_feature] = kernel_out;
  for (size_t i = 0; i < spatial; ++i) {
    WindowDim w = c.window[i];
    w.size = rhs.dims[c.kernel_spatial[i]];
    if (w.size < 1) {
      return Error(inst, absl::StrCat("rhs ", rhs.ToString(), " spatial dimension ",
                                      c.kernel_spatial[i], " has size 0; a window needs >= 1"));
    }
    SEAM_ASSIGN_OR_RETURN(
        result.dims[c.output_spatial[i]],
        WindowedExtent(inst, w, lhs.dims[c.input_spatial[i]], c.input_spatial[i]));
  }
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  return result;
}

namespace {

// The attributes shared by reduce_window_* and select_and_scatter: one entry per operand
// dimension, sizes and strides >= 1, padding >= 0. Returns the result shape.
absl::StatusOr<Shape> WindowResult(const Instruction& inst, const Shape& operand) {
  std::vector<std::string> attrs = {"window_dimensions", "window_strides", "padding_low",
                                    "padding_high"};
  if (inst.attrs.count("base_dilation") > 0) {
    attrs.push_back("base_dilation");
    attrs.push_back("window_dilation");
  }
  for (const std::string& attr : attrs) {
    SEAM_RETURN_IF_ERROR(CheckOnePerDimension(inst, attr, operand, "operand"));
    const bool padding = attr == "padding_low" || attr == "padding_high";
    SEAM_RETURN_IF_ERROR(CheckAtLeast(inst, attr, padding ? 0 : 1));
  }
  const std::vector<WindowDim> window = WindowOf(inst);
  Shape result{operand.dtype, {}};
  for (int64_t d = 0; d < operand.rank(); ++d) {
    SEAM_ASSIGN_OR_RETURN(int64_t extent, WindowedExtent(inst, window[d], operand.dims[d], d));
    result.dims.push_back(extent);
  }
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  return result;
}

}  // namespace

absl::StatusOr<Shape> ShapeRuleReduceWindow(const Instruction& inst,
                                            const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(
      CheckAttributes(inst, {"base_dilation", "padding_high", "padding_low", "window_dilation",
                             "window_dimensions", "window_strides"}));
  return WindowResult(inst, operands[0]);
}

// Operand 0 is the array windows select from; operand 1 (the source) holds one value per
// window, so it has the shape reduce_window would give operand 0; the result has operand
// 0's shape.
absl::StatusOr<Shape> ShapeRuleSelectAndScatter(const Instruction& inst,
                                                const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(
      inst, {"padding_high", "padding_low", "window_dimensions", "window_strides"}));
  SEAM_ASSIGN_OR_RETURN(Shape windows, WindowResult(inst, operands[0]));
  if (operands[1] != windows) {
    return Error(inst,
                 absl::StrCat("operand 1 (the source) has shape ", operands[1].ToString(),
                              ", expected ", windows.ToString(),
                              " (one value per window of operand 0 ", operands[0].ToString(), ")"));
  }
  return operands[0];
}

}  // namespace seam::ir::internal
