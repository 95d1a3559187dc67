// Causal attention products (attention_causal.h): the six batched products of an attention
// step (forward and backward, as the front end's autodiff writes them) skip the blocks a
// causal mask proves zero or unread. The plan must find all six under a causal mask and
// none without one, leave masks it cannot prove alone, and give the unfused plan's values
// up to the order of the sums, on one and two threads, at lengths that are not multiples
// of the block.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/attention_program.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using testing::AttentionProgram;
using testing::CausalProducts;
using testing::Mask;
using testing::Shape;

std::vector<ir::Literal> Arguments(const std::string& text) {
  std::vector<ir::Literal> args = harness::RandomF32Arguments(text);
  // A softmax-sized scale, and scores large enough that rows are far from uniform.
  args.back().bytes.assign(sizeof(float), 0);
  const float scale = 0.7F;
  std::memcpy(args.back().bytes.data(), &scale, sizeof(float));
  return args;
}

// The results of the plan with causal products against the unfused plan's, within the
// rounding of sums of `terms` products.
void ExpectClose(const std::string& text, int expected_causal, int threads) {
  SetKernelThreads(threads);
  auto fused = harness::CompileOrDie(text, /*fuse=*/true);
  auto unfused = harness::CompileOrDie(text, /*fuse=*/false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  EXPECT_EQ(CausalProducts(*fused), expected_causal);
  EXPECT_EQ(CausalProducts(*unfused), 0);
  const std::vector<ir::Literal> args = Arguments(text);
  const std::vector<ir::Literal> got = harness::RunProgram(*fused, args);
  const std::vector<ir::Literal> want = harness::RunProgram(*unfused, args);
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); ++r) {
    const auto* a = reinterpret_cast<const float*>(got[r].bytes.data());
    const auto* b = reinterpret_cast<const float*>(want[r].bytes.data());
    const int64_t n = want[r].shape.num_elements();
    float scale = 0;
    for (int64_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(b[i]));
    ASSERT_TRUE(std::isfinite(scale)) << "result " << r;
    ASSERT_GT(scale, 0.0F) << "result " << r;
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_NEAR(a[i], b[i], 2e-5F * scale + 1e-6F) << "result " << r << " element " << i;
    }
  }
  SetKernelThreads(0);
}

TEST(CpuAttentionCausal, CausalAttentionStepSkipsSixProductsAndMatchesUnfused) {
  for (const Shape& shape :
       {Shape{2, 3, 128, 128, 64}, Shape{1, 2, 50, 50, 16}, Shape{2, 1, 33, 33, 8}}) {
    SCOPED_TRACE(absl::StrCat("L=", shape.l, " D=", shape.d));
    for (int threads : {1, 2}) ExpectClose(AttentionProgram(shape, Mask::kCausal, 0), 6, threads);
  }
}

TEST(CpuAttentionCausal, HeadsSplitByTransposesAreReadInPlace) {
  // The splits fold into the products (simplify_transpose_fold.cc), which then read q, k, v
  // and the gradient as strided batches; out, dq and dv are written merged by their gemms
  // (transposed_product.h); dk's merge moves its rows' last dimension and stays a copy. All
  // six products still skip blocks.
  for (const Shape& shape : {Shape{2, 3, 64, 64, 32}, Shape{1, 2, 33, 33, 8}}) {
    SCOPED_TRACE(absl::StrCat("L=", shape.l, " D=", shape.d));
    const std::string text = AttentionProgram(shape, Mask::kCausal, 0, false, true);
    auto executable = harness::CompileOrDie(text, /*fuse=*/true);
    ASSERT_NE(executable, nullptr);
    int copies = 0, written_by_gemm = 0;
    for (const Step& step : executable->fusion().steps) {
      if (step.instruction < 0) continue;
      if (executable->fusion().transposed_product[step.instruction] >= 0) {
        ++written_by_gemm;
      } else if (executable->program().instructions[step.instruction].op == ir::Op::kTranspose) {
        ++copies;
      }
    }
    EXPECT_EQ(copies, 1);
    EXPECT_EQ(written_by_gemm, 3);
    for (int threads : {1, 2}) ExpectClose(text, 6, threads);
    // And the reference evaluator's values (it runs the transposes as written).
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    ASSERT_TRUE(program.ok()) << program.status();
    const std::vector<ir::Literal> args = Arguments(text);
    absl::StatusOr<std::vector<ir::Literal>> want = ir::Evaluate(*program, args);
    ASSERT_TRUE(want.ok()) << want.status();
    const std::vector<ir::Literal> got = harness::RunProgram(*executable, args);
    ASSERT_EQ(got.size(), want->size());
    for (size_t r = 0; r < got.size(); ++r) {
      const auto* a = reinterpret_cast<const float*>(got[r].bytes.data());
      const auto* b = reinterpret_cast<const float*>((*want)[r].bytes.data());
      for (int64_t i = 0; i < got[r].shape.num_elements(); ++i) {
        ASSERT_NEAR(a[i], b[i], 1e-4F * (1 + std::abs(b[i]))) << "result " << r << " element " << i;
      }
    }
  }
}

TEST(CpuAttentionCausal, KeysBeyondTheQueriesWithAnOffsetMask) {
  // S > L with the mask aligned to the end (keep j <= i + S - L), and a mask that keeps
  // several keys in the first row.
  ExpectClose(AttentionProgram(Shape{2, 2, 40, 72, 16}, Mask::kCausal, 32), 6, 1);
  ExpectClose(AttentionProgram(Shape{1, 2, 70, 70, 16}, Mask::kCausal, 5), 6, 2);
}

TEST(CpuAttentionCausal, NoMaskNoSkipping) {
  ExpectClose(AttentionProgram(Shape{2, 2, 64, 64, 16}, Mask::kNone, 0), 0, 1);
}

TEST(CpuAttentionCausal, MasksThatAreNoGrowingPrefixAreLeftAlone) {
  // keep j >= i: a suffix per row. Nothing is proven, the products run whole.
  ExpectClose(AttentionProgram(Shape{1, 2, 48, 48, 16}, Mask::kSuffix, 0), 0, 1);
}

TEST(CpuAttentionCausal, ScoresReadOutsideTheMaskAreComputedWhole) {
  // The scores are also a result: every element is read, so that product runs whole; the
  // other five still skip.
  ExpectClose(AttentionProgram(Shape{1, 2, 64, 64, 16}, Mask::kCausal, 0, true), 5, 1);
}

TEST(CpuAttentionCausal, SettingOffTurnsItOff) {
  const std::string text = AttentionProgram(Shape{1, 1, 64, 64, 16}, Mask::kCausal, 0);
  ASSERT_EQ(setenv("SEAM_CPU_ATTENTION", "off", 1), 0);
  auto off = harness::CompileOrDie(text, true);
  ASSERT_EQ(setenv("SEAM_CPU_ATTENTION", "bogus", 1), 0);
  const absl::Status bad = CpuSettingsFromEnvironment().status();
  ASSERT_EQ(unsetenv("SEAM_CPU_ATTENTION"), 0);
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(CausalProducts(*off), 0);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("bogus"), std::string::npos) << bad.message();
  EXPECT_TRUE(CpuSettingsFromEnvironment().ok());
}

}  // namespace
}  // namespace seam::cpu
