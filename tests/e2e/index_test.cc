// nn::embedding, nn::gelu, erf, clamp, cumsum, argmax/argmin through the public API:
// values worked out by hand, every gradient rule against central finite differences in
// f64, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "error_of.h"
#include "grad_check.h"
#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using gradcheck::CheckGrad;
using gradcheck::Random;

TEST(IndexTest, EmbeddingValuesClampAndRepeat) {
  Tensor table = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor ids = Tensor::from_vector({2, 0, 0, -1, 7, 1}, {2, 3});
  Tensor rows = nn::embedding(table, ids);
  // The gradient of sum(rows) (taken before reading rows, which makes it data): each row
  // counts how often it was read, clamped ids included.
  std::vector<Tensor> g = grad(rows.sum(), {table});
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{3, 3, 1, 1, 2, 2}));
  EXPECT_EQ(rows.shape(), (std::vector<int64_t>{2, 3, 2}));
  // -1 reads row 0 and 7 row 2 (clamped).
  EXPECT_EQ(rows.to_vector<float>(), (std::vector<float>{5, 6, 1, 2, 1, 2, 1, 2, 5, 6, 3, 4}));
}

TEST(IndexTest, EmbeddingModuleAndErrors) {
  nn::Embedding module(5, 3, 11);
  EXPECT_EQ(module.weight.shape(), (std::vector<int64_t>{5, 3}));
  Tensor ids = Tensor::from_vector({4, 1}, {2});
  EXPECT_EQ(module.forward(ids).to_vector<float>()[0], module.weight.to_vector<float>()[12]);
  EXPECT_EQ(module.named_parameters().size(), 1u);
  Tensor float_ids = Tensor::from_vector({1.0f, 2.0f}, {2});
  EXPECT_EQ(ErrorOf([&] { nn::embedding(module.weight, float_ids); }),
            "embedding: indices must be int32 or int64, got float32 (f32[2])");
}

TEST(IndexTest, ArgMaxArgMinClampCumsumErfValues) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::from_vector(std::vector<float>{1, 5, 5, 0, 2, nan, 2, 9}, {2, 4});
  EXPECT_EQ(x.argmax(1).to_vector<int32_t>(), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(x.argmin(1).to_vector<int32_t>(), (std::vector<int32_t>{3, 1}));
  EXPECT_EQ(x.argmax(0).to_vector<int32_t>(), (std::vector<int32_t>{1, 1, 0, 1}));
  Tensor y = Tensor::from_vector(std::vector<float>{-3, 0.5, 4}, {3});
  EXPECT_EQ(clamp(y, -1, 1).to_vector<float>(), (std::vector<float>{-1, 0.5, 1}));
  EXPECT_EQ(y.cumsum(0).to_vector<float>(), (std::vector<float>{-3, -2.5, 1.5}));
  Tensor z = Tensor::from_vector(std::vector<double>{0, 1}, {2});
  std::vector<double> erf = z.erf().to_vector<double>();
  EXPECT_EQ(erf[0], 0);
  EXPECT_NEAR(erf[1], 0.8427007929497149, 1e-15);
  // Exact GELU at 1: 0.5 * (1 + erf(1 / sqrt(2))) = 0.8413447460685429.
  EXPECT_NEAR(nn::gelu(Tensor::from_vector(std::vector<double>{1}, {1})).to_vector<double>()[0],
              0.8413447460685429, 1e-15);
  EXPECT_EQ(ErrorOf([&] {
              Tensor::from_vector({1, 2}, {2}).erf();
            }),
            "erf: needs a float tensor, got s32[2]");
}

TEST(IndexTest, GradientsMatchFiniteDifferences) {
  Tensor ids = Tensor::from_vector({3, 0, 3, 1, 9, -2}, {2, 3});  // repeats, out of range
  CheckGrad([&](const std::vector<Tensor>& in) { return nn::embedding(in[0], ids); }, {{4, 3}});
  // The embedding's gradient as a function of the output gradient u is a scatter_add of u:
  // differentiating it again checks scatter_add's rule for its updates.
  Tensor table = Tensor::zeros({4, 3}, DType::kFloat64);
  CheckGrad(
      [&](const std::vector<Tensor>& in) {
        return grad((nn::embedding(table, ids) * in[0]).sum(), {table})[0];
      },
      {{2, 3, 3}});
  CheckGrad([](const std::vector<Tensor>& in) { return nn::gelu(in[0]); }, {{2, 5}});
  CheckGrad([](const std::vector<Tensor>& in) { return in[0].erf(); }, {{7}});
  CheckGrad([](const std::vector<Tensor>& in) { return in[0].cumsum(1); }, {{3, 4}});
  CheckGrad([](const std::vector<Tensor>& in) { return in[0].cumsum(0); }, {{3, 4}});
  // Bounds of both kinds: x below, inside and above [lo, hi], and lo > hi somewhere.
  CheckGrad([](const std::vector<Tensor>& in) { return clamp(in[0], in[1], in[2]); },
            {{4, 5}, {4, 5}, {4, 5}});
  CheckGrad([](const std::vector<Tensor>& in) { return clamp(in[0], -0.5, 0.7); }, {{9}});
}

}  // namespace
}  // namespace seam
