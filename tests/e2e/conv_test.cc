// nn::conv2d, max_pool2d, min_pool2d and avg_pool2d through the public API: values worked
// out by hand, every gradient rule (max pooling's double backward included) against central
// finite differences in f64, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "error_of.h"
#include "grad_check.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using gradcheck::CheckGrad;
using gradcheck::Random;

TEST(ConvTest, Conv2dAndPoolingValues) {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  Tensor ones = Tensor::from_vector(std::vector<float>{1, 1, 1, 1}, {1, 1, 2, 2});
  EXPECT_EQ(nn::conv2d(x, ones).to_vector<float>(), (std::vector<float>{12, 16, 24, 28}));
  nn::Conv2dOptions padded;
  padded.padding = {1, 1};
  padded.stride = {2, 2};
  // Windows over rows/columns -1..0 and 1..2.
  EXPECT_EQ(nn::conv2d(x, ones, padded).to_vector<float>(), (std::vector<float>{1, 5, 11, 28}));
  EXPECT_EQ(nn::max_pool2d(x, {2, 2}, {1, 1}).to_vector<float>(), (std::vector<float>{5, 6, 8, 9}));
  // PyTorch: max_pool2d(x, 2, 2, padding=1) -> [[1, 3], [7, 9]].
  EXPECT_EQ(nn::max_pool2d(x, {2, 2}, {2, 2}, {1, 1}).to_vector<float>(),
            (std::vector<float>{1, 3, 7, 9}));
  // Padding counts as zeros in the mean: (1 + 2 + 4 + 5) / 4, ...
  EXPECT_EQ(nn::avg_pool2d(x, {2, 2}, {1, 1}).to_vector<float>(), (std::vector<float>{3, 4, 6, 7}));
  EXPECT_EQ(nn::avg_pool2d(x, {2, 2}, {2, 2}, {1, 1}).to_vector<float>(),
            (std::vector<float>{0.25f, 1.25f, 2.75f, 7}));
}

// Eager mode runs each op as its own program: the same values, and gradients still work.
TEST(ConvTest, EagerModeGivesTheSameValuesAndGradients) {
  set_eager(true);
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  Tensor ones = Tensor::from_vector(std::vector<float>{1, 1, 1, 1}, {1, 1, 2, 2});
  EXPECT_EQ(nn::conv2d(x, ones).to_vector<float>(), (std::vector<float>{12, 16, 24, 28}));
  EXPECT_EQ(nn::max_pool2d(x, {2, 2}, {1, 1}).to_vector<float>(), (std::vector<float>{5, 6, 8, 9}));
  // d/dx of sum(max_pool2d(x, 2x2, stride 1)): 5, 6, 8 and 9 are each a window's maximum once.
  std::vector<Tensor> g = grad(nn::max_pool2d(x, {2, 2}, {1, 1}).sum(), {x});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 1, 1, 0, 1, 1}));
  set_eager(false);
}

// Eager mode runs each convolution as a program of its own, whose result the CPU plugin
// leaves in oneDNN's layout (docs/cpu-plugin.md "On-device layouts"): reading it back, feeding
// it to the next convolution and to an elementwise op must give the lazy program's values.
TEST(ConvTest, EagerConvolutionsChainThroughDeviceLayouts) {
  const std::vector<int64_t> image = {4, 16, 10, 10}, kernel = {16, 16, 3, 3};
  auto floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  const std::vector<float> x_values = floats(Random(4 * 16 * 100, 1, -1, 1));
  const std::vector<float> w1_values = floats(Random(16 * 16 * 9, 2, -0.2, 0.2));
  const std::vector<float> w2_values = floats(Random(16 * 16 * 9, 3, -0.2, 0.2));
  nn::Conv2dOptions same;
  same.padding = {1, 1};
  auto run = [&](bool eager) {
    set_eager(eager);
    Tensor x = Tensor::from_vector(x_values, image);
    Tensor w1 = Tensor::from_vector(w1_values, kernel);
    Tensor w2 = Tensor::from_vector(w2_values, kernel);
    Tensor y = nn::conv2d(x, w1, same);
    std::vector<std::vector<float>> out = {y.to_vector<float>()};
    Tensor z = nn::conv2d(y, w2, same);
    out.push_back(z.to_vector<float>());
    out.push_back((nn::relu(z) + y).to_vector<float>());
    set_eager(false);
    return out;
  };
  // The same by hand, in double: 3x3, padding 1, 16 -> 16 features.
  auto conv = [](const std::vector<float>& in, const std::vector<float>& w) {
    std::vector<float> out(in.size());
    for (int n = 0; n < 4; ++n) {
      for (int o = 0; o < 16; ++o) {
        for (int h = 0; h < 10; ++h) {
          for (int v = 0; v < 10; ++v) {
            double sum = 0;
            for (int c = 0; c < 16; ++c) {
              for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) {
                  const int hh = h + i - 1, vv = v + j - 1;
                  if (hh < 0 || hh >= 10 || vv < 0 || vv >= 10) continue;
                  sum += double(in[((n * 16 + c) * 10 + hh) * 10 + vv]) *
                         w[((o * 16 + c) * 3 + i) * 3 + j];
                }
              }
            }
            out[((n * 16 + o) * 10 + h) * 10 + v] = static_cast<float>(sum);
          }
        }
      }
    }
    return out;
  };
  std::vector<std::vector<float>> expected = {conv(x_values, w1_values)};
  expected.push_back(conv(expected[0], w2_values));
  expected.push_back(expected[1]);
  for (size_t i = 0; i < expected[2].size(); ++i) {
    expected[2][i] = std::max(expected[2][i], 0.0f) + expected[0][i];
  }
  for (bool eager : {false, true}) {
    const std::vector<std::vector<float>> got = run(eager);
    for (size_t r = 0; r < expected.size(); ++r) {
      ASSERT_EQ(got[r].size(), expected[r].size());
      for (size_t i = 0; i < expected[r].size(); ++i) {
        ASSERT_NEAR(got[r][i], expected[r][i], 1e-4 + 1e-4 * std::fabs(expected[r][i]))
            << (eager ? "eager" : "lazy") << " value " << r << " element " << i;
      }
    }
  }
}

