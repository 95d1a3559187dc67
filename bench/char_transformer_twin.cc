// The libtorch twin of examples/char_transformer (issue 16): the same causal character
// transformer written with libtorch's C++ operations, started from the initial weights the
// example wrote (--init-weights there, --load-weights here; the model's sizes come from the
// file's metadata), trained on the same batches (examples/char_transformer/corpus.h) with
// torch::optim::AdamW and no dropout, printing the same `step N  val X bits/char` lines.
// Built by `make bench` (not part of `all`). The safetensors file is read here with
// nlohmann::json and the raw bytes, independently of seam's reader.
//
//   ./char_transformer_twin --load-weights init.safetensors [--steps N] [--curve FILE]
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "examples/char_transformer/corpus.h"
#include "nlohmann/json.hpp"

extern "C" char* openblas_get_corename(void);

namespace char_transformer {
namespace {

namespace F = torch::nn::functional;
using torch::Tensor;

struct Config {
  int64_t vocab = 0, width = 0, layers = 0, heads = 0, context = 0;
};

struct Weights {
  std::map<std::string, Tensor> tensors;
  Config config;
};

int64_t MetadataInt(const nlohmann::json& metadata, const std::string& key,
                    const std::string& path) {
  if (!metadata.contains(key) || !metadata[key].is_string()) {
    throw std::runtime_error(path + ": the metadata lacks \"" + key +
                             "\" (write the file with char_transformer --init-weights)");
  }
  return std::stoll(metadata[key].get<std::string>());
}

// A safetensors file: an 8-byte little-endian header size, the JSON header, the data.
Weights ReadSafetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  uint64_t header_size = 0;
  if (bytes.size() < 8) throw std::runtime_error(path + ": shorter than a safetensors header");
  for (int i = 7; i >= 0; --i) header_size = header_size << 8 | static_cast<uint8_t>(bytes[i]);
  if (header_size > bytes.size() - 8) throw std::runtime_error(path + ": truncated header");
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_size));
  const size_t data = 8 + header_size;
  Weights weights;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    if (entry.at("dtype") != "F32") {
      throw std::runtime_error(path + ": tensor " + name + " is " +
                               entry.at("dtype").get<std::string>() + ", expected F32");
    }
    const std::vector<int64_t> shape = entry.at("shape").get<std::vector<int64_t>>();
    const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
    Tensor t = torch::empty(shape, torch::kFloat32);
    if (offsets.size() != 2 || offsets[1] - offsets[0] != t.numel() * sizeof(float) ||
        data + offsets[1] > bytes.size()) {
      throw std::runtime_error(path + ": tensor " + name + " has bad data offsets");
    }
    std::memcpy(t.data_ptr<float>(), bytes.data() + data + offsets[0], offsets[1] - offsets[0]);
    weights.tensors[name] = t;
  }
  const nlohmann::json metadata = header.value("__metadata__", nlohmann::json::object());
  weights.config = {MetadataInt(metadata, "vocab", path), MetadataInt(metadata, "width", path),
                    MetadataInt(metadata, "layers", path), MetadataInt(metadata, "heads", path),
                    MetadataInt(metadata, "context", path)};
  return weights;
}

// The parameters by name, each checked against the shape the configuration gives.
class Model {
 public:
  explicit Model(Weights weights) : config_(weights.config), params_(std::move(weights.tensors)) {
    const int64_t w = config_.width, v = config_.vocab;
    Expect("token_embedding.weight", {v, w});
    Expect("position_embedding.weight", {config_.context, w});
    for (int64_t i = 0; i < config_.layers; ++i) {
      const std::string b = "blocks." + std::to_string(i) + ".";
      for (const char* ln : {"ln_1.", "ln_2."}) {
        Expect(b + ln + "weight", {w});
        Expect(b + ln + "bias", {w});
      }
      Expect(b + "attn.in_proj_weight", {3 * w, w});
      Expect(b + "attn.in_proj_bias", {3 * w});
      Expect(b + "attn.out_proj.weight", {w, w});
      Expect(b + "attn.out_proj.bias", {w});
      Expect(b + "mlp.0.weight", {4 * w, w});
      Expect(b + "mlp.0.bias", {4 * w});
      Expect(b + "mlp.2.weight", {w, 4 * w});
      Expect(b + "mlp.2.bias", {w});
    }
    Expect("ln_f.weight", {w});
    Expect("ln_f.bias", {w});
    Expect("head.weight", {v, w});
    Expect("head.bias", {v});
    if (params_.size() != expected_) {
      throw std::runtime_error("the weights hold " + std::to_string(params_.size()) +
                               " tensors, the model has " + std::to_string(expected_));
    }
    for (auto& [name, t] : params_) t.set_requires_grad(true);
  }

  std::vector<Tensor> parameters() const {
    std::vector<Tensor> out;
    for (const auto& [name, t] : params_) out.push_back(t);
    return out;
  }
  const Config& config() const { return config_; }

