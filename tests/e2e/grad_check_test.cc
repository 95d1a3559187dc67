// Every gradient rule against central finite differences, in f64 through the CPU plugin.
#include "grad_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "error_of.h"
#include "seam/distributed.h"
#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using gradcheck::CheckGrad;
using gradcheck::Random;

TEST(GradCheckTest, Binary) {
  CheckGrad([](const auto& x) { return x[0] + x[1]; }, {{2, 3}, {3}});  // broadcast
  CheckGrad([](const auto& x) { return x[0] - x[1]; }, {{2, 1}, {2, 3}});
  CheckGrad([](const auto& x) { return x[0] * x[1]; }, {{2, 3}, {2, 3}});
  CheckGrad([](const auto& x) { return x[0] / (x[1] * x[1] + 1.0f); }, {{2, 3}, {1, 3}});
  CheckGrad([](const auto& x) { return maximum(x[0], x[1]); }, {{2, 3}, {2, 3}});
  CheckGrad([](const auto& x) { return minimum(x[0], x[1]); }, {{2, 3}, {2, 3}});
  CheckGrad([](const auto& x) { return pow(x[0], x[1]); }, {{2, 3}, {2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return 2.5f * x[0] - 3.0f + 1.0f / x[0]; }, {{4}}, 0.5, 2);
}

TEST(GradCheckTest, Unary) {
  CheckGrad([](const auto& x) { return -x[0]; }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].exp(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].log(); }, {{2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return x[0].tanh(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].sigmoid(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].relu(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].sqrt(); }, {{2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return x[0].to(DType::kFloat64); }, {{3}});
}

TEST(GradCheckTest, Shapes) {
  CheckGrad([](const auto& x) { return x[0].reshape({3, -1}); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].transpose(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].permute({2, 0, 1}); }, {{2, 3, 2}});
  CheckGrad([](const auto& x) { return x[0].slice(1, 1, 5, 2); }, {{2, 6}});
  CheckGrad([](const auto& x) { return Tensor::cat({x[0], x[1]}, 0); }, {{1, 3}, {2, 3}});
  CheckGrad([](const auto& x) { return where(gt(x[0], x[1]), x[0], x[1] * x[1]); },
            {{2, 3}, {2, 3}});
}

TEST(GradCheckTest, ReductionsAndProducts) {
  CheckGrad([](const auto& x) { return x[0].sum({1}, true); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].mean({0}); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].max({1}); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].matmul(x[1]); }, {{2, 3}, {3, 4}});
  CheckGrad([](const auto& x) { return x[0].softmax(1); }, {{2, 4}});
  CheckGrad([](const auto& x) { return x[0].log_softmax(1); }, {{2, 4}});
  // softmax's row maximum is a constant for grad (docs/frontend.md): the user's own max of
  // the same tensor in the same loss still has its gradient, and neither leaks into the
  // other (a softmax over the last axis, and over the first).
  CheckGrad([](const auto& x) { return x[0].softmax(1) * x[0].max({1}, true); }, {{3, 4}});
  CheckGrad([](const auto& x) { return x[0].log_softmax(0) + x[0].max({0}, true); }, {{3, 4}});
  CheckGrad(
      [](const auto& x) {
        return nn::cross_entropy(x[0].matmul(x[1]), Tensor::from_vector({0, 2, 1}, {3}));
      },
      {{3, 2}, {2, 3}});
}

TEST(GradCheckTest, BatchedMatmul) {
  auto mm = [](const auto& x) { return x[0].matmul(x[1]); };
  CheckGrad(mm, {{2, 3, 4}, {4, 5}});        // batch on the left only
  CheckGrad(mm, {{2, 3, 4}, {2, 4, 5}});     // equal batches
  CheckGrad(mm, {{2, 1, 3, 4}, {3, 4, 2}});  // batches broadcast to [2,3]
  CheckGrad(mm, {{3, 4}, {2, 4, 5}});        // batch on the right only
  CheckGrad(mm, {{4}, {2, 4, 5}});           // vector on the left
  CheckGrad(mm, {{2, 3, 4}, {4}});           // vector on the right
  CheckGrad(mm, {{3}, {3, 2}});
  CheckGrad(mm, {{2, 3}, {3}});
  CheckGrad(mm, {{4}, {4}});  // dot product
}

