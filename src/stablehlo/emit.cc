// The module and its function, and the op-by-op dispatch of the emitter (docs/stablehlo.md).
// The lowering of each op is named by its row of ops.def (the StableHLO column); the
// switch below is exhaustive, so a new row without a lowering does not build.
#include "src/stablehlo/emit.h"

#include <cctype>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/verifier.h"
#include "src/stablehlo/emit_internal.h"

namespace seam::stablehlo {
namespace {

using internal::Lowering;
using internal::TensorType;
using internal::Value;
using internal::Writer;

constexpr std::string_view kStableHloNames[] = {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) stablehlo,
#include "src/ir/ops.def"
#undef SEAM_IR_OP
};
static_assert(std::size(kStableHloNames) == ir::kNumOps);

// The comparison direction of each compare row ("" for the other rows).
constexpr std::string_view kDirections[] = {
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo) "",
#define SEAM_IR_COMPARE(name, text, dtypes, direction) #direction,
#include "src/ir/ops.def"
#undef SEAM_IR_OP
#undef SEAM_IR_COMPARE
};

// The compare rows' directions are StableHLO's six (a typo in ops.def does not build).
constexpr bool IsDirection(std::string_view d) {
  return d.empty() || d == "EQ" || d == "NE" || d == "LT" || d == "LE" || d == "GT" || d == "GE";
}
#define SEAM_IR_OP(name, text, arity, rule, dtypes, effect, stablehlo)
#define SEAM_IR_COMPARE(name, text, dtypes, direction)          \
  static_assert(IsDirection(#direction), "ops.def: " #name      \
                                         " has the comparison " \
                                         "direction " #direction);
#include "src/ir/ops.def"
#undef SEAM_IR_OP
#undef SEAM_IR_COMPARE

// `@main`, or `@"a b"` for a name that is not a bare MLIR identifier.
std::string SymbolName(const std::string& name) {
  bool bare =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_');
  for (char c : name) {
    bare = bare &&
           (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '.');
  }
  if (bare) return "@" + name;
  std::string quoted = "@\"";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || u < 0x20 || u >= 0x7f) {
      char escape[4];
      std::snprintf(escape, sizeof(escape), "\\%02X", u);
      quoted += escape;
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

// One instruction other than a parameter: its value.
Value LowerInstruction(const Lowering& l) {
  const ir::Op op = l.inst.op;
  const absl::string_view name(kStableHloNames[static_cast<size_t>(op)].data(),
                               kStableHloNames[static_cast<size_t>(op)].size());
  switch (op) {
    case ir::Op::kParameter:
      return internal::Typed(Value{absl::StrCat("%arg", l.inst.parameter_index), l.inst.shape, ""});
    case ir::Op::kConstant:
      return l.w.Constant(l.inst.literal);
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 0
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
    case ir::Op::kSelect:
    case ir::Op::kClamp:
    case ir::Op::kConvert:
    case ir::Op::kReshape:
      return l.w.Op(name, l.operands, l.inst.shape);
#define SEAM_CASES_UNARY 0
#define SEAM_CASES_BINARY 0
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 0
#include "src/ir/op_cases.inc"
      return l.w.Compare(std::string(kDirections[static_cast<size_t>(op)]), l.operands[0],
                         l.operands[1]);
    case ir::Op::kIota:
      return internal::LowerIota(l);
    case ir::Op::kBroadcastInDim:
      return internal::LowerBroadcastInDim(l);
    case ir::Op::kTranspose:
      return internal::LowerTranspose(l);
    case ir::Op::kSlice:
      return internal::LowerSlice(l);
    case ir::Op::kConcatenate:
      return internal::LowerConcatenate(l);
    case ir::Op::kPad:
      return internal::LowerPad(l);
    case ir::Op::kReduceSum:
    case ir::Op::kReduceProduct:
    case ir::Op::kReduceMax:
    case ir::Op::kReduceMin:
      return internal::LowerReduce(l);
    case ir::Op::kArgMax:
    case ir::Op::kArgMin:
      return internal::LowerArgReduce(l);
    case ir::Op::kCumsum:
      return internal::LowerCumsum(l);
    case ir::Op::kDotGeneral:
      return internal::LowerDotGeneral(l);
    case ir::Op::kConvolution:
      return internal::LowerConvolution(l);
    case ir::Op::kReduceWindowSum:
    case ir::Op::kReduceWindowMax:
    case ir::Op::kReduceWindowMin:
      return internal::LowerReduceWindow(l);
    case ir::Op::kSelectAndScatter:
      return internal::LowerSelectAndScatter(l);
    case ir::Op::kGather:
      return internal::LowerGather(l);
    case ir::Op::kScatterAdd:
    case ir::Op::kScatterReplace:
      return internal::LowerScatter(l);
    case ir::Op::kRngBitGenerator:
      return internal::LowerRngBitGenerator(l);
    case ir::Op::kArgsort:
      return internal::LowerArgsort(l);
    case ir::Op::kAllReduceSum:
    case ir::Op::kAllReduceMax:
    case ir::Op::kAllReduceMin:
      return internal::LowerAllReduce(l);
  }
  return {};  // unreachable: the switch lists every op
}

// `func.func public @main(%arg0: tensor<...> {tf.aliasing_output = 0 : i32}, ...) -> (...)`.
void WriteSignature(const ir::Program& program, std::string* out) {
  const std::vector<ir::Shape> parameters = program.ParameterShapes();
  std::vector<int64_t> aliased(parameters.size(), -1);
  for (const ir::Alias& alias : program.aliases) {
    aliased[static_cast<size_t>(alias.parameter_index)] = alias.output_index;
  }
  out->append("  func.func public @main(");
  for (size_t p = 0; p < parameters.size(); ++p) {
    absl::StrAppend(out, p == 0 ? "" : ", ", "%arg", p, ": ", TensorType(parameters[p]));
    if (aliased[p] >= 0) absl::StrAppend(out, " {tf.aliasing_output = ", aliased[p], " : i32}");
  }
  out->append(") -> ");
  const std::vector<ir::Shape> results = program.ResultShapes();
  if (results.size() != 1) out->push_back('(');
  for (size_t r = 0; r < results.size(); ++r) {
    absl::StrAppend(out, r == 0 ? "" : ", ", TensorType(results[r]));
  }
  if (results.size() != 1) out->push_back(')');
  out->append(" {\n");
}

}  // namespace

std::string_view StableHloOpName(ir::Op op) {
  const auto i = static_cast<size_t>(op);
  return i < std::size(kStableHloNames) ? kStableHloNames[i] : std::string_view();
}

absl::StatusOr<MatmulPrecision> ParseMatmulPrecision(std::string_view value) {
  if (value == "highest") return MatmulPrecision::kHighest;
  if (value == "tf32") return MatmulPrecision::kTf32;
  return absl::InvalidArgumentError(absl::StrCat("SEAM_MATMUL_PRECISION='", std::string(value),
                                                 "' is not a matmul precision; allowed: highest "
                                                 "(the default), tf32"));
}

std::string_view MatmulPrecisionName(MatmulPrecision precision) {
  return precision == MatmulPrecision::kTf32 ? "tf32" : "highest";
}

absl::StatusOr<std::string> EmitStableHlo(const ir::Program& program, const EmitOptions& options) {
  SEAM_RETURN_IF_ERROR(ir::VerifyProgram(program));
  std::string out;
  out.reserve(256 + program.instructions.size() * 160);
  absl::StrAppend(&out, "module ", SymbolName(program.name),
                  " attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = ",
                  program.replica_count, " : i32} {\n");
  WriteSignature(program, &out);
  int counter = 0;
  Writer w(&out, &counter, 4);
  std::vector<Value> values(program.instructions.size());
  // One list of operands per count, reused: assigning over the last instruction's values
  // keeps their strings' and shapes' storage (no allocation per operand).
  std::vector<std::vector<Value>> operands_of(4);
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const ir::Instruction& inst = program.instructions[i];
    const size_t n = inst.operands.size();
    if (n >= operands_of.size()) operands_of.resize(n + 1);
    std::vector<Value>& operands = operands_of[n];
    operands.resize(n);
    for (size_t k = 0; k < n; ++k) operands[k] = values[static_cast<size_t>(inst.operands[k])];
    values[i] = LowerInstruction(Lowering{w, inst, operands, options});
  }
  out.append("    return ");
  for (size_t r = 0; r < program.results.size(); ++r) {
    absl::StrAppend(&out, r == 0 ? "" : ", ", values[static_cast<size_t>(program.results[r])].name);
  }
  out.append(" : ");
  for (size_t r = 0; r < program.results.size(); ++r) {
    absl::StrAppend(&out, r == 0 ? "" : ", ", values[static_cast<size_t>(program.results[r])].type);
  }
  out.append("\n  }\n}\n");
  return out;
}

}  // namespace seam::stablehlo