TEST(ConvTest, Conv2dGradients) {
  auto conv = [](nn::Conv2dOptions o) {
    return [o](const std::vector<Tensor>& x) { return nn::conv2d(x[0], x[1], o); };
  };
  nn::Conv2dOptions same;
  same.padding = {1, 1};
  CheckGrad(conv(same), {{2, 3, 5, 5}, {4, 3, 3, 3}});
  nn::Conv2dOptions strided;  // 6 wide, stride 2, no padding: the last column is never read
  strided.stride = {2, 2};
  CheckGrad(conv(strided), {{1, 2, 6, 7}, {3, 2, 3, 3}});
  nn::Conv2dOptions dilated;
  dilated.dilation = {2, 1};
  dilated.padding = {2, 0};
  dilated.stride = {1, 2};
  CheckGrad(conv(dilated), {{2, 2, 5, 6}, {2, 2, 3, 2}});
  nn::Conv2dOptions grouped;
  grouped.groups = 2;
  grouped.padding = {1, 1};
  CheckGrad(conv(grouped), {{2, 4, 4, 4}, {6, 2, 3, 3}});
  nn::Conv2dOptions depthwise;
  depthwise.groups = 3;
  depthwise.stride = {2, 2};
  depthwise.padding = {1, 1};
  CheckGrad(conv(depthwise), {{1, 3, 5, 5}, {3, 1, 3, 3}});
}

TEST(ConvTest, PoolingGradients) {
  CheckGrad([](const auto& x) { return nn::max_pool2d(x[0], {2, 2}); }, {{2, 2, 4, 6}});
  CheckGrad(
      [](const auto& x) {
        return nn::max_pool2d(x[0], {3, 3}, {2, 2}, {1, 1});
      },
      {{1, 2, 5, 6}});
  CheckGrad([](const auto& x) { return nn::avg_pool2d(x[0], {2, 2}); }, {{2, 2, 4, 6}});
  CheckGrad(
      [](const auto& x) {
        return nn::avg_pool2d(x[0], {3, 2}, {2, 1}, {1, 1});
      },
      {{1, 2, 5, 6}});
}

TEST(ConvTest, MinPoolValuesAndTies) {
  Tensor x = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  EXPECT_EQ(nn::min_pool2d(x, {2, 2}, {1, 1}).to_vector<float>(), (std::vector<float>{1, 2, 4, 5}));
  // Padding is +inf: windows over rows/columns -1..0 and 1..2 hold {1}, {2, 3}, {4, 7}, {5..9}.
  EXPECT_EQ(nn::min_pool2d(x, {2, 2}, {2, 2}, {1, 1}).to_vector<float>(),
            (std::vector<float>{1, 2, 4, 5}));
  // Ties: the first minimum of a window in row-major order takes the gradient. Window (0, 0)
  // holds 2 1 / 1 5 (the 1 at (0, 1) comes first), window (0, 1) holds 1 1 / 5 1.
  Tensor t = Tensor::from_vector(std::vector<float>{2, 1, 1, 1, 5, 1}, {1, 1, 2, 3});
  std::vector<Tensor> g = grad(nn::min_pool2d(t, {2, 2}, {1, 1}).sum(), {t});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{0, 2, 0, 0, 0, 0}));
  // The same rule as max pooling, and as PyTorch's -max_pool2d(-x).
  std::vector<Tensor> h = grad(nn::max_pool2d(-t, {2, 2}, {1, 1}).sum(), {t});
  EXPECT_EQ(h[0].to_vector<float>(), (std::vector<float>{0, -2, 0, 0, 0, 0}));
  // A window of equal values and one partly in padding: 1x1 input padded by 1 on each side
  // to 3x3, 2x2 windows at stride 1: every window selects the one real element.
  Tensor one = Tensor::from_vector(std::vector<float>{3}, {1, 1, 1, 1});
  std::vector<Tensor> p = grad(nn::min_pool2d(one, {2, 2}, {1, 1}, {1, 1}).sum(), {one});
  EXPECT_EQ(p[0].to_vector<float>(), (std::vector<float>{4}));
}

