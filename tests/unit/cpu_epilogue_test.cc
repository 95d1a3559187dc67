// Epilogues (fusion_epilogue.h): a group that adds a per-feature bias and/or a residual
// tensor to a convolution's result and/or takes max(x, 0) runs inside the convolution's
// oneDNN call. Its results
// must match the reference and the plan without epilogues; only the bias/relu forms are
// taken; a donated input the convolution reads is not computed into; the plain paths
// apply the same post-ops.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/fusion_epilogue.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels_window.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

// 8 images of 24x24 (two parts of the batch on two kernel threads).
std::string Image(int channels) { return absl::StrCat("f32[8,", channels, ",24,24]"); }

std::string Conv(const std::string& x, int out_channels) {
  return absl::StrCat(
      "  %c = convolution(", x,
      ", %k), input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, "
      "kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={2,3}, "
      "output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2,3}, "
      "feature_group_count={1}, window_strides={1,1}, padding_low={1,1}, padding_high={1,1}, "
      "lhs_dilation={1,1}, rhs_dilation={1,1} : ",
      Image(out_channels), "\n");
}

std::string Head(const std::string& name) {
  return absl::StrCat("program @", name, " {\n  %x = parameter(0) : ", Image(4),
                      "\n  %k = parameter(1) : f32[4,4,3,3]\n  %b = parameter(2) : f32[4]\n",
                      Conv("%x", 4));
}

const std::string kBias = absl::StrCat("  %bb = broadcast_in_dim(%b), dims={1} : ", Image(4),
                                       "\n  %y = add(%c, %bb) : ", Image(4), "\n");
const std::string kZero = absl::StrCat(
    "  %z = constant(0) : f32[]\n  %zb = broadcast_in_dim(%z), dims={} : ", Image(4), "\n");

// relu(conv(x, k) + b) per channel: the common epilogue (%c is instruction 3).
std::string BiasRelu() {
  return absl::StrCat(Head("bias_relu"), kBias, kZero, "  %r = maximum(%zb, %y) : ", Image(4),
                      "\n  return (%r)\n}\n");
}

std::string BiasOnly() { return absl::StrCat(Head("bias"), kBias, "  return (%y)\n}\n"); }

std::string ReluOnly() {
  return absl::StrCat(Head("relu"), kZero, "  %r = maximum(%c, %zb) : ", Image(4),
                      "\n  return (%r, %b)\n}\n");
}

// A residual block's tail: relu(conv(x, k) + x), and relu(conv + b + s) with s another
// tensor (either order of the adds).
std::string Residual() {
  return absl::StrCat(Head("residual"), "  %y = add(%c, %x) : ", Image(4), "\n", kZero,
                      "  %r = maximum(%y, %zb) : ", Image(4), "\n  return (%r, %b)\n}\n");
}
std::string BiasResidualRelu(bool bias_first) {
  const std::string adds =
      bias_first ? absl::StrCat(kBias, "  %t = add(%s, %y) : ", Image(4), "\n")
                 : absl::StrCat("  %u = add(%c, %s) : ", Image(4),
                                "\n  %bb = broadcast_in_dim(%b), dims={1} : ", Image(4),
                                "\n  %t = add(%bb, %u) : ", Image(4), "\n");
  return absl::StrCat("program @block {\n  %x = parameter(0) : ", Image(4),
                      "\n  %k = parameter(1) : f32[4,4,3,3]\n  %b = parameter(2) : f32[4]\n",
                      "  %s = parameter(3) : ", Image(4), "\n", Conv("%x", 4), adds, kZero,
                      "  %r = maximum(%t, %zb) : ", Image(4), "\n  return (%r)\n}\n");
}

