#include "src/conformance/op_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "src/base/settings.h"
#include "src/conformance/op_cases.h"
#include "src/conformance/suite_internal.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/ir/verifier.h"
#include "src/stablehlo/emit.h"

namespace seam::conformance {
namespace {

using ir::DType;
using ir::Op;

// Float-only unary rows of ops.def (exp, log, tanh, erf...: libm's results may differ from
// the reference's by an ulp or so; floor, ceil and sqrt are exact but share the bound), and
// power.
bool IsTranscendental(Op op) {
  return op == Op::kPower ||
         (ir::OpElementwiseKind(op) == ir::ElementwiseKind::kUnary && ir::OpFloatOnly(op));
}

double RelativeBound(Op op, DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 1e-12;
    case DType::kBF16:
      return 1e-2;  // 8 significant bits: one rounding step is up to 2^-8 relative
    case DType::kF32:
    case DType::kS32:
    case DType::kS64:
    case DType::kPred:
      break;
  }
  return IsTranscendental(op) ? 1e-5 : 1e-6;
}

// Below this magnitude a float result may be flushed or rounded differently (a subnormal).
double AbsoluteBound(DType dtype) { return dtype == DType::kF64 ? 1e-300 : 1.2e-38; }

// Whether a fold with this combiner rounds at each step (sums and products do; the
// maximum and the minimum pick one of their inputs exactly).
bool Rounds(ir::Combiner combiner) {
  switch (combiner) {
    case ir::Combiner::kSum:
    case ir::Combiner::kProduct:
      return true;
    case ir::Combiner::kMax:
    case ir::Combiner::kMin:
    case ir::Combiner::kNone:
      return false;
  }
  return false;
}

// How many values one result element accumulates, which scales the allowed error.
int64_t Terms(const ir::Program& program) {
  const ir::Instruction& inst = program.instructions.back();
  const ir::Shape& operand =
      program.instructions[inst.operands.empty() ? 0 : inst.operands[0]].shape;
  auto window_terms = [&] {
    int64_t terms = 1;
    for (int64_t d : inst.attrs.at("window_dimensions")) terms *= d;
    return terms;
  };
  switch (inst.op) {
    case Op::kReduceSum:
    case Op::kReduceProduct:
    case Op::kReduceMax:
    case Op::kReduceMin: {
      if (!Rounds(ir::ReductionOf(inst.op))) return 1;
      int64_t out = inst.shape.num_elements();
      return out == 0 ? 0 : operand.num_elements() / out;
    }
    case Op::kReduceWindowSum:
    case Op::kReduceWindowMax:
    case Op::kReduceWindowMin:
      return Rounds(ir::ReductionOf(inst.op)) ? window_terms() : 1;
    case Op::kAllReduceSum:
    case Op::kAllReduceMax:
    case Op::kAllReduceMin:
      return Rounds(ir::ReductionOf(inst.op)) ? inst.attrs.at("group_size")[0] : 1;
    case Op::kSelectAndScatter:
      return window_terms();
    case Op::kDotGeneral: {
      int64_t terms = 1;
      for (int64_t d : inst.attrs.at("lhs_contracting")) terms *= operand.dims[d];
      return terms;
    }
    case Op::kConvolution: {
      // Each result element sums its group's input features times the kernel's taps.
      const ir::Shape& kernel = program.instructions[inst.operands[1]].shape;
      int64_t features = kernel.dims[inst.attrs.at("kernel_output_feature_dim")[0]];
      return features == 0 ? 0 : kernel.num_elements() / features;
    }
    // One rounding at most.
#define SEAM_CASES_UNARY 1
#define SEAM_CASES_BINARY 1
#define SEAM_CASES_COMPARE 1
#define SEAM_CASES_OTHER 1
#define SEAM_CASES_REDUCTION 0
#define SEAM_CASES_EXCEPT_kSelectAndScatter
#define SEAM_CASES_EXCEPT_kDotGeneral
#define SEAM_CASES_EXCEPT_kConvolution
#include "src/ir/op_cases.inc"
#undef SEAM_CASES_EXCEPT_kSelectAndScatter
#undef SEAM_CASES_EXCEPT_kDotGeneral
#undef SEAM_CASES_EXCEPT_kConvolution
      return 1;
  }
  return 1;
}

// A sum's rounding error is bounded relative to the sum of the magnitudes of its terms,
// which is the same program evaluated on |arguments|.
std::optional<ir::Literal> SumScale(const OpCase& c) {
  Op op = c.program.instructions.back().op;
  const bool sum = (ir::ReductionOf(op) == ir::Combiner::kSum && !ir::IsAllReduce(op)) ||
                   op == Op::kDotGeneral || op == Op::kConvolution;
  if (!sum || !ir::IsFloat(c.program.instructions.back().shape.dtype)) {
    return std::nullopt;
  }
  std::vector<ir::Literal> magnitudes;
  for (const ir::Literal& arg : c.arguments) {
    ir::Literal abs = arg;
    int64_t width = static_cast<int64_t>(ir::DTypeSize(arg.shape.dtype));
    // Clearing the sign bit (the top bit of the last byte, little-endian) is |x| for every
    // float dtype.
    for (int64_t i = 0; i < arg.shape.num_elements(); ++i) abs.bytes[(i + 1) * width - 1] &= 0x7f;
    magnitudes.push_back(std::move(abs));
  }
  absl::StatusOr<std::vector<ir::Literal>> scale = ir::Evaluate(c.program, magnitudes);
  if (!scale.ok()) return std::nullopt;
  return scale->front();
}

// Compares one result; returns a description of the first mismatch, or "".
std::string Mismatch(const OpCase& c, const ir::Literal& expected, const ir::Literal& actual) {
  if (expected.shape != actual.shape || expected.bytes.size() != actual.bytes.size()) {
    return "result shape " + actual.shape.ToString() + ", expected " + expected.shape.ToString();
  }
  DType dtype = expected.shape.dtype;
  Op op = c.program.instructions.back().op;
  std::optional<ir::Literal> scale = SumScale(c);
  double rtol =
      RelativeBound(op, dtype) * static_cast<double>(std::max<int64_t>(1, Terms(c.program)));
  for (int64_t i = 0; i < expected.shape.num_elements(); ++i) {
    if (!ir::IsFloat(dtype)) {
      if (IntAt(expected, i) != IntAt(actual, i)) {
        return "element " + std::to_string(i) + " is " + std::to_string(IntAt(actual, i)) +
               ", expected " + std::to_string(IntAt(expected, i));
      }
      continue;
    }
    double e = FloatAt(expected, i);
    double a = FloatAt(actual, i);
    bool ok;
    if (std::isnan(e)) {
      ok = std::isnan(a);
    } else if (e == 0 && a == 0) {
      ok = std::signbit(a) == std::signbit(e);  // -0 and +0 are told apart
    } else if (std::isinf(e)) {
      ok = a == e;
    } else {
      double magnitude = std::fabs(e) + (scale ? FloatAt(*scale, i) : 0.0);
      ok = std::fabs(a - e) <= rtol * magnitude + AbsoluteBound(dtype);
    }
    if (!ok) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "element %lld is %.17g, expected %.17g (relative bound %g)",
                    static_cast<long long>(i), a, e, rtol);
      return buf;
    }
  }
  return "";
}

