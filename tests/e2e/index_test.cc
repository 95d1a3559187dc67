// nn::embedding, nn::gelu, erf, clamp, cumsum, argmax/argmin, scatter through the public API:
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

TEST(IndexTest, ScatterValues) {
  // torch.scatter(x, 0, index, src): out[index[i][j]][j] = src[i][j].
  Tensor x = Tensor::zeros({3, 4});
  Tensor index = Tensor::from_vector({0, 1, 2, 0, 2, 0, 0, 1}, {2, 4});
  Tensor src = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  EXPECT_EQ(x.scatter(0, index, src).to_vector<float>(),
            (std::vector<float>{1, 6, 7, 4, 0, 2, 0, 8, 5, 0, 3, 0}));
  // Along axis 1 (-1) with repeats: the last in index's row-major order wins. index is
  // smaller than src (src's third column is never read) and has out-of-range entries,
  // clamped to the first and last columns.
  Tensor y = Tensor::full({2, 3}, 9.0f, DType::kFloat32);
  Tensor repeats = Tensor::from_vector({0, 0, 1, 1}, {2, 2});
  Tensor wide = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(y.scatter(-1, repeats, wide).to_vector<float>(),
            (std::vector<float>{2, 9, 9, 9, 5, 9}));
  Tensor outside = Tensor::from_vector({-4, 7}, {1, 2});
  EXPECT_EQ(y.scatter(1, outside, wide).to_vector<float>(), (std::vector<float>{1, 9, 2, 9, 9, 9}));
  // Integer tensors and int64 indices too.
  Tensor ints = Tensor::from_vector({1, 2, 3}, {3});
  Tensor at = Tensor::from_vector(std::vector<int64_t>{2}, {1});
  EXPECT_EQ(ints.scatter(0, at, Tensor::from_vector({7}, {1})).to_vector<int32_t>(),
            (std::vector<int32_t>{1, 2, 7}));
}

// The gradients by hand: of sum(scatter(x, 1, index, src) * w), x gets w where nothing was
// written; src gets w where each element landed, except the overwritten repeats.
TEST(IndexTest, ScatterGradientsOfRepeats) {
  Tensor x = Tensor::zeros({2, 3});
  Tensor index = Tensor::from_vector({0, 0, 2, 1, 1, 1}, {2, 3});
  Tensor src = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = Tensor::from_vector(std::vector<float>{10, 20, 30, 40, 50, 60}, {2, 3});
  Tensor out = x.scatter(1, index, src);
  std::vector<Tensor> g = grad((out * w).sum(), {x, src});
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{2, 0, 3, 0, 6, 0}));
  EXPECT_EQ(g[0].to_vector<float>(), (std::vector<float>{0, 20, 0, 40, 0, 60}));
  EXPECT_EQ(g[1].to_vector<float>(), (std::vector<float>{0, 10, 30, 0, 0, 50}));
}

TEST(IndexTest, ScatterGradientsMatchFiniteDifferences) {
  // Repeats along the axis (rows 1 and 3 twice in some columns), an index smaller than src
  // in every dimension, clamped entries.
  Tensor rows = Tensor::from_vector({1, 3, 0, 3, 1, 3, 2, 9, -1, 0, 1, 2}, {3, 4});
  CheckGrad([&](const std::vector<Tensor>& in) { return in[0].scatter(0, rows, in[1]); },
            {{4, 5}, {5, 6}});
  Tensor cols = Tensor::from_vector(std::vector<int64_t>{2, 2, 0, 1, 1, 1, 0, 3}, {2, 1, 4});
  CheckGrad([&](const std::vector<Tensor>& in) { return in[0].scatter(2, cols, in[1]); },
            {{2, 3, 4}, {3, 2, 4}});
  // The operand's rule is itself a scatter: differentiating the gradient checks it again.
  Tensor base = Tensor::zeros({4, 5}, DType::kFloat64);
  Tensor values = Tensor::zeros({3, 4}, DType::kFloat64);
  CheckGrad(
      [&](const std::vector<Tensor>& in) {
        std::vector<Tensor> g = grad((base.scatter(0, rows, values) * in[0]).sum(), {base, values});
        return g[0] + g[1].pad({0, 0}, {1, 1}, 0.0);
      },
      {{4, 5}});
}

TEST(IndexTest, ScatterErrors) {
  Tensor x = Tensor::zeros({3, 4});
  Tensor src = Tensor::zeros({2, 4});
  Tensor index = Tensor::from_vector({0, 1, 2, 0}, {1, 4});
  EXPECT_EQ(ErrorOf([&] {
              x.scatter(0, Tensor::zeros({1, 4}), src);
            }),
            "scatter: index must be int32 or int64, got float32 (f32[1,4])");
  EXPECT_EQ(ErrorOf([&] {
              x.scatter(0, Tensor::from_vector({0, 1}, {2}), src);
            }),
            "scatter: index s32[2] and src f32[2,4] must have the rank of the input f32[3,4] (2)");
  EXPECT_EQ(ErrorOf([&] {
              x.scatter(0, index, Tensor::zeros({2, 4}, DType::kFloat64));
            }),
            "scatter: src f64[2,4] must have the element type of the input f32[3,4]");
  EXPECT_EQ(ErrorOf([&] {
              x.scatter(0, Tensor::from_vector({0, 0, 0}, {3, 1}), src);
            }),
            "scatter: index s32[3,1] is larger than src f32[2,4] along dimension 0 (3 > 2)");
  EXPECT_EQ(ErrorOf([&] {
              x.scatter(0, Tensor::from_vector({0, 0, 0, 0, 0}, {1, 5}), Tensor::zeros({2, 5}));
            }),
            "scatter: index s32[1,5] is larger than the input f32[3,4] along dimension 1 (5 > 4)");
  EXPECT_EQ(ErrorOf([&] { x.scatter(2, index, src); }),
            "scatter: axis 2 is out of range for f32[3,4]");
  EXPECT_EQ(ErrorOf([&] {
              Tensor::zeros({0, 2}).scatter(0, Tensor::from_vector({0}, {1, 1}), src);
            }),
            "scatter: axis 0 of the input f32[0,2] is empty, so index s32[1,1] has nowhere to "
            "write");
}

}  // namespace
}  // namespace seam
