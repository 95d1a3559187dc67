// The StableHLO reader's mapping to seam's IR: the module and function, values and their
// types, constants, iota, the elementwise ops, compare, data movement, dot_general and
// return. The other ops are in read_convert_ops.cc.
#include "src/stablehlo/read_convert.h"

#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/verifier.h"
#include "src/stablehlo/read.h"

namespace seam::stablehlo::convert {
namespace {

using syntax::ErrorAt;
using syntax::Quote;
using syntax::QuoteValue;

struct NamedOp {
  const char* name;
  ir::Op op;
  int arity;
};

// StableHLO ops that are one seam op with the same operands and no attributes.
constexpr NamedOp kSimpleOps[] = {
    {"stablehlo.negate", ir::Op::kNeg, 1},
    {"stablehlo.abs", ir::Op::kAbs, 1},
    {"stablehlo.sign", ir::Op::kSign, 1},
    {"stablehlo.exponential", ir::Op::kExp, 1},
    {"stablehlo.log", ir::Op::kLog, 1},
    {"stablehlo.log_plus_one", ir::Op::kLog1p, 1},
    {"stablehlo.tanh", ir::Op::kTanh, 1},
    {"stablehlo.logistic", ir::Op::kLogistic, 1},
    {"stablehlo.sqrt", ir::Op::kSqrt, 1},
    {"stablehlo.rsqrt", ir::Op::kRsqrt, 1},
    {"stablehlo.floor", ir::Op::kFloor, 1},
    {"stablehlo.ceil", ir::Op::kCeil, 1},
    {"stablehlo.not", ir::Op::kNot, 1},
    {"chlo.erf", ir::Op::kErf, 1},
    {"stablehlo.add", ir::Op::kAdd, 2},
    {"stablehlo.subtract", ir::Op::kSubtract, 2},
    {"stablehlo.multiply", ir::Op::kMultiply, 2},
    {"stablehlo.divide", ir::Op::kDivide, 2},
    {"stablehlo.remainder", ir::Op::kRemainder, 2},
    {"stablehlo.power", ir::Op::kPower, 2},
    {"stablehlo.maximum", ir::Op::kMaximum, 2},
    {"stablehlo.minimum", ir::Op::kMinimum, 2},
    {"stablehlo.and", ir::Op::kAnd, 2},
    {"stablehlo.or", ir::Op::kOr, 2},
    {"stablehlo.select", ir::Op::kSelect, 3},
    {"stablehlo.clamp", ir::Op::kClamp, 3},
    {"stablehlo.convert", ir::Op::kConvert, 1},
    {"stablehlo.reshape", ir::Op::kReshape, 1},
};

// Module and argument attributes that carry nothing seam's IR needs.
constexpr const char* kIgnoredModuleAttrs[] = {"mhlo.num_partitions",
                                               "mhlo.cross_program_prefetches",
                                               "mhlo.is_dynamic",
                                               "mhlo.use_auto_spmd_partitioning",
                                               "jax.uses_shape_polymorphism",
                                               "mhlo.frontend_attributes"};
constexpr const char* kIgnoredArgAttrs[] = {"jax.buffer_donor", "mhlo.sharding", "mhlo.layout_mode",
                                            "jax.arg_info", "mhlo.memory_kind"};

bool Listed(std::string_view name, const char* const* list, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (name == list[i]) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<const Converter::Value*> Converter::Use(const syntax::ValueUse& use,
                                                       const Type* type) {
  auto it = values_.find(ValueKey{use.name, use.index});
  if (it == values_.end()) {
    return ErrorAt(use.pos, Cat("use of undefined value ", QuoteValue(use.Key())));
  }
  const Value& value = it->second;
  if (!value.unsupported.empty()) return ErrorAt(use.pos, value.unsupported);
  if (type != nullptr && !(*type == value.type)) {
    return ErrorAt(use.pos,
                   Cat("value ", QuoteValue(use.Key()), " has type ", Quote(value.type.ToString()),
                       ", the op's type says ", Quote(type->ToString())));
  }
  return &value;
}

absl::Status Converter::Operands(const Op& op, size_t operands, size_t results,
                                 std::vector<int>* out) {
  if (op.operands.size() != operands) {
    return ErrorAt(op.name_pos, Cat(Quote(op.name), " takes ", operands, " operand(s), found ",
                                    op.operands.size()));
  }
  if (op.operand_types.size() != op.operands.size()) {
    return ErrorAt(op.name_pos, Cat(Quote(op.name), " has ", op.operands.size(), " operand(s) and ",
                                    op.operand_types.size(), " operand type(s)"));
  }
  if (op.result_types.size() != results ||
      (!op.result.empty() && op.num_results != static_cast<int64_t>(results))) {
    return ErrorAt(op.name_pos, Cat(Quote(op.name), " has ", results, " result(s) here, found ",
                                    op.result_types.size(), " result type(s)"));
  }
  for (size_t i = 0; i < op.operands.size(); ++i) {
    SEAM_ASSIGN_OR_RETURN(const Value* v, Use(op.operands[i], &op.operand_types[i]));
    if (v->state_of >= 0) {
      return ErrorAt(op.operands[i].pos, Cat("the random state ", QuoteValue(op.operands[i].Key()),
                                             " is read only by stablehlo.rng_bit_generator"));
    }
    out->push_back(v->inst);
  }
  return absl::OkStatus();
}

absl::Status Converter::OnlyAttrs(const Op& op, std::initializer_list<const char*> allowed) {
  for (const auto& [name, attr] : op.attrs) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || name == a;
    if (!ok) {
      return ErrorAt(attr.pos, Cat("unknown attribute ", Quote(name), " of ", Quote(op.name)));
    }
  }
  return absl::OkStatus();
}

const Attr* Converter::Find(const Op& op, const char* name) {
  auto it = op.attrs.find(name);
  return it == op.attrs.end() ? nullptr : &it->second;
}

absl::StatusOr<const Attr*> Converter::Need(const Op& op, const char* name) {
  const Attr* a = Find(op, name);
  if (a == nullptr) {
    return ErrorAt(op.name_pos, Cat(Quote(op.name), " needs the attribute ", Quote(name)));
  }
  return a;
}

absl::StatusOr<int> Converter::Add(ir::Instruction inst, const Type& type, Pos pos) {
  SEAM_ASSIGN_OR_RETURN(inst.shape, ShapeOf(type));
  return AddShaped(std::move(inst), pos);
}

int Converter::AddShaped(ir::Instruction inst, Pos pos) {
  program_.instructions.push_back(std::move(inst));
  positions_.push_back(pos);
  return static_cast<int>(program_.instructions.size()) - 1;
}

absl::Status Converter::Define(const Op& op, int64_t result, const Value& value) {
  if (op.result.empty()) return absl::OkStatus();
  // %x alone is result 0 (%x#0); an op written with one result name and no count gives
  // every result that name.
  const int64_t index = op.num_results > 1 ? result : 0;
  if (!values_.try_emplace(ValueKey{op.result, index}, value).second) {
    const std::string key =
        op.num_results > 1 ? Cat(op.result, "#", result) : std::string(op.result);
    return ErrorAt(op.pos, Cat("value ", QuoteValue(key), " is defined twice"));
  }
  return absl::OkStatus();
}

absl::Status Converter::ConvertSimple(const Op& op, ir::Op seam_op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {}));
  ir::Instruction inst;
  inst.op = seam_op;
  SEAM_RETURN_IF_ERROR(Operands(op, static_cast<size_t>(ir::OpArity(seam_op)), 1, &inst.operands));
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertConstant(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"value"}));
  std::vector<int> none;
  SEAM_RETURN_IF_ERROR(Operands(op, 0, 1, &none));
  SEAM_ASSIGN_OR_RETURN(const Attr* value, Need(op, "value"));
  if (!(value->type == op.result_types[0])) {
    return ErrorAt(value->pos, Cat("constant of type ", Quote(value->type.ToString()),
                                   ", the op's type says ", Quote(op.result_types[0].ToString())));
  }
  ir::Instruction inst;
  inst.op = ir::Op::kConstant;
  SEAM_ASSIGN_OR_RETURN(inst.shape, ShapeOf(op.result_types[0]));
  SEAM_ASSIGN_OR_RETURN(inst.literal, DenseLiteral(*value, inst.shape));
  int index = AddShaped(std::move(inst), op.pos);
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertCompare(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"comparison_direction", "compare_type"}));
  SEAM_ASSIGN_OR_RETURN(const Attr* dir, Need(op, "comparison_direction"));
  static const struct {
    const char* word;
    ir::Op op;
  } kDirs[] = {{"EQ", ir::Op::kEq}, {"NE", ir::Op::kNe}, {"LT", ir::Op::kLt},
               {"LE", ir::Op::kLe}, {"GT", ir::Op::kGt}, {"GE", ir::Op::kGe}};
  ir::Instruction inst;
  bool found = false;
  for (const auto& d : kDirs) {
    if (dir->kind == Attr::kEnum && dir->word == d.word) inst.op = d.op, found = true;
  }
  if (!found) {
    return ErrorAt(dir->pos, Cat("unknown comparison_direction ", Quote(dir->word)));
  }
  if (const Attr* type = Find(op, "compare_type"); type != nullptr) {
    const std::string_view w = type->word;
    if (w != "FLOAT" && w != "SIGNED" && w != "UNSIGNED" && w != "NOTYPE") {
      return ErrorAt(type->pos,
                     Cat("compare_type ", Quote(w), " is read only in an argsort comparator"));
    }
  }
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &inst.operands));
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