// A batch norm in evaluation mode after the convolution, then a relu: (c - mean) *
// rsqrt(var + eps) * gamma + beta per channel, with rsqrt(var + eps) computed after the
// convolution in program order (the convolution moves down to its epilogue) and gamma a
// [1,4,1,1] tensor; the weights and bias are folded before each run.
std::string BatchNormEval() {
  const std::string img = Image(4);
  return absl::StrCat(
      "program @bn_eval {\n  %x = parameter(0) : ", img,
      "\n  %k = parameter(1) : f32[4,4,3,3]\n  %m = parameter(2) : f32[4]\n",
      "  %v = parameter(3) : f32[4]\n  %g = parameter(4) : f32[1,4,1,1]\n",
      "  %b = parameter(5) : f32[4]\n", Conv("%x", 4),
      "  %v2 = multiply(%v, %v) : f32[4]\n  %e = constant(0.5) : f32[]\n",
      "  %eb = broadcast_in_dim(%e), dims={} : f32[4]\n  %ve = add(%v2, %eb) : f32[4]\n",
      "  %rs = rsqrt(%ve) : f32[4]\n  %mb = broadcast_in_dim(%m), dims={1} : ", img,
      "\n  %y1 = subtract(%c, %mb) : ", img, "\n  %rb = broadcast_in_dim(%rs), dims={1} : ", img,
      "\n  %y2 = multiply(%y1, %rb) : ", img,
      "\n  %gb = broadcast_in_dim(%g), dims={0,1,2,3} : ", img,
      "\n  %y3 = multiply(%gb, %y2) : ", img, "\n  %bb = broadcast_in_dim(%b), dims={1} : ", img,
      "\n  %y4 = add(%y3, %bb) : ", img, "\n", kZero, "  %r = maximum(%y4, %zb) : ", img,
      "\n  return (%r)\n}\n");
}

// The other per-channel forms, (b - c) / d, then a residual added, then b subtracted; and
// one that is no epilogue: a scale after the residual (it would scale the residual too).
std::string ChannelForms(bool scale_after_residual) {
  const std::string img = Image(4);
  const std::string tail =
      scale_after_residual
          ? absl::StrCat("  %t3 = add(%t2, %s) : ", img, "\n  %t4 = multiply(%t3, %bb) : ", img)
          : absl::StrCat("  %t3 = add(%s, %t2) : ", img, "\n  %t4 = subtract(%t3, %bb) : ", img);
  return absl::StrCat("program @forms {\n  %x = parameter(0) : ", img,
                      "\n  %k = parameter(1) : f32[4,4,3,3]\n  %b = parameter(2) : f32[4]\n",
                      "  %d = parameter(3) : f32[4]\n  %s = parameter(4) : ", img, "\n",
                      Conv("%x", 4), "  %bb = broadcast_in_dim(%b), dims={1} : ", img,
                      "\n  %t1 = subtract(%bb, %c) : ", img, "\n  %d2 = multiply(%d, %d) : f32[4]",
                      "\n  %one = constant(1) : f32[]\n  %ob = broadcast_in_dim(%one), dims={} : "
                      "f32[4]\n  %d3 = add(%d2, %ob) : f32[4]",
                      "\n  %db = broadcast_in_dim(%d3), dims={1} : ", img,
                      "\n  %t2 = divide(%t1, %db) : ", img, "\n", tail, "\n  return (%t4)\n}\n");
}

// Two convolutions of x side by side (4 and 8 features: two groups), each with its bias
// and relu, the second listed before the first's epilogue: both take an epilogue.
std::string TwoLayers() {
  std::string second = Conv("%x", 8);
  second.replace(second.find("%c ="), 4, "%c2 =");
  second.replace(second.find("%k)"), 3, "%k2)");
  return absl::StrCat(Head("two_layers"),
                      "  %k2 = parameter(3) : f32[8,4,3,3]\n  %b2 = parameter(4) : f32[8]\n",
                      second, kBias, kZero, "  %r = maximum(%zb, %y) : ", Image(4),
                      "\n  %bb2 = broadcast_in_dim(%b2), dims={1} : ", Image(8),
                      "\n  %y2 = add(%c2, %bb2) : ", Image(8),
                      "\n  %z2 = broadcast_in_dim(%z), dims={} : ", Image(8),
                      "\n  %r2 = maximum(%y2, %z2) : ", Image(8), "\n  return (%r, %r2)\n}\n");
}

