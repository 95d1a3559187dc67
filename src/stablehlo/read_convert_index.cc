// The StableHLO reader's mapping of gather, scatter, the random state and
// rng_bit_generator, sort (as argsort) and all_reduce (docs/stablehlo.md "Op by op").
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/stablehlo/read_convert.h"

namespace seam::stablehlo::convert {
namespace {

using syntax::ErrorAt;
using syntax::Quote;

// Copies the fields of a #stablehlo.gather / #stablehlo.scatter struct into seam's
// attributes; `empty` fields (the batching dimensions) must be absent or empty.
absl::Status DimensionFields(const Attr& dn, const char* struct_name,
                             std::initializer_list<const char*> fields,
                             std::initializer_list<const char*> empty, ir::Attributes* attrs) {
  if (dn.kind != Attr::kStruct || dn.text != struct_name) {
    return ErrorAt(dn.pos, Cat("expected #", struct_name, "<...>"));
  }
  for (const auto& [name, attr] : dn.fields) {
    bool known = false;
    for (const char* f : fields) known = known || name == f;
    bool must_be_empty = false;
    for (const char* f : empty) must_be_empty = must_be_empty || name == f;
    if (must_be_empty) {
      SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> v, IntsOf(attr, name));
      if (!v.empty()) {
        return ErrorAt(attr.pos, Cat(Quote(name), " is not supported (seam's ",
                                     "gather and scatter have no batching dimensions)"));
      }
    } else if (!known) {
      return ErrorAt(attr.pos, Cat("unknown field ", Quote(name), " of #", struct_name));
    }
  }
  for (const char* f : fields) {
    auto it = dn.fields.find(f);
    std::vector<int64_t>& out = (*attrs)[f];
    if (it == dn.fields.end()) {
      if (std::string(f) == "index_vector_dim")
        return ErrorAt(dn.pos, "index_vector_dim is missing");
      continue;
    }
    if (it->second.kind == Attr::kInt) {
      out = {it->second.i};
    } else {
      SEAM_ASSIGN_OR_RETURN(out, IntsOf(it->second, f));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Converter::ConvertGather(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"dimension_numbers", "slice_sizes", "indices_are_sorted"}));
  ir::Instruction inst;
  inst.op = ir::Op::kGather;
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &inst.operands));
  SEAM_ASSIGN_OR_RETURN(const Attr* dn, Need(op, "dimension_numbers"));
  SEAM_RETURN_IF_ERROR(DimensionFields(
      *dn, "stablehlo.gather",
      {"offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim"},
      {"operand_batching_dims", "start_indices_batching_dims"}, &inst.attrs));
  SEAM_ASSIGN_OR_RETURN(const Attr* sizes, Need(op, "slice_sizes"));
  SEAM_ASSIGN_OR_RETURN(inst.attrs["slice_sizes"], IntsOf(*sizes, "slice_sizes"));
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertScatter(const Op& op) {
  SEAM_RETURN_IF_ERROR(
      OnlyAttrs(op, {"scatter_dimension_numbers", "indices_are_sorted", "unique_indices"}));
  ir::Instruction inst;
  SEAM_RETURN_IF_ERROR(Operands(op, 3, 1, &inst.operands));
  if (op.regions.size() != 1) return ErrorAt(op.name_pos, "scatter needs one region");
  const Body body = ClassifyBody(op.regions[0], op.operand_types[0].element);
  if (body == Body::kAdd) {
    inst.op = ir::Op::kScatterAdd;
  } else if (body == Body::kSecondArgument) {
    inst.op = ir::Op::kScatterReplace;
  } else {
    return ErrorAt(op.regions[0].pos,
                   "unrecognised scatter body (the reader takes add, or "
                   "returning the second argument)");
  }
  SEAM_ASSIGN_OR_RETURN(const Attr* dn, Need(op, "scatter_dimension_numbers"));
  SEAM_RETURN_IF_ERROR(DimensionFields(*dn, "stablehlo.scatter",
                                       {"update_window_dims", "inserted_window_dims",
                                        "scatter_dims_to_operand_dims", "index_vector_dim"},
                                       {"input_batching_dims", "scatter_indices_batching_dims"},
                                       &inst.attrs));
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

// Only the random state: bitcast_convert of an i64[3] value to ui64[3].
absl::Status Converter::ConvertBitcast(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {}));
  const Type state{{3}, "ui64", {}};
  const Type words{{3}, "i64", {}};
  if (op.operands.size() != 1 || op.operand_types.size() != 1 || op.result_types.size() != 1 ||
      !(op.operand_types[0] == words) || !(op.result_types[0] == state)) {
    return ErrorAt(op.name_pos,
                   "stablehlo.bitcast_convert is read only as the random state: "
                   "(tensor<3xi64>) -> tensor<3xui64>");
  }
  SEAM_ASSIGN_OR_RETURN(const Value* v, Use(op.operands[0], &op.operand_types[0]));
  Value value;
  value.type = op.result_types[0];
  value.state_of = v->inst;
  return Define(op, 0, value);
}

