// layer_norm, batch_norm, LayerNorm, BatchNorm2d (buffers, train/eval, checkpoints) and AdamW:
// values against formulas evaluated here in double, gradients against central finite
// differences in f64, compile counts, and misuse.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "error_of.h"
#include "grad_check.h"
#include "seam/checkpoint.h"
#include "seam/compile.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using gradcheck::Random;

std::vector<float> ToFloat(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// --- Values against formulas in double ---------------------------------------------------

TEST(NormTest, LayerNormMatchesFormula) {
  const int64_t rows = 3, a = 2, b = 4, k = a * b;
  const std::vector<double> x = Random(rows * k, 1), w = Random(k, 2), c = Random(k, 3);
  Tensor y = nn::layer_norm(Tensor::from_vector(x, {rows, a, b}), {a, b},
                            Tensor::from_vector(w, {a, b}), Tensor::from_vector(c, {a, b}), 1e-5);
  const std::vector<double> got = y.to_vector<double>();
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < k; ++j) mean += x[r * k + j] / k;
    for (int64_t j = 0; j < k; ++j) var += (x[r * k + j] - mean) * (x[r * k + j] - mean) / k;
    for (int64_t j = 0; j < k; ++j) {
      const double want = (x[r * k + j] - mean) / std::sqrt(var + 1e-5) * w[j] + c[j];
      EXPECT_NEAR(got[r * k + j], want, 1e-12) << r << "," << j;
    }
  }
  // The module in f32: weight ones, bias zeros, normalized over the last dim.
  nn::LayerNorm ln({b});
  EXPECT_EQ(ln.named_parameters().size(), 2u);
  const std::vector<float> got32 =
      ln.forward(Tensor::from_vector(ToFloat(x), {rows * a, b})).to_vector<float>();
  for (int64_t r = 0; r < rows * a; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < b; ++j) mean += x[r * b + j] / b;
    for (int64_t j = 0; j < b; ++j) var += (x[r * b + j] - mean) * (x[r * b + j] - mean) / b;
    for (int64_t j = 0; j < b; ++j) {
      EXPECT_NEAR(got32[r * b + j], (x[r * b + j] - mean) / std::sqrt(var + 1e-5), 1e-5);
    }
  }
}

// bfloat16 input is normalized in float32 and rounded once: each result is within half a
// bfloat16 ulp (2^-9 relative, 2^-8 allowed) of the formula on the (bfloat16) inputs.
TEST(NormTest, BFloat16NormalizesInFloat32) {
  const int64_t rows = 2, k = 64;
  const std::vector<float> x32 = ToFloat(Random(rows * k, 40, 100, 101));  // mean far from 0
  Tensor x = Tensor::from_vector(x32, {rows, k}).to(DType::kBFloat16);
  const std::vector<float> xb = x.to(DType::kFloat32).to_vector<float>();
  const std::vector<float> y = nn::layer_norm(x, {k}).to(DType::kFloat32).to_vector<float>();
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < k; ++j) mean += xb[r * k + j] / k;
    for (int64_t j = 0; j < k; ++j) var += (xb[r * k + j] - mean) * (xb[r * k + j] - mean) / k;
    for (int64_t j = 0; j < k; ++j) {
      const double want = (xb[r * k + j] - mean) / std::sqrt(var + 1e-5);
      EXPECT_NEAR(y[r * k + j], want, std::abs(want) / 256 + 1e-3) << r << "," << j;
    }
  }
  nn::BatchNorm2d bn(2, 1e-5, 0.1, DType::kBFloat16);
  Tensor y2 = bn.forward(x.reshape({4, 2, 4, 4}));
  EXPECT_EQ(y2.dtype(), DType::kBFloat16);
  EXPECT_EQ(bn.running_mean.dtype(), DType::kBFloat16);
}

struct ChannelStats {
  std::vector<double> mean, var;  // biased variance
};

// Per-channel statistics of an NCHW array.
ChannelStats Stats(const std::vector<double>& x, int64_t n, int64_t c, int64_t hw) {
  ChannelStats s{std::vector<double>(c, 0), std::vector<double>(c, 0)};
  const double count = static_cast<double>(n * hw);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) s.mean[ch] += x[(i * c + ch) * hw + p] / count;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) {
        const double d = x[(i * c + ch) * hw + p] - s.mean[ch];
        s.var[ch] += d * d / count;
      }
  return s;
}

