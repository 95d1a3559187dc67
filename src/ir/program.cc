#include "src/ir/program.h"

namespace seam::ir {
namespace {

struct OpInfo {
  Op op;
  std::string_view name;
  int arity;
  DTypeSet dtypes;
  ElementwiseKind elementwise;
  Effect effect;
  Combiner combiner;
  std::string_view rule;
};

// From the shape rule's name in ops.def.
constexpr ElementwiseKind KindOfRule(std::string_view rule) {
  if (rule == "ElementwiseUnary") return ElementwiseKind::kUnary;
  if (rule == "ElementwiseBinary") return ElementwiseKind::kBinary;
  if (rule == "Compare") return ElementwiseKind::kCompare;
  return ElementwiseKind::kNone;
}

// The shape rules of ops that fold their operand's elements, which need a combiner.
constexpr bool IsReductionRule(std::string_view rule) {
  return rule == "Reduce" || rule == "ReduceWindow" || rule == "AllReduce";
}

constexpr OpInfo kOps[] = {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) \
  {Op::name, text, arity, dtypes, KindOfRule(#rule), Effect::effect, Combiner::kNone, #rule},
#define SEAM_IR_REDUCTION(name, text, rule, dtypes, effect, combiner, stablehlo) \
  {Op::name, text, 1, dtypes, ElementwiseKind::kNone, Effect::effect, Combiner::combiner, #rule},
#include "src/ir/ops.def"
#undef SEAM_IR_OP
#undef SEAM_IR_REDUCTION
};

// A row's StableHLO column names an op of the stablehlo or chlo dialect, or "%arg" (a
// function argument: parameter). The emitter writes it (src/stablehlo/).
constexpr bool NamesStableHlo(std::string_view lowering) {
  return lowering == "%arg" ||
         (lowering.starts_with("stablehlo.") && lowering.size() > sizeof("stablehlo.") - 1) ||
         (lowering.starts_with("chlo.") && lowering.size() > sizeof("chlo.") - 1);
}

// Each row's columns agree with its shape rule: a reduction is written SEAM_IR_REDUCTION
// (it has a combiner), and the collectives, and only they, are kCollective. Every row has
// its lowering to StableHLO.
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo)                     \
  static_assert(!IsReductionRule(#rule), "ops.def: " #name " has shape rule " #rule        \
                                         ", a reduction: write it SEAM_IR_REDUCTION(..., " \
                                         "combiner) with kSum, kProduct, kMax or kMin");   \
  static_assert(Effect::effect != Effect::kCollective,                                     \
                "ops.def: " #name " is kCollective but not an AllReduce row");             \
  static_assert(NamesStableHlo(stablehlo),                                                 \
                "ops.def: " #name                                                          \
                " has no StableHLO lowering: name its stablehlo (or chlo) op, "            \
                "docs/stablehlo.md");
#define SEAM_IR_REDUCTION(name, text, rule, dtypes, effect, combiner, stablehlo)               \
  static_assert(IsReductionRule(#rule), "ops.def: " #name                                      \
                                        " is written SEAM_IR_REDUCTION "                       \
                                        "but its shape rule " #rule " is no reduction");       \
  static_assert(Combiner::combiner != Combiner::kNone, "ops.def: " #name " needs a combiner"); \
  static_assert(                                                                               \
      (Effect::effect == Effect::kCollective) == (std::string_view(#rule) == "AllReduce"),     \
      "ops.def: " #name ": the AllReduce rows, and only they, are kCollective");               \
  static_assert(NamesStableHlo(stablehlo), "ops.def: " #name " has no StableHLO lowering");
#include "src/ir/ops.def"
#undef SEAM_IR_OP
#undef SEAM_IR_REDUCTION

}  // namespace

std::string_view OpName(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].name : std::string_view("invalid");
}

bool ParseOpName(std::string_view name, Op* op) {
  for (const OpInfo& info : kOps) {
    if (info.name == name) {
      *op = info.op;
      return true;
    }
  }
  return false;
}

int OpArity(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].arity : 0;
}

DTypeSet OpDTypes(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].dtypes : 0;
}

ElementwiseKind OpElementwiseKind(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].elementwise : ElementwiseKind::kNone;
}

std::string_view OpShapeRule(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].rule : std::string_view();
}

bool IsAllReduce(Op op) { return OpShapeRule(op) == "AllReduce"; }

Effect OpEffect(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].effect : Effect::kPure;
}

bool OpFloatOnly(Op op) {
  DTypeSet dtypes = OpDTypes(op);
  return dtypes != 0 && (dtypes & ~kFloatDTypes) == 0;
}

Combiner ReductionOf(Op op) {
  auto i = static_cast<size_t>(op);
  return i < static_cast<size_t>(kNumOps) ? kOps[i].combiner : Combiner::kNone;
}

Op CombinerBinaryOp(Combiner combiner) {
  switch (combiner) {
    case Combiner::kSum:
      return Op::kAdd;
    case Combiner::kProduct:
      return Op::kMultiply;
    case Combiner::kMax:
      return Op::kMaximum;
    case Combiner::kMin:
      return Op::kMinimum;
    case Combiner::kNone:
      break;
  }
  return Op::kAdd;
}

int Program::num_parameters() const {
  int n = 0;
  for (const Instruction& inst : instructions) n += (inst.op == Op::kParameter);
  return n;
}

std::vector<Shape> Program::ParameterShapes() const {
  std::vector<Shape> shapes(num_parameters());
  for (const Instruction& inst : instructions) {
    if (inst.op == Op::kParameter && inst.parameter_index >= 0 &&
        inst.parameter_index < static_cast<int64_t>(shapes.size())) {
      shapes[inst.parameter_index] = inst.shape;
    }
  }
  return shapes;
}

std::vector<Shape> Program::ResultShapes() const {
  std::vector<Shape> shapes;
  shapes.reserve(results.size());
  for (int r : results) {
    // Unverified programs may name missing instructions; they get a default shape.
    bool valid = r >= 0 && r < static_cast<int>(instructions.size());
    shapes.push_back(valid ? instructions[r].shape : Shape{});
  }
  return shapes;
}

}  // namespace seam::ir
