// Each simplification pass on small programs: the text before and after, and the same
// result bytes with and without the pass (tests/unit/simplify_testing.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "src/ir/text.h"
#include "src/ir/verifier.h"
#include "src/plugins/cpu/compile/simplify.h"
#include "tests/unit/simplify_testing.h"

namespace seam::cpu {
namespace {

using testing::ExpectSameResults;
using testing::Parse;

SimplifyOptions Only(bool identities, bool fold, bool cse) {
  SimplifyOptions options;
  options.identities = identities;
  options.fold_constants = fold;
  options.common_subexpressions = cse;
  options.dead_code = true;
  options.fold_transposes = false;
  return options;
}
const SimplifyOptions kCseOnly = Only(false, false, true);
const SimplifyOptions kFoldOnly = Only(false, true, false);
const SimplifyOptions kIdentitiesOnly = Only(true, false, false);
SimplifyOptions TransposeFoldingOnly() {
  SimplifyOptions options = Only(false, false, false);
  options.fold_transposes = true;
  return options;
}

// Simplifies `before`, checks that the printed result is `after` (hand-written text,
// compared in canonical form), that it verifies, and that it computes the same bytes.
ir::Program ExpectSimplifiesTo(const std::string& before, const std::string& after,
                               const SimplifyOptions& options) {
  ir::Program original = Parse(before);
  absl::StatusOr<ir::Program> simplified = Simplify(original, options);
  EXPECT_TRUE(simplified.ok()) << simplified.status();
  if (!simplified.ok()) return {};
  EXPECT_TRUE(ir::VerifyProgram(*simplified).ok());
  EXPECT_EQ(ir::PrintProgram(*simplified), ir::PrintProgram(Parse(after)));
  ExpectSameResults(original, *simplified);
  return *simplified;
}

TEST(CpuSimplifyTest, CseSharesEqualInstructionsButNotParametersOrCollectives) {
  ExpectSimplifiesTo(R"(program @cse {
  %0 = parameter(0) : f32[4]
  %1 = parameter(1) : f32[4]
  %2 = exp(%0) : f32[4]
  %3 = exp(%0) : f32[4]
  %4 = add(%2, %3) : f32[4]
  %5 = constant(2) : f32[]
  %6 = constant(2) : f32[]
  %7 = broadcast_in_dim(%5), dims={} : f32[4]
  %8 = broadcast_in_dim(%6), dims={} : f32[4]
  %9 = multiply(%4, %7) : f32[4]
  %10 = multiply(%4, %8) : f32[4]
  %11 = all_reduce_sum(%1), group_size={1}, replica_groups={0} : f32[4]
  %12 = all_reduce_sum(%1), group_size={1}, replica_groups={0} : f32[4]
  %13 = exp(%1) : f32[4]
  return (%9, %10, %11, %12, %13)
})",
                     R"(program @cse {
  %0 = parameter(0) : f32[4]
  %1 = parameter(1) : f32[4]
  %2 = exp(%0) : f32[4]
  %3 = add(%2, %2) : f32[4]
  %4 = constant(2) : f32[]
  %5 = broadcast_in_dim(%4), dims={} : f32[4]
  %6 = multiply(%3, %5) : f32[4]
  %7 = all_reduce_sum(%1), group_size={1}, replica_groups={0} : f32[4]
  %8 = all_reduce_sum(%1), group_size={1}, replica_groups={0} : f32[4]
  %9 = exp(%1) : f32[4]
  return (%6, %6, %7, %8, %9)
})",
                     kCseOnly);
}

TEST(CpuSimplifyTest, CseKeepsConstantsThatDifferOnlyInTheSignOfZero) {
  ExpectSimplifiesTo(R"(program @zeros {
  %0 = parameter(0) : f32[]
  %1 = constant(0) : f32[]
  %2 = constant(-0) : f32[]
  %3 = add(%0, %1) : f32[]
  %4 = add(%0, %2) : f32[]
  return (%3, %4)
})",
                     R"(program @zeros {
  %0 = parameter(0) : f32[]
  %1 = constant(0) : f32[]
  %2 = constant(-0) : f32[]
  %3 = add(%0, %1) : f32[]
  %4 = add(%0, %2) : f32[]
  return (%3, %4)
})",
                     kCseOnly);
}