TEST(NormTest, BatchNorm2dTrainingUpdatesRunningStatistics) {
  const int64_t n = 3, c = 2, h = 2, w = 3, hw = h * w;
  nn::BatchNorm2d bn(c, 1e-5, 0.1, DType::kFloat64);
  bn.weight = Tensor::from_vector(std::vector<double>{1.5, -0.5}, {c});
  bn.bias = Tensor::from_vector(std::vector<double>{0.25, 2.0}, {c});
  std::vector<double> rm = {0, 0}, rv = {1, 1};
  const double count = static_cast<double>(n * hw);
  for (int step = 0; step < 2; ++step) {
    const std::vector<double> x = Random(n * c * hw, 10 + step, -3, 5);
    const std::vector<double> y =
        bn.forward(Tensor::from_vector(x, {n, c, h, w})).to_vector<double>();
    const ChannelStats s = Stats(x, n, c, hw);
    const std::vector<double> gamma = {1.5, -0.5}, beta = {0.25, 2.0};
    for (int64_t i = 0; i < n * c * hw; ++i) {
      const int64_t ch = (i / hw) % c;
      const double want = (x[i] - s.mean[ch]) / std::sqrt(s.var[ch] + 1e-5) * gamma[ch] + beta[ch];
      ASSERT_NEAR(y[i], want, 1e-12) << "step " << step << " element " << i;
    }
    for (int64_t ch = 0; ch < c; ++ch) {
      rm[ch] = 0.9 * rm[ch] + 0.1 * s.mean[ch];
      rv[ch] = 0.9 * rv[ch] + 0.1 * s.var[ch] * count / (count - 1);  // unbiased
    }
    sync();
    const std::vector<double> got_rm = bn.running_mean.to_vector<double>();
    const std::vector<double> got_rv = bn.running_var.to_vector<double>();
    for (int64_t ch = 0; ch < c; ++ch) {
      EXPECT_NEAR(got_rm[ch], rm[ch], 1e-12);
      EXPECT_NEAR(got_rv[ch], rv[ch], 1e-12);
    }
    EXPECT_EQ(bn.num_batches_tracked.dtype(), DType::kInt64);
    EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), step + 1);
  }
}

TEST(NormTest, BatchNorm2dEvalUsesRunningStatistics) {
  const int64_t n = 2, c = 3, hw = 4;
  nn::Sequential model({std::make_shared<nn::BatchNorm2d>(c)});
  auto* bn = static_cast<nn::BatchNorm2d*>(model.modules[0].get());
  const std::vector<float> rm = {0.5f, -1.0f, 2.0f}, rv = {0.25f, 4.0f, 1.5f};
  bn->running_mean = Tensor::from_vector(rm, {c});
  bn->running_var = Tensor::from_vector(rv, {c});
  bn->weight = Tensor::from_vector(std::vector<float>{2.0f, 1.0f, -1.0f}, {c});
  EXPECT_TRUE(bn->is_training());
  model.eval();  // recurses into the Sequential's modules
  EXPECT_FALSE(model.is_training());
  EXPECT_FALSE(bn->is_training());
  const std::vector<double> x = Random(n * c * hw, 20);
  const std::vector<float> y =
      model.forward(Tensor::from_vector(ToFloat(x), {n, c, 2, 2})).to_vector<float>();
  const double gamma[] = {2.0, 1.0, -1.0};
  for (int64_t i = 0; i < n * c * hw; ++i) {
    const int64_t ch = (i / hw) % c;
    const double xi = static_cast<float>(x[i]);
    EXPECT_NEAR(y[i], (xi - rm[ch]) / std::sqrt(rv[ch] + 1e-5) * gamma[ch], 1e-5) << i;
  }
  sync();
  EXPECT_EQ(bn->running_mean.to_vector<float>(), rm);  // untouched in evaluation mode
  EXPECT_EQ(bn->running_var.to_vector<float>(), rv);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 0);
  model.train();
  EXPECT_TRUE(bn->is_training());
}