// Not epilogue forms: two residual adds; a bias add with a scale; the
// relu read again by a reduction run with the group; a centring that needs the mean, computed
// after the whole result; the convolution's result read elsewhere too, or returned.
std::string TwoResiduals() {
  return absl::StrCat(Head("two"), "  %y = add(%c, %x) : ", Image(4),
                      "\n  %t = add(%y, %x) : ", Image(4), "\n  return (%t, %b)\n}\n");
}
std::string Scaled() {
  return absl::StrCat(Head("scaled"), kBias, "  %t = multiply(%y, %y) : ", Image(4),
                      "\n  return (%t)\n}\n");
}
std::string WithSums() {
  return absl::StrCat(Head("sums"), kBias, kZero, "  %r = maximum(%y, %zb) : ", Image(4),
                      "\n  %s = reduce_sum(%r), axes={0,2,3} : f32[4]\n  %n = neg(%s) : f32[4]\n",
                      "  return (%r, %n)\n}\n");
}
std::string Centred() {
  return absl::StrCat(Head("centred"), "  %m = reduce_sum(%c), axes={0,2,3} : f32[4]\n",
                      "  %mb = broadcast_in_dim(%m), dims={1} : ", Image(4),
                      "\n  %y = subtract(%c, %mb) : ", Image(4), "\n  return (%y, %b)\n}\n");
}
std::string ReadTwice() {
  return absl::StrCat(Head("twice"), kBias, "  %m = reduce_max(%c), axes={2,3} : f32[8,4]\n",
                      "  return (%y, %m)\n}\n");
}
std::string Returned() { return absl::StrCat(Head("returned"), kBias, "  return (%y, %c)\n}\n"); }

// The result aliased to the donated x, which the convolution reads: not computed into x's
// block while the convolution may still read it.
std::string Donated() {
  return absl::StrCat(Head("donated"), "  %bb = broadcast_in_dim(%b), dims={1} : ", Image(4),
                      "\n  %y = add(%bb, %c) : ", Image(4),
                      "\n  alias output 0 = parameter 0\n  return (%y)\n}\n");
}

// A first layer (fewer than 4 input features): its epilogue runs after each part's oneDNN
// call (conv_onednn.cc), a bias alone, or relu(c * g + b + s) with a residual s.
std::string FirstLayer(bool block) {
  const std::string head =
      absl::StrCat("program @first {\n  %x = parameter(0) : ", Image(2),
                   "\n  %k = parameter(1) : f32[4,2,3,3]\n  %b = parameter(2) : f32[4]\n");
  if (!block) return absl::StrCat(head, Conv("%x", 4), kBias, "  return (%y)\n}\n");
  return absl::StrCat(head, "  %g = parameter(3) : f32[4]\n  %s = parameter(4) : ", Image(4), "\n",
                      Conv("%x", 4), "  %gb = broadcast_in_dim(%g), dims={1} : ", Image(4),
                      "\n  %t = multiply(%c, %gb) : ", Image(4),
                      "\n  %bb = broadcast_in_dim(%b), dims={1} : ", Image(4),
                      "\n  %y = add(%t, %bb) : ", Image(4), "\n  %u = add(%y, %s) : ", Image(4),
                      "\n", kZero, "  %r = maximum(%u, %zb) : ", Image(4), "\n  return (%r)\n}\n");
}

// Whether some step of the plan is an epilogue.
bool HasEpilogue(const Executable& executable) {
  const std::vector<Step>& steps = executable.fusion().steps;
  return std::any_of(steps.begin(), steps.end(), [](const Step& s) { return s.epilogue; });
}

std::shared_ptr<const Executable> CompileWithout(const std::string& text) {
  setenv(kEpilogueVariable, "off", 1);
  auto executable = harness::CompileOrDie(text, true);
  unsetenv(kEpilogueVariable);
  return executable;
}

void ExpectNear(const std::vector<ir::Literal>& actual, const std::vector<ir::Literal>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t r = 0; r < actual.size(); ++r) {
    ASSERT_EQ(actual[r].shape, expected[r].shape);
    for (int64_t i = 0; i < actual[r].shape.num_elements(); ++i) {
      // Convolution sums of 36 terms, or sums of a whole result (float accumulation).
      const double e = expected[r].f32()[i];
      ASSERT_NEAR(actual[r].f32()[i], e, 1e-4 + 3e-5 * std::fabs(e))
          << "result " << r << " element " << i;
    }
  }
}

class EpilogueTest : public ::testing::Test {
 protected:
  void TearDown() override { SetKernelThreads(0); }

