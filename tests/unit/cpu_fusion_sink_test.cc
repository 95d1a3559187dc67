// Values a group computes only for one later group are computed by that group
// (fusion_sink.h): a GELU's exp(-s^2) leaves the forward loop for the backward one, a
// value its group writes anyway is read rather than recomputed, and a member the first
// group still needs is computed twice only when it is cheap (never an erf). Every plan
// gives the unfused plan's results bit for bit, on one and two kernel threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RandomF32Arguments;
using harness::RunBytes;

// The index of the program's one instruction of `op` (-1 if there is not exactly one).
int OnlyOf(const Executable& executable, ir::Op op) {
  int found = -1;
  const auto& instructions = executable.program().instructions;
  for (int i = 0; i < static_cast<int>(instructions.size()); ++i) {
    if (instructions[i].op != op) continue;
    if (found >= 0) return -1;
    found = i;
  }
  return found;
}

// The first instruction of `op` that reads `value`, or -1.
int ReaderOf(const Executable& executable, int value, ir::Op op) {
  const auto& instructions = executable.program().instructions;
  for (int i = 0; i < static_cast<int>(instructions.size()); ++i) {
    const auto& operands = instructions[i].operands;
    if (instructions[i].op == op &&
        std::find(operands.begin(), operands.end(), value) != operands.end()) {
      return i;
    }
  }
  return -1;
}

// The groups whose members include instruction i.
std::vector<int> GroupsWith(const Executable& executable, int i) {
  std::vector<int> groups;
  const FusionPlan& plan = executable.fusion();
  for (int g = 0; g < static_cast<int>(plan.groups.size()); ++g) {
    const std::vector<int>& members = plan.groups[g].members;
    if (std::binary_search(members.begin(), members.end(), i)) groups.push_back(g);
  }
  return groups;
}

bool WrittenBy(const Executable& executable, int g, int value) {
  const std::vector<int>& outputs = executable.fusion().groups[g].outputs;
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

void ExpectUnfusedBits(const std::string& text) {
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  const std::vector<ir::Literal> args = RandomF32Arguments(text);
  SetKernelThreads(1);
  const auto expected = RunBytes(*unfused, args);
  EXPECT_EQ(RunBytes(*fused, args), expected) << "one thread";
  SetKernelThreads(2);
  EXPECT_EQ(RunBytes(*fused, args), expected) << "two threads";
  SetKernelThreads(0);
}

// A GELU's forward and the start of its backward, a product between them (so the two
// loops are separate steps): the greedy grouping puts exp(-s^2) into the forward loop with
// s; only the backward loop reads it, and that loop reads %x anyway.
constexpr char kGelu[] = R"(program @gelu {
  %x = parameter(0) : f32[96,300]
  %w = parameter(1) : f32[300,300]
  %c = constant(0.7071067811865476) : f32[]
  %cb = broadcast_in_dim(%c), dims={} : f32[96,300]
  %s = multiply(%x, %cb) : f32[96,300]
  %e = erf(%s) : f32[96,300]
  %y = multiply(%x, %e) : f32[96,300]
  %d = dot_general(%y, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[96,300]
  %sq = multiply(%s, %s) : f32[96,300]
  %n = neg(%sq) : f32[96,300]
  %ex = exp(%n) : f32[96,300]
  %g = multiply(%d, %ex) : f32[96,300]
  %h = multiply(%g, %x) : f32[96,300]
  return (%h, %d)
})";

TEST(FusionSinkTest, ExpOfTheForwardLoopMovesToTheLoopThatReadsIt) {
  auto fused = CompileOrDie(kGelu, true);
  ASSERT_NE(fused, nullptr);
  const int erf = OnlyOf(*fused, ir::Op::kErf);
  const int exp = OnlyOf(*fused, ir::Op::kExp);
  const int mul_d = ReaderOf(*fused, OnlyOf(*fused, ir::Op::kDotGeneral), ir::Op::kMultiply);
  ASSERT_GE(erf, 0);
  ASSERT_GE(exp, 0);
  ASSERT_GE(mul_d, 0);
  const std::vector<int> forward = GroupsWith(*fused, erf);
  const std::vector<int> backward = GroupsWith(*fused, mul_d);
  ASSERT_EQ(forward.size(), 1u);
  ASSERT_EQ(backward.size(), 1u);
  ASSERT_NE(forward[0], backward[0]);
  // exp is computed in the backward loop only, and the forward loop no longer writes it.
  EXPECT_EQ(GroupsWith(*fused, exp), backward);
  EXPECT_FALSE(WrittenBy(*fused, forward[0], exp));
  // s (a multiply) is computed by both loops; its first group stays its home.
  const int s = fused->program().instructions[erf].operands[0];
  EXPECT_EQ(GroupsWith(*fused, s).size(), 2u);
  EXPECT_EQ(fused->fusion().group_of[s], forward[0]);
  ExpectUnfusedBits(kGelu);
}

// The backward loop also reads erf(s): the erf stays where it is (computing it twice costs
// more than reading it), and is written once for the backward loop.
constexpr char kGeluPhi[] = R"(program @gelu_phi {
  %x = parameter(0) : f32[96,300]
  %w = parameter(1) : f32[300,300]
  %c = constant(0.7071067811865476) : f32[]
  %cb = broadcast_in_dim(%c), dims={} : f32[96,300]
  %s = multiply(%x, %cb) : f32[96,300]
  %e = erf(%s) : f32[96,300]
  %y = multiply(%x, %e) : f32[96,300]
  %d = dot_general(%y, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[96,300]
  %g = multiply(%d, %e) : f32[96,300]
  %h = multiply(%g, %x) : f32[96,300]
  return (%h, %d)
})";