TEST(CpuSimplifyTest, DeadCodeGoesButParametersAliasesAndResultOrderStay) {
  ExpectSimplifiesTo(R"(program @dead {
  %0 = parameter(0) : s32[2]
  %1 = parameter(1) : s32[2]
  %2 = parameter(2) : s32[2]
  %3 = add(%0, %1) : s32[2]
  %4 = multiply(%3, %3) : s32[2]
  %5 = subtract(%1, %0) : s32[2]
  alias output 1 = parameter 2
  return (%5, %5, %0)
})",
                     R"(program @dead {
  %0 = parameter(0) : s32[2]
  %1 = parameter(1) : s32[2]
  %2 = parameter(2) : s32[2]
  %3 = subtract(%1, %0) : s32[2]
  alias output 1 = parameter 2
  return (%3, %3, %0)
})",
                     Only(false, false, false));
}

TEST(CpuSimplifyTest, FoldComputesConstantOperandsWithTheKernels) {
  ExpectSimplifiesTo(R"(program @fold {
  %0 = parameter(0) : s32[3]
  %1 = constant({1, 2, 3}) : s32[3]
  %2 = constant({10, 20, -30}) : s32[3]
  %3 = multiply(%1, %2) : s32[3]
  %4 = reduce_sum(%3), axes={0} : s32[]
  %5 = lt(%1, %2) : pred[3]
  %6 = convert(%3) : f64[3]
  %7 = iota(), dimension={0} : s32[3]
  %8 = constant(7) : s32[]
  %9 = broadcast_in_dim(%8), dims={} : s32[3]
  %10 = add(%0, %9) : s32[3]
  %11 = add(%10, %7) : s32[3]
  %12 = slice(%3), limit={3}, start={1}, stride={1} : s32[2]
  %13 = concatenate(%12, %1), dimension={0} : s32[5]
  %14 = constant(2147483647) : s32[]
  %15 = constant(1) : s32[]
  %16 = add(%14, %15) : s32[]
  return (%4, %5, %6, %11, %13, %16)
})",
                     R"(program @fold {
  %0 = parameter(0) : s32[3]
  %1 = constant(-40) : s32[]
  %2 = constant({true, true, false}) : pred[3]
  %3 = constant({10, 40, -90}) : f64[3]
  %4 = iota(), dimension={0} : s32[3]
  %5 = constant(7) : s32[]
  %6 = broadcast_in_dim(%5), dims={} : s32[3]
  %7 = add(%0, %6) : s32[3]
  %8 = add(%7, %4) : s32[3]
  %9 = constant({40, -90, 1, 2, 3}) : s32[5]
  %10 = constant(-2147483648) : s32[]
  return (%1, %2, %3, %8, %9, %10)
})",
                     kFoldOnly);
}

TEST(CpuSimplifyTest, FoldedFloatsAreTheKernelsBits) {
  const std::string text = R"(program @floats {
  %0 = constant({1, -0.5, 0, 88.7}) : f32[4]
  %1 = exp(%0) : f32[4]
  %2 = constant(0.1) : bf16[]
  %3 = constant(3) : bf16[]
  %4 = divide(%2, %3) : bf16[]
  return (%1, %4)
})";
  ir::Program original = Parse(text);
  absl::StatusOr<ir::Program> folded = Simplify(original, kFoldOnly);
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_EQ(folded->instructions.size(), 2u) << ir::PrintProgram(*folded);
  const ir::Instruction& exp = folded->instructions[folded->results[0]];
  ASSERT_EQ(exp.op, ir::Op::kConstant);
  const float inputs[] = {1.0f, -0.5f, 0.0f, 88.7f};
  for (int i = 0; i < 4; ++i) {
    float want = std::exp(inputs[i]);
    EXPECT_EQ(std::memcmp(exp.literal.f32() + i, &want, sizeof(float)), 0) << i;
  }
  EXPECT_EQ(folded->instructions[folded->results[1]].op, ir::Op::kConstant);
  ExpectSameResults(original, *folded, 1);
}

