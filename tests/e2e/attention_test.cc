// scaled_dot_product_attention, MultiheadAttention and TransformerBlock: values against a
// plain double loop here, gradients against central finite differences in f64, parameter
// names and initialization, a state dict PyTorch's equivalent loads (when /usr/bin/python3
// has torch), and misuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "error_of.h"
#include "grad_check.h"
#include "seam/checkpoint.h"
#include "seam/nn.h"
#include "seam/tensor.h"

namespace seam {
namespace {

using gradcheck::CheckGrad;
using gradcheck::Random;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// softmax(q k^T / sqrt(e)) v for `batches` independent [l, e] x [s, e] x [s, ev] problems.
std::vector<double> ReferenceAttention(const std::vector<double>& q, const std::vector<double>& k,
                                       const std::vector<double>& v, int64_t batches, int64_t l,
                                       int64_t s, int64_t e, int64_t ev, bool causal) {
  std::vector<double> out(static_cast<size_t>(batches * l * ev), 0.0);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < l; ++i) {
      std::vector<double> score(static_cast<size_t>(s), -std::numeric_limits<double>::infinity());
      double top = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < s; ++j) {
        if (causal && j > i) continue;
        double dot = 0;
        for (int64_t c = 0; c < e; ++c) dot += q[(b * l + i) * e + c] * k[(b * s + j) * e + c];
        score[j] = dot / std::sqrt(static_cast<double>(e));
        top = std::max(top, score[j]);
      }
      double total = 0;
      for (int64_t j = 0; j < s; ++j) total += (score[j] = std::exp(score[j] - top));
      for (int64_t j = 0; j < s; ++j) {
        for (int64_t c = 0; c < ev; ++c) {
          out[(b * l + i) * ev + c] += score[j] / total * v[(b * s + j) * ev + c];
        }
      }
    }
  }
  return out;
}

TEST(AttentionTest, SdpaMatchesALoop) {
  // Two batch dims, more keys than queries, a value width unlike the embedding's.
  const int64_t b0 = 2, b1 = 3, l = 4, s = 5, e = 3, ev = 2;
  const std::vector<double> q = Random(b0 * b1 * l * e, 1), k = Random(b0 * b1 * s * e, 2),
                            v = Random(b0 * b1 * s * ev, 3);
  for (bool causal : {false, true}) {
    Tensor out = nn::scaled_dot_product_attention(Tensor::from_vector(q, {b0, b1, l, e}),
                                                  Tensor::from_vector(k, {b0, b1, s, e}),
                                                  Tensor::from_vector(v, {b0, b1, s, ev}), causal);
    EXPECT_EQ(out.shape(), (std::vector<int64_t>{b0, b1, l, ev}));
    const std::vector<double> got = out.to_vector<double>();
    const std::vector<double> want = ReferenceAttention(q, k, v, b0 * b1, l, s, e, ev, causal);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << causal << i;
  }
  // float32, rank 2: the first causal row attends to the first key only.
  const std::vector<float> q32 = {1, 0, 0, 1, 1, 1}, k32 = {1, 2, 3, 4, 5, 6};
  const std::vector<float> v32 = {10, 20, 30, 40, 50, 60};
  std::vector<float> got32 = nn::scaled_dot_product_attention(
                                 Tensor::from_vector(q32, {3, 2}), Tensor::from_vector(k32, {3, 2}),
                                 Tensor::from_vector(v32, {3, 2}), true)
                                 .to_vector<float>();
  const std::vector<double> want32 =
      ReferenceAttention({q32.begin(), q32.end()}, {k32.begin(), k32.end()},
                         {v32.begin(), v32.end()}, 1, 3, 3, 2, 2, true);
  EXPECT_EQ(got32[0], 10.0F);
  EXPECT_EQ(got32[1], 20.0F);
  for (size_t i = 0; i < got32.size(); ++i) EXPECT_NEAR(got32[i], want32[i], 1e-4) << i;
}

// --- Gradients against central finite differences in f64 ----------------------------------

// sum(y w y) + sum(y w): softmax rows sum to one, so a plain weighted sum can hide mistakes.
constexpr gradcheck::Options kAttentionLoss{
    .squared = true, .plus_linear = true, .tolerance = 1e-6};

TEST(AttentionTest, SdpaGradient) {
  for (bool causal : {false, true}) {
    CheckGrad(
        [causal](const auto& x) {
          return nn::scaled_dot_product_attention(x[0], x[1], x[2], causal);
        },
        {{2, 3, 4}, {2, 3, 4}, {2, 3, 2}}, kAttentionLoss);
  }
  CheckGrad(  // more keys than queries, causal
      [](const auto& x) { return nn::scaled_dot_product_attention(x[0], x[1], x[2], true); },
      {{1, 2, 3}, {1, 4, 3}, {1, 4, 2}}, kAttentionLoss);
}

std::vector<std::string> Names(const std::vector<nn::NamedParameter>& params) {
  std::vector<std::string> names;
  for (const nn::NamedParameter& p : params) names.push_back(p.name);
  return names;
}