// iota, broadcast_in_dim, transpose, slice, concatenate, pad.
absl::Status Converter::ConvertDataMovement(const Op& op) {
  ir::Instruction inst;
  const std::string_view n = op.name;
  auto ints = [&](const char* attr, const char* seam_name) -> absl::Status {
    SEAM_ASSIGN_OR_RETURN(const Attr* a, Need(op, attr));
    SEAM_ASSIGN_OR_RETURN(inst.attrs[seam_name], IntsOf(*a, attr));
    return absl::OkStatus();
  };
  if (n == "stablehlo.iota") {
    inst.op = ir::Op::kIota;
    SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"iota_dimension"}));
    SEAM_RETURN_IF_ERROR(Operands(op, 0, 1, &inst.operands));
    SEAM_ASSIGN_OR_RETURN(const Attr* d, Need(op, "iota_dimension"));
    if (d->kind != Attr::kInt) return ErrorAt(d->pos, "iota_dimension must be an integer");
    inst.attrs["dimension"] = {d->i};
  } else if (n == "stablehlo.broadcast_in_dim") {
    inst.op = ir::Op::kBroadcastInDim;
    SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"broadcast_dimensions"}));
    SEAM_RETURN_IF_ERROR(Operands(op, 1, 1, &inst.operands));
    SEAM_RETURN_IF_ERROR(ints("broadcast_dimensions", "dims"));
  } else if (n == "stablehlo.transpose") {
    inst.op = ir::Op::kTranspose;
    SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"permutation"}));
    SEAM_RETURN_IF_ERROR(Operands(op, 1, 1, &inst.operands));
    SEAM_RETURN_IF_ERROR(ints("permutation", "permutation"));
  } else if (n == "stablehlo.slice") {
    inst.op = ir::Op::kSlice;
    SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"start_indices", "limit_indices", "strides"}));
    SEAM_RETURN_IF_ERROR(Operands(op, 1, 1, &inst.operands));
    SEAM_RETURN_IF_ERROR(ints("start_indices", "start"));
    SEAM_RETURN_IF_ERROR(ints("limit_indices", "limit"));
    if (Find(op, "strides") != nullptr) {
      SEAM_RETURN_IF_ERROR(ints("strides", "stride"));
    } else {
      inst.attrs["stride"].assign(op.operand_types[0].dims.size(), 1);
    }
  } else if (n == "stablehlo.concatenate") {
    inst.op = ir::Op::kConcatenate;
    SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"dimension"}));
    if (op.operands.empty()) return ErrorAt(op.name_pos, "concatenate needs an operand");
    SEAM_RETURN_IF_ERROR(Operands(op, op.operands.size(), 1, &inst.operands));
    SEAM_ASSIGN_OR_RETURN(const Attr* d, Need(op, "dimension"));
    if (d->kind != Attr::kInt) return ErrorAt(d->pos, "dimension must be an integer");
    inst.attrs["dimension"] = {d->i};
  } else {  // stablehlo.pad
    inst.op = ir::Op::kPad;
    SEAM_RETURN_IF_ERROR(
        OnlyAttrs(op, {"edge_padding_low", "edge_padding_high", "interior_padding"}));
    SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &inst.operands));
    SEAM_RETURN_IF_ERROR(ints("edge_padding_low", "low"));
    SEAM_RETURN_IF_ERROR(ints("edge_padding_high", "high"));
    SEAM_RETURN_IF_ERROR(ints("interior_padding", "interior"));
  }
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertDot(const Op& op) {
  SEAM_RETURN_IF_ERROR(OnlyAttrs(op, {"dot_dimension_numbers", "precision_config"}));
  ir::Instruction inst;
  inst.op = ir::Op::kDotGeneral;
  SEAM_RETURN_IF_ERROR(Operands(op, 2, 1, &inst.operands));
  SEAM_ASSIGN_OR_RETURN(const Attr* dims, Need(op, "dot_dimension_numbers"));
  if (dims->kind != Attr::kStruct || dims->text != "stablehlo.dot") {
    return ErrorAt(dims->pos, "dot_dimension_numbers must be #stablehlo.dot<...>");
  }
  static const char* const kFields[][2] = {{"lhs_batching_dimensions", "lhs_batch"},
                                           {"rhs_batching_dimensions", "rhs_batch"},
                                           {"lhs_contracting_dimensions", "lhs_contracting"},
                                           {"rhs_contracting_dimensions", "rhs_contracting"}};
  for (const auto& [name, attr] : dims->fields) {
    bool known = false;
    for (const auto& f : kFields) known = known || name == f[0];
    if (!known) {
      return ErrorAt(attr.pos, Cat("unknown field ", Quote(name), " of #stablehlo.dot"));
    }
  }
  for (const auto& f : kFields) {
    auto it = dims->fields.find(f[0]);
    inst.attrs[f[1]] = {};
    if (it != dims->fields.end()) {
      SEAM_ASSIGN_OR_RETURN(inst.attrs[f[1]], IntsOf(it->second, f[0]));
    }
  }
  SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), op.result_types[0], op.pos));
  return Define(op, 0, Plain(index, op.result_types[0]));
}