// `status` (from the plugin or the reference) with the program it concerns appended; when
// `runner` sent StableHLO, the text it sent too.
absl::Status WithProgram(const absl::Status& status, const ir::Program& program,
                         const PluginRunner* runner = nullptr) {
  std::string text = absl::StrCat(status.message(), "\n", ir::PrintProgram(program));
  if (runner != nullptr && runner->format() == CaseFormat::kStableHlo) {
    absl::StatusOr<std::string> sent = stablehlo::EmitStableHlo(program);
    if (sent.ok()) absl::StrAppend(&text, "sent as StableHLO:\n", *sent);
  }
  return absl::Status(status.code(), text);
}

}  // namespace

uint64_t DefaultOpSeed() {
  const std::optional<std::string> seed = base::ReadSetting(base::Setting::kSeamConformanceSeed);
  return !seed.has_value() ? SuiteOptions().seed : std::strtoull(seed->c_str(), nullptr, 10);
}

std::vector<Op> EveryOp() {
  std::vector<Op> ops;
  for (int i = 0; i < ir::kNumOps; ++i) {
    if (static_cast<Op>(i) != Op::kParameter) ops.push_back(static_cast<Op>(i));
  }
  return ops;
}

absl::Status CheckOpMatchesReference(PluginRunner& runner, Op op, uint64_t seed) {
  if (!runner.status().ok()) return runner.status();
  int checked = 0;
  for (DType dtype : ir::kAllDTypeList) {
    if (!ir::Contains(ir::OpDTypes(op), dtype)) continue;
    for (const OpCase& c : MakeCases(op, dtype, seed)) {
      if (absl::Status verified = ir::VerifyProgram(c.program); !verified.ok()) {
        return WithProgram(
            absl::InternalError(absl::StrCat("the case does not verify: ", verified.ToString())),
            c.program);
      }
      absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(c.program, c.arguments);
      if (!expected.ok()) {
        return WithProgram(absl::InternalError(
                               absl::StrCat("the reference fails: ", expected.status().ToString())),
                           c.program);
      }
      absl::StatusOr<std::vector<ir::Literal>> actual = runner.Run(c.program, c.arguments);
      if (actual.status().code() == absl::StatusCode::kUnimplemented) return actual.status();
      if (!actual.ok()) return WithProgram(actual.status(), c.program, &runner);
      std::string mismatch = Mismatch(c, expected->front(), actual->front());
      if (!mismatch.empty()) {
        return WithProgram(absl::InternalError(absl::StrCat(
                               "dtype ", std::string(ir::DTypeName(dtype)), ": ", mismatch)),
                           c.program, &runner);
      }
      ++checked;
    }
  }
  if (checked == 0) {
    return absl::InternalError(
        absl::StrCat("no dtype of ", std::string(ir::OpName(op)), " was checked"));
  }
  return absl::OkStatus();
}

