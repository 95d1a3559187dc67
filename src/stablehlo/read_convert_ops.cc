// The StableHLO reader's mapping of the ops with bodies or structured attributes: reduce
// (and the argmax/argmin two-operand reduce), reduce_window (and cumsum), convolution,
// select_and_scatter, gather, scatter, the random state and rng_bit_generator, sort (as
// argsort) and all_reduce (docs/stablehlo.md "Op by op").
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/stablehlo/read_convert.h"

namespace seam::stablehlo::convert {
namespace {

using syntax::ErrorAt;
using syntax::Quote;

// The bytes of `combiner`'s identity in `dtype` (sum: +0; floats also accept -0 below).
std::vector<uint8_t> IdentityBytes(ir::DType dtype, ir::Combiner combiner) {
  std::vector<uint8_t> out(ir::DTypeSize(dtype));
  auto put = [&](auto v) { std::memcpy(out.data(), &v, sizeof(v)); };
  switch (dtype) {
    case ir::DType::kF32:
      put(ir::ReductionIdentity<float>(combiner));
      break;
    case ir::DType::kF64:
      put(ir::ReductionIdentity<double>(combiner));
      break;
    case ir::DType::kBF16: {
      float f = ir::ReductionIdentity<float>(combiner);
      uint32_t w;
      std::memcpy(&w, &f, 4);
      put(static_cast<uint16_t>(w >> 16));
      break;
    }
    case ir::DType::kS32:
      put(ir::ReductionIdentity<int32_t>(combiner));
      break;
    case ir::DType::kS64:
      put(ir::ReductionIdentity<int64_t>(combiner));
      break;
    case ir::DType::kPred:
      break;
  }
  return out;
}

ir::Combiner CombinerOf(Body body) {
  switch (body) {
    case Body::kAdd:
      return ir::Combiner::kSum;
    case Body::kMultiply:
      return ir::Combiner::kProduct;
    case Body::kMaximum:
      return ir::Combiner::kMax;
    case Body::kMinimum:
      return ir::Combiner::kMin;
    default:
      return ir::Combiner::kNone;
  }
}

Body BodyOfAppliedOp(std::string_view name) {
  if (name == "stablehlo.add") return Body::kAdd;
  if (name == "stablehlo.multiply") return Body::kMultiply;
  if (name == "stablehlo.maximum") return Body::kMaximum;
  if (name == "stablehlo.minimum") return Body::kMinimum;
  return Body::kOther;
}

}  // namespace

// Whether instruction `inst` is a scalar constant holding `combiner`'s identity.
static bool IsIdentity(const ir::Instruction& inst, ir::Combiner combiner) {
  if (inst.op != ir::Op::kConstant || inst.shape.num_elements() != 1) return false;
  if (inst.literal.bytes == IdentityBytes(inst.shape.dtype, combiner)) return true;
  if (combiner != ir::Combiner::kSum || !ir::IsFloat(inst.shape.dtype)) return false;
  std::vector<uint8_t> zero(inst.literal.bytes.size());  // -0: only the sign bit set
  zero.back() = 0x80;
  return inst.literal.bytes == zero;
}

static absl::Status RegionCount(const Op& op, size_t n) {
  if (op.regions.size() != n) {
    return ErrorAt(op.name_pos,
                   Cat(Quote(op.name), " needs ", n, " region(s), found ", op.regions.size()));
  }
  return absl::OkStatus();
}

absl::Status Converter::ConvertReduce(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"dimensions", " applies"}));
  if (op.operands.size() != 2 && op.operands.size() != 4) {
    return ErrorAt(op.name_pos,
                   "the reader takes reduce of one operand, or of two (argmax/argmin)");
  }
  if (op.operand_types.size() != op.operands.size())
    return Operands(op, op.operands.size(), 1, nullptr);
  const std::string_view element = op.operand_types[0].element;
  Body body = Body::kOther;
  Pos body_pos = op.name_pos;
  if (const Attr* applied = Find(op, " applies"); applied != nullptr) {
    body = BodyOfAppliedOp(applied->word);
    body_pos = applied->pos;
  } else {
    SEAM_RETURN_IF_ERROR(RegionCount(op, 1));
    body = ClassifyBody(op.regions[0], element);
    body_pos = op.regions[0].pos;
  }
  if (op.operands.size() == 4) {
    if (body != Body::kArgMax && body != Body::kArgMin) {
      return ErrorAt(body_pos,
                     "unrecognised body of a two-operand reduce (the reader takes the "
                     "argmax/argmin body of docs/stablehlo.md)");
    }
    return ConvertArgReduce(op, body);
  }
  const ir::Combiner combiner = CombinerOf(body);
  if (combiner == ir::Combiner::kNone) {
    return ErrorAt(body_pos,
                   "unrecognised reduce body (the reader takes one add, multiply, "
                   "maximum or minimum of the two arguments)");
  }
  std::vector<int> ops;
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &ops));
  SEAM_ASSIGN_OR_RETURN(const Attr* dims, Need(op, "dimensions"));
  ir::Instruction inst;
  inst.op = combiner == ir::Combiner::kSum       ? ir::Op::kReduceSum
            : combiner == ir::Combiner::kProduct ? ir::Op::kReduceProduct
            : combiner == ir::Combiner::kMax     ? ir::Op::kReduceMax
                                                 : ir::Op::kReduceMin;
  inst.operands = {ops[0]};
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IntsOf(*dims, "dimensions"));
  std::sort(axes.begin(), axes.end());
  inst.attrs["axes"] = axes;
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  const ir::Instruction& init = program_.instructions[ops[1]];
  if (!IsIdentity(init, combiner)) {
    // A start value other than the identity is folded in after the reduction.
    ir::Instruction b;
    b.op = ir::Op::kBroadcastInDim;
    b.operands = {ops[1]};
    b.attrs["dims"] = {};
    b.shape = program_.instructions[index].shape;
    const ir::Shape shape = b.shape;
    int broadcast = AddShaped(std::move(b), op.pos);
    ir::Instruction combine;
    combine.op = ir::CombinerBinaryOp(combiner);
    combine.operands = {index, broadcast};
    combine.shape = shape;
    index = AddShaped(std::move(combine), op.pos);
  }
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertArgReduce(const Op& op, Body body) {
  std::vector<int> ops;
  SEAM_RETURN_IF_ERROR(Operands(op, 4, 2, &ops));
  SEAM_ASSIGN_OR_RETURN(const Attr* dims, Need(op, "dimensions"));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IntsOf(*dims, "dimensions"));
  if (axes.size() != 1) return ErrorAt(dims->pos, "an argmax/argmin reduce has one dimension");
  const ir::Instruction& iota = program_.instructions[ops[1]];
  if (iota.op != ir::Op::kIota || iota.shape.dtype != ir::DType::kS64 ||
      iota.attrs.at("dimension") != axes) {
    return ErrorAt(op.operands[1].pos,
                   "operand 1 of an argmax/argmin reduce must be an i64 iota along the reduced "
                   "dimension");
  }
  ir::Instruction inst;
  inst.op = body == Body::kArgMax ? ir::Op::kArgMax : ir::Op::kArgMin;
  inst.operands = {ops[0]};
  inst.attrs["axis"] = axes;
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[1], op.pos));
  Value values;
  values.type = op.result_types[0];
  values.unsupported = Cat("result #0 (the values) of the ", BodyName(body),
                           " reduce is not read by seam; only the indices (#1) are");
  SEAM_RETURN_IF_ERROR(Define(op, 0, values));
  return Define(op, 1, Plain(index, op.result_types[1]));
}

