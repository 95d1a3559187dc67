// Forward values of the tensor API's batched matmul and the ops added with it, against
// host computations (gradients are in grad_check_test.cc).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam {
namespace {

std::vector<double> Random(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-2, 2);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

// Row-major index of `index` in `dims`, where size-1 dimensions broadcast (index 0).
size_t Offset(const std::vector<int64_t>& dims, const std::vector<int64_t>& index) {
  size_t offset = 0;
  size_t skip = index.size() - dims.size();
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t i = dims[d] == 1 ? 0 : index[skip + d];
    offset = offset * static_cast<size_t>(dims[d]) + static_cast<size_t>(i);
  }
  return offset;
}

// Batched matmul of [..., m, k] x [..., k, n] with broadcast batches, on the host.
std::vector<double> HostMatmul(const std::vector<double>& a, std::vector<int64_t> ad,
                               const std::vector<double>& b, std::vector<int64_t> bd,
                               const std::vector<int64_t>& batch) {
  int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  std::vector<int64_t> ab(ad.begin(), ad.end() - 2), bb(bd.begin(), bd.end() - 2);
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  std::vector<double> out;
  for (int64_t flat = 0; flat < count; ++flat) {
    std::vector<int64_t> index(batch.size());
    for (int64_t rest = flat, d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
      index[d] = rest % batch[d];
      rest /= batch[d];
    }
    size_t ao = ab.empty() ? 0 : Offset(ab, index), bo = bb.empty() ? 0 : Offset(bb, index);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          sum += a[ao * m * k + i * k + p] * b[bo * k * n + p * n + j];
        }
        out.push_back(sum);
      }
    }
  }
  return out;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "element " << i;
}

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

void CheckMatmul(std::vector<int64_t> ad, std::vector<int64_t> bd, std::vector<int64_t> batch,
                 std::vector<int64_t> result) {
  std::vector<double> a = Random(Count(ad), 1), b = Random(Count(bd), 2);
  Tensor c = Tensor::from_vector(a, ad).matmul(Tensor::from_vector(b, bd));
  EXPECT_EQ(c.shape(), result);
  // Rank-1 operands: the host product of the promoted row / column has the same elements.
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  ExpectNear(c.to_vector<double>(), HostMatmul(a, ad, b, bd, batch));
}

// A computed tensor with no elements reads back as an empty vector (the read asks the
// device for no bytes; a null destination would be the C API's size query).
TEST(TensorOpsTest, EmptyComputedTensorsReadBack) {
  Tensor x = Tensor::zeros({0, 3}) * 2.0F + 1.0F;
  EXPECT_TRUE(x.to_vector<float>().empty());
  Tensor n = Tensor::from_vector(std::vector<int32_t>{}, {0}) + 1;
  EXPECT_TRUE(n.to_vector<int32_t>().empty());
}

TEST(TensorOpsTest, BatchedMatmul) {
  CheckMatmul({2, 3, 4}, {4, 5}, {2}, {2, 3, 5});
  CheckMatmul({2, 3, 4}, {2, 4, 5}, {2}, {2, 3, 5});
  CheckMatmul({2, 1, 3, 4}, {3, 4, 2}, {2, 3}, {2, 3, 3, 2});
  CheckMatmul({3, 4}, {2, 4, 5}, {2}, {2, 3, 5});
  CheckMatmul({4}, {2, 4, 5}, {2}, {2, 5});
  CheckMatmul({2, 3, 4}, {4}, {2}, {2, 3});
  CheckMatmul({4}, {4, 3}, {}, {3});
  CheckMatmul({4}, {4}, {}, {});
}