absl::Status CheckUnacceptedDTypesAreRefused(PluginRunner& runner, uint64_t seed) {
  if (!runner.status().ok()) return runner.status();
  int refused = 0;
  for (Op op : EveryOp()) {
    for (DType dtype : ir::kAllDTypeList) {
      if (ir::Contains(ir::OpDTypes(op), dtype)) continue;
      OpCase c = MakeCases(op, dtype, seed)[2];
      absl::StatusOr<std::vector<ir::Literal>> result = runner.Run(c.program, c.arguments);
      if (result.status().code() == absl::StatusCode::kUnimplemented) return result.status();
      if (result.ok()) {
        return WithProgram(absl::InternalError("a program with an unaccepted dtype ran"),
                           c.program);
      }
      if (result.status().code() != absl::StatusCode::kInvalidArgument ||
          !absl::StrContains(result.status().message(), "element type")) {
        return WithProgram(
            absl::InternalError(absl::StrCat("expected INVALID_ARGUMENT naming the element type, "
                                             "got ",
                                             result.status().ToString())),
            c.program);
      }
      ++refused;
    }
  }
  return Expect(refused > 20, absl::StrCat("only ", refused, " refusals were checked"));
}

absl::Status CheckChainedOps(PluginRunner& runner) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @chain {
  %x = parameter(0) : f32[3,4]
  %mask = parameter(1) : pred[3,4]
  %max = reduce_max(%x), axes={1} : f32[3]
  %maxb = broadcast_in_dim(%max), dims={0} : f32[3,4]
  %shifted = subtract(%x, %maxb) : f32[3,4]
  %e = exp(%shifted) : f32[3,4]
  %sum = reduce_sum(%e), axes={1} : f32[3]
  %sumb = broadcast_in_dim(%sum), dims={0} : f32[3,4]
  %softmax = divide(%e, %sumb) : f32[3,4]
  %zero = constant(0) : f32[]
  %zeros = broadcast_in_dim(%zero), dims={} : f32[3,4]
  %masked = select(%mask, %softmax, %zeros) : f32[3,4]
  %t = transpose(%masked), permutation={1,0} : f32[4,3]
  %half = convert(%t) : bf16[4,3]
  %ids = iota(), dimension={1} : s32[4,3]
  %big = gt(%ids, %ids) : pred[4,3]
  return (%half, %softmax, %big, %x)
})");
  if (!program.ok()) return program.status();
  // Pred bytes other than 0 and 1 from the host read as true.
  ir::Literal mask = ir::Literal::FromPred(
      {true, false, true, true, false, false, true, false, true, true, true, true}, {3, 4});
  mask.bytes[2] = 7;
  std::vector<ir::Literal> args = {
      ir::Literal::FromF32({0.5f, -1, 2, 3, 0, 0, 0, 0, -4, 10, 1.5f, 2.5f}, {3, 4}), mask};
  absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(*program, args);
  if (!expected.ok()) return expected.status();
  absl::StatusOr<std::vector<ir::Literal>> actual = runner.Run(*program, args);
  if (!actual.ok()) return actual.status();
  if (actual->size() != 4) return absl::InternalError(absl::StrCat(actual->size(), " results"));
  for (size_t r = 0; r < actual->size(); ++r) {
    ir::DType dtype = (*expected)[r].shape.dtype;
    if ((*actual)[r].shape != (*expected)[r].shape) {
      return absl::InternalError(
          absl::StrCat("result ", r, " has shape ", (*actual)[r].shape.ToString()));
    }
    for (int64_t i = 0; i < (*expected)[r].shape.num_elements(); ++i) {
      double a = ir::IsFloat(dtype) ? FloatAt((*actual)[r], i)
                                    : static_cast<double>(IntAt((*actual)[r], i));
      double e = ir::IsFloat(dtype) ? FloatAt((*expected)[r], i)
                                    : static_cast<double>(IntAt((*expected)[r], i));
      bool ok = ir::IsFloat(dtype) ? std::fabs(a - e) <= RelativeBound(Op::kExp, dtype) : a == e;
      if (!ok) {
        return absl::InternalError(
            absl::StrCat("result ", r, " element ", i, " is ", a, ", expected ", e));
      }
    }
  }
  double sum = FloatAt((*expected)[1], 3) + FloatAt((*expected)[1], 2) +
               FloatAt((*expected)[1], 1) + FloatAt((*expected)[1], 0);
  return Expect(std::fabs(sum - 1.0) <= 1e-6,
                absl::StrCat("the reference's softmax row sums to ", sum));
}

