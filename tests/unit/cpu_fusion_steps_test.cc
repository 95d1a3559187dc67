// Fusion at the level of steps: groups that, through a value computed between them, would
// each have to run before the other are never formed (the plan then keeps its groups rather
// than falling back to one kernel per instruction); a fill (broadcast of a rank-0 value)
// read by several groups is computed in each instead of going through memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "src/ir/text.h"
#include "src/plugins/cpu/compile/executable.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RunBytes;

std::vector<float> Random(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

int GroupOf(const Executable& executable, const std::string& name, const std::string& text) {
  // Instructions are numbered in text order; find `name`'s index.
  size_t at = text.find("%" + name + " =");
  EXPECT_NE(at, std::string::npos) << name;
  int index = 0;
  for (size_t p = text.find(" = "); p < at; p = text.find(" = ", p + 1)) ++index;
  return executable.fusion().group_of[index];
}

// %a and %d would form one group {reshape, log, reshape, divide}, and %b {broadcast, add,
// neg, multiply}; but %b reads the log (a before b) while the divide reads a reduction of
// b's neg (b before a). Instruction by instruction there is no cycle, between the two
// loops there is. Before the fix the planner grouped them and then fell back to one kernel
// per instruction for the whole program.
constexpr char kCrossingGroups[] = R"(program @crossing {
  %x = parameter(0) : f32[4,3]
  %y = parameter(1) : f32[4,3]
  %r = reduce_sum(%x), axes={1} : f32[4]
  %a = reshape(%r) : f32[4,1]
  %l = log(%a) : f32[4,1]
  %lb = broadcast_in_dim(%l), dims={0,1} : f32[4,3]
  %b = add(%y, %lb) : f32[4,3]
  %n = neg(%y) : f32[4,3]
  %m = multiply(%b, %n) : f32[4,3]
  %s = reduce_sum(%n), axes={1} : f32[4]
  %sr = reshape(%s) : f32[4,1]
  %d = divide(%sr, %a) : f32[4,1]
  return (%m, %d)
})";

TEST(FusionStepsTest, GroupsThatWouldWaitForEachOtherAreNotFormed) {
  auto fused = CompileOrDie(kCrossingGroups, true);
  auto unfused = CompileOrDie(kCrossingGroups, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  const FusionPlan& plan = fused->fusion();
  EXPECT_FALSE(plan.groups.empty()) << "the planner fell back to one kernel per instruction";
  // The log and the broadcast-add-multiply chain are loops; the divide cannot join the
  // log's group (that group feeds the neg's, which the divide waits for).
  const int log_group = GroupOf(*fused, "l", kCrossingGroups);
  const int divide_group = GroupOf(*fused, "d", kCrossingGroups);
  EXPECT_GE(log_group, 0);
  EXPECT_GE(divide_group, 0);
  EXPECT_NE(log_group, divide_group);
  EXPECT_EQ(GroupOf(*fused, "m", kCrossingGroups), GroupOf(*fused, "n", kCrossingGroups));
  EXPECT_LT(plan.steps.size(), unfused->fusion().steps.size());
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(12, 1), {4, 3}),
                                   ir::Literal::FromF32(Random(12, 2), {4, 3})};
  EXPECT_EQ(RunBytes(*fused, args), RunBytes(*unfused, args));
}

// The zero of two relus on either side of a product: one broadcast after CSE, read by two
// groups that cannot merge (the second waits for the product of the first).
constexpr char kSharedFill[] = R"(program @relus {
  %x = parameter(0) : f32[8,16]
  %w = parameter(1) : f32[16,16]
  %z = constant(0) : f32[]
  %zb = broadcast_in_dim(%z), dims={} : f32[8,16]
  %r = maximum(%x, %zb) : f32[8,16]
  %d = dot_general(%r, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[8,16]
  %r2 = maximum(%d, %zb) : f32[8,16]
  return (%r2)
})";

TEST(FusionStepsTest, FillReadByTwoGroupsIsComputedInEach) {
  auto fused = CompileOrDie(kSharedFill, true);
  auto unfused = CompileOrDie(kSharedFill, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  const FusionPlan& plan = fused->fusion();
  const int first = plan.group_of[4], second = plan.group_of[6];
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  ASSERT_NE(first, second);
  for (int g : {first, second}) {
    const std::vector<int>& members = plan.groups[g].members;
    EXPECT_NE(std::find(members.begin(), members.end(), 3), members.end()) << "group " << g;
    EXPECT_EQ(std::find(plan.groups[g].outputs.begin(), plan.groups[g].outputs.end(), 3),
              plan.groups[g].outputs.end());
  }
  EXPECT_TRUE(plan.copied_fill[3]);
  EXPECT_EQ(fused->buffers().homes[3].kind, ValueHome::kNone) << "the fill is never stored";
  std::vector<float> x = Random(128, 3), w = Random(256, 4);
  for (size_t i = 0; i < x.size(); i += 2) x[i] = -x[i];  // half the relu inputs negative
  for (size_t i = 0; i < w.size(); i += 3) w[i] = -w[i];  // and some products
  std::vector<ir::Literal> args = {ir::Literal::FromF32(x, {8, 16}),
                                   ir::Literal::FromF32(w, {16, 16})};
  EXPECT_EQ(RunBytes(*fused, args), RunBytes(*unfused, args));
}

}  // namespace
}  // namespace seam::cpu