TEST(AttentionTest, TransformerBlockGradient) {
  // width 4, 2 heads, sequence 3, batch 2: the input and every parameter, causal.
  nn::TransformerBlock block(4, 2, /*seed=*/5, /*causal=*/true, DType::kFloat64);
  std::vector<nn::NamedParameter> named = block.named_parameters();
  std::vector<std::vector<int64_t>> shapes = {{2, 3, 4}};
  std::vector<std::vector<double>> values = {Random(24, 1)};
  for (size_t i = 0; i < named.size(); ++i) {
    shapes.push_back(named[i].tensor->shape());
    // Random values everywhere (the zero biases and unit norms would hide mistakes).
    values.push_back(Random(static_cast<size_t>(named[i].tensor->numel()), 20 + i, -0.8, 0.8));
  }
  gradcheck::CheckGradAt(
      [&block](const std::vector<Tensor>& x) {
        std::vector<nn::NamedParameter> params = block.named_parameters();
        for (size_t i = 0; i < params.size(); ++i) *params[i].tensor = x[i + 1];
        return block.forward(x[0]);
      },
      shapes, values, kAttentionLoss);
}

TEST(AttentionTest, NamesShapesAndInitializationAreThoseOfPyTorch) {
  nn::TransformerBlock block(8, 2, 1);
  EXPECT_THAT(Names(block.named_parameters()),
              ElementsAre("ln_1.weight", "ln_1.bias", "attn.in_proj_weight", "attn.in_proj_bias",
                          "attn.out_proj.weight", "attn.out_proj.bias", "ln_2.weight", "ln_2.bias",
                          "mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias"));
  EXPECT_EQ(block.parameters().size(), 12u);
  nn::StateDict state = block.state_dict();
  EXPECT_EQ(state.at("attn.in_proj_weight").shape(), (std::vector<int64_t>{24, 8}));
  EXPECT_EQ(state.at("attn.in_proj_bias").shape(), (std::vector<int64_t>{24}));
  EXPECT_EQ(state.at("attn.out_proj.weight").shape(), (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(state.at("mlp.0.weight").shape(), (std::vector<int64_t>{32, 8}));
  EXPECT_EQ(state.at("mlp.2.weight").shape(), (std::vector<int64_t>{8, 32}));
  // xavier_uniform bound sqrt(6 / (8 + 24)) = 0.433 on in_proj, zero biases.
  const std::vector<float> in_w = block.attn.in_proj_weight.to_vector<float>();
  const float bound = static_cast<float>(std::sqrt(6.0 / 32.0));
  EXPECT_LE(*std::max_element(in_w.begin(), in_w.end()), bound);
  EXPECT_GE(*std::min_element(in_w.begin(), in_w.end()), -bound);
  EXPECT_GT(*std::max_element(in_w.begin(), in_w.end()), 0.8F * bound);  // uses the range
  for (float b : block.attn.in_proj_bias.to_vector<float>()) EXPECT_EQ(b, 0.0F);
  for (float b : block.attn.out_proj.bias.to_vector<float>()) EXPECT_EQ(b, 0.0F);
  // A round trip through the state dict gives the same outputs.
  nn::TransformerBlock other(8, 2, 99);
  Tensor x = Tensor::randn({2, 5, 8}, 3);
  EXPECT_NE(other.forward(x).to_vector<float>(), block.forward(x).to_vector<float>());
  other.load_state_dict(state);
  EXPECT_EQ(other.forward(x).to_vector<float>(), block.forward(x).to_vector<float>());
}

TEST(AttentionTest, CausalBlockOutputsDoNotDependOnLaterPositions) {
  nn::TransformerBlock block(8, 2, 1);
  std::vector<float> x = Tensor::randn({1, 4, 8}, 3).to_vector<float>();
  const std::vector<float> before =
      block.forward(Tensor::from_vector(x, {1, 4, 8})).to_vector<float>();
  for (size_t i = 24; i < 32; ++i) x[i] += 1.0F;  // change the last position only
  const std::vector<float> after =
      block.forward(Tensor::from_vector(x, {1, 4, 8})).to_vector<float>();
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(before[i], after[i]) << i;
  EXPECT_NE(std::vector<float>(before.begin() + 24, before.end()),
            std::vector<float>(after.begin() + 24, after.end()));
}

// bfloat16 runs the same computation: with the same (bfloat16-rounded) weights and input,
// its output follows float32's within bfloat16's precision through the block.
TEST(AttentionTest, BFloat16BlockFollowsFloat32) {
  nn::TransformerBlock wide(16, 4, 1);
  nn::TransformerBlock narrow(16, 4, 1, /*causal=*/true, DType::kBFloat16);
  nn::StateDict wide_state, narrow_state;
  for (const auto& [name, t] : wide.state_dict()) {
    narrow_state[name] = (t + 0.01).to(DType::kBFloat16);  // nonzero biases
    wide_state[name] = narrow_state[name].to(DType::kFloat32);
  }
  wide.load_state_dict(wide_state);
  narrow.load_state_dict(narrow_state);
  const Tensor x = Tensor::randn({2, 6, 16}, 3).to(DType::kBFloat16);
  const Tensor y = narrow.forward(x);
  EXPECT_EQ(y.dtype(), DType::kBFloat16);
  const std::vector<float> got = y.to_vector<float>();
  const std::vector<float> want = wide.forward(x.to(DType::kFloat32)).to_vector<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 0.03 + 0.02 * std::abs(want[i])) << i;
  }
}