absl::Status Converter::ConvertReturn(const Op& op, const std::vector<Type>& declared) {
  if (!op.operand_types.empty() && op.operand_types.size() != op.operands.size()) {
    return ErrorAt(op.name_pos, Cat("return has ", op.operands.size(), " value(s) and ",
                                    op.operand_types.size(), " type(s)"));
  }
  if (op.operands.size() != declared.size()) {
    return ErrorAt(op.name_pos,
                   Cat("return has ", op.operands.size(), " value(s), the function declares ",
                       declared.size(), " result(s)"));
  }
  for (size_t i = 0; i < op.operands.size(); ++i) {
    SEAM_ASSIGN_OR_RETURN(const Value* v, Use(op.operands[i], &declared[i]));
    if (v->state_of >= 0) return ErrorAt(op.operands[i].pos, "a random state is not a result");
    program_.results.push_back(v->inst);
  }
  return absl::OkStatus();
}

namespace {

// Which converter an op name goes to: one lookup per op instead of a chain of compares.
enum class Family {
  kSimple,
  kConstant,
  kCompare,
  kDataMovement,
  kDot,
  kReduce,
  kReduceWindow,
  kConvolution,
  kSelectAndScatter,
  kGather,
  kScatter,
  kBitcast,
  kRng,
  kSort,
  kAllReduce,
};

struct Dispatch {
  Family family;
  ir::Op op;  // kSimple: the seam op
};

const absl::flat_hash_map<std::string_view, Dispatch>& DispatchTable() {
  static const auto* const table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, Dispatch>();
    for (const NamedOp& s : kSimpleOps) (*t)[s.name] = {Family::kSimple, s.op};
    const std::pair<const char*, Family> others[] = {
        {"stablehlo.constant", Family::kConstant},
        {"stablehlo.compare", Family::kCompare},
        {"stablehlo.iota", Family::kDataMovement},
        {"stablehlo.broadcast_in_dim", Family::kDataMovement},
        {"stablehlo.transpose", Family::kDataMovement},
        {"stablehlo.slice", Family::kDataMovement},
        {"stablehlo.concatenate", Family::kDataMovement},
        {"stablehlo.pad", Family::kDataMovement},
        {"stablehlo.dot_general", Family::kDot},
        {"stablehlo.reduce", Family::kReduce},
        {"stablehlo.reduce_window", Family::kReduceWindow},
        {"stablehlo.convolution", Family::kConvolution},
        {"stablehlo.select_and_scatter", Family::kSelectAndScatter},
        {"stablehlo.gather", Family::kGather},
        {"stablehlo.scatter", Family::kScatter},
        {"stablehlo.bitcast_convert", Family::kBitcast},
        {"stablehlo.rng_bit_generator", Family::kRng},
        {"stablehlo.sort", Family::kSort},
        {"stablehlo.all_reduce", Family::kAllReduce}};
    for (const auto& [name, family] : others) (*t)[name] = {family, ir::Op::kParameter};
    return t;
  }();
  return *table;
}

}  // namespace

