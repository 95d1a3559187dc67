// The reference evaluator checked against values worked out by hand, so that the
// conformance tests' oracle is itself tested independently of any plugin.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"

namespace seam::ir {
namespace {

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

// Parses `body` (the lines between the header and the closing brace) and evaluates it.
std::vector<Literal> Eval(const std::string& body, const std::vector<Literal>& args = {}) {
  absl::StatusOr<Program> program = ParseProgram("program @t {\n" + body + "\n}\n");
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  absl::StatusOr<std::vector<Literal>> results = Evaluate(*program, args);
  EXPECT_TRUE(results.ok()) << results.status();
  return results.ok() ? *results : std::vector<Literal>{};
}

TEST(ReferenceEvaluatorTest, IntegerDivisionNeverTraps) {
  std::vector<Literal> r = Eval(R"(
  %a = constant({7, -7, 5, -2147483648, -2147483648}) : s32[5]
  %b = constant({-2, 2, 0, -1, 0}) : s32[5]
  %q = divide(%a, %b) : s32[5]
  %m = remainder(%a, %b) : s32[5]
  return (%q, %m))");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], Literal::FromS32({-3, -3, -1, kMin32, -1}, {5}));
  EXPECT_EQ(r[1], Literal::FromS32({1, -1, 5, 0, kMin32}, {5}));
}

TEST(ReferenceEvaluatorTest, IntegerArithmeticWraps) {
  std::vector<Literal> r = Eval(R"(
  %a = constant({2147483647, -2147483648, 65536}) : s32[3]
  %one = constant({1, 1, 65536}) : s32[3]
  %sum = add(%a, %one) : s32[3]
  %product = multiply(%a, %one) : s32[3]
  %neg = neg(%a) : s32[3]
  %abs = abs(%a) : s32[3]
  %b = constant({2, -1, 2, 3}) : s64[4]
  %e = constant({10, -3, -1, 40}) : s64[4]
  %pow = power(%b, %e) : s64[4]
  %b32 = constant(3) : s32[]
  %e32 = constant(40) : s32[]
  %pow32 = power(%b32, %e32) : s32[]
  %not = not(%a) : s32[3]
  return (%sum, %product, %neg, %abs, %pow, %pow32, %not))");
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[0], Literal::FromS32({kMin32, kMin32 + 1, 131072}, {3}));
  EXPECT_EQ(r[1], Literal::FromS32({kMax32, kMin32, 0}, {3}));
  EXPECT_EQ(r[2], Literal::FromS32({-kMax32, kMin32, -65536}, {3}));
  EXPECT_EQ(r[3], Literal::FromS32({kMax32, kMin32, 65536}, {3}));
  // (-1)^-3 = -1; 2^-1 is 0; 3^40 = 12157665459056928801 wraps past 2^63.
  EXPECT_EQ(r[4], Literal::FromS64({1024, -1, 0, -6289078614652622815}, {4}));
  EXPECT_EQ(r[5], Literal::FromS32({689956897}, {}));  // 3^40 mod 2^32
  EXPECT_EQ(r[6], Literal::FromS32({kMin32, kMax32, -65537}, {3}));
}

TEST(ReferenceEvaluatorTest, ConvertSaturatesTruncatesAndRounds) {
  std::vector<Literal> r = Eval(R"(
  %f = constant({1e10, -1e10, nan, -2.7, 2.7, -0}) : f32[6]
  %s = convert(%f) : s32[6]
  %p = convert(%f) : pred[6]
  %i = constant({257, 4294967301}) : s64[2]
  %bf = convert(%i) : bf16[2]
  %narrow = convert(%i) : s32[2]
  %t = constant({true, false}) : pred[2]
  %tf = convert(%t) : f64[2]
  return (%s, %p, %bf, %narrow, %tf))");
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], Literal::FromS32({kMax32, kMin32, 0, -2, 2, 0}, {6}));
  EXPECT_EQ(r[1], Literal::FromPred({true, true, true, true, true, false}, {6}));
  // 257 is halfway between the bf16 values 256 and 258: ties to even gives 256.
  EXPECT_EQ(r[2], Literal::FromBF16({256, 4294967296.0f}, {2}));
  EXPECT_EQ(r[3], Literal::FromS32({257, 5}, {2}));
  EXPECT_EQ(r[4], Literal::FromF64({1, 0}, {2}));
}

