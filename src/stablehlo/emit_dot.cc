// Lowerings of the products: dot_general (pred as an i32 product compared with 0) and
// convolution, with precision_config HIGHEST on f32 unless the options ask for TF32
// (docs/stablehlo.md, "Op by op").
#include "absl/strings/str_cat.h"
#include "src/stablehlo/emit_internal.h"

namespace seam::stablehlo::internal {
namespace {

// `, precision_config = [HIGHEST, HIGHEST]` for an f32 product at kHighest, else nothing.
std::string PrecisionConfig(ir::DType dtype, const EmitOptions& options) {
  if (dtype != ir::DType::kF32 || options.matmul_precision != MatmulPrecision::kHighest) {
    return "";
  }
  return ", precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]";
}

// One side of #stablehlo.conv<...>: entry d is the role of dimension d, `first` (b or i)
// and `second` (f or o) for the two named dimensions, k for spatial dimension k.
std::string ConvDims(size_t rank, int64_t first_dim, char first, int64_t second_dim, char second,
                     const std::vector<int64_t>& spatial) {
  std::vector<std::string> roles(rank);
  roles[static_cast<size_t>(first_dim)] = std::string(1, first);
  roles[static_cast<size_t>(second_dim)] = std::string(1, second);
  for (size_t k = 0; k < spatial.size(); ++k) {
    roles[static_cast<size_t>(spatial[k])] = absl::StrCat(k);
  }
  std::string text = "[";
  for (size_t d = 0; d < rank; ++d) absl::StrAppend(&text, d == 0 ? "" : ", ", roles[d]);
  return text + "]";
}

}  // namespace

Value LowerDotGeneral(const Lowering& l) {
  std::string dims = "dot_dimension_numbers = #stablehlo.dot<";
  AppendField(&dims, "lhs_batching_dimensions", l.Attr("lhs_batch"));
  AppendField(&dims, "rhs_batching_dimensions", l.Attr("rhs_batch"));
  AppendField(&dims, "lhs_contracting_dimensions", l.Attr("lhs_contracting"));
  AppendField(&dims, "rhs_contracting_dimensions", l.Attr("rhs_contracting"));
  dims.push_back('>');
  const ir::DType dtype = l.operands[0].shape.dtype;
  if (dtype != ir::DType::kPred) {
    return l.w.Op("stablehlo.dot_general", l.operands, l.inst.shape,
                  dims + PrecisionConfig(dtype, l.options));
  }
  // pred: the OR of ANDs is "some product of 0/1 values is 1".
  const auto as_i32 = [&](const Value& v) {
    return l.w.Op("stablehlo.convert", {v}, ir::Shape{ir::DType::kS32, v.shape.dims});
  };
  const ir::Shape counts{ir::DType::kS32, l.inst.shape.dims};
  Value dot =
      l.w.Op("stablehlo.dot_general", {as_i32(l.operands[0]), as_i32(l.operands[1])}, counts, dims);
  return l.w.Compare("NE", dot, l.w.Splat(counts, "0"));
}

Value LowerConvolution(const Lowering& l) {
  const size_t rank = l.operands[0].shape.dims.size();
  const std::string numbers = absl::StrCat(
      "#stablehlo.conv<",
      ConvDims(rank, l.Single("input_batch_dim"), 'b', l.Single("input_feature_dim"), 'f',
               l.Attr("input_spatial_dims")),
      "x",
      ConvDims(rank, l.Single("kernel_input_feature_dim"), 'i',
               l.Single("kernel_output_feature_dim"), 'o', l.Attr("kernel_spatial_dims")),
      "->",
      ConvDims(rank, l.Single("output_batch_dim"), 'b', l.Single("output_feature_dim"), 'f',
               l.Attr("output_spatial_dims")),
      ">");
  // Each optional attribute starts with ", "; the first one's comma is dropped.
  std::string attributes = absl::StrCat(
      OptionalArray("window_strides", l.Attr("window_strides")),
      OptionalPadding(l.Attr("padding_low"), l.Attr("padding_high")),
      OptionalArray("lhs_dilation", l.Attr("lhs_dilation")),
      OptionalArray("rhs_dilation", l.Attr("rhs_dilation")), ", dimension_numbers = ", numbers,
      ", feature_group_count = ", l.Single("feature_group_count"),
      " : i64, batch_group_count = 1 : i64", PrecisionConfig(l.inst.shape.dtype, l.options));
  attributes.erase(0, 2);
  return l.w.Op("stablehlo.convolution", l.operands, l.inst.shape, attributes);
}

}  // namespace seam::stablehlo::internal
