// Lowerings of the folds: reduce_*, argmax/argmin (a two-operand reduce whose body keeps
// the first index, NaN winning), cumsum (a reduce_window), reduce_window_*,
// select_and_scatter and all_reduce_* (docs/stablehlo.md, "Op by op").
#include "absl/strings/str_cat.h"
#include "src/stablehlo/emit_internal.h"

namespace seam::stablehlo::internal {
namespace {

// argmax's body over (a, ai, b, bi): take a when (a is NaN and b is not) or a `direction` b
// or ((a == b or both NaN) and ai < bi); integers have no NaN.
Region ArgReduceRegion(ir::DType dtype, absl::string_view direction) {
  const ir::Shape value = Scalar(dtype);
  const ir::Shape index = Scalar(ir::DType::kS64);
  return Region{
      {value, index, value, index},
      [dtype, direction = std::string(direction)](Writer& w, const std::vector<Value>& args) {
        const Value& a = args[0];
        const Value& ai = args[1];
        const Value& b = args[2];
        const Value& bi = args[3];
        Value better = w.Compare(direction, a, b);
        Value same = w.Compare("EQ", a, b);
        if (ir::IsFloat(dtype)) {
          Value a_nan = w.Compare("NE", a, a);
          Value b_nan = w.Compare("NE", b, b);
          Value b_number = w.Op("stablehlo.not", {b_nan}, b_nan.shape);
          better = w.Binary("stablehlo.or", w.Binary("stablehlo.and", a_nan, b_number), better);
          same = w.Binary("stablehlo.or", same, w.Binary("stablehlo.and", a_nan, b_nan));
        }
        Value first = w.Binary("stablehlo.and", same, w.Compare("LT", ai, bi));
        Value take = w.Binary("stablehlo.or", better, first);
        w.Return({w.Select(take, a, b), w.Select(take, ai, bi)});
      }};
}

}  // namespace

Value LowerReduce(const Lowering& l) {
  const ir::Combiner combiner = ir::ReductionOf(l.inst.op);
  const ir::DType dtype = l.inst.shape.dtype;
  Value init = l.w.Splat(Scalar(dtype), IdentityText(dtype, combiner));
  return l.w.Op("stablehlo.reduce", {l.operands[0], init}, l.inst.shape,
                absl::StrCat("dimensions = ", I64Array(l.Attr("axes"))),
                {BinaryRegion(dtype, CombinerOpName(combiner))});
}

Value LowerArgReduce(const Lowering& l) {
  const Value& x = l.operands[0];
  const ir::DType dtype = x.shape.dtype;
  const int64_t axis = l.Single("axis");
  const bool max = l.inst.op == ir::Op::kArgMax;
  Value iota = l.w.Op("stablehlo.iota", {}, ir::Shape{ir::DType::kS64, x.shape.dims},
                      absl::StrCat("iota_dimension = ", axis, " : i64"));
  Value init =
      l.w.Splat(Scalar(dtype), IdentityText(dtype, max ? ir::Combiner::kMax : ir::Combiner::kMin));
  Value no_index = l.w.Splat(Scalar(ir::DType::kS64),
                             IdentityText(ir::DType::kS64, ir::Combiner::kMin));  // INT64_MAX
  const std::vector<Value> results = l.w.Ops("stablehlo.reduce", {x, iota, init, no_index},
                                             {ir::Shape{dtype, l.inst.shape.dims}, l.inst.shape},
                                             absl::StrCat("dimensions = ", I64Array({axis})),
                                             {ArgReduceRegion(dtype, max ? "GT" : "LT")});
  return results[1];
}

// Element k is the sum of the window of n elements ending at k, padded with n - 1 zeros
// below: elements 0..k.
Value LowerCumsum(const Lowering& l) {
  const Value& x = l.operands[0];
  const ir::DType dtype = x.shape.dtype;
  const auto axis = static_cast<size_t>(l.Single("axis"));
  const int64_t n = x.shape.dims[axis];
  std::vector<int64_t> window(x.shape.dims.size(), 1);
  std::vector<int64_t> low(x.shape.dims.size(), 0);
  std::vector<int64_t> high(x.shape.dims.size(), 0);
  if (n > 0) {
    window[axis] = n;
    low[axis] = n - 1;
  }
  Value zero = l.w.Splat(Scalar(dtype), ScalarText(dtype, 0));
  return l.w.Op("stablehlo.reduce_window", {x, zero}, l.inst.shape,
                absl::StrCat("window_dimensions = ", I64Array(window), OptionalPadding(low, high)),
                {BinaryRegion(dtype, "stablehlo.add")});
}

Value LowerReduceWindow(const Lowering& l) {
  const ir::Combiner combiner = ir::ReductionOf(l.inst.op);
  const ir::DType dtype = l.inst.shape.dtype;
  Value init = l.w.Splat(Scalar(dtype), IdentityText(dtype, combiner));
  return l.w.Op("stablehlo.reduce_window", {l.operands[0], init}, l.inst.shape,
                absl::StrCat("window_dimensions = ", I64Array(l.Attr("window_dimensions")),
                             OptionalArray("window_strides", l.Attr("window_strides")),
                             OptionalArray("base_dilations", l.Attr("base_dilation")),
                             OptionalArray("window_dilations", l.Attr("window_dilation")),
                             OptionalPadding(l.Attr("padding_low"), l.Attr("padding_high"))),
                {BinaryRegion(dtype, CombinerOpName(combiner))});
}

// Select with GE (the first maximum wins ties), scatter with add, from +0.
Value LowerSelectAndScatter(const Lowering& l) {
  const ir::DType dtype = l.inst.shape.dtype;
  Value zero = l.w.Splat(Scalar(dtype), ScalarText(dtype, 0));
  Region select{{Scalar(dtype), Scalar(dtype)}, [](Writer& w, const std::vector<Value>& args) {
                  w.Return({w.Compare("GE", args[0], args[1])});
                }};
  return l.w.Op("stablehlo.select_and_scatter", {l.operands[0], l.operands[1], zero}, l.inst.shape,
                absl::StrCat("window_dimensions = ", I64Array(l.Attr("window_dimensions")),
                             OptionalArray("window_strides", l.Attr("window_strides")),
                             OptionalPadding(l.Attr("padding_low"), l.Attr("padding_high"))),
                {select, BinaryRegion(dtype, "stablehlo.add")});
}

// replica_groups={0,2,1,3}, group_size={2}: dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>.
Value LowerAllReduce(const Lowering& l) {
  const std::vector<int64_t>& ids = l.Attr("replica_groups");
  const int64_t size = l.Single("group_size");
  const int64_t groups = size > 0 ? static_cast<int64_t>(ids.size()) / size : 0;
  std::string text = "replica_groups = dense<[";
  for (int64_t g = 0; g < groups; ++g) {
    text.append(g == 0 ? "[" : ", [");
    for (int64_t k = 0; k < size; ++k) {
      absl::StrAppend(&text, k == 0 ? "" : ", ", ids[static_cast<size_t>(g * size + k)]);
    }
    text.push_back(']');
  }
  absl::StrAppend(&text, "]> : tensor<", groups, "x", size, "xi64>");
  const ir::DType dtype = l.inst.shape.dtype;
  return l.w.Op("stablehlo.all_reduce", l.operands, l.inst.shape, text,
                {BinaryRegion(dtype, CombinerOpName(ir::ReductionOf(l.inst.op)))});
}

}  // namespace seam::stablehlo::internal
