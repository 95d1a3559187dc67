// Every reduction row of ops.def folds with its own combiner. The random cases compare the
// plugin with the reference evaluator, which would both pass if both folded a new row the
// same wrong way; these compare each with values written here.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/conformance/op_cases.h"
#include "src/conformance/op_checks.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"

namespace seam::conformance {
namespace {

using ir::Combiner;
using ir::DType;
using ir::Op;

// Their sum (7), product (-30), maximum (5) and minimum (-2) all differ, and each is exact
// in every numeric dtype.
const std::vector<double> kValues = {3, -2, 5, 1};

double Expected(Combiner combiner) {
  switch (combiner) {
    case Combiner::kSum:
      return 7;
    case Combiner::kProduct:
      return -30;
    case Combiner::kMax:
      return 5;
    case Combiner::kMin:
      return -2;
    case Combiner::kNone:
      break;
  }
  return std::nan("");
}

ir::Literal LiteralOf(DType dtype, const std::vector<double>& values,
                      const std::vector<int64_t>& dims) {
  switch (dtype) {
    case DType::kF32:
      return ir::Literal::FromF32(std::vector<float>(values.begin(), values.end()), dims);
    case DType::kF64:
      return ir::Literal::FromF64(values, dims);
    case DType::kBF16:
      return ir::Literal::FromBF16(std::vector<float>(values.begin(), values.end()), dims);
    case DType::kS32:
      return ir::Literal::FromS32(std::vector<int32_t>(values.begin(), values.end()), dims);
    case DType::kS64:
      return ir::Literal::FromS64(std::vector<int64_t>(values.begin(), values.end()), dims);
    case DType::kPred:
      break;  // no reduction row takes pred
  }
  return ir::Literal::FromPred(std::vector<bool>(values.size(), true), dims);
}

double ValueAt(const ir::Literal& literal) {
  return ir::IsFloat(literal.shape.dtype) ? FloatAt(literal, 0)
                                          : static_cast<double>(IntAt(literal, 0));
}

// The one result, `value` folded with `op`'s combiner, compared with Expected.
absl::Status ExpectFold(Op op, DType dtype, const char* who,
                        const absl::StatusOr<std::vector<ir::Literal>>& results) {
  const std::string what = absl::StrCat(std::string(ir::OpName(op)), " on ",
                                        std::string(ir::DTypeName(dtype)), " {3, -2, 5, 1}");
  if (!results.ok()) {
    return absl::Status(results.status().code(),
                        absl::StrCat(what, ": ", who, ": ", results.status().message()));
  }
  const double expected = Expected(ir::ReductionOf(op));
  const double actual = ValueAt(results->front());
  if (actual != expected) {
    return absl::InternalError(absl::StrCat(what, ": ", who, " gives ", actual, ", expected ",
                                            expected, " (the minimum is -2)"));
  }
  return absl::OkStatus();
}

// The four values folded into one element by `op`: reduce_* over the one axis,
// reduce_window_* with one window over all four, all_reduce_* over four replicas holding
// one value each.
std::string ProgramText(Op op, DType dtype) {
  const std::string name(ir::OpName(op));
  const std::string type(ir::DTypeName(dtype));
  if (ir::IsAllReduce(op)) {
    return absl::StrCat(
        "program @fold replicas=4 {\n  %x = parameter(0) : ", type, "[]\n  %r = ", name,
        "(%x), group_size={4}, replica_groups={0,1,2,3} : ", type, "[]\n  return (%r)\n}");
  }
  std::string attributes = "axes={0}";
  std::string result = "[]";
  if (ir::OpShapeRule(op) == "ReduceWindow") {
    attributes =
        "base_dilation={1}, padding_high={0}, padding_low={0}, window_dilation={1}, "
        "window_dimensions={4}, window_strides={1}";
    result = "[1]";
  }
  return absl::StrCat("program @fold {\n  %x = parameter(0) : ", type, "[4]\n  %r = ", name,
                      "(%x), ", attributes, " : ", type, result, "\n  return (%r)\n}");
}

}  // namespace

absl::Status CheckReductionsFoldWithTheirCombiner(PluginRunner* runner) {
  for (int i = 0; i < ir::kNumOps; ++i) {
    const auto op = static_cast<Op>(i);
    if (ir::ReductionOf(op) == Combiner::kNone) continue;
    for (int d = 0; d < ir::kNumDTypes; ++d) {
      const auto dtype = static_cast<DType>(d);
      if (!ir::Contains(ir::OpDTypes(op), dtype)) continue;
      absl::StatusOr<ir::Program> program = ir::ParseProgram(ProgramText(op, dtype));
      if (!program.ok()) return program.status();
      if (ir::IsAllReduce(op)) {
        std::vector<std::vector<ir::Literal>> arguments;
        arguments.reserve(kValues.size());
        for (double v : kValues) arguments.push_back({LiteralOf(dtype, {v}, {})});
        absl::StatusOr<std::vector<std::vector<ir::Literal>>> replicas =
            ir::EvaluateReplicated(*program, arguments);
        if (!replicas.ok()) return replicas.status();
        // Every replica gets the group's fold.
        for (const std::vector<ir::Literal>& replica : *replicas) {
          if (absl::Status s = ExpectFold(op, dtype, "the reference evaluator", replica); !s.ok()) {
            return s;
          }
        }
        continue;  // the plugin's collectives: cpu_rendezvous_test (one device here)
      }
      const std::vector<ir::Literal> arguments = {LiteralOf(dtype, kValues, {4})};
      if (absl::Status s =
              ExpectFold(op, dtype, "the reference evaluator", ir::Evaluate(*program, arguments));
          !s.ok()) {
        return s;
      }
      if (runner == nullptr) continue;
      if (absl::Status s = ExpectFold(op, dtype, "the plugin", runner->Run(*program, arguments));
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace seam::conformance