TEST(CpuSimplifyTest, FoldLeavesLargeResultsBroadcastsAndIota) {
  // With a limit of 2 elements, the 4-element add stays; broadcast and iota never fold.
  SimplifyOptions options = kFoldOnly;
  options.max_fold_elements = 2;
  const std::string program = R"(program @large {
  %0 = constant({1, 2, 3, 4}) : f32[4]
  %1 = constant({5, 6, 7, 8}) : f32[4]
  %2 = add(%0, %1) : f32[4]
  %3 = constant(1) : f32[]
  %4 = broadcast_in_dim(%3), dims={} : f32[2]
  %5 = iota(), dimension={0} : f32[2]
  %6 = constant({1, 2}) : f32[2]
  %7 = multiply(%6, %6) : f32[2]
  return (%2, %4, %5, %7)
})";
  ExpectSimplifiesTo(program, R"(program @large {
  %0 = constant({1, 2, 3, 4}) : f32[4]
  %1 = constant({5, 6, 7, 8}) : f32[4]
  %2 = add(%0, %1) : f32[4]
  %3 = constant(1) : f32[]
  %4 = broadcast_in_dim(%3), dims={} : f32[2]
  %5 = iota(), dimension={0} : f32[2]
  %6 = constant({1, 4}) : f32[2]
  return (%2, %4, %5, %6)
})",
                     options);
}

TEST(CpuSimplifyTest, FloatIdentitiesKeepSignedZerosNaNAndInfinity) {
  // x*1, x+(-0), x-0, x/1, neg(neg), same-dtype convert, identity reshape/transpose/slice
  // go; x+0 (-0 + 0 is +0) and x*0 (NaN, inf, -0) stay.
  ExpectSimplifiesTo(R"(program @float_identities {
  %0 = parameter(0) : f32[2,3]
  %1 = constant(1) : f32[]
  %2 = broadcast_in_dim(%1), dims={} : f32[2,3]
  %3 = multiply(%0, %2) : f32[2,3]
  %4 = constant(-0) : f32[]
  %5 = broadcast_in_dim(%4), dims={} : f32[2,3]
  %6 = add(%5, %3) : f32[2,3]
  %7 = constant(0) : f32[]
  %8 = broadcast_in_dim(%7), dims={} : f32[2,3]
  %9 = subtract(%6, %8) : f32[2,3]
  %10 = divide(%9, %2) : f32[2,3]
  %11 = add(%10, %8) : f32[2,3]
  %12 = multiply(%11, %8) : f32[2,3]
  %13 = neg(%12) : f32[2,3]
  %14 = neg(%13) : f32[2,3]
  %15 = convert(%14) : f32[2,3]
  %16 = reshape(%15) : f32[2,3]
  %17 = transpose(%16), permutation={0,1} : f32[2,3]
  %18 = slice(%17), limit={2,3}, start={0,0}, stride={1,1} : f32[2,3]
  %19 = power(%0, %2) : f32[2,3]
  return (%18, %10, %19)
})",
                     R"(program @float_identities {
  %0 = parameter(0) : f32[2,3]
  %1 = constant(0) : f32[]
  %2 = broadcast_in_dim(%1), dims={} : f32[2,3]
  %3 = add(%0, %2) : f32[2,3]
  %4 = multiply(%3, %2) : f32[2,3]
  return (%4, %0, %0)
})",
                     kIdentitiesOnly);
}

TEST(CpuSimplifyTest, FloatTimesZeroIsNotFoldedBecauseOfNaNAndInfinity) {
  const std::string text = R"(program @times_zero {
  %0 = parameter(0) : f32[5]
  %1 = constant(0) : f32[]
  %2 = broadcast_in_dim(%1), dims={} : f32[5]
  %3 = multiply(%0, %2) : f32[5]
  %4 = add(%0, %2) : f32[5]
  return (%3, %4)
})";
  ir::Program original = Parse(text);
  absl::StatusOr<ir::Program> simplified = Simplify(original);
  ASSERT_TRUE(simplified.ok()) << simplified.status();
  EXPECT_EQ(ir::PrintProgram(*simplified), ir::PrintProgram(original));
  const float nan = std::nanf("");
  const float inf = INFINITY;
  std::vector<ir::Literal> arguments = {ir::Literal::FromF32({nan, inf, -inf, -2.0f, -0.0f}, {5})};
  std::vector<ir::Literal> results = testing::RunCompiled(original, arguments);
  ASSERT_EQ(results.size(), 2u);
  const float* product = results[0].f32();
  EXPECT_TRUE(std::isnan(product[0]));
  EXPECT_TRUE(std::isnan(product[1]));
  EXPECT_TRUE(std::isnan(product[2]));
  EXPECT_TRUE(product[3] == 0.0f && std::signbit(product[3]));  // -2 * 0 = -0
  // -0 + 0 = +0: an "x + 0 -> x" rewrite would have returned -0.
  EXPECT_FALSE(std::signbit(results[1].f32()[4]));
  EXPECT_EQ(testing::CompareResults(testing::RunWithKernels(original, arguments), results), "");
}