TEST(TensorOpsTest, MatmulErrorsNameTheOpAndBothShapes) {
  auto message = [](const Tensor& a, const Tensor& b) -> std::string {
    try {
      (void)a.matmul(b);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message(Tensor::zeros({2, 3, 4}), Tensor::zeros({2, 5, 6})),
            "matmul: shapes f32[2,3,4] and f32[2,5,6] do not match ([..., m, k] x [..., k, n]: "
            "k is 4 on the left and 5 on the right)");
  EXPECT_EQ(message(Tensor::zeros({2, 3, 4}), Tensor::zeros({3, 4, 6})),
            "matmul: shapes f32[2,3,4] and f32[3,4,6] do not match (their batch dimensions do "
            "not broadcast)");
  EXPECT_EQ(message(Tensor::zeros({3}), Tensor::zeros({4})),
            "matmul: shapes f32[3] and f32[4] do not match ([..., m, k] x [..., k, n]: k is 3 on "
            "the left and 4 on the right)");
  EXPECT_EQ(message(Tensor::zeros({}), Tensor::zeros({4})),
            "matmul: shapes f32[] and f32[4] do not match (matmul needs operands of rank >= 1)");
}

void CheckUnary(const std::function<Tensor(const Tensor&)>& op,
                const std::function<double(double)>& host) {
  std::vector<double> x = Random(12, 3);
  std::vector<double> want;
  for (double v : x) want.push_back(host(v));
  std::vector<double> got = op(Tensor::from_vector(x, {3, 4})).to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << x[i];
}

TEST(TensorOpsTest, Elementwise) {
  CheckUnary([](const Tensor& t) { return t.abs(); }, [](double v) { return std::abs(v); });
  CheckUnary([](const Tensor& t) { return t.sign(); },
             [](double v) { return static_cast<double>((v > 0) - (v < 0)); });
  CheckUnary([](const Tensor& t) { return (t + 2.5f).log1p(); },
             [](double v) { return std::log1p(v + 2.5); });
  CheckUnary([](const Tensor& t) { return (t + 2.5f).rsqrt(); },
             [](double v) { return 1 / std::sqrt(v + 2.5); });
  CheckUnary([](const Tensor& t) { return t.floor(); }, [](double v) { return std::floor(v); });
  CheckUnary([](const Tensor& t) { return t.ceil(); }, [](double v) { return std::ceil(v); });
  CheckUnary([](const Tensor& t) { return t.gelu(); },
             [](double v) {
               return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
             });
  CheckUnary(
      [](const Tensor& t) { return fmod(t * 3.0f, Tensor::full({4}, 1.25, DType::kFloat64)); },
      [](double v) { return std::fmod(v * 3, 1.25); });
  CheckUnary([](const Tensor& t) { return maximum(t, 0.5f); },
             [](double v) { return std::max(v, 0.5); });
  CheckUnary([](const Tensor& t) { return minimum(t, 0.5f); },
             [](double v) { return std::min(v, 0.5); });
}

TEST(TensorOpsTest, ComparisonsAndLogic) {
  Tensor a = Tensor::from_vector({1, 2, 3}, {3});
  Tensor b = Tensor::from_vector({2, 2, 2}, {3});
  auto ints = [](const Tensor& t) { return t.to(DType::kInt32).to_vector<int32_t>(); };
  EXPECT_EQ(ints(ne(a, b)), (std::vector<int32_t>{1, 0, 1}));
  EXPECT_EQ(ints(le(a, b)), (std::vector<int32_t>{1, 1, 0}));
  EXPECT_EQ(ints(ge(a, b)), (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(ints(logical_and(le(a, b), ge(a, b))), (std::vector<int32_t>{0, 1, 0}));
  EXPECT_EQ(ints(logical_or(lt(a, b), gt(a, b))), (std::vector<int32_t>{1, 0, 1}));
  EXPECT_EQ(ints(eq(a, b).logical_not()), (std::vector<int32_t>{1, 0, 1}));
  EXPECT_THROW((void)logical_and(a, b), Error);
}

TEST(TensorOpsTest, ReductionsShapesAndCreation) {
  Tensor x = Tensor::from_vector({1.0f, -2.0f, 3.0f, 4.0f, 0.5f, -6.0f}, {2, 3});
  EXPECT_EQ(x.min({1}).to_vector<float>(), (std::vector<float>{-2, -6}));
  EXPECT_EQ(x.min({0}, true).shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(x.min().item<float>(), -6);
  EXPECT_EQ(x.prod({1}).to_vector<float>(), (std::vector<float>{-6, -12}));
  EXPECT_EQ(x.prod().item<float>(), 72);
  Tensor y = Tensor::from_vector({1, 2, 3, 4, 5, 6}, {1, 2, 3});
  EXPECT_EQ(y.transpose(0, -1).shape(), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(y.transpose(0, -1).to_vector<int32_t>(), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(x.pad({1, 0}, {0, 1}, 9).to_vector<float>(),
            (std::vector<float>{9, 9, 9, 9, 1, -2, 3, 9, 4, 0.5f, -6, 9}));
  EXPECT_EQ(x.pad({0, -1}, {-1, 0}).to_vector<float>(), (std::vector<float>{-2, 3}));
  EXPECT_THROW((void)x.pad({1}, {1}), Error);
  EXPECT_THROW((void)x.transpose(0, 2), Error);
  Tensor column = Tensor::from_vector({1, 2}, {2, 1});
  EXPECT_EQ(column.broadcast_to({2, 2, 3}).to_vector<int32_t>(),
            (std::vector<int32_t>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  EXPECT_THROW((void)column.broadcast_to({3, 3}), Error);
  std::array<float, 4> raw{1, 2, 3, 4};
  EXPECT_EQ(Tensor::from_span(std::span<const float>(raw).subspan(1), {3}).to_vector<float>(),
            (std::vector<float>{2, 3, 4}));
  std::vector<int32_t> ints{5, 6};
  EXPECT_EQ(Tensor::from_span(ints, {2, 1}).to_vector<int32_t>(), ints);
  EXPECT_THROW((void)Tensor::from_span(std::span<const double>(), {1}), Error);
}

TEST(TensorOpsTest, SequentialIsItsModulesInOrder) {
  auto first = std::make_shared<nn::Linear>(4, 3, 1);
  auto second = std::make_shared<nn::Linear>(3, 2, 2);
  nn::Sequential model({first, std::make_shared<nn::Lambda>(nn::relu), second});
  EXPECT_EQ(model.parameters(),
            (std::vector<Tensor*>{&first->weight, &first->bias, &second->weight, &second->bias}));
  Tensor x = Tensor::uniform({5, 4}, -1, 1, 3);
  std::vector<float> got = model.forward(x).to_vector<float>();
  std::vector<float> want = second->forward(first->forward(x).relu()).to_vector<float>();
  EXPECT_EQ(got, want);
  // A 3-D input goes through Linear's batched matmul.
  EXPECT_EQ(model.forward(Tensor::zeros({2, 5, 4})).shape(), (std::vector<int64_t>{2, 5, 2}));
  EXPECT_THROW(model.add(nullptr), Error);
}

}  // namespace
}  // namespace seam