  // tokens [batch, length] int64 -> logits [batch, length, vocab].
  Tensor Forward(const Tensor& tokens) const {
    const int64_t length = tokens.size(1);
    Tensor x = F::embedding(tokens, P("token_embedding.weight")) +
               P("position_embedding.weight").slice(0, 0, length);
    for (int64_t i = 0; i < config_.layers; ++i) x = Block(x, "blocks." + std::to_string(i) + ".");
    x = F::layer_norm(x, LayerNorm("ln_f."));
    return F::linear(x, P("head.weight"), P("head.bias"));
  }

 private:
  const Tensor& P(const std::string& name) const { return params_.at(name); }
  F::LayerNormFuncOptions LayerNorm(const std::string& prefix) const {
    return F::LayerNormFuncOptions({config_.width})
        .weight(P(prefix + "weight"))
        .bias(P(prefix + "bias"))
        .eps(1e-5);
  }
  void Expect(const std::string& name, const std::vector<int64_t>& shape) {
    ++expected_;
    auto it = params_.find(name);
    if (it == params_.end()) throw std::runtime_error("the weights lack " + name);
    if (it->second.sizes().vec() != shape) {
      throw std::runtime_error(name + " has shape " + c10::str(it->second.sizes()) +
                               ", the model needs " + c10::str(c10::IntArrayRef(shape)));
    }
  }
  // Pre-norm block: x + attn(ln_1(x)), then h + mlp(ln_2(h)); causal attention, exact GELU.
  Tensor Block(const Tensor& x, const std::string& b) const {
    const int64_t n = x.size(0), len = x.size(1), heads = config_.heads;
    const int64_t dim = config_.width / heads;
    Tensor qkv = F::linear(F::layer_norm(x, LayerNorm(b + "ln_1.")), P(b + "attn.in_proj_weight"),
                           P(b + "attn.in_proj_bias"))
                     .view({n, len, 3, heads, dim})
                     .permute({2, 0, 3, 1, 4});
    Tensor scores = torch::matmul(qkv[0], qkv[1].transpose(-2, -1)) / std::sqrt(double(dim));
    Tensor keep = torch::ones({len, len}, torch::kBool).tril();
    scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<float>::infinity());
    Tensor attended = torch::matmul(scores.softmax(-1), qkv[2]).permute({0, 2, 1, 3});
    Tensor h = x + F::linear(attended.reshape({n, len, config_.width}),
                             P(b + "attn.out_proj.weight"), P(b + "attn.out_proj.bias"));
    Tensor m = F::linear(F::layer_norm(h, LayerNorm(b + "ln_2.")), P(b + "mlp.0.weight"),
                         P(b + "mlp.0.bias"));
    return h + F::linear(torch::gelu(m), P(b + "mlp.2.weight"), P(b + "mlp.2.bias"));
  }

  Config config_;
  std::map<std::string, Tensor> params_;
  size_t expected_ = 0;
};

Tensor Tokens(const std::vector<int32_t>& tokens, std::vector<int64_t> shape) {
  return torch::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), torch::kInt64)
      .view(shape);
}

double ValidationLoss(const Model& model, const Corpus& corpus, int64_t windows) {
  torch::NoGradGuard no_grad;
  const Config& c = model.config();
  std::vector<int32_t> inputs, targets;
  ValidationWindows(corpus, windows, c.context, &inputs, &targets);
  Tensor logits = model.Forward(Tokens(inputs, {windows, c.context}));
  return F::cross_entropy(logits.view({windows * c.context, c.vocab}),
                          Tokens(targets, {windows * c.context}))
      .item<double>();
}

struct Options {
  std::string weights, data = kFortunesDir, curve;
  int64_t steps = 2000, batch = 32, eval_every = 250, val_windows = 256, threads = 0;
  float lr = 2e-3f, weight_decay = 0.01f;
  uint64_t data_seed = 2;
};

void Report(int64_t step, double nats, std::FILE* curve) {
  std::printf("step %lld  val %.4f bits/char  (%.4f nats)\n", static_cast<long long>(step),
              nats / std::log(2.0), nats);
  std::fflush(stdout);
  if (curve != nullptr)
    std::fprintf(curve, "%lld %.6f\n", static_cast<long long>(step), nats / std::log(2.0));
}