absl::Status Converter::ConvertOp(const Op& op) {
  const auto& table = DispatchTable();
  auto it = table.find(op.name);
  if (it == table.end()) return ErrorAt(op.name_pos, Cat("unknown op ", Quote(op.name)));
  switch (it->second.family) {
    case Family::kSimple:
      return ConvertSimple(op, it->second.op);
    case Family::kConstant:
      return ConvertConstant(op);
    case Family::kCompare:
      return ConvertCompare(op);
    case Family::kDataMovement:
      return ConvertDataMovement(op);
    case Family::kDot:
      return ConvertDot(op);
    case Family::kReduce:
      return ConvertReduce(op);
    case Family::kReduceWindow:
      return ConvertReduceWindow(op);
    case Family::kConvolution:
      return ConvertConvolution(op);
    case Family::kSelectAndScatter:
      return ConvertSelectAndScatter(op);
    case Family::kGather:
      return ConvertGather(op);
    case Family::kScatter:
      return ConvertScatter(op);
    case Family::kBitcast:
      return ConvertBitcast(op);
    case Family::kRng:
      return ConvertRng(op);
    case Family::kSort:
      return ConvertSort(op);
    case Family::kAllReduce:
      return ConvertAllReduce(op);
  }
  return ErrorAt(op.name_pos, Cat("unknown op ", Quote(op.name)));
}