TEST(CpuSimplifyTest, IntegerIdentitiesIncludingTimesZero) {
  ExpectSimplifiesTo(R"(program @int_identities {
  %0 = parameter(0) : s32[3]
  %1 = constant(0) : s32[]
  %2 = broadcast_in_dim(%1), dims={} : s32[3]
  %3 = constant({1, 1, 1}) : s32[3]
  %4 = add(%0, %2) : s32[3]
  %5 = subtract(%4, %2) : s32[3]
  %6 = multiply(%3, %5) : s32[3]
  %7 = divide(%6, %3) : s32[3]
  %8 = power(%7, %3) : s32[3]
  %9 = not(%8) : s32[3]
  %10 = not(%9) : s32[3]
  %11 = multiply(%10, %2) : s32[3]
  %12 = multiply(%2, %10) : s32[3]
  return (%10, %11, %12)
})",
                     R"(program @int_identities {
  %0 = parameter(0) : s32[3]
  %1 = constant(0) : s32[]
  %2 = broadcast_in_dim(%1), dims={} : s32[3]
  return (%0, %2, %2)
})",
                     kIdentitiesOnly);
}

TEST(CpuSimplifyTest, PredNotAndConvertStayButConstantSelectsGo) {
  // not(not(p)) and convert(p) to pred turn a host byte 2 into 1, so they stay.
  ExpectSimplifiesTo(R"(program @preds {
  %0 = parameter(0) : pred[4]
  %1 = parameter(1) : s64[4]
  %2 = parameter(2) : s64[4]
  %3 = not(%0) : pred[4]
  %4 = not(%3) : pred[4]
  %5 = convert(%0) : pred[4]
  %6 = constant(true) : pred[]
  %7 = broadcast_in_dim(%6), dims={} : pred[4]
  %8 = select(%7, %1, %2) : s64[4]
  %9 = constant({false, false, false, false}) : pred[4]
  %10 = select(%9, %1, %2) : s64[4]
  %11 = select(%0, %2, %2) : s64[4]
  %12 = select(%0, %1, %2) : s64[4]
  return (%4, %5, %8, %10, %11, %12)
})",
                     R"(program @preds {
  %0 = parameter(0) : pred[4]
  %1 = parameter(1) : s64[4]
  %2 = parameter(2) : s64[4]
  %3 = not(%0) : pred[4]
  %4 = not(%3) : pred[4]
  %5 = convert(%0) : pred[4]
  %6 = select(%0, %1, %2) : s64[4]
  return (%4, %5, %1, %2, %2, %6)
})",
                     kIdentitiesOnly);
}

TEST(CpuSimplifyTest, MovementChainsMergeAndNoOpMovementGoes) {
  ExpectSimplifiesTo(R"(program @movement {
  %0 = parameter(0) : bf16[2,3,4]
  %1 = transpose(%0), permutation={1,2,0} : bf16[3,4,2]
  %2 = transpose(%1), permutation={2,0,1} : bf16[2,3,4]
  %3 = reshape(%2) : bf16[6,4]
  %4 = reshape(%3) : bf16[24]
  %5 = parameter(1) : bf16[3]
  %6 = broadcast_in_dim(%5), dims={1} : bf16[2,3]
  %7 = broadcast_in_dim(%6), dims={0,2} : bf16[2,5,3]
  %8 = constant(0) : bf16[]
  %9 = pad(%4, %8), high={0}, interior={0}, low={0} : bf16[24]
  %10 = concatenate(%9), dimension={0} : bf16[24]
  %11 = transpose(%1), permutation={1,0,2} : bf16[4,3,2]
  return (%10, %7, %11)
})",
                     R"(program @movement {
  %0 = parameter(0) : bf16[2,3,4]
  %1 = reshape(%0) : bf16[24]
  %2 = parameter(1) : bf16[3]
  %3 = broadcast_in_dim(%2), dims={2} : bf16[2,5,3]
  %4 = transpose(%0), permutation={2,1,0} : bf16[4,3,2]
  return (%1, %3, %4)
})",
                     kIdentitiesOnly);
}