// --- Gradients against central finite differences in f64 ----------------------------------

// Squared weighted loss: a plain weighted sum of a normalization can have vanishing gradients.
void CheckGrad(const gradcheck::Fn& f, const std::vector<std::vector<int64_t>>& shapes) {
  gradcheck::CheckGrad(f, shapes, {.squared = true});
}

TEST(NormTest, LayerNormGradient) {
  CheckGrad([](const auto& x) { return nn::layer_norm(x[0], {4}, x[1], x[2]); },
            {{3, 4}, {4}, {4}});
  CheckGrad(
      [](const auto& x) {
        return nn::layer_norm(x[0], {2, 3}, x[1], x[2], 1e-3);
      },
      {{2, 2, 3}, {2, 3}, {2, 3}});
  CheckGrad([](const auto& x) { return nn::layer_norm(x[0], {5}); }, {{2, 5}});
}

TEST(NormTest, BatchNormTrainingGradient) {
  CheckGrad(
      [](const auto& x) {
        return nn::batch_norm(x[0], nullptr, nullptr, x[1], x[2], /*training=*/true);
      },
      {{3, 2, 2, 2}, {2}, {2}});
  CheckGrad(
      [](const auto& x) {  // [N, C] input, running statistics updated on the side
        Tensor rm = Tensor::zeros({3}, DType::kFloat64), rv = Tensor::ones({3}, DType::kFloat64);
        return nn::batch_norm(x[0], &rm, &rv, x[1], Tensor(), true, 0.1, 1e-3);
      },
      {{4, 3}, {3}});
}

TEST(NormTest, BatchNormEvalGradient) {
  CheckGrad(
      [](const auto& x) {
        Tensor rm = Tensor::from_vector(std::vector<double>{0.5, -0.25}, {2});
        Tensor rv = Tensor::from_vector(std::vector<double>{2.0, 0.5}, {2});
        return nn::batch_norm(x[0], &rm, &rv, x[1], x[2], /*training=*/false);
      },
      {{2, 2, 3}, {2}, {2}});
}

// --- Buffers: names, optimizers, compiles, checkpoints ------------------------------------

std::shared_ptr<nn::Sequential> SmallCnn(uint64_t seed) {
  auto model = std::make_shared<nn::Sequential>();
  model->add(std::make_shared<nn::Conv2d>(1, 2, std::array<int64_t, 2>{3, 3}, seed))
      .add(std::make_shared<nn::BatchNorm2d>(2))
      .add(std::make_shared<nn::Lambda>(nn::relu))
      .add(std::make_shared<nn::Lambda>([](const Tensor& x) {
        return x.reshape({x.shape()[0], -1});
      }))
      .add(std::make_shared<nn::Linear>(2 * 4 * 4, 3, seed + 1));
  return model;
}

Tensor Batch(int step, std::vector<int32_t>* labels) {
  labels->clear();
  for (int i = 0; i < 4; ++i) labels->push_back((step + i) % 3);
  return Tensor::from_vector(ToFloat(Random(4 * 36, 100 + step)), {4, 1, 6, 6});
}

void TrainSteps(nn::Sequential& model, optim::Optimizer& opt, int first, int last) {
  std::vector<int32_t> labels;
  for (int step = first; step < last; ++step) {
    Tensor x = Batch(step, &labels);
    opt.step(nn::cross_entropy(model.forward(x), Tensor::from_vector(labels, {4})));
    sync();
  }
}

TEST(NormTest, BuffersAreInStateDictNotInParameters) {
  auto model = SmallCnn(1);
  std::vector<std::string> names;
  for (const auto& p : model->named_parameters()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "4.weight",
                                             "4.bias"}));
  EXPECT_EQ(model->parameters().size(), 6u);
  const nn::StateDict state = model->state_dict();
  EXPECT_EQ(state.size(), 9u);
  EXPECT_EQ(state.count("1.running_mean"), 1u);
  EXPECT_EQ(state.count("1.running_var"), 1u);
  ASSERT_EQ(state.count("1.num_batches_tracked"), 1u);
  EXPECT_EQ(state.at("1.num_batches_tracked").dtype(), DType::kInt64);
  EXPECT_TRUE(state.at("1.num_batches_tracked").shape().empty());
  optim::AdamW opt(*model);
  EXPECT_EQ(opt.params().size(), 6u);  // the optimizer never sees the buffers
  TrainSteps(*model, opt, 0, 2);
  EXPECT_EQ(
      static_cast<nn::BatchNorm2d*>(model->modules[1].get())->num_batches_tracked.item<int64_t>(),
      2);
}

