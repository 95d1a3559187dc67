// The parameter-free layers (nn::flatten, Flatten, ReLU, MaxPool2d, AvgPool2d): shapes and
// values against what PyTorch's modules of the same names give, the errors, and a Sequential
// of them computing exactly what the functions compute.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "error_of.h"
#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam {
namespace {

Tensor Iota(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), -3.0f);
  return Tensor::from_vector(values, shape);
}

// nn::linear with PyTorch's [out, in] weight: x . w^T's values and gradients, and a
// program (forward and backward) without any transpose.
TEST(LayersTest, LinearWithOutInWeightNeedsNoTranspose) {
  Tensor x = Iota({3, 4}) * 0.25f;
  Tensor w = Iota({2, 4}) * 0.5f;
  Tensor y = nn::linear(x, w);
  Tensor reference = x.matmul(w.transpose());
  std::vector<Tensor> g = grad((y * y).sum(), {w, x});
  std::vector<Tensor> g_ref = grad((reference * reference).sum(), {w, x});
  std::string ir = pending_ir_text({y, g[0], g[1]});
  EXPECT_EQ(ir.find("transpose"), std::string::npos) << ir;
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(g[0].shape(), w.shape());
  EXPECT_EQ(y.to_vector<float>(), reference.to_vector<float>());
  EXPECT_EQ(g[0].to_vector<float>(), g_ref[0].to_vector<float>());
  EXPECT_EQ(g[1].to_vector<float>(), g_ref[1].to_vector<float>());
  EXPECT_NE(ErrorOf([&] {
              nn::linear(x, Iota({4, 2}));
            }).find("linear: the weight f32[4,2] is not [out, in] of the input f32[3,4]"),
            std::string::npos);
}

TEST(LayersTest, FlattenShapesAsTorch) {
  const Tensor x = Iota({2, 3, 4, 5});
  EXPECT_EQ(nn::flatten(x).shape(), (std::vector<int64_t>{120}));
  EXPECT_EQ(nn::flatten(x, 1).shape(), (std::vector<int64_t>{2, 60}));
  EXPECT_EQ(nn::flatten(x, 1, 2).shape(), (std::vector<int64_t>{2, 12, 5}));
  EXPECT_EQ(nn::flatten(x, -2).shape(), (std::vector<int64_t>{2, 3, 20}));
  EXPECT_EQ(nn::flatten(x, 2, 2).shape(), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(nn::flatten(Tensor::from_vector(std::vector<float>{7}, {})).shape(),
            (std::vector<int64_t>{1}));
  EXPECT_EQ(nn::Flatten().forward(x).shape(), (std::vector<int64_t>{2, 60}));
  // A reshape: row-major order is kept.
  EXPECT_EQ(nn::Flatten().forward(x).to_vector<float>(), x.to_vector<float>());
}

TEST(LayersTest, FlattenNamesBadDimensions) {
  const Tensor x = Iota({2, 3});
  EXPECT_EQ(ErrorOf([&] { nn::flatten(x, 2); }),
            "flatten: start_dim=2 and end_dim=-1 do not name dimensions in order of a tensor of "
            "shape [2, 3] (rank 2)");
  EXPECT_NE(ErrorOf([&] { nn::flatten(x, 1, 0); }).find("start_dim=1 and end_dim=0"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { nn::flatten(x, -3); }).find("start_dim=-3"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { nn::flatten(Tensor()); }).find("undefined"), std::string::npos);
}

TEST(LayersTest, ReluAndPoolingModules) {
  const Tensor x = Iota({1, 1, 4, 4});  // -3 .. 12, row-major
  EXPECT_EQ(nn::ReLU().forward(x).to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // 2x2 windows, stride = window: the maxima are the bottom-right corners.
  EXPECT_EQ(nn::MaxPool2d({2, 2}).forward(x).to_vector<float>(),
            (std::vector<float>{2, 4, 10, 12}));
  EXPECT_EQ(nn::AvgPool2d({2, 2}).forward(x).to_vector<float>(),
            (std::vector<float>{-0.5f, 1.5f, 7.5f, 9.5f}));
  EXPECT_EQ(nn::MaxPool2d({3, 3}, {1, 1}, {1, 1}).forward(x).shape(),
            (std::vector<int64_t>{1, 1, 4, 4}));
}

TEST(LayersTest, SequentialOfNamedLayersEqualsTheFunctions) {
  const Tensor x = Iota({2, 3, 4, 4}) * Scalar(0.25);
  nn::Sequential model({std::make_shared<nn::ReLU>(),
                        std::make_shared<nn::MaxPool2d>(std::array<int64_t, 2>{2, 2}),
                        std::make_shared<nn::Flatten>()});
  const Tensor expected = nn::max_pool2d(nn::relu(x), {2, 2}).reshape({2, 12});
  const Tensor y = model.forward(x);
  EXPECT_EQ(y.shape(), expected.shape());
  EXPECT_EQ(y.to_vector<float>(), expected.to_vector<float>());
  EXPECT_TRUE(model.parameters().empty());
}

}  // namespace
}  // namespace seam
