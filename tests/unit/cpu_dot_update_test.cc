// Dot updates (src/plugins/cpu/compile/dot_update.h): `base - scale * dot` (an SGD step on a
// weight), `dot + broadcast(bias)` and `base + dot` each run as one gemm accumulating into
// the result; the product is never written out. Checked: the plan and the dump show the
// update, results agree with the unfused plan and the reference evaluator within float
// tolerance (the rounding differs: the product is not rounded on its own), a donated base
// is updated in its own block, and products read twice are left alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::ToDevice;

ir::Literal RandomF32(std::vector<int64_t> dims, unsigned seed) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return ir::Literal::FromF32(values, dims);
}

std::vector<float> Floats(const uint8_t* bytes, size_t size) {
  std::vector<float> values(size / sizeof(float));
  if (size > 0) std::memcpy(values.data(), bytes, size);
  return values;
}

// Result k of each run within `tol` * (1 + |expected|) of the expected one.
void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected, double tol,
                const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_NEAR(actual[i], expected[i], tol * (1 + std::fabs(expected[i]))) << what << " " << i;
  }
}

// Runs the fused and unfused plans and the reference evaluator; compares every result.
void ExpectAgrees(const std::string& text, const std::vector<ir::Literal>& args) {
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  auto a = fused->Run(ToDevice(args));
  auto b = unfused->Run(ToDevice(args));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  for (size_t k = 0; k < a->size(); ++k) {
    std::vector<float> got = Floats((*a)[k]->data(), (*a)[k]->size());
    ExpectNear(got, Floats((*b)[k]->data(), (*b)[k]->size()), 1e-5, "vs unfused");
    ExpectNear(got, Floats((*reference)[k].bytes.data(), (*reference)[k].bytes.size()), 1e-5,
               "vs reference");
  }
}

// The weight step of a layer: w - lr * x^T.g (the transposed operand goes to BLAS as is).
constexpr char kSgdStep[] = R"(program @sgd {
  %w = parameter(0) : f32[40,24]
  %x = parameter(1) : f32[33,40]
  %g = parameter(2) : f32[33,24]
  %lr = parameter(3) : f32[]
  %d = dot_general(%x, %g), lhs_batch={}, lhs_contracting={0}, rhs_batch={}, rhs_contracting={0} : f32[40,24]
  %lrb = broadcast_in_dim(%lr), dims={} : f32[40,24]
  %u = multiply(%lrb, %d) : f32[40,24]
  %n = subtract(%w, %u) : f32[40,24]
  alias output 0 = parameter 0
  return (%n)
})";

std::vector<ir::Literal> SgdArgs() {
  return {RandomF32({40, 24}, 1), RandomF32({33, 40}, 2), RandomF32({33, 24}, 3),
          ir::Literal::FromF32({0.25f}, {})};
}

TEST(DotUpdateTest, SgdStepIsOneGemmIntoTheDonatedWeight) {
  auto executable = CompileOrDie(kSgdStep, true);
  ASSERT_NE(executable, nullptr);
  const FusionPlan& plan = executable->fusion();
  ASSERT_EQ(plan.updates.size(), 1u);
  EXPECT_EQ(plan.updates[0].result, 7);
  EXPECT_EQ(plan.updates[0].dot, 4);
  EXPECT_EQ(plan.updates[0].scale, 3);
  EXPECT_EQ(plan.updates[0].base, 0);
  EXPECT_TRUE(plan.updates[0].negate);
  EXPECT_FALSE(plan.needed[4]) << "the product is never computed on its own";
  EXPECT_EQ(plan.steps.size(), 1u);
  EXPECT_NE(OptimizedDumpText(*executable).find("%7 (dot update: %0 - %3 * dot %4, one gemm)"),
            std::string::npos)
      << OptimizedDumpText(*executable);
  ASSERT_EQ(executable->buffers().outputs[0].how, OutputPlan::kInPlace);
  std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(SgdArgs());
  auto results = executable->Run(inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0], inputs[0]);  // the donated block itself
  ExpectAgrees(kSgdStep, SgdArgs());
}

TEST(DotUpdateTest, WeightStillReadAfterTheUpdateGetsABlockOfItsOwn) {
  // The old weight is also a result: the update must not overwrite it.
  std::string text = kSgdStep;
  text.replace(text.find("return (%n)"), 11, "return (%n, %w)");
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  ASSERT_EQ(executable->fusion().updates.size(), 1u);
  EXPECT_NE(executable->buffers().outputs[0].how, OutputPlan::kInPlace);
  ExpectAgrees(text, SgdArgs());
}

