// The public API's conveniences (issue 17): free unary functions, operators with scalars of
// the tensor's type, comparison and compound operators, ErrorCode, optimizers built from a
// module, Mlp as a Module, and wait_device_ops. Public API only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "error_of.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::vector<float> kValues = {-2.5f, -1.0f, 0.0f, 0.25f, 1.5f, 3.0f};

Tensor Values() { return Tensor::from_vector(kValues, {2, 3}); }

std::vector<int32_t> AsInts(const Tensor& t) { return t.to(DType::kInt32).to_vector<int32_t>(); }

TEST(ApiPolishTest, FreeUnaryFunctionsComputeTheirMath) {
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&)> fn;
    std::function<double(double)> host;
  };
  const std::vector<Case> cases = {
      {"exp", [](const Tensor& x) { return exp(x); }, [](double v) { return std::exp(v); }},
      {"tanh", [](const Tensor& x) { return tanh(x); }, [](double v) { return std::tanh(v); }},
      {"abs", [](const Tensor& x) { return abs(x); }, [](double v) { return std::fabs(v); }},
      {"floor", [](const Tensor& x) { return floor(x); }, [](double v) { return std::floor(v); }},
      {"ceil", [](const Tensor& x) { return ceil(x); }, [](double v) { return std::ceil(v); }},
      {"neg", [](const Tensor& x) { return neg(x); }, [](double v) { return -v; }},
      {"relu", [](const Tensor& x) { return relu(x); }, [](double v) { return v > 0 ? v : 0; }},
      {"sigmoid", [](const Tensor& x) { return sigmoid(x); },
       [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"sign", [](const Tensor& x) { return sign(x); },
       [](double v) { return static_cast<double>((v > 0) - (v < 0)); }},
  };
  for (const Case& c : cases) {
    std::vector<float> got = c.fn(Values()).to_vector<float>();
    ASSERT_EQ(got.size(), kValues.size()) << c.name;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], c.host(kValues[i]), 1e-6) << c.name << " of " << kValues[i];
    }
  }
  std::vector<float> positive = sqrt(abs(Values()) + 1).to_vector<float>();
  EXPECT_NEAR(positive[0], std::sqrt(3.5), 1e-6);
  std::vector<float> rows = softmax(Values(), 1).sum({1}).to_vector<float>();
  EXPECT_NEAR(rows[0], 1.0, 1e-6);
  EXPECT_NEAR(rows[1], 1.0, 1e-6);
}

TEST(ApiPolishTest, ScalarsTakeTheTensorsDtype) {
  Tensor ints = Tensor::from_vector({1, 2, 3}, {3});
  Tensor sum = ints + 2;
  EXPECT_EQ(sum.dtype(), DType::kInt32);
  EXPECT_EQ(sum.to_vector<int32_t>(), (std::vector<int32_t>{3, 4, 5}));
  EXPECT_EQ((10 - ints * 3).to_vector<int32_t>(), (std::vector<int32_t>{7, 4, 1}));
  EXPECT_EQ((ints / 2).to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1}));  // truncates
  Tensor floats = Tensor::from_vector({1.0f, 2.0f, 4.0f}, {3});
  Tensor half = floats * 0.5 + 1;  // a double and an int scalar, both f32 here
  EXPECT_EQ(half.dtype(), DType::kFloat32);
  EXPECT_EQ(half.to_vector<float>(), (std::vector<float>{1.5f, 2.0f, 3.0f}));
  EXPECT_EQ((1 / floats).to_vector<float>(), (std::vector<float>{1.0f, 0.5f, 0.25f}));
  EXPECT_EQ(maximum(floats, 2).to_vector<float>(), (std::vector<float>{2.0f, 2.0f, 4.0f}));
  EXPECT_EQ(pow(floats, 2).to_vector<float>(), (std::vector<float>{1.0f, 4.0f, 16.0f}));
  std::vector<float> wide = (Tensor::from_vector(std::vector<double>{1.0, 2.0}, {2}) + 0.1)
                                .to(DType::kFloat32)
                                .to_vector<float>();
  EXPECT_FLOAT_EQ(wide[1], 2.1f);
}