// The init values that reduce folds in leave their constants unread; they are left out, so
// that a program read back from the emitter's text is the program that was emitted.
void Converter::DropUnusedConstants() {
  std::vector<ir::Instruction>& insts = program_.instructions;
  std::vector<char> used(insts.size(), 0);
  for (const ir::Instruction& inst : insts) {
    for (int operand : inst.operands) used[static_cast<size_t>(operand)] = 1;
  }
  for (int result : program_.results) used[static_cast<size_t>(result)] = 1;
  bool any = false;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].op == ir::Op::kConstant && used[i] == 0) any = true;
  }
  if (!any) return;
  std::vector<int> renumbered(insts.size(), -1);
  size_t kept = 0;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].op == ir::Op::kConstant && used[i] == 0) continue;
    renumbered[i] = static_cast<int>(kept);
    for (int& operand : insts[i].operands) operand = renumbered[static_cast<size_t>(operand)];
    if (kept != i) {
      insts[kept] = std::move(insts[i]);
      positions_[kept] = positions_[i];
    }
    ++kept;
  }
  insts.resize(kept);
  positions_.resize(kept);
  for (int& result : program_.results) result = renumbered[static_cast<size_t>(result)];
}

absl::StatusOr<ir::Program> Converter::Convert(const syntax::Module& module) {
  program_.name = std::string(module.name);
  values_.reserve(module.args.size() + module.body.ops.size());
  program_.instructions.reserve(module.args.size() + module.body.ops.size());
  positions_.reserve(module.args.size() + module.body.ops.size());
  for (const auto& [name, attr] : module.attrs) {
    if (name == "mhlo.num_replicas") {
      if (attr.kind != Attr::kInt || attr.i < 1 || attr.i > 65536) {
        return ErrorAt(attr.pos, "mhlo.num_replicas must be an integer from 1 to 65536");
      }
      program_.replica_count = attr.i;
    } else if (name == "mhlo.num_partitions" && (attr.kind != Attr::kInt || attr.i != 1)) {
      return ErrorAt(attr.pos, "mhlo.num_partitions must be 1 (seam runs one partition)");
    } else if (!Listed(name, kIgnoredModuleAttrs, std::size(kIgnoredModuleAttrs))) {
      return ErrorAt(attr.pos, Cat("unknown module attribute ", Quote(name)));
    }
  }
  for (size_t i = 0; i < module.args.size(); ++i) {
    const syntax::Argument& arg = module.args[i];
    ir::Instruction inst;
    inst.op = ir::Op::kParameter;
    inst.parameter_index = static_cast<int64_t>(i);
    SEAM_ASSIGN_OR_RETURN(int index, Add(std::move(inst), arg.type, arg.type.pos));
    if (!values_.try_emplace(ValueKey{arg.name, 0}, Plain(index, arg.type)).second) {
      return ErrorAt(arg.type.pos, Cat("argument ", QuoteValue(arg.name), " repeats"));
    }
    for (const auto& [name, attr] : arg.attrs) {
      if (name == "tf.aliasing_output") {
        if (attr.kind != Attr::kInt)
          return ErrorAt(attr.pos, "tf.aliasing_output must be an integer");
        program_.aliases.push_back({attr.i, static_cast<int64_t>(i)});
      } else if (!Listed(name, kIgnoredArgAttrs, std::size(kIgnoredArgAttrs))) {
        return ErrorAt(attr.pos, Cat("unknown argument attribute ", Quote(name)));
      }
    }
  }
  const std::vector<Op>& ops = module.body.ops;
  if (ops.empty() || (ops.back().name != "return" && ops.back().name != "func.return")) {
    return ErrorAt(module.body.pos, "the function's body must end with return");
  }
  for (size_t i = 0; i + 1 < ops.size(); ++i) SEAM_RETURN_IF_ERROR(ConvertOp(ops[i]));
  SEAM_RETURN_IF_ERROR(ConvertReturn(ops.back(), module.results));
  int bad = -1;
  if (absl::Status s = ir::VerifyProgram(program_, &bad); !s.ok()) {
    Pos pos =
        bad >= 0 && bad < static_cast<int>(positions_.size()) ? positions_[bad] : ops.back().pos;
    return ErrorAt(pos, std::string(s.message()));
  }
  DropUnusedConstants();  // after verifying: the messages name the instructions as read
  return std::move(program_);
}

}  // namespace seam::stablehlo::convert

namespace seam::stablehlo {

absl::StatusOr<ir::Program> ReadStableHlo(std::string_view text) {
  if (text.size() >= 4 && text.substr(0, 4) == std::string_view("ML\xEFR", 4)) {
    return absl::InvalidArgumentError(
        "line 1, column 1: the program is MLIR bytecode (magic 'ML\\xEFR'); this plugin reads "
        "StableHLO text only: serialize the module as text");
  }
  absl::StatusOr<syntax::Module> module = syntax::ParseModule(text);
  if (!module.ok()) return module.status();
  convert::Converter converter;
  return converter.Convert(*module);
}

}  // namespace seam::stablehlo