TEST(NormTest, RunningStatisticsDoNotRecompile) {
  auto model = SmallCnn(2);
  optim::Sgd opt(*model, 0.05f, 0.9f);
  TrainSteps(*model, opt, 0, 3);
  const int64_t compiles = metrics::MetricTotalSamples("CompileTime");
  const int64_t uncached = metrics::CounterValue("UncachedCompile");
  EXPECT_GT(compiles, 0);
  TrainSteps(*model, opt, 3, 8);
  EXPECT_EQ(metrics::MetricTotalSamples("CompileTime"), compiles);
  EXPECT_EQ(metrics::CounterValue("UncachedCompile"), uncached);
  EXPECT_EQ(
      static_cast<nn::BatchNorm2d*>(model->modules[1].get())->num_batches_tracked.item<int64_t>(),
      8);
}

void ExpectSameState(nn::Module& want_model, nn::Module& got_model) {
  const nn::StateDict want = want_model.state_dict(), got = got_model.state_dict();
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [name, tensor] : want) {
    if (tensor.dtype() == DType::kInt64) {
      EXPECT_EQ(got.at(name).item<int64_t>(), tensor.item<int64_t>()) << name;
      continue;
    }
    const std::vector<float> a = tensor.to_vector<float>(), b = got.at(name).to_vector<float>();
    ASSERT_EQ(a.size(), b.size()) << name;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << name;
  }
}

// A compiled step (seam::compile) carries the buffers like the parameters: it replays, and
// ends bit-identical to the same steps run lazily (capturable AdamW: the same program each
// step).
TEST(NormTest, CompiledStepCarriesBuffers) {
  auto lazy_model = SmallCnn(4);
  optim::AdamW lazy_opt(*lazy_model, 1e-2f, 0.9f, 0.999f, 1e-8f, 1e-2f, /*capturable=*/true);
  TrainSteps(*lazy_model, lazy_opt, 0, 7);

  auto model = SmallCnn(4);
  optim::AdamW opt(*model, 1e-2f, 0.9f, 0.999f, 1e-8f, 1e-2f, /*capturable=*/true);
  CompiledStep step = compile([&](const std::vector<Tensor>& in) {
    Tensor loss = nn::cross_entropy(model->forward(in[0]), in[1]);
    opt.step(loss);
    return std::vector<Tensor>{loss};
  });
  std::vector<int32_t> labels;
  for (int i = 0; i < 7; ++i) {
    Tensor x = Batch(i, &labels);
    step({x, Tensor::from_vector(labels, {4})});
  }
  EXPECT_GT(step.replayed_calls(), 0) << step.last_reason();
  ExpectSameState(*lazy_model, *model);
  EXPECT_EQ(
      static_cast<nn::BatchNorm2d*>(model->modules[1].get())->num_batches_tracked.item<int64_t>(),
      7);
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("seam_norm_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(NormTest, SaveAndResumeIsBitIdentical) {
  auto straight = SmallCnn(3);
  optim::AdamW straight_opt(*straight, 1e-2f);
  TrainSteps(*straight, straight_opt, 0, 6);

  const std::string model_path = TempPath("model.safetensors");
  const std::string opt_path = TempPath("opt.safetensors");
  {
    auto first = SmallCnn(3);
    optim::AdamW opt(*first, 1e-2f);
    TrainSteps(*first, opt, 0, 3);
    checkpoint::save_file(model_path, first->state_dict());
    checkpoint::save_file(opt_path, opt.state_dict(first->named_parameters()));
  }
  auto resumed = SmallCnn(77);  // different initial values, all overwritten by the load
  optim::AdamW opt(*resumed, 1e-2f);
  resumed->load_state_dict(checkpoint::load_file(model_path).tensors);
  opt.load_state_dict(checkpoint::load_file(opt_path).tensors, resumed->named_parameters());
  TrainSteps(*resumed, opt, 3, 6);
  std::filesystem::remove(model_path);
  std::filesystem::remove(opt_path);

  ExpectSameState(*straight, *resumed);
  EXPECT_EQ(
      static_cast<nn::BatchNorm2d*>(resumed->modules[1].get())->num_batches_tracked.item<int64_t>(),
      6);
}

// A safetensors file of a PyTorch BatchNorm2d(2)'s state_dict, its bytes written here (not by
// seam): F32 [2] weight, bias, running_mean, running_var and an I64 scalar
// num_batches_tracked.
std::string TorchBatchNormFile() {
  const std::vector<std::pair<std::string, std::vector<float>>> floats = {
      {"bias", {0.5f, -1.0f}},
      {"running_mean", {1.0f, -2.0f}},
      {"running_var", {4.0f, 0.25f}},
      {"weight", {3.0f, 0.5f}}};
  std::string header = "{", data;
  for (const auto& [name, values] : floats) {
    const size_t begin = data.size();
    data.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
    header += "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[" +
              std::to_string(begin) + "," + std::to_string(data.size()) + "]},";
  }
  const int64_t tracked = 12;
  const size_t begin = data.size();
  data.append(reinterpret_cast<const char*>(&tracked), sizeof tracked);
  header += "\"num_batches_tracked\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[" +
            std::to_string(begin) + "," + std::to_string(data.size()) + "]}}";
  while (header.size() % 8 != 0) header += ' ';
  const uint64_t length = header.size();
  const std::string path = TempPath("torch_bn.safetensors");
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&length), sizeof length);  // little-endian host
  out << header << data;
  return path;
}

