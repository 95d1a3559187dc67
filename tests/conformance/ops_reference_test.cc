// Every op x every dtype it accepts, on seeded random shapes (scalars and 0-sized
// dimensions included), run by the plugin through its C function table and compared with
// the reference evaluator: exactly for integers and pred, within a relative bound per dtype
// for floats (wider for transcendental ops, scaled by the number of terms for sums).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/ir/verifier.h"
#include "src/plugins/cpu/cpu_plugin.h"
#include "tests/conformance/op_cases.h"
#include "tests/conformance/plugin_runner.h"

namespace seam::conformance {
namespace {

using ir::DType;
using ir::Op;

// SEAM_CONFORMANCE_SEED explores other cases; the default keeps runs reproducible.
uint64_t Seed() {
  const char* seed = std::getenv("SEAM_CONFORMANCE_SEED");
  return seed == nullptr ? 20240611u : std::strtoull(seed, nullptr, 10);
}

// The in-process CPU plugin, or the .so named by SEAM_PLUGIN_UNDER_TEST (ctest runs this
// suite both ways; any plugin can be checked the same way). Never null: a library that
// cannot be used fails the test that asks for it.
const PJRT_Api* PluginUnderTest() {
  static const PJRT_Api* api = []() -> const PJRT_Api* {
    const char* path = std::getenv("SEAM_PLUGIN_UNDER_TEST");
    if (path == nullptr || *path == '\0') return cpu::GetCpuPjrtApi();
    void* library = dlopen(path, RTLD_LAZY);
    auto get = library == nullptr
                   ? nullptr
                   : reinterpret_cast<PJRT_GetPjrtApi_Fn>(dlsym(library, PJRT_GET_PJRT_API_SYMBOL));
    return get == nullptr ? nullptr : get();
  }();
  if (api == nullptr) {
    ADD_FAILURE() << "cannot load the plugin named by SEAM_PLUGIN_UNDER_TEST";
    return cpu::GetCpuPjrtApi();
  }
  return api;
}

bool IsTranscendental(Op op) {
  switch (op) {
    case Op::kExp:
    case Op::kLog:
    case Op::kLog1p:
    case Op::kTanh:
    case Op::kLogistic:
    case Op::kRsqrt:
    case Op::kPower:
      return true;
    default:
      return false;
  }
}

double RelativeBound(Op op, DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 1e-12;
    case DType::kBF16:
      return 1e-2;  // 8 significant bits: one rounding step is up to 2^-8 relative
    default:
      return IsTranscendental(op) ? 1e-5 : 1e-6;
  }
}

// Below this magnitude a float result may be flushed or rounded differently (a subnormal).
double AbsoluteBound(DType dtype) { return dtype == DType::kF64 ? 1e-300 : 1.2e-38; }

// How many values one result element accumulates, which scales the allowed error.
int64_t Terms(const ir::Program& program) {
  const ir::Instruction& inst = program.instructions.back();
  const ir::Shape& operand =
      program.instructions[inst.operands.empty() ? 0 : inst.operands[0]].shape;
  switch (inst.op) {
    case Op::kReduceSum:
    case Op::kReduceProduct: {
      int64_t out = inst.shape.num_elements();
      return out == 0 ? 0 : operand.num_elements() / out;
    }
    case Op::kDotGeneral: {
      int64_t terms = 1;
      for (int64_t d : inst.attrs.at("lhs_contracting")) terms *= operand.dims[d];
      return terms;
    }
    default:
      return 1;
  }
}

// A sum's rounding error is bounded relative to the sum of the magnitudes of its terms,
// which is the same program evaluated on |arguments|.
std::optional<ir::Literal> SumScale(const OpCase& c) {
  Op op = c.program.instructions.back().op;
  if ((op != Op::kReduceSum && op != Op::kDotGeneral) ||
      !ir::IsFloat(c.program.instructions.back().shape.dtype)) {
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

class OpsReferenceTest : public ::testing::TestWithParam<Op> {};

TEST_P(OpsReferenceTest, MatchesTheReferenceForEveryDTypeItAccepts) {
  Op op = GetParam();
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  int checked = 0;
  for (DType dtype : ir::kAllDTypeList) {
    if (!ir::Contains(ir::OpDTypes(op), dtype)) continue;
    for (const OpCase& c : MakeCases(op, dtype, Seed())) {
      std::string text = ir::PrintProgram(c.program);
      ASSERT_TRUE(ir::VerifyProgram(c.program).ok()) << ir::VerifyProgram(c.program) << "\n"
                                                     << text;
      absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(c.program, c.arguments);
      ASSERT_TRUE(expected.ok()) << expected.status() << "\n" << text;
      absl::StatusOr<std::vector<ir::Literal>> actual = runner.Run(c.program, c.arguments);
      ASSERT_TRUE(actual.ok()) << actual.status() << "\n" << text;
      std::string mismatch = Mismatch(c, expected->front(), actual->front());
      EXPECT_EQ(mismatch, "") << "dtype " << ir::DTypeName(dtype) << "\n" << text;
      if (!mismatch.empty()) return;  // one program is enough to debug
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << "no dtype of " << ir::OpName(op) << " was checked";
}

std::vector<Op> EveryOp() {
  std::vector<Op> ops;
  for (int i = 0; i < ir::kNumOps; ++i) {
    if (static_cast<Op>(i) != Op::kParameter) ops.push_back(static_cast<Op>(i));
  }
  return ops;
}

INSTANTIATE_TEST_SUITE_P(EveryOp, OpsReferenceTest, ::testing::ValuesIn(EveryOp()),
                         [](const ::testing::TestParamInfo<Op>& info) {
                           return std::string(ir::OpName(info.param));
                         });

// The same programs with a dtype outside the op's row of ops.def are refused at compile
// time, naming the element type.
TEST(OpsConformanceTest, RefusesEveryDTypeAnOpDoesNotAccept) {
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
  int refused = 0;
  for (Op op : EveryOp()) {
    for (DType dtype : ir::kAllDTypeList) {
      if (ir::Contains(ir::OpDTypes(op), dtype)) continue;
      OpCase c = MakeCases(op, dtype, Seed())[2];
      absl::StatusOr<std::vector<ir::Literal>> result = runner.Run(c.program, c.arguments);
      ASSERT_FALSE(result.ok()) << ir::PrintProgram(c.program);
      EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_TRUE(absl::StrContains(result.status().message(), "element type")) << result.status();
      ++refused;
    }
  }
  EXPECT_GT(refused, 20);
}

// Several ops in one program (a numerically careful softmax, a mask and a cast), so that
// values flow between kernels and intermediates are released on the way.
TEST(OpsConformanceTest, ChainedOpsMatchTheReference) {
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
  ASSERT_TRUE(program.ok()) << program.status();
  // Pred bytes other than 0 and 1 from the host read as true.
  ir::Literal mask = ir::Literal::FromPred(
      {true, false, true, true, false, false, true, false, true, true, true, true}, {3, 4});
  mask.bytes[2] = 7;
  std::vector<ir::Literal> args = {
      ir::Literal::FromF32({0.5f, -1, 2, 3, 0, 0, 0, 0, -4, 10, 1.5f, 2.5f}, {3, 4}), mask};
  absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(*program, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  PluginRunner runner(PluginUnderTest());
  absl::StatusOr<std::vector<ir::Literal>> actual = runner.Run(*program, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->size(), 4u);
  for (size_t r = 0; r < actual->size(); ++r) {
    ir::DType dtype = (*expected)[r].shape.dtype;
    for (int64_t i = 0; i < (*expected)[r].shape.num_elements(); ++i) {
      if (ir::IsFloat(dtype)) {
        EXPECT_NEAR(FloatAt((*actual)[r], i), FloatAt((*expected)[r], i),
                    RelativeBound(Op::kExp, dtype))
            << "result " << r << " element " << i;
      } else {
        EXPECT_EQ(IntAt((*actual)[r], i), IntAt((*expected)[r], i)) << "result " << r;
      }
    }
  }
  EXPECT_NEAR(FloatAt((*expected)[1], 3) + FloatAt((*expected)[1], 2) + FloatAt((*expected)[1], 1) +
                  FloatAt((*expected)[1], 0),
              1.0, 1e-6);
}

TEST(OpsConformanceTest, BuffersOfEveryDTypeRoundTrip) {
  PluginRunner runner(PluginUnderTest());
  ASSERT_TRUE(runner.status().ok()) << runner.status();
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
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, value) << value.shape.ToString();
    EXPECT_EQ(reported, type) << value.shape.ToString();
  }
}

// Several replicas run one per device (tests/e2e/replicated_test.cc); the runner uses one
// device, so a two-replica program is refused when run, naming both counts.
TEST(OpsConformanceTest, AllReduceOverSeveralReplicasNeedsAsManyDevices) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @ar replicas=2 {
  %x = parameter(0) : f32[2]
  %s = all_reduce_sum(%x), group_size={2}, replica_groups={0,1} : f32[2]
  return (%s)
})");
  ASSERT_TRUE(program.ok()) << program.status();
  PluginRunner runner(PluginUnderTest());
  absl::StatusOr<std::vector<ir::Literal>> result =
      runner.Run(*program, {ir::Literal::FromF32({1, 2}, {2})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(result.status().message(),
                                "the program has replicas=2, the call runs on 1 device(s)"))
      << result.status();
}

}  // namespace
}  // namespace seam::conformance
