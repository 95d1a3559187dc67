// One lazy step through the front end, the seam and the in-process CPU plugin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "seam/metrics.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/ir/text.h"
#include "tests/e2e/step_fixture.h"

namespace seam {
namespace {

using testing::StepInputs;

struct LazyStep {
  Tensor loss, y, row_sum;
};

LazyStep RecordStep(const StepInputs& in) {
  using S = StepInputs;
  Tensor x = Tensor::from_vector(in.x, {S::kBatch, S::kIn});
  Tensor w1 = Tensor::from_vector(in.w1, {S::kIn, S::kHidden});
  Tensor b1 = Tensor::from_vector(in.b1, {S::kHidden});
  Tensor w2 = Tensor::from_vector(in.w2, {S::kHidden, S::kOut});
  Tensor b2 = Tensor::from_vector(in.b2, {S::kOut});
  Tensor target = Tensor::from_vector(in.target, {S::kBatch, S::kOut});
  Tensor y = (x.matmul(w1) + b1).matmul(w2) + b2;
  Tensor diff = y - target;
  Tensor loss = (diff * diff).sum() * 0.5f;
  return {loss, y, y.sum({1}) + 1.0f};
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], 1e-4f * (1.0f + std::abs(expected[i]))) << "index " << i;
  }
}

int64_t Samples(const char* name) { return metrics::MetricTotalSamples(name); }

TEST(LazyStepTest, OneStepCrossesTheSeamOncePerCrossing) {
  StepInputs in = testing::MakeStepInputs(1);
  LazyStep step = RecordStep(in);
  // Recording ran nothing.
  EXPECT_EQ(Samples("TransferToDeviceTime"), 0);
  EXPECT_EQ(Samples("CompileTime"), 0);
  EXPECT_TRUE(step.loss.has_pending_ops());

  sync();  // the step barrier: one program for loss, y and row_sum
  float loss = step.loss.item<float>();
  testing::StepResult expected = testing::ReferenceStep(in);
  EXPECT_NEAR(loss, expected.loss, 1e-4f * (1.0f + std::abs(expected.loss)));

  EXPECT_EQ(Samples("TransferToDeviceTime"), 1);
  EXPECT_EQ(Samples("CompileTime"), 1);
  EXPECT_EQ(Samples("ExecuteTime"), 1);
  EXPECT_EQ(Samples("TransferFromDeviceTime"), 1);
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 1);
  EXPECT_EQ(metrics::CounterValue("CachedCompile"), 0);

  // The other outputs of the same program are already on the device: reading them is a
  // transfer, not another compile or run.
  ExpectNear(step.y.to_vector<float>(), expected.y);
  ExpectNear(step.row_sum.to_vector<float>(), expected.row_sum);
  EXPECT_EQ(Samples("CompileTime"), 1);
  EXPECT_EQ(Samples("ExecuteTime"), 1);
}

TEST(LazyStepTest, HostReadAloneSyncsTheStep) {
  StepInputs in = testing::MakeStepInputs(2);
  LazyStep step = RecordStep(in);
  float loss = step.loss.item<float>();
  EXPECT_NEAR(loss, testing::ReferenceStep(in).loss, 1e-3f);
  EXPECT_EQ(Samples("TransferToDeviceTime"), 1);
  EXPECT_EQ(Samples("CompileTime"), 1);
  EXPECT_EQ(Samples("ExecuteTime"), 1);
  EXPECT_EQ(Samples("TransferFromDeviceTime"), 1);
}

TEST(LazyStepTest, SecondStepWithNewValuesHitsTheCompileCache) {
  for (int seed : {3, 4}) {
    StepInputs in = testing::MakeStepInputs(seed);
    LazyStep step = RecordStep(in);
    sync();
    testing::StepResult expected = testing::ReferenceStep(in);
    EXPECT_NEAR(step.loss.item<float>(), expected.loss, 1e-4f * (1.0f + std::abs(expected.loss)));
    ExpectNear(step.y.to_vector<float>(), expected.y);
  }
  EXPECT_EQ(Samples("CompileTime"), 1);
  EXPECT_EQ(metrics::CounterValue("CachedCompile"), 1);
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), 1);
  EXPECT_EQ(Samples("ExecuteTime"), 2);
  EXPECT_EQ(Samples("TransferToDeviceTime"), 2);
}

TEST(LazyStepTest, ChangingTheScalarDoesNotRecompile) {
  StepInputs in = testing::MakeStepInputs(5);
  Tensor x = Tensor::from_vector(in.x, {StepInputs::kBatch, StepInputs::kIn});
  float first = (x * 0.5f).sum().item<float>();
  float second = (x * 0.25f).sum().item<float>();
  EXPECT_FLOAT_EQ(second * 2.0f, first);
  EXPECT_EQ(Samples("CompileTime"), 1);
  EXPECT_EQ(metrics::CounterValue("CachedCompile"), 1);
}