// A broadcast of a reshape that only inserts unit dimensions reads the reshape's operand
// directly (the reshape, used nowhere else, goes); reshapes that move elements between
// dimensions, or an operand with unit dimensions of its own, stay.
TEST(CpuSimplifyTest, BroadcastReadsThroughAReshapeThatOnlyAddsUnitDimensions) {
  ExpectSimplifiesTo(R"(program @through {
  %0 = parameter(0) : f32[4]
  %1 = reshape(%0) : f32[4,1]
  %2 = broadcast_in_dim(%1), dims={0,1} : f32[4,3]
  %3 = reshape(%0) : f32[1,4,1]
  %4 = broadcast_in_dim(%3), dims={0,1,2} : f32[2,4,5]
  %5 = parameter(1) : s32[2,3]
  %6 = reshape(%5) : s32[6]
  %7 = broadcast_in_dim(%6), dims={1} : s32[2,6]
  %8 = parameter(2) : f32[1,3]
  %9 = reshape(%8) : f32[3,1]
  %10 = broadcast_in_dim(%9), dims={0,1} : f32[3,2]
  %11 = parameter(3) : f32[]
  %12 = reshape(%11) : f32[1,1]
  %13 = broadcast_in_dim(%12), dims={0,1} : f32[2,2]
  %14 = parameter(4) : f32[0]
  %15 = reshape(%14) : f32[1,0]
  %16 = broadcast_in_dim(%15), dims={0,2} : f32[3,2,0]
  return (%2, %4, %7, %10, %13, %16)
})",
                     R"(program @through {
  %0 = parameter(0) : f32[4]
  %1 = broadcast_in_dim(%0), dims={0} : f32[4,3]
  %2 = broadcast_in_dim(%0), dims={1} : f32[2,4,5]
  %3 = parameter(1) : s32[2,3]
  %4 = reshape(%3) : s32[6]
  %5 = broadcast_in_dim(%4), dims={1} : s32[2,6]
  %6 = parameter(2) : f32[1,3]
  %7 = reshape(%6) : f32[3,1]
  %8 = broadcast_in_dim(%7), dims={0,1} : f32[3,2]
  %9 = parameter(3) : f32[]
  %10 = broadcast_in_dim(%9), dims={} : f32[2,2]
  %11 = parameter(4) : f32[0]
  %12 = broadcast_in_dim(%11), dims={2} : f32[3,2,0]
  return (%1, %2, %5, %8, %10, %12)
})",
                     kIdentitiesOnly);
}

TEST(CpuSimplifyTest, ElementwiseOpsOfEqualBroadcastsRunBeforeTheBroadcast) {
  ExpectSimplifiesTo(R"(program @hoist {
  %0 = parameter(0) : f64[3]
  %1 = parameter(1) : f64[3]
  %2 = broadcast_in_dim(%0), dims={1} : f64[2,3]
  %3 = broadcast_in_dim(%1), dims={1} : f64[2,3]
  %4 = maximum(%2, %3) : f64[2,3]
  %5 = constant(2) : f64[]
  %6 = constant(3) : f64[]
  %7 = broadcast_in_dim(%5), dims={} : f64[2,3]
  %8 = broadcast_in_dim(%6), dims={} : f64[2,3]
  %9 = power(%7, %8) : f64[2,3]
  %10 = add(%4, %9) : f64[2,3]
  %11 = broadcast_in_dim(%0), dims={0} : f64[3,2]
  return (%10, %11)
})",
                     R"(program @hoist {
  %0 = parameter(0) : f64[3]
  %1 = parameter(1) : f64[3]
  %2 = maximum(%0, %1) : f64[3]
  %3 = broadcast_in_dim(%2), dims={1} : f64[2,3]
  %4 = constant(8) : f64[]
  %5 = broadcast_in_dim(%4), dims={} : f64[2,3]
  %6 = add(%3, %5) : f64[2,3]
  %7 = broadcast_in_dim(%0), dims={0} : f64[3,2]
  return (%6, %7)
})",
                     SimplifyOptions{});
}

