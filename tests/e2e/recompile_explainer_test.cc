// The recompile explainer (the fixture sets SEAM_DEBUG=1): why a sync missed the
// compile cache, and the RecompileAfterFirstStep counter.
#include "src/lazy/recompile_explainer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/base/logging.h"
#include "src/ir/text.h"

namespace seam {
namespace {

class RecompileExplainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(setenv("SEAM_DEBUG", "1", 1), 0);  // read at the first compile-cache miss
    base::SetLogSink([this](base::LogSeverity, const std::string& message) {
      if (message.rfind("recompile at ", 0) == 0) messages_.push_back(message);
    });
  }
  void TearDown() override { base::SetLogSink(nullptr); }
  std::vector<std::string> messages_;
};

int64_t Recompiles() { return metrics::CounterValue("RecompileAfterFirstStep"); }
int64_t Uncached() { return metrics::CounterValue("UncachedCompile"); }

// One SGD step; every call syncs at the same code site (this function).
void Step(nn::Mlp& model, optim::Sgd& opt, int64_t batch, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> xs(static_cast<size_t>(batch * 7));
  std::vector<int32_t> ys(static_cast<size_t>(batch));
  for (float& x : xs) x = dist(rng);
  for (int64_t i = 0; i < batch; ++i) ys[i] = xs[i * 7] > 0 ? 1 : 0;
  Tensor loss = nn::cross_entropy(model.forward(Tensor::from_vector(xs, {batch, 7})),
                                  Tensor::from_vector(ys, {batch}));
  opt.step(loss);
  sync();
}

TEST_F(RecompileExplainerTest, LearningRateChangeDoesNotRecompile) {
  nn::Mlp model({7, 8, 2}, 1);
  optim::Sgd opt(model.parameters(), 0.1f, 0.9f);
  Step(model, opt, 13, 1);
  for (float lr : {0.05f, 0.025f, 0.3f}) {
    opt.lr = lr;
    Step(model, opt, 13, 2);
  }
  EXPECT_EQ(Uncached(), 1);
  EXPECT_EQ(Recompiles(), 0);
  EXPECT_TRUE(messages_.empty()) << messages_.front();
}

TEST_F(RecompileExplainerTest, BatchSizeChangeRecompilesOnceAndNamesTheInputs) {
  nn::Mlp model({7, 8, 2}, 2);
  optim::Sgd opt(model.parameters(), 0.1f, 0.9f);
  Step(model, opt, 13, 1);
  Step(model, opt, 13, 2);
  EXPECT_EQ(Recompiles(), 0);
  Step(model, opt, 17, 3);  // a new batch size
  Step(model, opt, 17, 4);
  EXPECT_EQ(Uncached(), 2);
  EXPECT_EQ(Recompiles(), 1);
  ASSERT_EQ(messages_.size(), 1u);
  const std::string& m = messages_[0];
  std::printf("%s\n", m.c_str());
  EXPECT_NE(m.find("recompile_explainer_test.cc:"), std::string::npos) << m;
  EXPECT_NE(m.find("input shape/dtype changed"), std::string::npos) << m;
  EXPECT_NE(m.find("(host data, %"), std::string::npos) << m;
  EXPECT_NE(m.find("f32[13,7] -> f32[17,7]"), std::string::npos) << m;  // the images
  EXPECT_NE(m.find("s32[13] -> s32[17]"), std::string::npos) << m;      // the labels
  EXPECT_EQ(m.find("structure differs"), std::string::npos) << m;
}

TEST_F(RecompileExplainerTest, ComparesWithTheMostRecentOfEquallyCloseProgram) {
  nn::Mlp model({7, 8, 2}, 3);
  optim::Sgd opt(model.parameters(), 0.1f);
  Step(model, opt, 256, 1);
  Step(model, opt, 13, 2);
  Step(model, opt, 17, 3);  // as close to 13 as to 256: explained against 13, the later one
  ASSERT_EQ(messages_.size(), 2u);
  const std::string& m = messages_[1];
  EXPECT_NE(m.find("program 3 compiled here, compared with program 2:"), std::string::npos) << m;
  EXPECT_NE(m.find("f32[13,7] -> f32[17,7]"), std::string::npos) << m;
  EXPECT_EQ(m.find("f32[256,7]"), std::string::npos) << m;
}