TEST(FusionSinkTest, AnErfTheFirstLoopStillNeedsIsNotComputedTwice) {
  auto fused = CompileOrDie(kGeluPhi, true);
  ASSERT_NE(fused, nullptr);
  const int erf = OnlyOf(*fused, ir::Op::kErf);
  ASSERT_GE(erf, 0);
  const std::vector<int> groups = GroupsWith(*fused, erf);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(WrittenBy(*fused, groups[0], erf));
  ExpectUnfusedBits(kGeluPhi);
}

// A softmax's p = e / sum is written for later steps anyway; q = p / sum, which only the
// backward loop reads, moves there and reads p from memory instead of recomputing it.
constexpr char kSoftmax[] = R"(program @softmax {
  %x = parameter(0) : f32[64,200]
  %w = parameter(1) : f32[200,200]
  %ex = exp(%x) : f32[64,200]
  %sum = reduce_sum(%ex), axes={1} : f32[64]
  %sb = broadcast_in_dim(%sum), dims={0} : f32[64,200]
  %p = divide(%ex, %sb) : f32[64,200]
  %q = divide(%p, %sb) : f32[64,200]
  %d = dot_general(%p, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[64,200]
  %g = multiply(%d, %q) : f32[64,200]
  %h = add(%g, %d) : f32[64,200]
  return (%h, %d)
})";

TEST(FusionSinkTest, AValueItsGroupWritesAnywayIsReadNotRecomputed) {
  auto fused = CompileOrDie(kSoftmax, true);
  ASSERT_NE(fused, nullptr);
  const int dot = OnlyOf(*fused, ir::Op::kDotGeneral);
  ASSERT_GE(dot, 0);
  const int p = fused->program().instructions[dot].operands[0];
  const int q = ReaderOf(*fused, p, ir::Op::kDivide);
  ASSERT_GE(q, 0);
  const std::vector<int> p_groups = GroupsWith(*fused, p);
  const std::vector<int> q_groups = GroupsWith(*fused, q);
  ASSERT_EQ(p_groups.size(), 1u);
  ASSERT_EQ(q_groups.size(), 1u);
  EXPECT_NE(p_groups[0], q_groups[0]);
  EXPECT_TRUE(WrittenBy(*fused, p_groups[0], p));
  const std::vector<int>& inputs = fused->fusion().groups[q_groups[0]].inputs;
  EXPECT_NE(std::find(inputs.begin(), inputs.end(), p), inputs.end());
  ExpectUnfusedBits(kSoftmax);
}

// Two later loops read exp(-s^2): it stays in the forward loop, written once for both.
constexpr char kTwoReaders[] = R"(program @two_readers {
  %x = parameter(0) : f32[96,300]
  %w = parameter(1) : f32[300,300]
  %s = multiply(%x, %x) : f32[96,300]
  %n = neg(%s) : f32[96,300]
  %ex = exp(%n) : f32[96,300]
  %y = add(%x, %s) : f32[96,300]
  %d = dot_general(%y, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[96,300]
  %g = multiply(%d, %ex) : f32[96,300]
  %e2 = dot_general(%g, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[96,300]
  %k = multiply(%e2, %ex) : f32[96,300]
  return (%k, %d)
})";

TEST(FusionSinkTest, AValueTwoLaterLoopsReadStaysWhereItIs) {
  auto fused = CompileOrDie(kTwoReaders, true);
  ASSERT_NE(fused, nullptr);
  const int exp = OnlyOf(*fused, ir::Op::kExp);
  ASSERT_GE(exp, 0);
  const std::vector<int> groups = GroupsWith(*fused, exp);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(WrittenBy(*fused, groups[0], exp));
  ExpectUnfusedBits(kTwoReaders);
}

// %m = a + x is computed by both loops (the forward one still needs it for %y); the
// backward loop's copy reads %a, which the forward loop also folds into its reduction.
// %a must then be written whole, not one chunk at a time (reduce_chunks.h): a chunk-local
// %a gave the backward loop the last chunk's values everywhere.
constexpr char kChunkLocalReadTwice[] = R"(program @chunk_read_twice {
  %x = parameter(0) : f32[96,300]
  %w = parameter(1) : f32[300,300]
  %a = multiply(%x, %x) : f32[96,300]
  %r = reduce_sum(%a), axes={1} : f32[96]
  %m = add(%a, %x) : f32[96,300]
  %y = multiply(%m, %x) : f32[96,300]
  %d = dot_general(%y, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[96,300]
  %v = exp(%m) : f32[96,300]
  %g = multiply(%d, %v) : f32[96,300]
  %h = multiply(%g, %x) : f32[96,300]
  %r2 = multiply(%r, %r) : f32[96]
  return (%h, %r2)
})";

TEST(FusionSinkTest, AnOperandOfAMemberComputedTwiceIsWrittenWhole) {
  auto fused = CompileOrDie(kChunkLocalReadTwice, true);
  ASSERT_NE(fused, nullptr);
  const int exp = OnlyOf(*fused, ir::Op::kExp);
  ASSERT_GE(exp, 0);
  const int m = fused->program().instructions[exp].operands[0];
  ASSERT_EQ(GroupsWith(*fused, m).size(), 2u) << "the case needs %m computed twice";
  ExpectUnfusedBits(kChunkLocalReadTwice);
}

}  // namespace
}  // namespace seam::cpu