// A gradient of a gradient: the first backward pass emits dot_generals that contract
// other dimensions (g . rhs^T), whose own rules need a transpose to restore the order.
TEST(GradCheckTest, SecondOrderThroughDotGeneral) {
  for (std::vector<std::vector<int64_t>> shapes :
       {std::vector<std::vector<int64_t>>{{2, 3}, {3, 4}},
        {{2, 2, 3}, {2, 3, 4}},
        {{2, 2, 3}, {3, 4}}}) {
    CheckGrad(
        [](const auto& x) {
          Tensor y = x[0].matmul(x[1]);
          std::vector<Tensor> g = grad((y * y.tanh()).sum(), {x[0], x[1]});
          return Tensor::cat({g[0].reshape({-1}), g[1].reshape({-1})}, 0);
        },
        shapes);
  }
}

// The first backward pass of a strided slice is a pad with interior padding; its own rule
// is a strided slice.
TEST(GradCheckTest, SecondOrderThroughStridedSlice) {
  CheckGrad(
      [](const auto& x) {
        Tensor s = x[0].slice(1, 1, 6, 2);
        return grad((s * s * s).sum(), {x[0]})[0];
      },
      {{2, 6}});
}

TEST(GradCheckTest, MoreElementwise) {
  CheckGrad([](const auto& x) { return x[0].abs(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].sign() * x[0]; }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].log1p(); }, {{2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return x[0].rsqrt(); }, {{2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return x[0].floor() + x[0].ceil() * x[0]; }, {{2, 3}});
  CheckGrad([](const auto& x) { return fmod(x[0] * 3.0f, x[1]); }, {{2, 3}, {2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return x[0].gelu(); }, {{2, 3}});
  CheckGrad([](const auto& x) { return maximum(x[0], 0.5f) + minimum(x[0], -0.5f); }, {{2, 3}});
  CheckGrad([](const auto& x) { return all_reduce(x[0], ReduceOp::kSum) * x[0]; }, {{3}});
}

TEST(GradCheckTest, MoreReductionsAndShapes) {
  CheckGrad([](const auto& x) { return x[0].min({0}, true); }, {{3, 2}});
  CheckGrad([](const auto& x) { return x[0].prod({1}); }, {{2, 3}}, 0.5, 2);
  CheckGrad([](const auto& x) { return x[0].prod(); }, {{2, 2}}, -2, -0.5);
  CheckGrad([](const auto& x) { return x[0].transpose(0, 2); }, {{2, 3, 2}});
  CheckGrad([](const auto& x) { return x[0].broadcast_to({2, 3, 4}); }, {{3, 1}});
  CheckGrad([](const auto& x) { return x[0].pad({1, 0}, {2, 1}, 0.5); }, {{2, 3}});
  CheckGrad([](const auto& x) { return x[0].pad({-1, 1}, {0, -2}); }, {{3, 4}});
  CheckGrad(
      [](const auto& x) {
        nn::Sequential model(
            {std::make_shared<nn::Lambda>([](const Tensor& t) { return t.tanh(); }),
             std::make_shared<nn::Lambda>([](const Tensor& t) { return t.gelu(); })});
        return model.forward(x[0]);
      },
      {{2, 3}});
}

TEST(GradCheckTest, SquareIsFiniteAtZero) {
  Tensor x = Tensor::from_vector(std::vector<double>{0, 3}, {2});
  Tensor loss = pow(x, 2.0f).sum();
  EXPECT_EQ(grad(loss, {x})[0].to_vector<double>(), (std::vector<double>{0, 6}));
}

// A wanted parameter that is itself computed: the walk stops there, so another parameter
// gets only the contributions that do not pass through it; a parameter reached twice adds
// both contributions.
TEST(GradCheckTest, IntermediateAndRepeatedParameters) {
  Tensor x = Tensor::from_vector(std::vector<double>{1, 2, 3}, {3});
  Tensor h = x * x;
  Tensor loss = (h * 3.0f + x * x * x).sum();
  std::vector<Tensor> grads = grad(loss, {x, h, x});
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_EQ(grads[0].to_vector<double>(), (std::vector<double>{3, 12, 27}));  // 3 x^2
  EXPECT_EQ(grads[1].to_vector<double>(), (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(grads[2].to_vector<double>(), grads[0].to_vector<double>());
  Tensor y = Tensor::from_vector(std::vector<double>{4, 5}, {2});
  std::vector<Tensor> twice = grad((y * y + y).sum(), {y});
  EXPECT_EQ(twice[0].to_vector<double>(), (std::vector<double>{9, 11}));  // 2 y + 1
}

TEST(GradCheckTest, Misuse) {
  Tensor x = Tensor::from_vector(std::vector<double>{1, 2, 3}, {3});
  try {
    grad(x * x, {x});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("grad"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f64[3]"), std::string::npos) << e.what();
  }
  Tensor other = Tensor::from_vector(std::vector<double>{1}, {1});
  EXPECT_THROW(grad((x * x).sum(), {other}), Error);
}

}  // namespace
}  // namespace seam
