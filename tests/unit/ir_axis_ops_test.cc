// argmax, argmin, cumsum, clamp and erf: errors of the shape rules and results worked out by
// hand (docs/ir.md) for both the reference evaluator and the CPU plugin's kernels.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/shape_rules.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "tests/unit/reference_and_kernel.h"

namespace seam::ir {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::string Unary(const std::string& op, const std::string& in, const std::string& attrs,
                  const std::string& out) {
  return "  %0 = parameter(0) : " + in + "\n  %1 = " + op + "(%0)" + attrs + " : " + out +
         "\n  return (%1)";
}

TEST(AxisOpsTest, ArgMaxTiesKeepTheFirstAndNaNWins) {
  // Rows: a tie (5 at 1 and 3), a NaN after the maximum, -0 and +0 tie, all -inf.
  Literal x = Literal::FromF32(
      {1, 5, 2, 5, 9, kNaN, 3, kNaN, -0.0f, 0.0f, 0.0f, -1, -kInf, -kInf, -kInf, -kInf}, {4, 4});
  ExpectBoth(Unary("argmax", "f32[4,4]", ", axis={1}", "s64[4]"), {x},
             Literal::FromS64({1, 1, 0, 0}, {4}));
  ExpectBoth(Unary("argmin", "f32[4,4]", ", axis={1}", "s64[4]"), {x},
             Literal::FromS64({0, 1, 3, 0}, {4}));
  ExpectBoth(Unary("argmax", "s32[2,3]", ", axis={0}", "s64[3]"),
             {Literal::FromS32({4, -7, 2, 4, 8, 3}, {2, 3})}, Literal::FromS64({0, 1, 1}, {3}));
}

TEST(AxisOpsTest, CumsumRunsAlongTheAxisAndWraps) {
  // inf + -inf is a NaN whose sign bit the hardware picks: compare values, not bytes.
  std::vector<Literal> r = Both(Unary("cumsum", "f32[2,3]", ", axis={1}", "f32[2,3]"),
                                {Literal::FromF32({1, 2, 3, 0.5, kInf, -kInf}, {2, 3})});
  ASSERT_EQ(r.size(), 2u);
  for (const Literal& result : r) {
    const std::vector<float> v(result.f32(), result.f32() + result.shape.num_elements());
    ASSERT_EQ(v.size(), 6u);
    EXPECT_EQ(std::vector<float>(v.begin(), v.begin() + 5),
              (std::vector<float>{1, 3, 6, 0.5, kInf}));
    EXPECT_TRUE(std::isnan(v[5]));
  }
  ExpectBoth(Unary("cumsum", "s32[3,1]", ", axis={0}", "s32[3,1]"),
             {Literal::FromS32({2147483647, 1, 5}, {3, 1})},
             Literal::FromS32({2147483647, -2147483647 - 1, -2147483643}, {3, 1}));
  ExpectBoth(Unary("cumsum", "f64[0,2]", ", axis={0}", "f64[0,2]"), {Literal::FromF64({}, {0, 2})},
             Literal::FromF64({}, {0, 2}));
}

TEST(AxisOpsTest, ErfAndClamp) {
  ExpectBoth(Unary("erf", "f64[4]", "", "f64[4]"), {Literal::FromF64({0, 1, -kInf, kNaN}, {4})},
             Literal::FromF64({0, 0.8427007929497149, -1, kNaN}, {4}));
  ExpectBoth(R"(  %0 = parameter(0) : f32[5]
  %1 = parameter(1) : f32[5]
  %2 = parameter(2) : f32[5]
  %3 = clamp(%0, %1, %2) : f32[5]
  return (%3))",
             {Literal::FromF32({0, 0, 0, kNaN, 2}, {5}), Literal::FromF32({-1, 0.5, 3, 1, 1}, {5}),
              Literal::FromF32({1, 1, 1, 1, 1}, {5})},
             Literal::FromF32({0, 0.5, 1, kNaN, 1}, {5}));  // lo > hi gives hi
}

TEST(AxisOpsTest, ShapeErrors) {
  Instruction argmax;
  argmax.op = Op::kArgMax;
  argmax.attrs = {{"axis", {1}}};
  EXPECT_EQ(InferShape(argmax, {Shape{DType::kF32, {2, 0}}}).status().message(),
            "argmax: axis=1 of operand f32[2,0] is empty: there is no index to return");
  argmax.attrs = {{"axis", {2}}};
  EXPECT_EQ(InferShape(argmax, {Shape{DType::kF32, {2, 3}}}).status().message(),
            "argmax: axis=2 is out of range for operand f32[2,3] of rank 2");
  Instruction clamp;
  clamp.op = Op::kClamp;
  EXPECT_EQ(
      InferShape(clamp, {Shape{DType::kF32, {}}, Shape{DType::kF32, {2}}, Shape{DType::kF32, {2}}})
          .status()
          .message(),
      "clamp: operand 0 (the minimum) has shape f32[], expected f32[2] (operand 1)");
}

}  // namespace
}  // namespace seam::ir