absl::Status Converter::ConvertReduceWindow(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"window_dimensions", "window_strides", "base_dilations",
                                      "window_dilations", "padding"}));
  std::vector<int> ops;
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &ops));
  SEAM_RETURN_IF_ERROR(RegionCount(op, 1));
  const Type& type = op.operand_types[0];
  const auto rank = static_cast<int64_t>(type.dims.size());
  const Body body = ClassifyBody(op.regions[0], type.element);
  const ir::Combiner combiner = CombinerOf(body);
  if (combiner == ir::Combiner::kNone || combiner == ir::Combiner::kProduct) {
    return ErrorAt(op.regions[0].pos,
                   "unrecognised reduce_window body (the reader takes one add, "
                   "maximum or minimum of the two arguments)");
  }
  if (!IsIdentity(program_.instructions[ops[1]], combiner)) {
    return ErrorAt(op.operands[1].pos,
                   "the init value of reduce_window must be a constant "
                   "identity of its body (0, -inf or the lowest, +inf or the "
                   "highest)");
  }
  auto list = [&](const char* name, int64_t fill) -> absl::StatusOr<std::vector<int64_t>> {
    const Attr* a = Find(op, name);
    if (a == nullptr) return std::vector<int64_t>(rank, fill);
    return IntsOf(*a, name);
  };
  SEAM_ASSIGN_OR_RETURN(const Attr* wd, Need(op, "window_dimensions"));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> window, IntsOf(*wd, "window_dimensions"));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> strides, list("window_strides", 1));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> base, list("base_dilations", 1));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, list("window_dilations", 1));
  std::vector<int64_t> low(rank, 0), high(rank, 0);
  if (const Attr* p = Find(op, "padding"); p != nullptr) {
    SEAM_RETURN_IF_ERROR(PaddingOf(*p, rank, &low, &high));
  }
  // cumsum: an add window of the whole axis, padded below by n - 1 (docs/stablehlo.md).
  int64_t axis = -1;
  bool cumsum = body == Body::kAdd && window.size() == static_cast<size_t>(rank);
  for (int64_t d = 0; cumsum && d < rank; ++d) {
    cumsum = strides[d] == 1 && base[d] == 1 && dilation[d] == 1 && high[d] == 0;
    if (cumsum && window[d] > 1 && window[d] == type.dims[d] && low[d] == window[d] - 1 &&
        axis < 0) {
      axis = d;
    } else if (cumsum && (window[d] != 1 || low[d] != 0)) {
      cumsum = false;
    }
  }
  ir::Instruction inst;
  inst.operands = {ops[0]};
  if (cumsum && axis >= 0) {
    inst.op = ir::Op::kCumsum;
    inst.attrs["axis"] = {axis};
  } else if (cumsum && !(type.element[0] == 'f' || type.element == "bf16")) {
    // A window of one element everywhere: the operand itself (cumsum of an axis of size 1).
    return Define(op, 0, Plain(ops[0], op.result_types[0]));
  } else {
    inst.op = combiner == ir::Combiner::kSum   ? ir::Op::kReduceWindowSum
              : combiner == ir::Combiner::kMax ? ir::Op::kReduceWindowMax
                                               : ir::Op::kReduceWindowMin;
    inst.attrs = {{"window_dimensions", window}, {"window_strides", strides},
                  {"base_dilation", base},       {"window_dilation", dilation},
                  {"padding_low", low},          {"padding_high", high}};
  }
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertConvolution(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(
      op, {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal",
           "dimension_numbers", "feature_group_count", "batch_group_count", "precision_config"}));
  ir::Instruction inst;
  inst.op = ir::Op::kConvolution;
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &inst.operands));
  SEAM_ASSIGN_OR_RETURN(const Attr* dn, Need(op, "dimension_numbers"));
  if (dn->kind != Attr::kStruct || dn->text != "stablehlo.conv") {
    return ErrorAt(dn->pos, "dimension_numbers must be #stablehlo.conv<...>");
  }
  static const char* const kDims[][2] = {
      {"input_batch_dimension", "input_batch_dim"},
      {"input_feature_dimension", "input_feature_dim"},
      {"input_spatial_dimensions", "input_spatial_dims"},
      {"kernel_input_feature_dimension", "kernel_input_feature_dim"},
      {"kernel_output_feature_dimension", "kernel_output_feature_dim"},
      {"kernel_spatial_dimensions", "kernel_spatial_dims"},
      {"output_batch_dimension", "output_batch_dim"},
      {"output_feature_dimension", "output_feature_dim"},
      {"output_spatial_dimensions", "output_spatial_dims"}};
  for (const auto& [name, attr] : dn->fields) {
    bool known = false;
    for (const auto& d : kDims) known = known || name == d[0];
    if (!known) return ErrorAt(attr.pos, Cat("unknown field ", Quote(name), " of #stablehlo.conv"));
  }
  for (const auto& d : kDims) {
    auto it = dn->fields.find(d[0]);
    if (it == dn->fields.end()) return ErrorAt(dn->pos, Cat("#stablehlo.conv lacks ", d[0]));
    if (it->second.kind == Attr::kInt) {
      inst.attrs[d[1]] = {it->second.i};
    } else {
      SEAM_ASSIGN_OR_RETURN(inst.attrs[d[1]], IntsOf(it->second, d[0]));
    }
  }
  const auto spatial = static_cast<int64_t>(inst.attrs["input_spatial_dims"].size());
  auto list = [&](const char* name, int64_t fill) -> absl::StatusOr<std::vector<int64_t>> {
    const Attr* a = Find(op, name);
    if (a == nullptr) return std::vector<int64_t>(spatial, fill);
    return IntsOf(*a, name);
  };
  SEAM_ASSIGN_OR_RETURN(inst.attrs["window_strides"], list("window_strides", 1));
  SEAM_ASSIGN_OR_RETURN(inst.attrs["lhs_dilation"], list("lhs_dilation", 1));
  SEAM_ASSIGN_OR_RETURN(inst.attrs["rhs_dilation"], list("rhs_dilation", 1));
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> reversal, list("window_reversal", 0));
  for (int64_t r : reversal) {
    if (r != 0)
      return ErrorAt(Find(op, "window_reversal")->pos, "window_reversal is not supported");
  }
  std::vector<int64_t> low(spatial, 0), high(spatial, 0);
  if (const Attr* p = Find(op, "padding"); p != nullptr) {
    SEAM_RETURN_IF_ERROR(PaddingOf(*p, spatial, &low, &high));
  }
  inst.attrs["padding_low"] = low;
  inst.attrs["padding_high"] = high;
  int64_t groups = 1;
  if (const Attr* g = Find(op, "feature_group_count"); g != nullptr) groups = g->i;
  if (const Attr* g = Find(op, "batch_group_count"); g != nullptr && g->i != 1) {
    return ErrorAt(g->pos, Cat("batch_group_count ", g->i, " is not supported (only 1)"));
  }
  inst.attrs["feature_group_count"] = {groups};
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertSelectAndScatter(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"window_dimensions", "window_strides", "padding"}));
  std::vector<int> ops;
  SEAM_RETURN_IF_ERROR(Operands(op, 3, 1, &ops));
  SEAM_RETURN_IF_ERROR(RegionCount(op, 2));
  const Type& type = op.operand_types[0];
  const auto rank = static_cast<int64_t>(type.dims.size());
  if (ClassifyBody(op.regions[0], type.element) != Body::kCompareGe) {
    return ErrorAt(op.regions[0].pos, "unrecognised select region (the reader takes compare GE)");
  }
  if (ClassifyBody(op.regions[1], type.element) != Body::kAdd) {
    return ErrorAt(op.regions[1].pos, "unrecognised scatter region (the reader takes add)");
  }
  if (!IsIdentity(program_.instructions[ops[2]], ir::Combiner::kSum)) {
    return ErrorAt(op.operands[2].pos, "the init value of select_and_scatter must be a constant 0");
  }
  ir::Instruction inst;
  inst.op = ir::Op::kSelectAndScatter;
  inst.operands = {ops[0], ops[1]};
  SEAM_ASSIGN_OR_RETURN(const Attr* wd, Need(op, "window_dimensions"));
  SEAM_ASSIGN_OR_RETURN(inst.attrs["window_dimensions"], IntsOf(*wd, "window_dimensions"));
  inst.attrs["window_strides"].assign(rank, 1);
  if (const Attr* s = Find(op, "window_strides"); s != nullptr) {
    SEAM_ASSIGN_OR_RETURN(inst.attrs["window_strides"], IntsOf(*s, "window_strides"));
  }
  std::vector<int64_t> low(rank, 0), high(rank, 0);
  if (const Attr* p = Find(op, "padding"); p != nullptr) {
    SEAM_RETURN_IF_ERROR(PaddingOf(*p, rank, &low, &high));
  }
  inst.attrs["padding_low"] = low;
  inst.attrs["padding_high"] = high;
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

}  // namespace seam::stablehlo::convert