TEST(DotUpdateTest, BiasAddBroadcastsIntoTheResultBeforeTheGemm) {
  const std::string text = R"(program @layer {
  %x = parameter(0) : f32[17,30]
  %w = parameter(1) : f32[30,9]
  %b = parameter(2) : f32[9]
  %d = dot_general(%x, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[17,9]
  %bb = broadcast_in_dim(%b), dims={1} : f32[17,9]
  %y = add(%d, %bb) : f32[17,9]
  %z = constant(0) : f32[]
  %zb = broadcast_in_dim(%z), dims={} : f32[17,9]
  %r = maximum(%y, %zb) : f32[17,9]
  return (%r)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  const FusionPlan& plan = executable->fusion();
  ASSERT_EQ(plan.updates.size(), 1u);
  EXPECT_EQ(plan.updates[0].broadcast, 4);
  EXPECT_EQ(plan.updates[0].base, 2);
  EXPECT_EQ(plan.updates[0].scale, -1);
  EXPECT_FALSE(plan.updates[0].negate);
  EXPECT_FALSE(plan.needed[4]) << "the broadcast bias is never written out";
  ExpectAgrees(text, {RandomF32({17, 30}, 4), RandomF32({30, 9}, 5), RandomF32({9}, 6)});
}

// A linear layer's forward at a size oneDNN takes, plus a bias row, with the weight stored
// [out, in] (nn::Linear: X.W^T) and [in, out] (MultiheadAttention's in-projection: X.W):
// the update adds the bias in oneDNN's matmul primitive (row_bias) where this build and CPU
// send the product there, and agrees with the unfused plan and the reference evaluator
// either way, on one thread and two.
TEST(DotUpdateTest, LinearLayerBiasGoesIntoTheMatmulPrimitive) {
  for (bool out_in : {true, false}) {
    SCOPED_TRACE(out_in ? "weight [out, in]" : "weight [in, out]");
    const std::string weight = out_in ? "f32[96,128]" : "f32[128,96]";
    const std::string text = absl::StrCat(R"(program @linear {
  %x = parameter(0) : f32[300,128]
  %w = parameter(1) : )",
                                          weight, R"(
  %b = parameter(2) : f32[96]
  %d = dot_general(%x, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={)",
                                          out_in ? 1 : 0, R"(} : f32[300,96]
  %bb = broadcast_in_dim(%b), dims={1} : f32[300,96]
  %y = add(%d, %bb) : f32[300,96]
  return (%y)
})");
    auto executable = CompileOrDie(text, true);
    ASSERT_NE(executable, nullptr);
    const FusionPlan& plan = executable->fusion();
    ASSERT_EQ(plan.updates.size(), 1u);
    const DotPlan& dot = plan.updates[0].plan;
    EXPECT_EQ(dot.rhs.layout, out_in ? DotPlan::kTransposed : DotPlan::kAsIs);
    const bool onednn = RowBiasSgemmAvailable() && !dot.panel && !dot.small &&
                        SgemmLibraryFor(dot.m, dot.n, dot.k) == GemmLibrary::kOneDnn;
    EXPECT_EQ(plan.updates[0].row_bias, onednn);
    const int64_t before = OneDnnMatmulRuns();
    for (int threads : {1, 2}) {
      SetKernelThreads(threads);
      ExpectAgrees(
          text, {RandomF32({300, 128}, 7),
                 out_in ? RandomF32({96, 128}, 8) : RandomF32({128, 96}, 8), RandomF32({96}, 9)});
    }
    SetKernelThreads(0);
    if (onednn) {
      EXPECT_GT(OneDnnMatmulRuns(), before);
    }
  }
}

TEST(DotUpdateTest, BatchedF64ProductAddedOnTheLeft) {
  const std::string text = R"(program @batched {
  %a = parameter(0) : f64[3,4,5]
  %b = parameter(1) : f64[3,5,6]
  %c = parameter(2) : f64[3,4,6]
  %d = dot_general(%a, %b), lhs_batch={0}, lhs_contracting={2}, rhs_batch={0}, rhs_contracting={1} : f64[3,4,6]
  %s = add(%d, %c) : f64[3,4,6]
  return (%s)
})";
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->fusion().updates.size(), 1u);
  std::vector<ir::Literal> args;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (std::vector<int64_t> dims : {std::vector<int64_t>{3, 4, 5}, {3, 5, 6}, {3, 4, 6}}) {
    std::vector<double> values(dims[0] * dims[1] * dims[2]);
    for (double& v : values) v = dist(rng);
    args.push_back(ir::Literal::FromF64(values, dims));
  }
  auto a = fused->Run(ToDevice(args));
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  auto reference = ir::Evaluate(*program, args);
  ASSERT_TRUE(reference.ok());
  std::vector<double> got(72), want(72);
  std::memcpy(got.data(), (*a)[0]->data(), 72 * sizeof(double));
  std::memcpy(want.data(), (*reference)[0].bytes.data(), 72 * sizeof(double));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST(DotUpdateTest, ProductReadTwiceIsLeftAlone) {
  const std::string text = R"(program @shared {
  %x = parameter(0) : f32[6,7]
  %w = parameter(1) : f32[7,5]
  %c = parameter(2) : f32[6,5]
  %d = dot_general(%x, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[6,5]
  %s = add(%c, %d) : f32[6,5]
  %m = multiply(%s, %d) : f32[6,5]
  return (%m)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  EXPECT_TRUE(executable->fusion().updates.empty());
  ExpectAgrees(text, {RandomF32({6, 7}, 8), RandomF32({7, 5}, 9), RandomF32({6, 5}, 10)});
}

}  // namespace
}  // namespace seam::cpu