void ScaledSum(const Tensor& x, float scale) {
  Tensor y = (x * scale).sum();
  sync();  // the one site of this test
  EXPECT_NEAR(y.item<float>(), 6.0f * scale, 1e-5f);
}

TEST_F(RecompileExplainerTest, ScalarThatBecomesAConstantIsNamed) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  ScaledSum(x, 0.5f);
  ScaledSum(x, 0.25f);  // data: no recompile
  EXPECT_TRUE(messages_.empty());
  ScaledSum(x, 1.0f);  // 1 is compiled in
  EXPECT_EQ(Recompiles(), 1);
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_NE(messages_[0].find("became the constant 1"), std::string::npos) << messages_[0];
}

void MaybeExp(const Tensor& x, bool exp) {
  Tensor y = x * 2.0f;
  if (exp) y = y.exp();
  Tensor z = y.sum();
  sync();
}

TEST_F(RecompileExplainerTest, StructureChangeNamesTheInstruction) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  MaybeExp(x, false);
  MaybeExp(x, true);
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_NE(messages_[0].find("the graph structure differs from instruction %"), std::string::npos)
      << messages_[0];
  EXPECT_NE(messages_[0].find("exp("), std::string::npos) << messages_[0];
}

TEST_F(RecompileExplainerTest, DifferentSitesAreNotRecompilations) {
  Tensor x = Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});
  Tensor a = x * 2.0f;
  sync();
  Tensor b = (x * 2.0f).exp();
  sync();
  EXPECT_EQ(Uncached(), 2);
  EXPECT_EQ(Recompiles(), 0);
  EXPECT_TRUE(messages_.empty());
}

float SumOfSquares(const std::vector<float>& values) {
  Tensor x = Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  return (x * x).sum().item<float>();  // one host-read site
}

TEST_F(RecompileExplainerTest, HostReadsAreSitesToo) {
  EXPECT_EQ(SumOfSquares({1, 2}), 5.0f);
  Tensor y = Tensor::from_vector({1.0f, 2.0f}, {2});
  EXPECT_EQ((y * 3.0f).sum().item<float>(), 9.0f);  // another site: not a recompilation
  EXPECT_EQ(Recompiles(), 0);
  EXPECT_EQ(SumOfSquares({1, 2, 3}), 14.0f);  // the first site, a new shape
  EXPECT_EQ(Recompiles(), 1);
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_NE(messages_[0].find("recompile at item at "), std::string::npos) << messages_[0];
  EXPECT_NE(messages_[0].find("f32[2] -> f32[3]"), std::string::npos) << messages_[0];
}

TEST_F(RecompileExplainerTest, DonationDifferenceIsExplained) {
  absl::StatusOr<ir::Program> before = ir::ParseProgram(R"(program @p {
  %0 = parameter(0) : f32[4]
  %1 = exp(%0) : f32[4]
  alias output 0 = parameter 0
  return (%1)
}
)");
  absl::StatusOr<ir::Program> now = ir::ParseProgram(R"(program @p {
  %0 = parameter(0) : f32[4]
  %1 = exp(%0) : f32[4]
  return (%1)
}
)");
  ASSERT_TRUE(before.ok() && now.ok());
  std::string why = lazy::ExplainDifference(*before, *now, {false});
  EXPECT_EQ(why, "buffer donation differs (output=parameter aliases): before 1 [0=0], now 0 []");
  EXPECT_EQ(lazy::ExplainDifference(*now, *now, {false}), "");
}

TEST(RecompileExplainerEnvTest, BadDebugValueIsAClearError) {
  ASSERT_EQ(setenv("SEAM_DEBUG", "2", 1), 0);
  Tensor x = Tensor::from_vector({1.0f, 2.0f}, {2});
  try {
    (void)(x * 3.0f).sum().item<float>();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "Environment variable SEAM_DEBUG must be 0 or 1, got '2'");
  }
}

}  // namespace
}  // namespace seam