TEST(ReferenceEvaluatorTest, FloatOpsRoundToTheirDType) {
  std::vector<Literal> r = Eval(R"(
  %one = constant(1) : f32[]
  %tiny = constant(1e-8) : f32[]
  %sum = add(%one, %tiny) : f32[]
  %x = constant({0, -0, nan, 3}) : f32[4]
  %y = constant({-0, 0, 1, nan}) : f32[4]
  %max = maximum(%x, %y) : f32[4]
  %min = minimum(%x, %y) : f32[4]
  %sign = sign(%x) : f32[4]
  %h = constant({1, 0.00390625}) : bf16[2]
  %hs = add(%h, %h) : bf16[2]
  %z = constant(0) : f64[]
  %logistic = logistic(%z) : f64[]
  return (%sum, %max, %min, %sign, %hs, %logistic))");
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0], Literal::ScalarF32(1));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto bits_equal = [](const Literal& a, const std::vector<float>& b) {
    Literal expected = Literal::FromF32(b, a.shape.dims);
    for (size_t i = 0; i < b.size(); ++i) {
      float x = a.f32()[i];
      float y = expected.f32()[i];
      if (std::isnan(x) != std::isnan(y)) return false;
      if (!std::isnan(x) && (x != y || std::signbit(x) != std::signbit(y))) return false;
    }
    return true;
  };
  EXPECT_TRUE(bits_equal(r[1], {0.0f, 0.0f, nan, nan}));
  EXPECT_TRUE(bits_equal(r[2], {-0.0f, -0.0f, nan, nan}));
  EXPECT_TRUE(bits_equal(r[3], {0.0f, -0.0f, nan, 1.0f}));
  EXPECT_EQ(r[4], Literal::FromBF16({2, 0.0078125f}, {2}));
  EXPECT_EQ(r[5], Literal::FromF64({0.5}, {}));
}

TEST(ReferenceEvaluatorTest, DataMovement) {
  std::vector<Literal> r = Eval(R"(
  %x = constant({1, 2, 3}) : s32[3]
  %zero = constant(0) : s32[]
  %pad = pad(%x, %zero), high={1}, interior={1}, low={-1} : s32[5]
  %m = constant({1, 2, 3, 4, 5, 6}) : s32[2,3]
  %t = transpose(%m), permutation={1,0} : s32[3,2]
  %s = slice(%m), limit={2,3}, start={0,1}, stride={1,2} : s32[2,1]
  %b = broadcast_in_dim(%x), dims={1} : s32[2,3]
  %iota = iota(), dimension={0} : s32[2,3]
  %r = reshape(%m) : s32[3,2]
  return (%pad, %t, %s, %b, %iota, %r))");
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0], Literal::FromS32({0, 2, 0, 3, 0}, {5}));
  EXPECT_EQ(r[1], Literal::FromS32({1, 4, 2, 5, 3, 6}, {3, 2}));
  EXPECT_EQ(r[2], Literal::FromS32({2, 5}, {2, 1}));
  EXPECT_EQ(r[3], Literal::FromS32({1, 2, 3, 1, 2, 3}, {2, 3}));
  EXPECT_EQ(r[4], Literal::FromS32({0, 0, 0, 1, 1, 1}, {2, 3}));
  EXPECT_EQ(r[5], Literal::FromS32({1, 2, 3, 4, 5, 6}, {3, 2}));
  std::vector<Literal> c = Eval(R"(
  %m = constant({1, 2, 3, 4, 5, 6}) : s32[2,3]
  %n = constant({7, 8}) : s32[2,1]
  %c = concatenate(%m, %n), dimension={1} : s32[2,4]
  return (%c))");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], Literal::FromS32({1, 2, 3, 7, 4, 5, 6, 8}, {2, 4}));
}

