// Cheap values computed again where they are read (fusion.h, FusionPlan::copied): a batch
// norm's normalised values y = d * rstd, read by a later loop that reads d anyway, are
// computed inside that loop instead of being written and read back. The plan says so (y is
// a member of both loops and an output of neither) and the results are bit for bit those of
// the unfused plan (one kernel per instruction) on one and two kernel threads. Where the
// later loop does not read d, or the copy would take more than a few instructions, y stays
// an output.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/batch_norm_program.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RandomF32Arguments;
using harness::RunBytes;

// Mean and variance over N, H, W; y = (x - mean) * var; relu(y) is a result. Then a step
// that must wait for the forward loop (it reads the sum of the relu): dy = g * sum * y,
// and the sums of dy and of dy * `other`. With `other` = %d the gradient's loop reads d;
// with %g it does not. `chain` adds that many more multiplications by the per-channel
// vector between d and y (a longer copy).
std::string ProgramText(const std::string& other, int chain = 0) {
  const testing::BatchNormProgram bn = testing::BatchNormPrefix("copies", {4, 8, 5, 6});
  const std::string& t = bn.t;
  const std::string& over = bn.over;
  std::string text = absl::StrCat(bn.text, "  %y0 = multiply(%d, %rb) : ", t, "\n");
  std::string y = "%y0";
  for (int k = 1; k <= chain; ++k) {
    absl::StrAppend(&text, "  %y", k, " = multiply(", y, ", %rb) : ", t, "\n");
    y = absl::StrCat("%y", k);
  }
  absl::StrAppend(&text, "  %o = maximum(", y, ", %zb) : ", t,
                  "\n  %t = reduce_sum(%o), axes={0,1,2,3} : f32[]",
                  "\n  %tb = broadcast_in_dim(%t), dims={} : ", t,
                  "\n  %g2 = multiply(%g, %tb) : ", t, "\n  %dy = multiply(%g2, ", y, ") : ", t,
                  "\n  %db = reduce_sum(%dy), ", over, "\n  %p = multiply(%dy, ", other, ") : ", t,
                  "\n  %dg = reduce_sum(%p), ", over, "\n  return (%o, %db, %dg)\n}");
  return text;
}

// The value relu reads (y): the operand of the program's maximum that is not the fill.
int ReluInput(const ir::Program& program) {
  for (const ir::Instruction& inst : program.instructions) {
    if (inst.op != ir::Op::kMaximum) continue;
    const int a = inst.operands[0], b = inst.operands[1];
    return program.instructions[a].op == ir::Op::kBroadcastInDim ? b : a;
  }
  return -1;
}

// The groups holding `value` as a member, whether any of them writes it, and whether
// ValueCopier copied it (FusionPlan::copied).
struct Holding {
  int groups = 0;
  bool written = false;
  bool copied = false;
};
Holding HoldingOf(const FusionPlan& plan, int value) {
  Holding h;
  h.copied = plan.copied[value];
  for (const FusionGroup& group : plan.groups) {
    if (std::binary_search(group.members.begin(), group.members.end(), value)) ++h.groups;
    if (std::binary_search(group.outputs.begin(), group.outputs.end(), value)) h.written = true;
  }
  return h;
}

class FusionCopiesTest : public ::testing::Test {
 protected:
  void TearDown() override { SetKernelThreads(0); }

  // Compiles `text` fused and unfused, checks the bits on 1 and 2 threads, and returns
  // where the fused plan keeps y.
  Holding CheckBits(const std::string& text) {
    const std::vector<ir::Literal> args = RandomF32Arguments(text);
    SetKernelThreads(1);
    auto unfused = CompileOrDie(text, false);
    EXPECT_NE(unfused, nullptr);
    if (unfused == nullptr) return {};
    const auto expected = RunBytes(*unfused, args);
    Holding holding;
    for (int compile_threads : {1, 2}) {
      SetKernelThreads(compile_threads);
      auto fused = CompileOrDie(text, true);
      EXPECT_NE(fused, nullptr);
      if (fused == nullptr) return {};
      const int y = ReluInput(fused->program());
      EXPECT_GE(y, 0) << text;
      holding = HoldingOf(fused->fusion(), y);
      for (int run_threads : {1, 2}) {
        SetKernelThreads(run_threads);
        EXPECT_EQ(RunBytes(*fused, args), expected)
            << "compiled for " << compile_threads << " thread(s), run on " << run_threads << "\n"
            << OptimizedDumpText(*fused);
      }
    }
    return holding;
  }
};

TEST_F(FusionCopiesTest, NormalisedValuesAreComputedAgainWhereTheirSourceIsRead) {
  const Holding h = CheckBits(ProgramText("%d"));
  EXPECT_EQ(h.groups, 2);
  EXPECT_FALSE(h.written);
}

TEST_F(FusionCopiesTest, StaysAnOutputWhenTheReaderDoesNotReadItsSource) {
  const Holding h = CheckBits(ProgramText("%g"));
  // ValueCopier refuses; SinkRecomputedValues (run before it) may still move y into its one
  // reader, trading the read of y for one of d (cpu_fusion_sink_test), so y is then held by
  // two groups and not written, else by one that writes it.
  EXPECT_FALSE(h.copied);
  EXPECT_EQ(h.written, h.groups == 1);
}

TEST_F(FusionCopiesTest, StaysAnOutputWhenTheCopyWouldBeLong) {
  // y = d * rb * rb * rb: four instructions with the broadcast, one over the limit.
  const Holding h = CheckBits(ProgramText("%d", 2));
  EXPECT_FALSE(h.copied);  // as above: only SinkRecomputedValues may move y
  EXPECT_EQ(h.written, h.groups == 1);
}

}  // namespace
}  // namespace seam::cpu