absl::Status Converter::ConvertRng(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"rng_algorithm"}));
  SEAM_ASSIGN_OR_RETURN(const Attr* algorithm, Need(op, "rng_algorithm"));
  if (algorithm->word != "PHILOX" && algorithm->word != "DEFAULT") {
    return ErrorAt(algorithm->pos, Cat("rng_algorithm ", Quote(algorithm->word),
                                       " is not supported (PHILOX or DEFAULT)"));
  }
  if (op.operands.size() != 1 || op.result_types.size() != 2 || op.operand_types.size() != 1) {
    return ErrorAt(op.name_pos, "rng_bit_generator takes the state and gives (state, bits)");
  }
  SEAM_ASSIGN_OR_RETURN(const Value* state, Use(op.operands[0], &op.operand_types[0]));
  if (state->state_of < 0) {
    return ErrorAt(op.operands[0].pos,
                   "the state of rng_bit_generator must be a "
                   "stablehlo.bitcast_convert of a tensor<3xi64>");
  }
  // key = word 0, counter = words 1 and 2 (docs/stablehlo.md "Random numbers").
  ir::Instruction key_slice;
  key_slice.op = ir::Op::kSlice;
  key_slice.operands = {state->state_of};
  key_slice.attrs = {{"start", {0}}, {"limit", {1}}, {"stride", {1}}};
  key_slice.shape = {ir::DType::kS64, {1}};
  const int ks = AddShaped(std::move(key_slice), op.pos);
  ir::Instruction key;
  key.op = ir::Op::kReshape;
  key.operands = {ks};
  key.shape = {ir::DType::kS64, {}};
  const int k = AddShaped(std::move(key), op.pos);
  ir::Instruction counter;
  counter.op = ir::Op::kSlice;
  counter.operands = {state->state_of};
  counter.attrs = {{"start", {1}}, {"limit", {3}}, {"stride", {1}}};
  counter.shape = {ir::DType::kS64, {2}};
  const int c = AddShaped(std::move(counter), op.pos);
  ir::Instruction inst;
  inst.op = ir::Op::kRngBitGenerator;
  inst.operands = {k, c};
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[1], op.pos));
  Value next;
  next.type = op.result_types[0];
  next.unsupported =
      "the new state (result #0) of rng_bit_generator is not read by seam: a "
      "program draws again with a new counter";
  SEAM_RETURN_IF_ERROR(Define(op, 0, next));
  return Define(op, 1, Plain(index, op.result_types[1]));
}

absl::Status Converter::ConvertSort(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"dimension", "is_stable"}));
  std::vector<int> ops;
  if (op.operands.size() != 2) {
    return ErrorAt(op.name_pos,
                   "the reader takes sort only as argsort: two operands, the "
                   "values and an i64 iota");
  }
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 2, &ops));
  if (op.regions.size() != 1) return ErrorAt(op.name_pos, "sort needs one comparator region");
  const Body body = ClassifyBody(op.regions[0], op.operand_types[0].element);
  if (body != Body::kSortAscending && body != Body::kSortDescending) {
    return ErrorAt(op.regions[0].pos,
                   "unrecognised sort comparator (the reader takes seam's "
                   "argsort order, docs/stablehlo.md)");
  }
  int64_t axis = -1;
  if (const Attr* d = Find(op, "dimension"); d != nullptr) axis = d->i;
  if (axis < 0) axis += static_cast<int64_t>(op.operand_types[0].dims.size());
  const ir::Instruction& iota = program_.instructions[ops[1]];
  if (iota.op != ir::Op::kIota || iota.shape.dtype != ir::DType::kS64 ||
      iota.attrs.at("dimension") != std::vector<int64_t>{axis}) {
    return ErrorAt(op.operands[1].pos,
                   "operand 1 of an argsort must be an i64 iota along the sorted dimension");
  }
  ir::Instruction inst;
  inst.op = ir::Op::kArgsort;
  inst.operands = {ops[0]};
  inst.attrs = {{"axis", {axis}}, {"descending", {body == Body::kSortDescending ? 1 : 0}}};
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[1], op.pos));
  Value values;
  values.type = op.result_types[0];
  values.unsupported =
      "result #0 (the sorted values) of a sort is not read by seam; only the "
      "indices (#1) are";
  SEAM_RETURN_IF_ERROR(Define(op, 0, values));
  return Define(op, 1, Plain(index, op.result_types[1]));
}

absl::Status Converter::ConvertAllReduce(const Op& op) {
  SEAM_RETURN_IF_ERROR(
      OnlyAttrs(op, {"replica_groups", "channel_handle", "use_global_device_ids"}));
  ir::Instruction inst;
  SEAM_RETURN_IF_ERROR(Operands(op, 1, 1, &inst.operands));
  if (op.regions.size() != 1) return ErrorAt(op.name_pos, "all_reduce needs one region");
  const Body body = ClassifyBody(op.regions[0], op.operand_types[0].element);
  if (body == Body::kAdd) {
    inst.op = ir::Op::kAllReduceSum;
  } else if (body == Body::kMaximum) {
    inst.op = ir::Op::kAllReduceMax;
  } else if (body == Body::kMinimum) {
    inst.op = ir::Op::kAllReduceMin;
  } else {
    return ErrorAt(op.regions[0].pos,
                   "unrecognised all_reduce body (the reader takes add, "
                   "maximum or minimum)");
  }
  SEAM_ASSIGN_OR_RETURN(const Attr* groups, Need(op, "replica_groups"));
  if (groups->kind != Attr::kDense || groups->type.dims.size() != 2) {
    return ErrorAt(groups->pos, "replica_groups must be dense<...> : tensor<GxSxi64>");
  }
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> ids, IntsOf(*groups, "replica_groups"));
  int64_t size = groups->type.dims[1];
  if (ids.empty()) {  // no groups: every replica in one
    for (int64_t r = 0; r < program_.replica_count; ++r) ids.push_back(r);
    size = program_.replica_count;
  } else if (static_cast<__int128>(ids.size()) !=
             static_cast<__int128>(groups->type.dims[0]) * size) {
    return ErrorAt(groups->pos, Cat("replica_groups has ", ids.size(), " values, which type ",
                                    groups->type.ToString(), " does not hold"));
  }
  inst.attrs = {{"replica_groups", ids}, {"group_size", {size}}};
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

}  // namespace seam::stablehlo::convert