int Run(const Options& o) {
  if (o.threads > 0) at::set_num_threads(static_cast<int>(o.threads));
  Model model(ReadSafetensors(o.weights));
  const Config& c = model.config();
  Corpus corpus = LoadCorpus(o.data, c.context);
  if (static_cast<int64_t>(corpus.vocabulary.size()) != c.vocab) {
    throw std::runtime_error("the text's vocabulary has " +
                             std::to_string(corpus.vocabulary.size()) + " bytes, the weights " +
                             std::to_string(c.vocab));
  }
  std::printf(
      "libtorch %s, %d threads, OpenBLAS core %s; %lld layers, width %lld, %lld heads, "
      "context %lld, vocabulary %lld\n",
      TORCH_VERSION, at::get_num_threads(), openblas_get_corename(),
      static_cast<long long>(c.layers), static_cast<long long>(c.width),
      static_cast<long long>(c.heads), static_cast<long long>(c.context),
      static_cast<long long>(c.vocab));
  std::FILE* curve = o.curve.empty() ? nullptr : std::fopen(o.curve.c_str(), "w");
  if (!o.curve.empty() && curve == nullptr) throw std::runtime_error("cannot write " + o.curve);
  torch::optim::AdamW optimizer(
      model.parameters(),
      torch::optim::AdamWOptions(o.lr).betas({0.9, 0.999}).eps(1e-8).weight_decay(o.weight_decay));
  BatchSampler sampler(corpus, o.batch, c.context, o.data_seed);
  Report(0, ValidationLoss(model, corpus, o.val_windows), curve);
  std::vector<int32_t> inputs, targets;
  double train_seconds = 0, cpu_seconds = 0, loss_sum = 0;
  double warm_seconds = 0, warm_cpu_seconds = 0;  // up to the end of step 3, as seam's
  constexpr int64_t kWarmupSteps = 3;
  int64_t since = 0;
  for (int64_t step = 1; step <= o.steps; ++step) {
    auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    sampler.Next(&inputs, &targets);
    optimizer.zero_grad();
    Tensor loss = F::cross_entropy(
        model.Forward(Tokens(inputs, {o.batch, c.context})).view({o.batch * c.context, c.vocab}),
        Tokens(targets, {o.batch * c.context}));
    loss.backward();
    optimizer.step();
    loss_sum += loss.item<double>();
    ++since;
    train_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cpu_seconds += static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    if (step == kWarmupSteps) {
      warm_seconds = train_seconds;
      warm_cpu_seconds = cpu_seconds;
    }
    if (step % o.eval_every == 0 || step == o.steps) {
      std::printf("step %lld/%lld  loss %.4f  %.1f ms/step\n", static_cast<long long>(step),
                  static_cast<long long>(o.steps), loss_sum / static_cast<double>(since),
                  1e3 * train_seconds / static_cast<double>(step));
      loss_sum = 0;
      since = 0;
      Report(step, ValidationLoss(model, corpus, o.val_windows), curve);
    }
  }
  if (curve != nullptr) std::fclose(curve);
  std::printf(
      "trained %lld steps in %.1f s (%.1f ms/step, %.1f ms/step of process CPU time; "
      "evaluation excluded)\n",
      static_cast<long long>(o.steps), train_seconds,
      1e3 * train_seconds / static_cast<double>(o.steps),
      1e3 * cpu_seconds / static_cast<double>(o.steps));
  if (o.steps > kWarmupSteps) {
    const auto steady = static_cast<double>(o.steps - kWarmupSteps);
    std::printf("after the first %lld steps: %.1f ms/step, %.1f ms/step of process CPU time\n",
                static_cast<long long>(kWarmupSteps), 1e3 * (train_seconds - warm_seconds) / steady,
                1e3 * (cpu_seconds - warm_cpu_seconds) / steady);
  }
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{"libtorch twin of examples/char_transformer (same weights, batches, optimizer)"};
  Options o;
  const auto positive = CLI::Range(int64_t{1}, int64_t{1} << 40);
  app.add_option("--load-weights", o.weights,
                 "Initial weights char_transformer --init-weights wrote")
      ->required();
  app.add_option("--data", o.data, "Folder of fortune files (default: " + o.data + ")");
  app.add_option("--steps", o.steps, "Training steps (default 2000)")->check(positive);
  app.add_option("--batch", o.batch, "Windows per batch (default 32)")->check(positive);
  app.add_option("--lr", o.lr, "AdamW learning rate (default 2e-3)");
  app.add_option("--weight-decay", o.weight_decay, "AdamW weight decay (default 0.01)");
  app.add_option("--eval-every", o.eval_every, "Steps between validation losses (default 250)")
      ->check(positive);
  app.add_option("--val-windows", o.val_windows, "Validation windows (default 256)")
      ->check(positive);
  app.add_option("--data-seed", o.data_seed, "Seed of the batch order (default 2)");
  app.add_option("--threads", o.threads, "at::set_num_threads (default: libtorch's choice)");
  app.add_option("--curve", o.curve, "Also write `<step> <bits/char>` lines to FILE");
  CLI11_PARSE(app, argc, argv);
  return Run(o);
}

}  // namespace
}  // namespace char_transformer

int main(int argc, char** argv) {
  try {
    return char_transformer::Main(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "char_transformer_twin: %s\n", error.what());
  }
  return 1;
}
