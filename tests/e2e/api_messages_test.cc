// Error messages that point at the user's mistake (issue 17): each names the user's call and
// what was wrong with it, not an internal op. Public API only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "error_of.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

Tensor Logits() { return Tensor::from_vector(std::vector<float>(12, 0.5f), {4, 3}); }

TEST(ApiMessagesTest, CrossEntropyWithFloatLabelsNamesTheLabelsDtype) {
  Tensor labels = Tensor::from_vector({0.0f, 1.0f, 2.0f, 1.0f}, {4});
  std::string m = ErrorOf([&] { nn::cross_entropy(Logits(), labels); });
  EXPECT_EQ(
      m,
      "cross_entropy: the labels must be int32 or int64 class indices, got float32 labels [4] "
      "(convert them with .to(DType::kInt32))");
  // The shapes match here; a message about shapes would send the user the wrong way.
  EXPECT_THAT(m, Not(HasSubstr("do not match")));
}

TEST(ApiMessagesTest, CrossEntropyWithTooFewLabelsNamesTheShapes) {
  Tensor labels = Tensor::from_vector({0, 1, 2}, {3});
  EXPECT_EQ(ErrorOf([&] { nn::cross_entropy(Logits(), labels); }),
            "cross_entropy: logits [4,3] and labels [3] do not match (want [n,classes] and [n])");
}

TEST(ApiMessagesTest, CrossEntropyOnIntegerLogitsNamesCrossEntropy) {
  Tensor logits = Tensor::from_vector(std::vector<int32_t>(12, 1), {4, 3});
  Tensor labels = Tensor::from_vector({0, 1, 2, 1}, {4});
  std::string m = ErrorOf([&] { nn::cross_entropy(logits, labels); });
  EXPECT_THAT(m, StartsWith("cross_entropy on s32[4,3]: ")) << m;
  EXPECT_THAT(m, HasSubstr("needs a float tensor")) << m;
}

TEST(ApiMessagesTest, OptimizerParameterTheLossDoesNotUseIsNamed) {
  nn::Linear used(3, 2, 1), unused(3, 2, 2);  // weights [2, 3]: [out, in]
  optim::Sgd opt({&used.weight, &used.bias, &unused.weight, &unused.bias}, 0.1f);
  Tensor x = Tensor::from_vector(std::vector<float>(6, 1.0f), {2, 3});
  Tensor loss = used.forward(x).sum();
  std::string m = ErrorOf([&] { opt.step(loss); });
  EXPECT_EQ(m,
            "optimizer step: parameter 2 (f32[2,3]) is not used by the loss: the loss does not "
            "depend on it (leave it out of the parameters, or use it in the computation of the "
            "loss)");
  EXPECT_THAT(m, Not(HasSubstr("sync")));
}

TEST(ApiMessagesTest, GradOfASyncedLossSaysItHasNoHistory) {
  nn::Linear layer(3, 2, 1);
  Tensor x = Tensor::from_vector(std::vector<float>(6, 1.0f), {2, 3});
  Tensor loss = layer.forward(x).sum();
  sync();
  std::string m = ErrorOf([&] { grad(loss, {layer.weight}); });
  EXPECT_THAT(m, StartsWith("grad: the loss f32[] has no recorded operations")) << m;
  EXPECT_THAT(m, HasSubstr("before syncing or reading the loss")) << m;
}

TEST(ApiMessagesTest, SoftmaxAxisOutOfRangeNamesSoftmaxAndItsArgument) {
  std::string m = ErrorOf([] { Logits().softmax(5); });
  EXPECT_EQ(m, "softmax(axis=5) on f32[4,3]: axis 5 is out of range for f32[4,3]");
  m = ErrorOf([] { log_softmax(Logits(), -3); });
  EXPECT_EQ(m, "log_softmax(axis=-3) on f32[4,3]: axis -3 is out of range for f32[4,3]");
}

TEST(ApiMessagesTest, SoftmaxOfIntegersNamesSoftmaxNotExp) {
  Tensor x = Tensor::from_vector(std::vector<int32_t>(6, 1), {2, 3});
  std::string m = ErrorOf([&] { softmax(x, 1); });
  EXPECT_EQ(m, "softmax(axis=1) on s32[2,3]: needs a float tensor, got s32[2,3]");
}

TEST(ApiMessagesTest, CreationWithANegativeDimensionNamesTheFunction) {
  EXPECT_EQ(ErrorOf([] {
              Tensor::zeros({2, -3});
            }),
            "zeros: dimension 1 of the shape [2,-3] is negative");
  EXPECT_EQ(ErrorOf([] { Tensor::ones({-1}); }), "ones: dimension 0 of the shape [-1] is negative");
  EXPECT_EQ(ErrorOf([] {
              Tensor::full({4, -2}, 1.5);
            }),
            "full: dimension 1 of the shape [4,-2] is negative");
  EXPECT_EQ(ErrorOf([] { Tensor::randn({-5}, 1); }),
            "randn: dimension 0 of the shape [-5] is negative");
}

TEST(ApiMessagesTest, ErrorsOutsideACompositeKeepTheirOwnOpName) {
  // The scope of a composite ends with it: a later error names its own op.
  (void)Logits().softmax(1);
  EXPECT_THAT(ErrorOf([] { Logits().max({7}); }), StartsWith("max: axis 7 is out of range"));
}

// Python's x[start:end:step] on one axis of `size` elements, by the documented rule.
std::vector<float> PythonSlice(int64_t size, int64_t start, int64_t end, int64_t step) {
  auto clamp = [size](int64_t b) { return std::clamp<int64_t>(b < 0 ? b + size : b, 0, size); };
  std::vector<float> out;
  for (int64_t i = clamp(start); i < clamp(end); i += step) out.push_back(static_cast<float>(i));
  return out;
}

TEST(ApiMessagesTest, SliceTreatsBoundsPastEitherEndByOneRule) {
  set_eager(true);  // one small program per slice
  const int64_t size = 5;
  Tensor x = Tensor::arange(size).to(DType::kFloat32);
  int checked = 0;
  for (int64_t start : {-9, -5, -2, 0, 2, 4, 5, 8}) {
    for (int64_t end : {-9, -5, -1, 0, 3, 5, 6, 100}) {
      for (int64_t step : {1, 2, 3}) {
        Tensor y = x.slice(0, start, end, step);
        std::vector<float> want = PythonSlice(size, start, end, step);
        ASSERT_EQ(y.shape(), std::vector<int64_t>{static_cast<int64_t>(want.size())})
            << start << ":" << end << ":" << step;
        if (!want.empty()) {
          EXPECT_EQ(y.to_vector<float>(), want) << start << ":" << end << ":" << step;
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 192);
  set_eager(false);
}

TEST(ApiMessagesTest, SliceStepBelowOneIsNamed) {
  Tensor x = Tensor::zeros({4, 6});
  EXPECT_EQ(ErrorOf([&] { x.slice(1, 0, 6, 0); }),
            "slice: step 0 of [0:6:0] on axis 1 of f32[4,6] must be at least 1");
}

}  // namespace
}  // namespace seam