absl::Status CheckBuffersOfEveryDTypeRoundTrip(PluginRunner& runner) {
  if (!runner.status().ok()) return runner.status();
  const std::pair<ir::Literal, PJRT_Buffer_Type> values[] = {
      {ir::Literal::FromF32({1.5f, -0.0f}, {2}), PJRT_Buffer_Type_F32},
      {ir::Literal::FromF64({1e300, -2}, {1, 2}), PJRT_Buffer_Type_F64},
      {ir::Literal::FromBF16({0.1f, 3, -7}, {3}), PJRT_Buffer_Type_BF16},
      {ir::Literal::FromS32({-5}, {}), PJRT_Buffer_Type_S32},
      {ir::Literal::FromS64({INT64_MIN, 7}, {2, 1}), PJRT_Buffer_Type_S64},
      {ir::Literal::FromPred({true, false, true}, {3}), PJRT_Buffer_Type_PRED},
      {ir::Literal::FromPred({}, {0, 4}), PJRT_Buffer_Type_PRED},
  };
  for (const auto& [value, type] : values) {
    PJRT_Buffer_Type reported = PJRT_Buffer_Type_INVALID;
    absl::StatusOr<ir::Literal> back = runner.RoundTrip(value, &reported);
    if (!back.ok()) return back.status();
    if (!(*back == value)) {
      return absl::InternalError(absl::StrCat(value.shape.ToString(), ": the bytes differ"));
    }
    if (reported != type) {
      return absl::InternalError(absl::StrCat(value.shape.ToString(), ": element type reported as ",
                                              static_cast<int>(reported), ", expected ",
                                              static_cast<int>(type)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAllReduceNeedsAsManyDevices(PluginRunner& runner) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @ar replicas=2 {
  %x = parameter(0) : f32[2]
  %s = all_reduce_sum(%x), group_size={2}, replica_groups={0,1} : f32[2]
  return (%s)
})");
  if (!program.ok()) return program.status();
  absl::StatusOr<std::vector<ir::Literal>> result =
      runner.Run(*program, {ir::Literal::FromF32({1, 2}, {2})});
  if (result.status().code() == absl::StatusCode::kUnimplemented) return result.status();
  if (result.ok()) return absl::InternalError("a two-replica program ran on one device");
  return Expect(result.status().code() == absl::StatusCode::kInvalidArgument &&
                    absl::StrContains(result.status().message(),
                                      "the program has replicas=2, the call runs on 1 device(s)"),
                absl::StrCat("expected INVALID_ARGUMENT naming both counts, got ",
                             result.status().ToString()));
}

namespace {

// The rows of the op checks in seam's IR: every op, the refused dtypes, a chain, the
// round trip of every dtype, the replica count and the combiners. Only a plugin that
// announces seam_ir_version is asked to compile them; the runner (its own client) is made
// once, for the first check that needs it.
void CheckOpsInSeamIr(Suite& suite, uint64_t seed) {
  absl::Status seam_ir = suite.NeedSeamIr();
  std::optional<PluginRunner> runner;
  auto with_runner = [&](const std::function<absl::Status(PluginRunner&)>& fn) {
    if (!seam_ir.ok()) return seam_ir;
    if (!runner.has_value()) runner.emplace(suite.api());
    return fn(*runner);
  };
  for (Op op : EveryOp()) {
    suite.Optional(
        "ops", absl::StrCat(std::string(ir::OpName(op)), " matches the reference on every dtype"),
        [&] {
          return with_runner([&](PluginRunner& r) { return CheckOpMatchesReference(r, op, seed); });
        });
  }
  suite.Optional("ops", "dtypes an op does not accept are refused", [&] {
    return with_runner([&](PluginRunner& r) { return CheckUnacceptedDTypesAreRefused(r, seed); });
  });
  suite.Optional("ops", "chained ops match the reference",
                 [&] { return with_runner([&](PluginRunner& r) { return CheckChainedOps(r); }); });
  suite.Optional("ops", "a value of every dtype round-trips", [&] {
    return with_runner([&](PluginRunner& r) { return CheckBuffersOfEveryDTypeRoundTrip(r); });
  });
  suite.Optional("ops", "a two-replica program needs two devices", [&] {
    return with_runner([&](PluginRunner& r) { return CheckAllReduceNeedsAsManyDevices(r); });
  });
  suite.Optional("ops", "every reduction folds with its own combiner", [&] {
    return with_runner([&](PluginRunner& r) { return CheckReductionsFoldWithTheirCombiner(&r); });
  });
}

// The same cases lowered to StableHLO (format "mlir"), sent to any plugin: every op, the
// chain and the combiners (the refused dtypes never reach a plugin: the emitter verifies
// first; the round trip and the replica count do not depend on the format).
void CheckOpsInStableHlo(Suite& suite, uint64_t seed) {
  std::optional<PluginRunner> runner;
  auto with_runner = [&](const std::function<absl::Status(PluginRunner&)>& fn) {
    if (!runner.has_value()) runner.emplace(suite.api(), CaseFormat::kStableHlo);
    return fn(*runner);
  };
  for (Op op : EveryOp()) {
    suite.Optional(
        "ops stablehlo",
        absl::StrCat(std::string(ir::OpName(op)), " matches the reference on every dtype"), [&] {
          return with_runner([&](PluginRunner& r) { return CheckOpMatchesReference(r, op, seed); });
        });
  }
  suite.Optional("ops stablehlo", "chained ops match the reference",
                 [&] { return with_runner([&](PluginRunner& r) { return CheckChainedOps(r); }); });
  suite.Optional("ops stablehlo", "every reduction folds with its own combiner", [&] {
    return with_runner([&](PluginRunner& r) { return CheckReductionsFoldWithTheirCombiner(&r); });
  });
}

}  // namespace

void CheckOps(Suite& suite, const SuiteOptions& options) {
  if (options.format != OpFormat::kStableHlo) CheckOpsInSeamIr(suite, options.seed);
  if (options.format != OpFormat::kSeamIr) CheckOpsInStableHlo(suite, options.seed);
}

}  // namespace seam::conformance