TEST(AttentionTest, StateDictLoadsIntoPyTorch) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("seam_attention_" + std::to_string(getpid()) + ".safetensors"))
                               .string();
  std::map<std::string, Tensor> file;
  for (bool causal : {true, false}) {
    const std::string prefix = causal ? "causal." : "full.";
    nn::TransformerBlock block(6, 3, 11, causal, DType::kFloat64);
    for (const nn::NamedParameter& p : block.named_parameters()) {  // nonzero biases too
      *p.tensor = Tensor::from_vector(Random(static_cast<size_t>(p.tensor->numel()), 40),
                                      p.tensor->shape()) *
                  0.5;
    }
    const Tensor x = Tensor::from_vector(Random(2 * 5 * 6, 2), {2, 5, 6});
    for (const auto& [name, t] : block.state_dict()) file[prefix + "block." + name] = t;
    file[prefix + "x"] = x;
    file[prefix + "y"] = block.forward(x);
    file[prefix + "heads"] = Tensor::full({}, 3, DType::kInt64);
  }
  checkpoint::save_file(path, file);
  const std::string command =
      std::string(SEAM_PYTHON) + " " + SEAM_ATTENTION_SCRIPT + " " + path + " 2>&1";
  const int status = std::system(command.c_str());
  std::filesystem::remove(path);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
    GTEST_SKIP() << SEAM_PYTHON << " has no torch (Debian package python3-torch)";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
}

TEST(AttentionTest, MisuseNamesTheValues) {
  const Tensor q = Tensor::zeros({2, 4, 8}), k = Tensor::zeros({2, 4, 6}),
               v = Tensor::zeros({2, 4, 8});
  EXPECT_THAT(ErrorOf([&] { nn::scaled_dot_product_attention(q, k, v); }),
              AllOf(HasSubstr("scaled_dot_product_attention"), HasSubstr("float32[2,4,8]"),
                    HasSubstr("float32[2,4,6]"), HasSubstr("query is 8, of key 6")));
  EXPECT_THAT(ErrorOf([&] {
                nn::scaled_dot_product_attention(q, q, Tensor::zeros({2, 5, 8}));
              }),
              HasSubstr("key has 4 positions (dim -2), value has 5"));
  EXPECT_THAT(ErrorOf([&] {
                nn::scaled_dot_product_attention(q, Tensor::zeros({3, 4, 8}), v);
              }),
              HasSubstr("leading (batch) dimensions differ"));
  EXPECT_THAT(ErrorOf([&] { nn::scaled_dot_product_attention(q, q, v.to(DType::kFloat64)); }),
              HasSubstr("dtypes differ"));
  EXPECT_THAT(ErrorOf([&] { nn::MultiheadAttention(10, 4, 1); }),
              AllOf(HasSubstr("embed_dim (10)"), HasSubstr("num_heads (4)")));
  nn::MultiheadAttention attn(8, 2, 1);
  EXPECT_THAT(
      ErrorOf([&] {
        attn.forward(Tensor::zeros({2, 4, 6}));
      }),
      AllOf(HasSubstr("MultiheadAttention"), HasSubstr("[N, L, 8]"), HasSubstr("float32[2,4,6]")));
  EXPECT_EQ(attn.forward(Tensor::zeros({4, 8})).shape(), (std::vector<int64_t>{4, 8}));
}

TEST(AttentionTest, BlockDropoutIsOnInTrainingOnly) {
  const Tensor x = Tensor::randn({2, 5, 8}, /*seed=*/3);
  nn::TransformerBlock plain(8, 2, /*seed=*/11);
  nn::TransformerBlock dropping(8, 2, /*seed=*/11);
  dropping.dropout = 0.5;
  const std::vector<float> expected = plain.forward(x).to_vector<float>();
  manual_seed(5);
  const std::vector<float> first = dropping.forward(x).to_vector<float>();
  const std::vector<float> second = dropping.forward(x).to_vector<float>();
  EXPECT_NE(first, expected);
  EXPECT_NE(first, second);  // fresh numbers each call
  manual_seed(5);
  EXPECT_EQ(dropping.forward(x).to_vector<float>(), first);  // the seed fixes them
  dropping.eval();
  EXPECT_EQ(dropping.forward(x).to_vector<float>(), expected);
  dropping.train();
  dropping.dropout = 1.0;
  EXPECT_THAT(ErrorOf([&] { dropping.forward(x); }), testing::HasSubstr("p=1"));
}

}  // namespace
}  // namespace seam