TEST(ConvTest, MinPoolGradients) {
  CheckGrad([](const auto& x) { return nn::min_pool2d(x[0], {2, 2}); }, {{2, 2, 4, 6}});
  CheckGrad(
      [](const auto& x) {
        return nn::min_pool2d(x[0], {3, 3}, {2, 2}, {1, 1});
      },
      {{1, 2, 5, 6}});
  CheckGrad(
      [](const auto& x) {
        return nn::min_pool2d(x[0], {2, 3}, {1, 2}, {1, 1});
      },
      {{2, 1, 4, 5}});
}

// Max pooling's gradient as a function of the result's adjoint u is a select_and_scatter of
// u: differentiating it checks select_and_scatter's rule for its source. The pooled input
// is held fixed and full of ties (values from {0, 1}), overlapping windows and padding
// included: the rule must pick the element the forward op picked.
TEST(ConvTest, PoolingGradientOfGradientBySource) {
  std::vector<double> ties(size_t{2} * 2 * 5 * 6);
  for (size_t i = 0; i < ties.size(); ++i) ties[i] = static_cast<double>((i * 7 / 3) % 2);
  Tensor fixed = Tensor::from_vector(ties, {2, 2, 5, 6});
  auto by_source = [&](std::array<int64_t, 2> k, std::array<int64_t, 2> s, std::array<int64_t, 2> p,
                       bool min) {
    return [=](const std::vector<Tensor>& u) {
      Tensor pooled = min ? nn::min_pool2d(fixed, k, s, p) : nn::max_pool2d(fixed, k, s, p);
      return grad((pooled * u[0]).sum(), {fixed})[0];
    };
  };
  CheckGrad(by_source({2, 2}, {2, 2}, {0, 0}, false), {{2, 2, 2, 3}});
  CheckGrad(by_source({3, 3}, {1, 2}, {1, 1}, false), {{2, 2, 5, 3}});
  CheckGrad(by_source({3, 2}, {2, 1}, {1, 1}, true), {{2, 2, 3, 7}});
}

// The double backward of max_pool2d: d/dx of a loss built from the gradient, which depends
// on x through the selection (constant: zero, as JAX) and through the adjoint.
TEST(ConvTest, PoolingDoubleBackward) {
  auto twice = [](std::array<int64_t, 2> k, std::array<int64_t, 2> s, std::array<int64_t, 2> p,
                  bool min) {
    return [=](const std::vector<Tensor>& x) {
      Tensor y = min ? nn::min_pool2d(x[0], k, s, p) : nn::max_pool2d(x[0], k, s, p);
      return grad((y * y * x[1]).sum(), {x[0]})[0];
    };
  };
  CheckGrad(twice({2, 2}, {1, 1}, {0, 0}, false), {{1, 2, 4, 5}, {1, 2, 3, 4}});
  CheckGrad(twice({3, 3}, {2, 2}, {1, 1}, false), {{2, 1, 5, 6}, {2, 1, 3, 3}});
  CheckGrad(twice({2, 2}, {2, 1}, {1, 0}, true), {{1, 2, 4, 5}, {1, 2, 3, 4}});
}

// A small CNN block end to end: conv, bias, relu, max pool, conv, mean.
TEST(ConvTest, ChainedBlockGradients) {
  CheckGrad(
      [](const std::vector<Tensor>& x) {
        nn::Conv2dOptions same;
        same.padding = {1, 1};
        Tensor h = (nn::conv2d(x[0], x[1], same) + x[2].reshape({1, 3, 1, 1})).relu();
        return nn::avg_pool2d(nn::conv2d(nn::max_pool2d(h, {2, 2}), x[3]), {1, 1});
      },
      {{2, 2, 4, 4}, {3, 2, 3, 3}, {3}, {2, 3, 1, 1}});
}