  // Whether the plan takes an epilogue (`expected`, where oneDNN serves convolutions), and
  // that its results match the reference and the plan without epilogues, on 1 and 2
  // threads. Returns the plan.
  std::shared_ptr<const Executable> Check(const std::string& text, bool expected) {
    auto with = harness::CompileOrDie(text, true);
    auto without = CompileWithout(text);
    if (with == nullptr || without == nullptr) {
      ADD_FAILURE() << "no plan";
      return nullptr;
    }
    EXPECT_EQ(HasEpilogue(*with), expected && OneDnnAvailable()) << OptimizedDumpText(*with);
    EXPECT_FALSE(HasEpilogue(*without));
    const std::vector<ir::Literal> args = harness::RandomF32Arguments(text);
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
    if (!reference.ok()) {
      ADD_FAILURE() << reference.status();
      return nullptr;
    }
    for (int threads : {1, 2}) {
      SCOPED_TRACE(absl::StrCat(threads, " thread(s)"));
      SetKernelThreads(threads);
      ExpectNear(harness::RunProgram(*with, args), *reference);
      ExpectNear(harness::RunProgram(*without, args), *reference);
    }
    return with;
  }
};

TEST_F(EpilogueTest, BiasAndReluRunInTheConvolutionsCall) {
  auto plan = Check(BiasRelu(), true);
  ASSERT_NE(plan, nullptr);
  if (!OneDnnAvailable()) GTEST_SKIP() << "no oneDNN in this build";
  EXPECT_NE(OptimizedDumpText(*plan).find("(epilogue in %3's oneDNN call: bias %2 relu)"),
            std::string::npos)
      << OptimizedDumpText(*plan);
}

// The convolution's own value is never written when an epilogue takes its place: it has no
// home, and the plan's arena is smaller than without epilogues by at least its size.
TEST_F(EpilogueTest, TheConvolutionsOwnValueTakesNoMemory) {
  if (!OneDnnAvailable()) GTEST_SKIP() << "no oneDNN in this build";
  const std::string text = BiasRelu();
  auto with = harness::CompileOrDie(text, true);
  auto without = CompileWithout(text);
  ASSERT_NE(with, nullptr);
  ASSERT_NE(without, nullptr);
  const std::vector<Step>& steps = with->fusion().steps;
  int conv = -1;
  for (size_t s = 0; s + 1 < steps.size(); ++s) {
    if (steps[s + 1].epilogue) conv = steps[s].instruction;
  }
  ASSERT_GE(conv, 0) << OptimizedDumpText(*with);
  EXPECT_EQ(with->buffers().homes[conv].kind, ValueHome::kNone) << OptimizedDumpText(*with);
  EXPECT_NE(without->buffers().homes[conv].kind, ValueHome::kNone);
  const int64_t conv_bytes =
      static_cast<int64_t>(with->program().instructions[conv].shape.byte_size());
  EXPECT_LE(with->buffers().arena_bytes + conv_bytes, without->buffers().arena_bytes);
}

TEST_F(EpilogueTest, BiasAloneAndReluAloneAreEpiloguesToo) {
  auto bias = Check(BiasOnly(), true);
  auto relu = Check(ReluOnly(), true);
  ASSERT_NE(bias, nullptr);
  ASSERT_NE(relu, nullptr);
  if (!OneDnnAvailable()) GTEST_SKIP() << "no oneDNN in this build";
  EXPECT_NE(OptimizedDumpText(*bias).find("oneDNN call: bias %2)"), std::string::npos);
  EXPECT_NE(OptimizedDumpText(*relu).find("oneDNN call: relu)"), std::string::npos);
}

TEST_F(EpilogueTest, ResidualAddsRunInTheConvolutionsCall) {
  auto residual = Check(Residual(), true);
  auto first = Check(BiasResidualRelu(true), true);
  auto second = Check(BiasResidualRelu(false), true);
  ASSERT_NE(residual, nullptr);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  if (!OneDnnAvailable()) GTEST_SKIP() << "no oneDNN in this build";
  // %c is instruction 3 in Residual (%x %k %b %c), 4 in the block (%x %k %b %s %c).
  EXPECT_NE(OptimizedDumpText(*residual).find("oneDNN call: + %0 relu)"), std::string::npos)
      << OptimizedDumpText(*residual);
  for (const auto& plan : {first, second}) {
    EXPECT_NE(OptimizedDumpText(*plan).find("(epilogue in %4's oneDNN call: bias %2 + %3 relu)"),
              std::string::npos)
        << OptimizedDumpText(*plan);
  }
}

