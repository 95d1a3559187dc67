// Sliced regions (sliced_region.h): a causal attention's softmax, forward and backward, runs
// with the products around it one slice of batches at a time. Every step runs its own
// kernel on its batches, so the results must be bit for bit those of the plan without
// slicing (SEAM_CPU_ATTENTION=blocks), on one and two threads, whatever the slice; the
// values read by the region alone live one slice at a time; shapes that cannot be sliced
// are left alone.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/sliced_region.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/attention_program.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using testing::AttentionProgram;
using testing::Mask;
using testing::Shape;

std::shared_ptr<const Executable> CompileUnder(const std::string& text, const char* attention) {
  EXPECT_EQ(setenv("SEAM_CPU_ATTENTION", attention, 1), 0);
  auto executable = harness::CompileOrDie(text, /*fuse=*/true);
  EXPECT_EQ(unsetenv("SEAM_CPU_ATTENTION"), 0);
  return executable;
}

// Arguments with a softmax-sized scale (the program's last parameter).
std::vector<ir::Literal> Arguments(const std::string& text) {
  std::vector<ir::Literal> args = harness::RandomF32Arguments(text);
  const float scale = 0.7F;
  args.back().bytes.assign(sizeof(float), 0);
  std::memcpy(args.back().bytes.data(), &scale, sizeof(float));
  return args;
}

// Compiles `text` with and without slicing on `threads` kernel threads, expects
// `regions` sliced regions, and the same bytes in every result.
void ExpectSameBits(const std::string& text, int regions, int threads) {
  SCOPED_TRACE(absl::StrCat(threads, " thread(s)"));
  SetKernelThreads(threads);
  auto sliced = CompileUnder(text, "on");
  auto whole = CompileUnder(text, "blocks");
  ASSERT_NE(sliced, nullptr);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(static_cast<int>(sliced->fusion().regions.size()), regions);
  EXPECT_TRUE(whole->fusion().regions.empty());
  const std::vector<ir::Literal> args = Arguments(text);
  const std::vector<ir::Literal> got = harness::RunProgram(*sliced, args);
  const std::vector<ir::Literal> want = harness::RunProgram(*whole, args);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); ++r) {
    ASSERT_EQ(got[r].bytes.size(), want[r].bytes.size());
    EXPECT_EQ(std::memcmp(got[r].bytes.data(), want[r].bytes.data(), got[r].bytes.size()), 0)
        << "result " << r;
  }
  // A second run reuses the same slots: the same bits again.
  const std::vector<ir::Literal> again = harness::RunProgram(*sliced, args);
  for (size_t r = 0; r < got.size(); ++r) EXPECT_EQ(again[r].bytes, got[r].bytes) << r;
  SetKernelThreads(0);
}

TEST(CpuSlicedRegion, AttentionStepGivesTheBitsOfTheWholeSteps) {
  // Heads of 32 x 32 (one tile), 64 x 64 and 128 x 128 scores; heads split and merged by
  // transposes as a model's projections make them.
  for (const Shape& shape :
       {Shape{2, 3, 32, 32, 16}, Shape{2, 3, 64, 64, 32}, Shape{1, 4, 128, 128, 64}}) {
    for (bool split : {false, true}) {
      SCOPED_TRACE(absl::StrCat("L=", shape.l, " D=", shape.d, split ? " split" : ""));
      const std::string text = AttentionProgram(shape, Mask::kCausal, 0, false, split);
      for (int threads : {1, 2}) ExpectSameBits(text, 1, threads);
    }
  }
}

TEST(CpuSlicedRegion, KeysBeyondTheQueriesAndShiftedMasks) {
  ExpectSameBits(AttentionProgram(Shape{2, 2, 32, 64, 16}, Mask::kCausal, 32), 1, 2);
  ExpectSameBits(AttentionProgram(Shape{1, 3, 64, 64, 16}, Mask::kCausal, 5), 1, 1);
}

TEST(CpuSlicedRegion, TheRegionsHoldTheSoftmaxAndTheProductsAroundIt) {
  SetKernelThreads(2);
  const std::string text = AttentionProgram(Shape{4, 4, 64, 64, 32}, Mask::kCausal, 0);
  auto executable = CompileUnder(text, "on");
  SetKernelThreads(0);
  ASSERT_NE(executable, nullptr);
  const FusionPlan& plan = executable->fusion();
  const ir::Program& program = executable->program();
  // This program computes do.vᵀ right after the forward's softmax: forward and backward
  // make one region, all six causal products and the four softmax loops.
  ASSERT_EQ(plan.regions.size(), 1U) << OptimizedDumpText(*executable);
  const SlicedRegion& region = plan.regions[0];
  EXPECT_EQ(region.batches, 16);
  EXPECT_EQ(region.parts, 2);          // slices over two threads
  EXPECT_LT(region.slice_batches, 8);  // a few batches' values per slice: kSliceTargetBytes
  // The head is a causal product; the region's later steps are marked and run nothing
  // themselves.
  const Step& head = plan.steps[region.first];
  ASSERT_GE(head.instruction, 0);
  int products = 0, loops = 0;
  for (int s = region.first; s < region.end; ++s) {
    EXPECT_EQ(plan.steps[s].sliced, s != region.first);
    EXPECT_EQ(plan.steps[s].region, s == region.first ? 0 : -1);
    if (plan.steps[s].group >= 0) {
      ++loops;
    } else {
      ++products;
      EXPECT_NE(executable->step_plans()[s].dot.causal, nullptr);
    }
  }
  EXPECT_EQ(products, 6);
  EXPECT_EQ(loops, 4);
  // The scores (the head's value) never leave the region: one slice per part.
  ASSERT_FALSE(region.local.empty());
  EXPECT_EQ(region.local[0], head.instruction);
  const int64_t slice_bytes = region.slice_batches * 64 * 64 * 4;
  EXPECT_EQ(region.local_part_bytes[0], slice_bytes);
  ASSERT_EQ(executable->buffers().homes[head.instruction].kind, ValueHome::kArena);
  EXPECT_LT(slice_bytes * region.parts,
            static_cast<int64_t>(program.instructions[head.instruction].shape.byte_size()));
  // The results (out, dq, dk, dv) are written by the region but read after it: not local.
  for (int r : program.results) {
    EXPECT_EQ(std::count(region.local.begin(), region.local.end(), r), 0) << r;
  }
}

TEST(CpuSlicedRegion, ShapesThatAreNoWholeTilesPerBatchAreLeftAlone) {
  // 33 x 33 scores per head: a batch is no whole number of 1024-element tiles.
  ExpectSameBits(AttentionProgram(Shape{2, 2, 33, 33, 8}, Mask::kCausal, 0), 0, 1);
  // No mask: no causal product to start a region.
  ExpectSameBits(AttentionProgram(Shape{2, 2, 64, 64, 16}, Mask::kNone, 0), 0, 1);
}

TEST(CpuSlicedRegion, ScoresThatAreAResultStopTheForwardRegion) {
  // The scores are also a result: that product computes everything, so it heads no
  // region; the backward's do.vᵀ heads one.
  ExpectSameBits(AttentionProgram(Shape{1, 2, 64, 64, 16}, Mask::kCausal, 0, true), 1, 1);
}

}  // namespace
}  // namespace seam::cpu