// The module: PyTorch's parameter shapes and names, and a few SGD steps on a toy task
// (the mean of a 4x4 image's top half against its bottom half) reduce the loss.
TEST(ConvTest, Conv2dModuleTrains) {
  nn::Conv2dOptions same;
  same.padding = {1, 1};
  auto conv = std::make_shared<nn::Conv2d>(1, 4, std::array<int64_t, 2>{3, 3}, 5, same);
  EXPECT_EQ(conv->weight.shape(), (std::vector<int64_t>{4, 1, 3, 3}));
  EXPECT_EQ(conv->bias.shape(), (std::vector<int64_t>{4}));
  nn::StateDict state = conv->state_dict();
  ASSERT_EQ(state.size(), 2u);
  EXPECT_EQ(state.begin()->first, "bias");
  EXPECT_EQ(state.rbegin()->first, "weight");
  nn::Sequential model({conv, std::make_shared<nn::Lambda>(nn::relu),
                        std::make_shared<nn::Lambda>([](const Tensor& x) {
                          return nn::max_pool2d(x, {2, 2}).reshape({x.shape()[0], -1});
                        }),
                        std::make_shared<nn::Linear>(16, 2, 6)});
  std::vector<double> images = Random(size_t{8} * 16, 3);
  std::vector<int32_t> labels;
  for (int i = 0; i < 8; ++i) {
    double top = 0, bottom = 0;
    for (int k = 0; k < 8; ++k) top += images[i * 16 + k];
    for (int k = 8; k < 16; ++k) bottom += images[i * 16 + k];
    labels.push_back(top > bottom ? 1 : 0);
  }
  std::vector<float> floats(images.begin(), images.end());
  Tensor x = Tensor::from_vector(floats, {8, 1, 4, 4});
  Tensor y = Tensor::from_vector(labels, {8});
  optim::Sgd sgd(model, 0.1f);
  double first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    Tensor loss = nn::cross_entropy(model.forward(x), y);
    sgd.step(loss);  // records the update; reading the loss below runs the step
    const double value = loss.item<float>();
    if (step == 0) first = value;
    last = value;
  }
  EXPECT_LT(last, 0.5 * first) << "first " << first << ", last " << last;
}

TEST(ConvTest, ClearErrors) {
  Tensor x = Tensor::zeros({8, 3, 32, 32});
  Tensor w = Tensor::zeros({16, 4, 3, 3});
  EXPECT_EQ(ErrorOf([&] { nn::conv2d(x, w); }),
            "conv2d: input f32[8,3,32,32] has 3 channels, weight f32[16,4,3,3] expects 4 * "
            "groups=1 = 4");
  nn::Conv2dOptions groups;
  groups.groups = 2;
  EXPECT_EQ(ErrorOf([&] { nn::conv2d(x, w, groups); }),
            "conv2d: groups=2 must be >= 1 and divide both the input's 3 channels and the "
            "weight's 16 output channels");
  Tensor small = Tensor::zeros({1, 1, 2, 2});
  EXPECT_EQ(ErrorOf([&] {
              nn::max_pool2d(small, {5, 5}, {1, 1}, {3, 3});
            }),
            "max_pool2d: padding 3x3 must be at most half the kernel_size 5x5");
  EXPECT_EQ(ErrorOf([&] {
              nn::max_pool2d(small, {5, 5}, {1, 1}, {1, 1});
            }),
            "max_pool2d: the 5x5 window is larger than the padded input 4x4 (input 2x2, "
            "padding 1x1)");
  EXPECT_EQ(ErrorOf([&] {
              nn::max_pool2d(small, {3, 3});
            }),
            "max_pool2d: the 3x3 window is larger than the padded input 2x2 (input 2x2, "
            "padding 0x0)");
  EXPECT_EQ(ErrorOf([&] {
              nn::avg_pool2d(small, {1, 4}, {1, 1});
            }),
            "avg_pool2d: the 1x4 window is larger than the padded input 2x2 (input 2x2, "
            "padding 0x0)");
  EXPECT_EQ(ErrorOf([&] {
              nn::min_pool2d(small, {2, 2}, {0, 1});
            }),
            "min_pool2d: stride 0x1 must be >= 1");
  EXPECT_EQ(ErrorOf([&] {
              nn::min_pool2d(Tensor::zeros({2, 2}), {1, 1});
            }),
            "min_pool2d: input must be [n, c, h, w], got f32[2,2]");
  EXPECT_EQ(ErrorOf([&] {
              nn::conv2d(small, Tensor::zeros({1, 1, 3, 3}));
            }),
            "conv2d: the 3x3 kernel is larger than the padded input 2x2 (input 2x2, padding "
            "0x0)");
  EXPECT_EQ(ErrorOf([&] {
              nn::conv2d(Tensor::zeros({3, 4}), w);
            }),
            "conv2d: input must be [n, c, h, w], got f32[3,4]");
}

}  // namespace
}  // namespace seam
