// Reductions that run with the group writing their operand (FusionGroup::reduces, the
// reduce epilogue): the plan absorbs a reduce over adjacent axes of a group's f32/f64
// output into that group's step, the optimized dump says so, and the results are bit for
// bit those of the unfused plan (one kernel per instruction), on one kernel thread and on
// two, for leading, trailing, middle and all axes, kept axes between reduced ones (batch
// norm's statistics), every reduce op, operands whose rows cross the chunk boundaries, and
// NaN. Reductions that are results, whose kept axes are not adjacent, or of integers keep
// their own step.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RunBytes;

struct Case {
  std::string name;
  std::string dtype;  // f32, f64 or s32
  std::string op;     // reduce_sum, reduce_max, ...
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
  bool reduce_is_result = false;
  bool absorbed = true;  // what the plan is expected to do
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string Type(const std::string& dtype, const std::vector<int64_t>& dims) {
  return absl::StrCat(dtype, "[", absl::StrJoin(dims, ","), "]");
}

// A relu backward (select by the sign of %x) feeding the reduction, as in an MLP's bias
// gradient; the reduction is read by a negation (another group) unless it is a result.
std::string ProgramText(const Case& c) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(c.dims.size()); ++d) {
    if (std::find(c.axes.begin(), c.axes.end(), d) == c.axes.end()) kept.push_back(c.dims[d]);
  }
  const std::string t = Type(c.dtype, c.dims), r = Type(c.dtype, kept);
  std::string text = absl::StrCat(
      "program @epilogue {\n  %x = parameter(0) : ", t, "\n  %y = parameter(1) : ", t,
      "\n  %z = constant(0) : ", c.dtype, "[]\n  %zb = broadcast_in_dim(%z), dims={} : ", t,
      "\n  %c = ge(%x, %zb) : ", Type("pred", c.dims), "\n  %g = select(%c, %y, %zb) : ", t,
      "\n  %s = ", c.op, "(%g), axes={", absl::StrJoin(c.axes, ","), "} : ", r, "\n");
  if (c.reduce_is_result) return absl::StrCat(text, "  return (%g, %s)\n}");
  return absl::StrCat(text, "  %n = neg(%s) : ", r, "\n  return (%g, %n)\n}");
}

std::vector<ir::Literal> Arguments(const Case& c) {
  int64_t count = 1;
  for (int64_t d : c.dims) count *= d;
  std::mt19937 rng(static_cast<unsigned>(count));
  std::uniform_real_distribution<double> dist(-2.0, 2.0);
  std::vector<ir::Literal> args;
  for (int a = 0; a < 2; ++a) {
    std::vector<double> v(count);
    for (double& e : v) e = dist(rng);
    // Products stay finite-ish and NaN travels through max/min/sum somewhere.
    if (c.op == "reduce_product") {
      for (double& e : v) e = a == 1 ? 1.0 + e / 64 : e;
    }
    if (a == 1 && count > 7 && c.dtype != "s32") v[count / 3] = NAN, v[0] = -0.0;
    if (c.dtype == "f64") {
      args.push_back(ir::Literal::FromF64(v, c.dims));
    } else if (c.dtype == "f32") {
      args.push_back(ir::Literal::FromF32(std::vector<float>(v.begin(), v.end()), c.dims));
    } else {
      std::vector<int32_t> ints(count);
      for (int64_t i = 0; i < count; ++i) ints[i] = static_cast<int32_t>(v[i] * 1000);
      args.push_back(ir::Literal::FromS32(ints, c.dims));
    }
  }
  return args;
}

class ReduceEpilogueTest : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override { SetKernelThreads(0); }
};

