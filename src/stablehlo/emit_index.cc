// Lowerings of the indexing ops and the ones with seam's own semantics: gather, scatter_*
// (indices clamped first, as seam clamps), rng_bit_generator (the plugin's Philox on a
// ui64[3] state) and argsort (a stable two-operand sort, -0 == +0, NaN above +inf)
// (docs/stablehlo.md, "Op by op").
#include "absl/strings/str_cat.h"
#include "src/ir/gather.h"
#include "src/stablehlo/emit_internal.h"

namespace seam::stablehlo::internal {
namespace {

// The index array's type's literal of `values` (s32 or s64).
ir::Literal IndexLiteral(ir::DType dtype, const std::vector<int64_t>& values) {
  const std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  if (dtype == ir::DType::kS64) return ir::Literal::FromS64(values, dims);
  return ir::Literal::FromS32(std::vector<int32_t>(values.begin(), values.end()), dims);
}

// The largest start of each index vector entry: operand dimension minus the window's size
// along it (1 for an inserted dimension).
std::vector<int64_t> LargestStarts(const ir::ScatterDims& d, const ir::Shape& operand,
                                   const ir::Shape& updates) {
  std::vector<int64_t> window(operand.dims.size(), 1);
  size_t next = 0;
  for (size_t dim = 0; dim < operand.dims.size(); ++dim) {
    bool inserted = false;
    for (int64_t i : d.inserted_window_dims) inserted = inserted || i == static_cast<int64_t>(dim);
    if (!inserted && next < d.update_window_dims.size()) {
      window[dim] = updates.dims[static_cast<size_t>(d.update_window_dims[next++])];
    }
  }
  std::vector<int64_t> largest;
  for (int64_t dim : d.scatter_dims_to_operand_dims) {
    largest.push_back(operand.dims[static_cast<size_t>(dim)] - window[static_cast<size_t>(dim)]);
  }
  return largest;
}

// clamp(0, indices, largest start), entry by entry along index_vector_dim.
Value ClampIndices(Writer& w, const Value& indices, const ir::ScatterDims& d,
                   const std::vector<int64_t>& largest) {
  const ir::Shape& shape = indices.shape;
  Value zero = w.Splat(shape, "0");
  Value high;
  if (AllAre(largest, largest.empty() ? 0 : largest.front())) {
    high = w.Splat(shape, absl::StrCat(largest.empty() ? 0 : largest.front()));
  } else {
    Value vector = w.Constant(IndexLiteral(shape.dtype, largest));
    high = w.Op("stablehlo.broadcast_in_dim", {vector}, shape,
                absl::StrCat("broadcast_dimensions = ", I64Array({d.index_vector_dim})));
  }
  return w.Op("stablehlo.clamp", {zero, indices, high}, shape);
}

// One side of the argsort comparator: -0 becomes +0, every NaN the positive quiet NaN, so
// that TOTALORDER orders as seam does (NaN above +inf, all NaNs equal, -0 == +0).
Value Canonical(Writer& w, const Value& v) {
  const ir::DType dtype = v.shape.dtype;
  Value zero = w.Splat(v.shape, ScalarText(dtype, 0));
  Value nan = w.Splat(v.shape, dtype == ir::DType::kF64    ? "0x7FF8000000000000"
                               : dtype == ir::DType::kBF16 ? "0x7FC0"
                                                           : "0x7FC00000");
  Value unsigned_zero = w.Select(w.Compare("EQ", v, zero), zero, v);
  return w.Select(w.Compare("NE", v, v), nan, unsigned_zero);
}

}  // namespace

Value LowerGather(const Lowering& l) {
  const ir::GatherDims d = ir::GatherDimsOf(l.inst);
  std::string numbers = "dimension_numbers = #stablehlo.gather<";
  AppendField(&numbers, "offset_dims", d.offset_dims);
  AppendField(&numbers, "collapsed_slice_dims", d.collapsed_slice_dims);
  AppendField(&numbers, "start_index_map", d.start_index_map);
  absl::StrAppend(&numbers, numbers.back() == '<' ? "" : ", ",
                  "index_vector_dim = ", d.index_vector_dim, ">");
  return l.w.Op("stablehlo.gather", l.operands, l.inst.shape,
                absl::StrCat(numbers, ", slice_sizes = ", I64Array(d.slice_sizes)));
}

Value LowerScatter(const Lowering& l) {
  const ir::ScatterDims d = ir::ScatterDimsOf(l.inst);
  const Value& operand = l.operands[0];
  const Value& updates = l.operands[2];
  Value indices =
      ClampIndices(l.w, l.operands[1], d, LargestStarts(d, operand.shape, updates.shape));
  std::string numbers = "scatter_dimension_numbers = #stablehlo.scatter<";
  AppendField(&numbers, "update_window_dims", d.update_window_dims);
  AppendField(&numbers, "inserted_window_dims", d.inserted_window_dims);
  AppendField(&numbers, "scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims);
  absl::StrAppend(&numbers, numbers.back() == '<' ? "" : ", ",
                  "index_vector_dim = ", d.index_vector_dim, ">");
  const ir::DType dtype = operand.shape.dtype;
  Region body =
      l.inst.op == ir::Op::kScatterAdd
          ? BinaryRegion(dtype, "stablehlo.add")
          : Region{{Scalar(dtype), Scalar(dtype)},
                   [](Writer& w, const std::vector<Value>& args) { w.Return({args[1]}); }};
  return l.w.Op("stablehlo.scatter", {operand, indices, updates}, l.inst.shape, numbers, {body});
}

// state = bitcast_convert(concatenate(reshape(key), counter)) : tensor<3xui64>; the bits are
// the plugin's Philox (docs/stablehlo.md, "Random numbers").
Value LowerRngBitGenerator(const Lowering& l) {
  const ir::Shape one{ir::DType::kS64, {1}};
  const ir::Shape three{ir::DType::kS64, {3}};
  Value key = l.w.Op("stablehlo.reshape", {l.operands[0]}, one);
  Value words = l.w.Op("stablehlo.concatenate", {key, l.operands[1]}, three, "dimension = 0 : i64");
  const Value state_type{"", three, "tensor<3xui64>"};
  Value state = l.w.TypedOps("stablehlo.bitcast_convert", {words}, {state_type}).front();
  return l.w
      .TypedOps("stablehlo.rng_bit_generator", {state}, {state_type, Value{"", l.inst.shape, ""}},
                "rng_algorithm = #stablehlo<rng_algorithm PHILOX>")
      .at(1);
}

Value LowerArgsort(const Lowering& l) {
  const Value& x = l.operands[0];
  const ir::DType dtype = x.shape.dtype;
  const int64_t axis = l.Single("axis");
  const bool descending = l.Single("descending") != 0;
  Value iota = l.w.Op("stablehlo.iota", {}, ir::Shape{ir::DType::kS64, x.shape.dims},
                      absl::StrCat("iota_dimension = ", axis, " : i64"));
  const ir::Shape value = Scalar(dtype);
  const ir::Shape index = Scalar(ir::DType::kS64);
  Region comparator{{value, value, index, index},
                    [dtype, descending](Writer& w, const std::vector<Value>& args) {
                      const char* direction = descending ? "GT" : "LT";
                      if (!ir::IsFloat(dtype)) {
                        w.Return({w.Compare(direction, args[0], args[1])});
                        return;
                      }
                      Value a = Canonical(w, args[0]);
                      Value b = Canonical(w, args[1]);
                      w.Return({w.Compare(direction, a, b, "TOTALORDER")});
                    }};
  return l.w
      .Ops("stablehlo.sort", {x, iota}, {x.shape, iota.shape},
           absl::StrCat("dimension = ", axis, " : i64, is_stable = true"), {comparator})
      .at(1);
}

}  // namespace seam::stablehlo::internal