TEST(LazyStepTest, StepProgramTextRoundTrips) {
  LazyStep step = RecordStep(testing::MakeStepInputs(6));
  std::string text = pending_ir_text({step.loss, step.y, step.row_sum});
  EXPECT_THAT(text, ::testing::HasSubstr("dot_general("));
  EXPECT_THAT(text, ::testing::HasSubstr("broadcast_in_dim("));
  EXPECT_THAT(text, ::testing::HasSubstr("reduce_sum("));
  absl::StatusOr<ir::Program> parsed = ir::ParseProgram(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(ir::PrintProgram(*parsed), text);
  // 6 inputs + the scalar 0.5 as data; at least a dozen instructions.
  EXPECT_EQ(parsed->num_parameters(), 7);
  EXPECT_GE(parsed->instructions.size(), 12u + 7u);
}

TEST(LazyStepTest, IntegerStep) {
  Tensor a = Tensor::from_vector(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = Tensor::from_vector(std::vector<int32_t>{1, 0, 0, 1, 1, 1}, {3, 2});
  Tensor c = a.matmul(b) * 3 - a.sum({1}).sum();
  // a@b = [[4,5],[10,11]]; *3 = [[12,15],[30,33]]; - 21
  EXPECT_EQ(c.to_vector<int32_t>(), (std::vector<int32_t>{-9, -6, 9, 12}));
}

TEST(LazyStepTest, MisuseIsAClearError) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  Tensor b = Tensor::from_vector({1.0f, 2.0f}, {2});
  try {
    (void)(a + b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "add: shapes f32[3] and f32[2] cannot be broadcast together");
  }
  EXPECT_THROW((void)Tensor::from_vector({1.0f, 2.0f}, {3}), Error);
  EXPECT_THROW((void)a.matmul(b), Error);
  EXPECT_THROW((void)a.sum({1}), Error);
  EXPECT_THROW((void)a.to_vector<int32_t>(), Error);
  EXPECT_THROW((void)(Tensor() + a), Error);
}

int64_t PendingParameters(const std::vector<Tensor>& tensors) {
  absl::StatusOr<ir::Program> parsed = ir::ParseProgram(pending_ir_text(tensors));
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->num_parameters() : -1;
}

// The reference's device-data cache within a step: the ops of one step that use an equal
// scalar (same dtype, same value) read one data leaf, so the program has one parameter for
// it; other values and other dtypes have their own.
TEST(LazyStepTest, EqualScalarsOfAStepShareOneParameter) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor y = x * 0.5f + (x * 0.5f).exp() * 0.5f;  // x and 0.5
  EXPECT_EQ(PendingParameters({y}), 2);
  Tensor z = y * 0.25f - 0.5f;  // 0.25 is new, 0.5 is y's
  EXPECT_EQ(PendingParameters({z}), 3);
  Tensor xd = Tensor::from_vector(std::vector<double>{1.0, 2.0}, {2});
  Tensor w = xd * 0.5 + xd * 0.5;  // a float64 0.5: not the float32 one
  EXPECT_EQ(PendingParameters({z, w}), 5);
  Tensor i = Tensor::from_vector(std::vector<int32_t>{1, 2}, {2});
  Tensor j = i * 3 + i * 3;  // integers too
  EXPECT_EQ(PendingParameters({j}), 2);
  const std::vector<float> got = z.to_vector<float>();
  for (size_t k = 0; k < 2; ++k) {
    const float v = static_cast<float>(k + 1);
    EXPECT_NEAR(got[k], (v * 0.5f + std::exp(v * 0.5f) * 0.5f) * 0.25f - 0.5f, 1e-5);
  }
  EXPECT_EQ(w.to_vector<double>(), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(j.to_vector<int32_t>(), (std::vector<int32_t>{6, 12}));
  // After the sync no graph holds the leaf: the next step's 0.5 is a new one, and a value
  // that changed is not read from the old leaf.
  sync();
  Tensor next = x * 0.5f;
  EXPECT_EQ(PendingParameters({next}), 2);
  EXPECT_EQ(next.to_vector<float>(), (std::vector<float>{0.5f, 1.0f}));
  EXPECT_EQ((x * 0.75f).to_vector<float>(), (std::vector<float>{0.75f, 1.5f}));
}

// An optimizer's hyperparameter is one parameter of the step's program however many tensors
// it updates (SGD's learning rate here), and the zeros it does not use are not recorded.
TEST(LazyStepTest, OptimizerHyperparametersAreOneParameterPerValue) {
  Tensor a = Tensor::from_vector({1.0f, 2.0f}, {2});
  Tensor b = Tensor::from_vector({3.0f}, {1});
  Tensor c = Tensor::from_vector({4.0f, 5.0f, 6.0f}, {3});
  optim::Sgd sgd({&a, &b, &c}, 0.125f);
  sgd.update({Tensor::from_vector({1.0f, 1.0f}, {2}), Tensor::from_vector({2.0f}, {1}),
              Tensor::from_vector({0.0f, 8.0f, 8.0f}, {3})});
  // a, b, c, their three gradients and the learning rate.
  EXPECT_EQ(PendingParameters({a, b, c}), 7);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0.875f, 1.875f}));
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{2.75f}));
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{4.0f, 4.0f, 5.0f}));
}

}  // namespace
}  // namespace seam