TEST(CpuSimplifyTest, TransposesFoldIntoProductsThatReadThemInPlace) {
  // Attention's heads split by transposes ([batch, seq, heads, dim] -> [batch, heads, seq,
  // dim]) feeding q.k^T and p.v: each product reads the transposes' operands, its batch
  // and contracting dimensions renamed; a transpose that is also a result stays.
  ExpectSimplifiesTo(R"(program @heads {
  %0 = parameter(0) : f32[2,4,3,5]
  %1 = parameter(1) : f32[2,6,3,5]
  %2 = parameter(2) : f32[2,6,3,5]
  %3 = transpose(%0), permutation={0,2,1,3} : f32[2,3,4,5]
  %4 = transpose(%1), permutation={0,2,1,3} : f32[2,3,6,5]
  %5 = transpose(%2), permutation={0,2,1,3} : f32[2,3,6,5]
  %6 = dot_general(%3, %4), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, rhs_contracting={3} : f32[2,3,4,6]
  %7 = dot_general(%6, %5), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, rhs_contracting={2} : f32[2,3,4,5]
  return (%7, %5)
})",
                     R"(program @heads {
  %0 = parameter(0) : f32[2,4,3,5]
  %1 = parameter(1) : f32[2,6,3,5]
  %2 = parameter(2) : f32[2,6,3,5]
  %3 = transpose(%2), permutation={0,2,1,3} : f32[2,3,6,5]
  %4 = dot_general(%0, %1), lhs_batch={0,2}, lhs_contracting={3}, rhs_batch={0,2}, rhs_contracting={3} : f32[2,3,4,6]
  %5 = dot_general(%4, %2), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,2}, rhs_contracting={1} : f32[2,3,4,5]
  return (%5, %3)
})",
                     TransposeFoldingOnly());
}

TEST(CpuSimplifyTest, TransposesTheProductWouldCopyStay) {
  // Neither of the matrix's dimensions is the source's last: the kernels would copy it
  // (the transpose does that already); integer products copy anything not dense; and two
  // free dimensions whose order the transpose swaps cannot be renamed.
  for (const char* text : {R"(program @copied {
  %0 = parameter(0) : f32[2,4,5,3]
  %1 = parameter(1) : f32[2,3,6,5]
  %2 = transpose(%0), permutation={0,3,1,2} : f32[2,3,4,5]
  %3 = dot_general(%2, %1), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, rhs_contracting={3} : f32[2,3,4,6]
  return (%3)
})",
                           R"(program @integers {
  %0 = parameter(0) : s32[2,4,3,5]
  %1 = parameter(1) : s32[2,3,6,5]
  %2 = transpose(%0), permutation={0,2,1,3} : s32[2,3,4,5]
  %3 = dot_general(%2, %1), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, rhs_contracting={3} : s32[2,3,4,6]
  return (%3)
})",
                           R"(program @free_order {
  %0 = parameter(0) : f32[3,4,5]
  %1 = parameter(1) : f32[5,6]
  %2 = transpose(%0), permutation={1,0,2} : f32[4,3,5]
  %3 = dot_general(%2, %1), lhs_batch={}, lhs_contracting={2}, rhs_batch={}, rhs_contracting={0} : f32[4,3,6]
  return (%3)
})"}) {
    ExpectSimplifiesTo(text, text, TransposeFoldingOnly());
  }
}

TEST(CpuSimplifyTest, AllPassesTogetherReachAFixedPoint) {
  const std::string text = R"(program @together replicas=1 {
  %0 = parameter(0) : f32[8]
  %1 = constant(1) : f32[]
  %2 = constant(1) : f32[]
  %3 = add(%1, %2) : f32[]
  %4 = constant(2) : f32[]
  %5 = divide(%3, %4) : f32[]
  %6 = broadcast_in_dim(%5), dims={} : f32[8]
  %7 = multiply(%0, %6) : f32[8]
  %8 = exp(%7) : f32[8]
  %9 = exp(%0) : f32[8]
  %10 = add(%8, %9) : f32[8]
  alias output 0 = parameter 0
  return (%10)
})";
  ir::Program original = Parse(text);
  absl::StatusOr<ir::Program> once = Simplify(original);
  ASSERT_TRUE(once.ok()) << once.status();
  EXPECT_EQ(ir::PrintProgram(*once), ir::PrintProgram(Parse(R"(program @together {
  %0 = parameter(0) : f32[8]
  %1 = exp(%0) : f32[8]
  %2 = add(%1, %1) : f32[8]
  alias output 0 = parameter 0
  return (%2)
})")));
  absl::StatusOr<ir::Program> twice = Simplify(*once);
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(*twice, *once);
  ExpectSameResults(original, *once);
}

}  // namespace
}  // namespace seam::cpu