TEST_F(EpilogueTest, ABatchNormInEvaluationModeIsFoldedIntoTheCall) {
  auto plan = Check(BatchNormEval(), true);
  ASSERT_NE(plan, nullptr);
  if (!OneDnnAvailable()) GTEST_SKIP() << "no oneDNN in this build";
  EXPECT_NE(OptimizedDumpText(*plan).find("weights and bias folded from y - %"), std::string::npos)
      << OptimizedDumpText(*plan);
}

TEST_F(EpilogueTest, EveryConvolutionGetsItsEpilogue) {
  auto plan = Check(TwoLayers(), true);
  ASSERT_NE(plan, nullptr);
  const std::vector<Step>& steps = plan->fusion().steps;
  EXPECT_EQ(std::count_if(steps.begin(), steps.end(), [](const Step& s) { return s.epilogue; }),
            OneDnnAvailable() ? 2 : 0)
      << OptimizedDumpText(*plan);
}

// FoldChannelOps on its own: v0 - y, then / v1, * v2, + v3 per feature, against the
// scale and shift worked out by hand; and a convolution with no output features (nothing
// to scale, no division by zero).
TEST(FoldChannelOpsTest, ScalesTheWeightsAndShiftsTheBias) {
  for (int features : {4, 0}) {
    SCOPED_TRACE(absl::StrCat(features, " features"));
    std::string text = Head("fold");
    const std::string kernel = absl::StrCat("f32[", features, ",4,3,3]");
    text.replace(text.find("f32[4,4,3,3]"), 12, kernel);
    const std::string result = absl::StrCat("f32[8,", features, ",24,24]");
    text.replace(text.rfind(Image(4)), Image(4).size(), result);
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text + "  return (%c)\n}\n");
    ASSERT_TRUE(program.ok()) << program.status();
    ConvEpilogue e;
    e.conv = 3;
    e.channel = {{ir::Op::kSubtract, true, 0},
                 {ir::Op::kDivide, false, 1},
                 {ir::Op::kMultiply, false, 2},
                 {ir::Op::kAdd, false, 3}};
    std::vector<std::vector<float>> vectors(4);
    std::vector<const uint8_t*> values;
    for (int k = 0; k < 4; ++k) {
      for (int f = 0; f < features; ++f) vectors[k].push_back(0.5f + static_cast<float>(k + f));
      values.push_back(reinterpret_cast<const uint8_t*>(vectors[k].data()));
    }
    std::vector<float> weights(static_cast<size_t>(features) * 36);
    for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 7) - 3.0f;
    std::vector<float> scaled, bias;
    FoldChannelOps(*program, e, values.data(), weights.data(), &scaled, &bias);
    ASSERT_EQ(scaled.size(), weights.size());
    ASSERT_EQ(bias.size(), static_cast<size_t>(features));
    for (int f = 0; f < features; ++f) {
      const float scale = -1.0f / vectors[1][f] * vectors[2][f];
      const float shift = vectors[0][f] / vectors[1][f] * vectors[2][f] + vectors[3][f];
      EXPECT_FLOAT_EQ(bias[f], shift) << "feature " << f;
      for (int j = 0; j < 36; ++j) {
        EXPECT_FLOAT_EQ(scaled[f * 36 + j], weights[f * 36 + j] * scale) << "weight " << j;
      }
    }
  }
}

TEST_F(EpilogueTest, SubtractionsAndDivisionsFoldAroundAResidual) {
  auto plan = Check(ChannelForms(false), true);
  ASSERT_NE(plan, nullptr);
  Check(ChannelForms(true), false);
}

TEST_F(EpilogueTest, OtherGroupsStayStepsOfTheirOwn) {
  for (const std::string& text :
       {TwoResiduals(), Scaled(), WithSums(), Centred(), ReadTwice(), Returned()}) {
    SCOPED_TRACE(text);
    Check(text, false);
  }
}