TEST(NormTest, LoadsPyTorchNamedBatchNormState) {
  const std::string path = TorchBatchNormFile();
  nn::BatchNorm2d bn(2);
  bn.load_state_dict(checkpoint::load_file(path).tensors);
  std::filesystem::remove(path);
  EXPECT_EQ(bn.running_mean.to_vector<float>(), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(bn.running_var.to_vector<float>(), (std::vector<float>{4.0f, 0.25f}));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 12);
  bn.eval();
  const std::vector<float> y =
      bn.forward(Tensor::from_vector({3.0f, 0.0f}, {1, 2, 1, 1})).to_vector<float>();
  EXPECT_NEAR(y[0], (3.0 - 1.0) / std::sqrt(4.0 + 1e-5) * 3.0 + 0.5, 1e-5);
  EXPECT_NEAR(y[1], (0.0 + 2.0) / std::sqrt(0.25 + 1e-5) * 0.5 - 1.0, 1e-5);
}

// --- AdamW against a reference update written here ----------------------------------------

TEST(NormTest, AdamWMatchesReferenceUpdate) {
  const std::vector<double> p0 = Random(5, 30), c = Random(5, 31);
  Tensor p = Tensor::from_vector(p0, {5});
  optim::AdamW opt(std::vector<Tensor*>{&p}, 0.05f);  // PyTorch's other defaults
  EXPECT_FLOAT_EQ(opt.weight_decay, 1e-2f);
  EXPECT_FLOAT_EQ(opt.beta1, 0.9f);
  EXPECT_FLOAT_EQ(opt.beta2, 0.999f);
  EXPECT_FLOAT_EQ(opt.eps, 1e-8f);
  std::vector<double> ref = p0, m(5, 0), v(5, 0);
  const double lr = 0.05f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 1e-2f;
  for (int t = 1; t <= 4; ++t) {
    // loss = sum(c * p + p^2 / 2): gradient c + p.
    Tensor ct = Tensor::from_vector(c, {5});
    opt.step((ct * p + p * p * 0.5).sum());
    sync();
    for (int i = 0; i < 5; ++i) {
      const double g = c[i] + ref[i];
      ref[i] *= 1 - lr * wd;
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      const double m_hat = m[i] / (1 - std::pow(b1, t)), v_hat = v[i] / (1 - std::pow(b2, t));
      ref[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
    }
    const std::vector<double> got = p.to_vector<double>();
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(got[i], ref[i], 1e-6) << "step " << t << " " << i;
  }
  const nn::StateDict state = opt.state_dict();
  EXPECT_EQ(state.count("state.0.exp_avg"), 1u);
  EXPECT_EQ(state.count("state.0.exp_avg_sq"), 1u);
  EXPECT_EQ(state.at("state.0.step").item<float>(), 4.0f);
  EXPECT_EQ(state.at("param_groups.0.weight_decay").item<float>(), 1e-2f);
}

TEST(NormTest, AdamWDiffersFromAdamWithL2) {
  Tensor a = Tensor::from_vector({1.0f, -2.0f}, {2}), b = a;
  optim::AdamW adamw(std::vector<Tensor*>{&a}, 0.1f, 0.9f, 0.999f, 1e-8f, 0.5f);
  optim::Adam adam(std::vector<Tensor*>{&b}, 0.1f, 0.9f, 0.999f, 1e-8f, 0.5f);
  adamw.step((a * a).sum());
  adam.step((b * b).sum());
  sync();
  // Adam with L2: the decay only rescales the gradient, so the first step is +-lr exactly;
  // AdamW also shrinks p by (1 - 0.1 * 0.5).
  const std::vector<float> got_a = a.to_vector<float>(), got_b = b.to_vector<float>();
  EXPECT_NEAR(got_b[0], 1.0 - 0.1, 1e-6);
  EXPECT_NEAR(got_a[0], 1.0 * 0.95 - 0.1, 1e-6);
  EXPECT_NEAR(got_a[1], -2.0 * 0.95 + 0.1, 1e-6);
}

// --- Misuse ---------------------------------------------------------------------------------

TEST(NormTest, MisuseIsAClearError) {
  nn::BatchNorm2d bn(4);
  const std::string channels = ErrorOf([&] { bn.forward(Tensor::zeros({2, 3, 4, 4})); });
  EXPECT_NE(channels.find("has 3 channels"), std::string::npos) << channels;
  EXPECT_NE(channels.find("num_features=4"), std::string::npos) << channels;
  const std::string rank = ErrorOf([&] { bn.forward(Tensor::zeros({2, 4})); });
  EXPECT_NE(rank.find("rank 4"), std::string::npos) << rank;
  const std::string trailing = ErrorOf([] { nn::layer_norm(Tensor::zeros({2, 4}), {5}); });
  EXPECT_NE(trailing.find("normalized_shape [5]"), std::string::npos) << trailing;
  EXPECT_NE(trailing.find("float32[2,4]"), std::string::npos) << trailing;
  nn::LayerNorm ln({3, 4});
  const std::string module = ErrorOf([&] { ln.forward(Tensor::zeros({2, 4, 3})); });
  EXPECT_NE(module.find("[3,4]"), std::string::npos) << module;
  const std::string one = ErrorOf([&] { bn.forward(Tensor::zeros({1, 4, 1, 1})); });
  EXPECT_NE(one.find("more than one value per channel"), std::string::npos) << one;
  const std::string eval = ErrorOf([] { nn::batch_norm(Tensor::zeros({2, 3}), nullptr, nullptr); });
  EXPECT_NE(eval.find("needs running_mean"), std::string::npos) << eval;
  const std::string ints = ErrorOf([] {
    nn::layer_norm(Tensor::zeros({2, 4}, DType::kInt32), {4});
  });
  EXPECT_NE(ints.find("floating-point"), std::string::npos) << ints;
  // A state without the running variance loads nothing and names it.
  nn::StateDict state = bn.state_dict();
  state.erase("running_var");
  state["weight"] = Tensor::full({4}, 2.0);
  const std::string missing = ErrorOf([&] { bn.load_state_dict(state); });
  EXPECT_NE(missing.find("missing 'running_var'"), std::string::npos) << missing;
  EXPECT_EQ(bn.weight.to_vector<float>(), std::vector<float>(4, 1.0f));
}

}  // namespace
}  // namespace seam