TEST_P(ReduceEpilogueTest, PlanDumpAndBitsMatchTheUnfusedPlan) {
  const Case& c = GetParam();
  const std::string text = ProgramText(c);
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  // Instructions in text order: %x %y %z %zb %c %g %s [%n].
  constexpr int kSelect = 5, kReduce = 6;
  const FusionPlan& plan = fused->fusion();
  const int group = plan.group_of[kSelect];
  ASSERT_GE(group, 0) << text;
  const std::vector<int>& reduces = plan.groups[group].reduces;
  const bool absorbed = std::find(reduces.begin(), reduces.end(), kReduce) != reduces.end();
  EXPECT_EQ(absorbed, c.absorbed) << text;
  const std::string dump = OptimizedDumpText(*fused);
  EXPECT_EQ(dump.find("reduces={%6}") != std::string::npos, c.absorbed) << dump;
  EXPECT_EQ(dump.find(absl::StrCat("+ %6 (", c.op, ")")) != std::string::npos, c.absorbed) << dump;
  if (c.absorbed) {
    EXPECT_EQ(plan.step_of[kReduce], plan.step_of[kSelect]);
    for (const Step& step : plan.steps) EXPECT_NE(step.instruction, kReduce);
  }
  const std::vector<ir::Literal> args = Arguments(c);
  SetKernelThreads(1);
  const auto expected = RunBytes(*unfused, args);
  ASSERT_EQ(expected.size(), 2u);
  EXPECT_EQ(RunBytes(*fused, args), expected) << "one kernel thread\n" << text;
  SetKernelThreads(2);
  EXPECT_EQ(RunBytes(*fused, args), expected) << "two kernel threads\n" << text;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ReduceEpilogueTest,
    ::testing::Values(
        // The MLP's bias gradient: rows over the batch, large enough for two threads and
        // several chunks, with a last tile that is not full.
        Case{"BiasGradient", "f32", "reduce_sum", {300, 700}, {0}},
        Case{"BiasGradientF64", "f64", "reduce_sum", {257, 513}, {0}},
        // Too many chunks for two threads: the loop runs whole, then the reduction.
        Case{"ManyChunks", "f32", "reduce_sum", {2100, 1030}, {0}},
        // Rows longer than a chunk and shorter than a tile, crossing chunk boundaries.
        Case{"TrailingLongRows", "f32", "reduce_max", {37, 20000}, {1}},
        Case{"TrailingShortRows", "f32", "reduce_min", {9001, 10}, {1}},
        // Sums depend on the order: rows cut by chunk boundaries, and whole rows in runs.
        Case{"TrailingSumRows", "f32", "reduce_sum", {3001, 77}, {1}},
        Case{"TrailingSumLongRows", "f32", "reduce_sum", {9, 40000}, {1}},
        Case{"Middle", "f32", "reduce_sum", {5, 300, 40}, {1}},
        Case{"MiddleTwo", "f64", "reduce_max", {3, 50, 40, 70}, {1, 2}},
        Case{"Product", "f32", "reduce_product", {40, 8, 300}, {1}},
        Case{"All", "f32", "reduce_sum", {123, 457}, {0, 1}},
        Case{"ResultKeepsItsStep", "f32", "reduce_sum", {64, 64}, {0}, true, false},
        // Batch norm's statistics over NCHW: the kept axis between reduced ones, sums (AVX2
        // rows of eight where they fit), 2 and 17 channels, rows cut by chunk boundaries.
        Case{"BatchNormSums", "f32", "reduce_sum", {64, 32, 14, 14}, {0, 2, 3}},
        Case{"BatchNormOddChannels", "f32", "reduce_sum", {5, 17, 9, 11}, {0, 2, 3}},
        Case{"BatchNormMax", "f32", "reduce_max", {16, 12, 7, 7}, {0, 2, 3}},
        Case{"KeptMiddleF64", "f64", "reduce_sum", {6, 2, 3000}, {0, 2}},
        Case{"SplitKeptAxesKeepTheirStep", "f32", "reduce_sum", {4, 6, 7, 8}, {0, 2}, false, false},
        Case{"IntegersKeepTheirStep", "s32", "reduce_sum", {64, 64}, {0}, false, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace seam::cpu