TEST(ApiPolishTest, ScalarsNeverNarrowSilently) {
  Tensor ints = Tensor::from_vector({1, 2, 3}, {3});
  EXPECT_EQ(ErrorOf([&] { (void)(ints + 1.5); }),
            "add: the scalar 1.5 (a floating-point scalar) is not an integer (convert the tensor "
            "first, e.g. .to(DType::kFloat32)), so it cannot be combined with s32[3]");
  EXPECT_THAT(ErrorOf([&] { (void)(ints * 5000000000LL); }),
              HasSubstr("the scalar 5000000000 (an integer scalar) does not fit int32"));
  EXPECT_THAT(ErrorOf([&] { (void)(ints - 18446744073709551615ULL); }),
              HasSubstr("is too large for any tensor"));
  Tensor flags = Tensor::from_vector({1, 0}, {2}) > 0;
  EXPECT_THAT(ErrorOf([&] { (void)(flags + 1); }), StartsWith("add: the scalar 1"));
  EXPECT_THAT(ErrorOf([&] { (void)(Values() == true); }), HasSubstr("is a bool, not a number"));
  EXPECT_EQ(AsInts(flags == true), (std::vector<int32_t>{1, 0}));
}

TEST(ApiPolishTest, ComparisonOperatorsAreElementwise) {
  Tensor x = Values();
  EXPECT_EQ(AsInts(x > 0), (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(AsInts(x <= 0), (std::vector<int32_t>{1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(AsInts(0.25f == x), (std::vector<int32_t>{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(AsInts(-1 >= x), (std::vector<int32_t>{1, 1, 0, 0, 0, 0}));
  Tensor row = Tensor::from_vector({0.0f, 0.0f, 3.0f}, {3});
  EXPECT_EQ(AsInts(x != row), (std::vector<int32_t>{1, 1, 1, 1, 1, 0}));  // broadcast
  EXPECT_EQ(AsInts(x < row), (std::vector<int32_t>{1, 1, 1, 0, 0, 0}));
}

TEST(ApiPolishTest, CompoundAssignmentKeepsTheTensorsShape) {
  Tensor t = Tensor::zeros({2, 3});
  Tensor before = t;
  t += 1;
  t *= Tensor::from_vector({1.0f, 2.0f, 3.0f}, {3});  // broadcasts to t
  t -= 0.5f;
  t /= 2;
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0.25f, 0.75f, 1.25f, 0.25f, 0.75f, 1.25f}));
  EXPECT_EQ(before.to_vector<float>(), std::vector<float>(6, 0.0f));  // other handles keep theirs
  Tensor small = Tensor::zeros({3});
  EXPECT_EQ(ErrorOf([&] {
              small += Tensor::zeros({2, 3});
            }),
            "+=: the result f32[2,3] would not keep the tensor's shape and dtype f32[3] (the "
            "other operand may broadcast to the tensor, not the tensor to it)");
  Tensor counts = Tensor::from_vector({1, 2}, {2});
  EXPECT_THAT(ErrorOf([&] { counts += 0.5; }), StartsWith("add: the scalar 0.5"));
  EXPECT_EQ(counts.to_vector<int32_t>(), (std::vector<int32_t>{1, 2}));  // unchanged
}

TEST(ApiPolishTest, ErrorCarriesAnErrorCode) {
  try {
    (void)Tensor::zeros({-1});
    FAIL() << "expected seam::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(error_code_name(e.code()), "INVALID_ARGUMENT");
  }
  EXPECT_STREQ(error_code_name(ErrorCode::kFailedPrecondition), "FAILED_PRECONDITION");
  EXPECT_STREQ(dtype_name(DType::kFloat64), "float64");
}

// Three SGD steps with momentum on a fixed batch; the parameters afterwards.
std::vector<std::vector<float>> Train(bool from_module) {
  nn::Mlp model({4, 5, 3}, 7);
  optim::Sgd by_module(model, 0.1f, 0.9f);
  optim::Sgd by_pointers(model.parameters(), 0.1f, 0.9f);
  optim::Sgd& opt = from_module ? by_module : by_pointers;
  Tensor x = Tensor::randn({6, 4}, 3);
  Tensor y = Tensor::from_vector({0, 1, 2, 0, 1, 2}, {6});
  for (int i = 0; i < 3; ++i) {
    opt.step(nn::cross_entropy(model.forward(x), y));
    sync();
  }
  std::vector<std::vector<float>> params;
  for (Tensor* p : model.parameters()) params.push_back(p->to_vector<float>());
  return params;
}

TEST(ApiPolishTest, OptimizersTakeAModule) {
  std::vector<std::vector<float>> a = Train(true), b = Train(false);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a, b);
  nn::Mlp untrained({4, 5, 3}, 7);
  EXPECT_NE(a[0], untrained.layers[0].weight.to_vector<float>());  // the steps did something
  nn::Linear layer(4, 2, 1);
  optim::Adam adam(layer, 0.01f);
  EXPECT_EQ(adam.params().size(), 2u);
  EXPECT_EQ(adam.params()[0], &layer.weight);
}

TEST(ApiPolishTest, MlpIsAModule) {
  nn::Mlp mlp({4, 5, 3}, 7);
  nn::Module& module = mlp;
  Tensor x = Tensor::randn({2, 4}, 1);
  EXPECT_EQ(module.forward(x).to_vector<float>(), mlp.forward(x).to_vector<float>());
  EXPECT_EQ(module.parameters().size(), 4u);
  nn::StateDict state = module.state_dict();
  EXPECT_EQ(state.count("layers.1.weight"), 1u);
  EXPECT_EQ(state.at("layers.1.weight").shape(), (std::vector<int64_t>{3, 5}));  // [out, in]
  // Inside a Sequential, with the names torch.nn.Sequential gives.
  nn::Sequential seq({std::make_shared<nn::Mlp>(std::vector<int64_t>{4, 5, 3}, 7)});
  EXPECT_EQ(seq.state_dict().count("0.layers.0.bias"), 1u);
  EXPECT_EQ(seq.forward(x).to_vector<float>(), mlp.forward(x).to_vector<float>());
}

// Layers without a seed draw from manual_seed's sequence: the same seed and order give the
// same values, another seed others; the weight is PyTorch's [out, in], drawn before the bias.
TEST(ApiPolishTest, UnseededLayersDrawFromManualSeedsSequence) {
  const auto values = [](const nn::Mlp& mlp) {
    std::vector<std::vector<float>> out;
    for (const nn::Linear& layer : mlp.layers) {
      out.push_back(layer.weight.to_vector<float>());
      out.push_back(layer.bias.to_vector<float>());
    }
    return out;
  };
  manual_seed(3);
  nn::Mlp a({4, 5, 3});
  EXPECT_EQ(a.layers[0].weight.shape(), (std::vector<int64_t>{5, 4}));
  manual_seed(3);
  nn::Mlp b({4, 5, 3});
  manual_seed(4);
  nn::Mlp c({4, 5, 3});
  EXPECT_EQ(values(a), values(b));
  EXPECT_NE(values(a), values(c));
  manual_seed(3);
  const uint64_t weight_seed = next_init_seed();
  const uint64_t bias_seed = next_init_seed();
  EXPECT_NE(weight_seed, bias_seed);
  const double bound = 1.0 / 2.0;  // 1/sqrt(in)
  EXPECT_EQ(values(a)[0], Tensor::uniform({5, 4}, -bound, bound, weight_seed).to_vector<float>());
  EXPECT_EQ(values(a)[1], Tensor::uniform({5}, -bound, bound, bias_seed).to_vector<float>());
}

TEST(ApiPolishTest, WaitDeviceOpsLeavesNothingRunning) {
  wait_device_ops();  // before any device is used: returns at once
  const int64_t before = metrics::MetricTotalSamples("ExecuteTime");
  Tensor a = Tensor::randn({256, 256}, 1);
  const int kSteps = 8;
  for (int i = 0; i < kSteps; ++i) {
    a = (a.matmul(a) * 0.01f).tanh();
    sync();  // launches the step and returns before it finishes
  }
  wait_device_ops();
  // Every run's ExecuteTime sample is in once wait_device_ops has returned.
  EXPECT_EQ(metrics::MetricTotalSamples("ExecuteTime") - before, kSteps);
  EXPECT_FALSE(a.has_pending_ops());
}

}  // namespace
}  // namespace seam