TEST(ReferenceEvaluatorTest, ReductionsAndDots) {
  std::vector<Literal> r = Eval(R"(
  %m = constant({1, 2, 3, 4}) : f32[2,2]
  %rows = reduce_sum(%m), axes={1} : f32[2]
  %all = reduce_product(%m), axes={0,1} : f32[]
  %none = reduce_max(%m), axes={} : f32[2,2]
  %empty = constant({}) : f32[0]
  %max_empty = reduce_max(%empty), axes={0} : f32[]
  %e32 = constant({}) : s32[0,2]
  %min_empty = reduce_min(%e32), axes={0} : s32[2]
  %batched = dot_general(%m, %m), lhs_batch={0}, lhs_contracting={1}, rhs_batch={0}, rhs_contracting={1} : f32[2]
  %outer = dot_general(%rows, %rows), lhs_batch={}, lhs_contracting={}, rhs_batch={}, rhs_contracting={} : f32[2,2]
  %p = constant({true, false, false, true}) : pred[2,2]
  %q = dot_general(%p, %p), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : pred[2,2]
  return (%rows, %all, %none, %max_empty, %min_empty, %batched, %outer, %q))");
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0], Literal::FromF32({3, 7}, {2}));
  EXPECT_EQ(r[1], Literal::ScalarF32(24));
  EXPECT_EQ(r[2], Literal::FromF32({1, 2, 3, 4}, {2, 2}));
  EXPECT_EQ(r[3], Literal::ScalarF32(-std::numeric_limits<float>::infinity()));
  EXPECT_EQ(r[4], Literal::FromS32({kMax32, kMax32}, {2}));
  EXPECT_EQ(r[5], Literal::FromF32({5, 25}, {2}));
  EXPECT_EQ(r[6], Literal::FromF32({9, 21, 21, 49}, {2, 2}));
  EXPECT_EQ(r[7], Literal::FromPred({true, false, false, true}, {2, 2}));
}

TEST(ReferenceEvaluatorTest, AllReduceCombinesEachGroup) {
  absl::StatusOr<Program> program = ParseProgram(R"(program @ar replicas=4 {
  %x = parameter(0) : s32[2]
  %sum = all_reduce_sum(%x), group_size={2}, replica_groups={0,2,1,3} : s32[2]
  %max = all_reduce_max(%x), group_size={4}, replica_groups={0,1,2,3} : s32[2]
  %min = all_reduce_min(%x), group_size={1}, replica_groups={3,2,1,0} : s32[2]
  return (%sum, %max, %min)
})");
  ASSERT_TRUE(program.ok()) << program.status();
  std::vector<std::vector<Literal>> args;
  for (int r = 0; r < 4; ++r) args.push_back({Literal::FromS32({r, 10 * r}, {2})});
  absl::StatusOr<std::vector<std::vector<Literal>>> results = EvaluateReplicated(*program, args);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0][0], Literal::FromS32({2, 20}, {2}));  // replicas 0 and 2
  EXPECT_EQ((*results)[3][0], Literal::FromS32({4, 40}, {2}));  // replicas 1 and 3
  EXPECT_EQ((*results)[1][1], Literal::FromS32({3, 30}, {2}));
  EXPECT_EQ((*results)[2][2], Literal::FromS32({2, 20}, {2}));
}

TEST(ReferenceEvaluatorTest, RejectsArgumentsThatDoNotFit) {
  absl::StatusOr<Program> program =
      ParseProgram("program @p {\n  %x = parameter(0) : f32[2]\n  return (%x)\n}");
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(Evaluate(*program, {}).status().message(),
            "reference evaluator: replica 0 has 0 arguments, the program has 1 parameters");
  EXPECT_EQ(Evaluate(*program, {Literal::FromS32({1, 2}, {2})}).status().message(),
            "reference evaluator: argument 0 of replica 0 is s32[2] with 8 bytes, parameter 0 is "
            "f32[2]");
  EXPECT_EQ(EvaluateReplicated(*program, {}).status().message(),
            "reference evaluator: 0 replicas of arguments given, the program has 1");
  program->results = {};
  EXPECT_EQ(Evaluate(*program, {Literal::FromF32({1, 2}, {2})}).status().message(),
            "result tuple is empty");
}

}  // namespace
}  // namespace seam::ir