// An NHWC first layer: applied after each part its post-ops would walk the result's strides
// element by element, slower than the separate loop, so it takes no epilogue.
std::string FirstLayerNhwc() {
  return "program @first_nhwc {\n  %x = parameter(0) : f32[8,24,24,2]\n"
         "  %k = parameter(1) : f32[3,3,2,4]\n  %b = parameter(2) : f32[4]\n"
         "  %c = convolution(%x, %k), input_batch_dim={0}, input_feature_dim={3}, "
         "input_spatial_dims={1,2}, kernel_input_feature_dim={2}, kernel_output_feature_dim={3}, "
         "kernel_spatial_dims={0,1}, output_batch_dim={0}, output_feature_dim={3}, "
         "output_spatial_dims={1,2}, feature_group_count={1}, window_strides={1,1}, "
         "padding_low={1,1}, padding_high={1,1}, lhs_dilation={1,1}, rhs_dilation={1,1} : "
         "f32[8,24,24,4]\n  %bb = broadcast_in_dim(%b), dims={3} : f32[8,24,24,4]\n"
         "  %y = add(%c, %bb) : f32[8,24,24,4]\n  return (%y)\n}\n";
}

TEST_F(EpilogueTest, FirstLayersApplyTheirEpilogueAfterEachPart) {
  Check(FirstLayer(false), true);
  Check(FirstLayer(true), true);
  Check(FirstLayerNhwc(), false);
}

TEST_F(EpilogueTest, ADonatedInputTheConvolutionReadsIsNotComputedInto) {
  auto plan = Check(Donated(), true);
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(plan->buffers().outputs[0].how, OutputPlan::kInPlace) << OptimizedDumpText(*plan);
}

TEST_F(EpilogueTest, TheVariableTurnsEpiloguesOff) {
  auto plan = CompileWithout(BiasRelu());
  ASSERT_NE(plan, nullptr);
  EXPECT_FALSE(HasEpilogue(*plan));
  EXPECT_EQ(OptimizedDumpText(*plan).find("epilogue"), std::string::npos);
}

// The plain paths (and a failed oneDNN call) apply the same post-ops after the
// convolution.
TEST_F(EpilogueTest, ThePlainPathsApplyThePostOps) {
  absl::StatusOr<ir::Program> block = ir::ParseProgram(BiasResidualRelu(true));
  ASSERT_TRUE(block.ok());
  absl::StatusOr<ir::Program> biased = ir::ParseProgram(BiasOnly());
  ASSERT_TRUE(biased.ok());
  const std::vector<ir::Literal> args =
      harness::RandomF32Arguments(BiasResidualRelu(true));  // x k b s
  const std::vector<ir::Literal> three(args.begin(), args.begin() + 3);
  const ir::Instruction& conv = block->instructions[4];
  for (const char* mode : {"gemm", "direct", "auto"}) {
    for (const ConvPostOps post :
         {ConvPostOps{true, true, true}, ConvPostOps{true, false, false}}) {
      SCOPED_TRACE(absl::StrCat(mode, post.relu ? " bias residual relu" : " bias"));
      setenv("SEAM_CPU_CONV", mode, 1);
      ConvolutionPlan plan(conv, args[0].shape, args[1].shape, post);
      unsetenv("SEAM_CPU_CONV");
      EXPECT_EQ(plan.fuses_post_ops(), std::string(mode) == "auto" && OneDnnAvailable());
      std::vector<uint8_t> out(conv.shape.byte_size());
      plan.Run(args[0].bytes.data(), args[1].bytes.data(), out.data(), args[2].bytes.data(),
               args[3].bytes.data());
      absl::StatusOr<std::vector<ir::Literal>> expected =
          post.relu ? ir::Evaluate(*block, args) : ir::Evaluate(*biased, three);
      ASSERT_TRUE(expected.ok()) << expected.status();
      ExpectNear({ir::Literal{conv.shape, out}}, {expected->front()});
    }
  }
}

TEST(EpilogueVariableTest, OnlyOnAndOffAreAccepted) {
  for (const char* good : {"", "on", "off"}) {
    setenv(kEpilogueVariable, good, 1);
    EXPECT_TRUE(CheckEpilogueVariable().ok()) << good;
  }
  setenv(kEpilogueVariable, "maybe", 1);
  const absl::Status status = CheckEpilogueVariable();
  unsetenv(kEpilogueVariable);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("SEAM_CPU_EPILOGUES"), std::string::npos) << status;
  EXPECT_NE(status.message().find("'maybe'"), std::string::npos) << status;
}

}  // namespace
}  // namespace seam::cpu
