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
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

struct Shape {
  int b, h, l, s, d;
};

enum class Mask {
  kNone,    // plain softmax attention
  kCausal,  // keep j <= i + offset (a prefix per row, growing)
  kSuffix,  // keep j >= i: not a prefix, nothing may be skipped
};

// One attention step's forward and backward in the front end's primitives (the IR that
// scaled_dot_product_attention and autodiff produce), results (out, dq, dk, dv), plus the
// scores themselves when `return_scores` (then they are read outside the mask).
std::string AttentionProgram(const Shape& x, Mask mask, int offset, bool return_scores = false) {
  const std::string ls = absl::StrCat("f32[", x.b, ",", x.h, ",", x.l, ",", x.s, "]");
  const std::string rows = absl::StrCat("f32[", x.b, ",", x.h, ",", x.l, "]");
  const auto f32 = [&](int a, int c) {
    return absl::StrCat("f32[", x.b, ",", x.h, ",", a, ",", c, "]");
  };
  std::string text = absl::StrCat(
      "program @attention {\n  %q = parameter(0) : ", f32(x.l, x.d),
      "\n  %k = parameter(1) : ", f32(x.s, x.d), "\n  %v = parameter(2) : ", f32(x.s, x.d),
      "\n  %g = parameter(3) : ", f32(x.l, x.d), "\n  %scale = parameter(4) : f32[]\n");
  const std::string pl = absl::StrCat("pred[", x.l, ",", x.s, "]");
  const std::string sl = absl::StrCat("s32[", x.l, ",", x.s, "]");
  if (mask != Mask::kNone) {
    absl::StrAppend(
        &text, "  %i1 = iota(), dimension={0} : s32[", x.l, "]\n",
        "  %ib = broadcast_in_dim(%i1), dims={0} : ", sl, "\n",
        "  %j1 = iota(), dimension={0} : s32[", x.s, "]\n",
        "  %jb = broadcast_in_dim(%j1), dims={1} : ", sl, "\n", "  %off = constant(", offset,
        ") : s32[]\n", "  %offb = broadcast_in_dim(%off), dims={} : ", sl, "\n",
        "  %is = add(%ib, %offb) : ", sl, "\n",
        mask == Mask::kCausal ? "  %keep = ge(%is, %jb) : " : "  %keep = le(%is, %jb) : ", pl,
        "\n  %mask = broadcast_in_dim(%keep), dims={2,3} : ",
        absl::StrReplaceAll(ls, {{"f32", "pred"}}), "\n");
  }
  absl::StrAppend(
      &text,
      "  %s = dot_general(%q, %k), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={3} : ",
      ls, "\n  %scb = broadcast_in_dim(%scale), dims={} : ", ls,
      "\n  %ss = multiply(%s, %scb) : ", ls, "\n");
  if (mask != Mask::kNone) {
    absl::StrAppend(
        &text,
        "  %ninf = constant(-inf) : f32[]\n  %ninfb = broadcast_in_dim(%ninf), dims={} : ", ls,
        "\n  %m = select(%mask, %ss, %ninfb) : ", ls, "\n");
  } else {
    absl::StrAppend(&text, "  %m = add(%ss, %ss) : ", ls, "\n");  // no mask: a plain softmax
  }
  absl::StrAppend(
      &text, "  %mx = reduce_max(%m), axes={3} : ", rows,
      "\n  %mxb = broadcast_in_dim(%mx), dims={0,1,2} : ", ls,
      "\n  %dd = subtract(%m, %mxb) : ", ls, "\n  %e = exp(%dd) : ", ls,
      "\n  %sum = reduce_sum(%e), axes={3} : ", rows,
      "\n  %sumb = broadcast_in_dim(%sum), dims={0,1,2} : ", ls,
      "\n  %p = divide(%e, %sumb) : ", ls,
      "\n  %o = dot_general(%p, %v), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.l, x.d),
      "\n  %dv = dot_general(%p, %g), lhs_batch={0,1}, lhs_contracting={2}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.s, x.d),
      "\n  %dp = dot_general(%g, %v), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={3} : ",
      ls, "\n  %t1 = divide(%dp, %sumb) : ", ls, "\n  %t2 = divide(%p, %sumb) : ", ls,
      "\n  %t3 = multiply(%dp, %t2) : ", ls, "\n  %t4 = neg(%t3) : ", ls,
      "\n  %t5 = reduce_sum(%t4), axes={3} : ", rows,
      "\n  %t6 = broadcast_in_dim(%t5), dims={0,1,2} : ", ls, "\n  %t7 = add(%t1, %t6) : ", ls,
      "\n  %t8 = multiply(%t7, %e) : ", ls, "\n");
  if (mask != Mask::kNone) {
    absl::StrAppend(
        &text, "  %zero = constant(0) : f32[]\n  %zb = broadcast_in_dim(%zero), dims={} : ", ls,
        "\n  %t9 = select(%mask, %t8, %zb) : ", ls, "\n");
  } else {
    absl::StrAppend(&text, "  %t9 = add(%t8, %t8) : ", ls, "\n");
  }
  absl::StrAppend(
      &text, "  %ds = multiply(%t9, %scb) : ", ls,
      "\n  %dk = dot_general(%q, %ds), lhs_batch={0,1}, lhs_contracting={2}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.d, x.s),
      "\n  %dq = dot_general(%ds, %k), lhs_batch={0,1}, lhs_contracting={3}, rhs_batch={0,1}, "
      "rhs_contracting={2} : ",
      f32(x.l, x.d), "\n  return (%o, %dq, %dk, %dv", return_scores ? ", %s" : "", ")\n}\n");
  return text;
}

// How many products of the compiled program skip blocks.
int CausalProducts(const Executable& executable) {
  int count = 0;
  for (const StepPlan& plan : executable.step_plans()) count += plan.dot.causal != nullptr ? 1 : 0;
  return count;
}

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
  const absl::Status bad = CheckAttentionSetting();
  ASSERT_EQ(unsetenv("SEAM_CPU_ATTENTION"), 0);
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(CausalProducts(*off), 0);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("bogus"), std::string::npos) << bad.message();
  EXPECT_TRUE(CheckAttentionSetting().ok());
}

}  // namespace
}  // namespace seam::cpu
