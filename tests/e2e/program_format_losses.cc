// Prints the losses of the first steps of the three examples' models, each as the hex bits
// of its float, one per line: program_format_test.py runs it with SEAM_PROGRAM_FORMAT=seam
// and =stablehlo and requires the same bits (issue 34: the StableHLO a plugin receives
// computes what seam's IR computes). The models and optimizers are the examples' own
// (examples/*/model.cc, nn::Mlp); the batches are drawn here from fixed seeds, so the
// program needs no dataset.
//
//   program_format_losses mlp|cnn|transformer|mlp_data_parallel [steps]
//
// mlp_data_parallel splits each batch over every replica of the job (run it under
// `seam launch -n 2`); each process prints the whole batch's loss (DataParallel::mean).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "examples/char_transformer/model.h"
#include "examples/fashion_mnist_cnn/model.h"
#include "seam/distributed.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace {

using seam::Tensor;

struct Batch {
  std::vector<float> x;
  std::vector<int32_t> y;
};

Batch DrawBatch(std::mt19937& rng, int64_t rows, int64_t width, int32_t classes) {
  std::normal_distribution<float> pixel(0.0F, 1.0F);
  std::uniform_int_distribution<int32_t> label(0, classes - 1);
  Batch b;
  b.x.resize(static_cast<size_t>(rows * width));
  for (float& v : b.x) v = pixel(rng);
  b.y.resize(static_cast<size_t>(rows));
  for (int32_t& v : b.y) v = label(rng);
  return b;
}

void Print(const Tensor& loss) {
  const float value = loss.item<float>();
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  std::printf("%08x\n", bits);
}

void Mlp(int steps) {
  constexpr int64_t kBatch = 64, kPixels = 784;
  seam::nn::Mlp model({kPixels, 256, 128, 10}, /*seed=*/42);
  seam::optim::Adam optimizer(model, 1e-3F);
  std::mt19937 rng(7);
  for (int step = 0; step < steps; ++step) {
    Batch b = DrawBatch(rng, kBatch, kPixels, 10);
    Tensor loss =
        seam::nn::cross_entropy(model.forward(Tensor::from_vector(b.x, {kBatch, kPixels})),
                                Tensor::from_vector(b.y, {kBatch}));
    optimizer.step(loss);
    seam::sync();
    Print(loss);
  }
}

void MlpDataParallel(int steps) {
  constexpr int64_t kBatch = 64, kPixels = 784;
  seam::nn::Mlp model({kPixels, 256, 128, 10}, /*seed=*/42);
  seam::optim::Adam optimizer(model, 1e-3F);
  seam::DataParallel dp;
  const int64_t rows = kBatch / dp.replicas() * dp.local_replicas();
  const int64_t first = kBatch / dp.replicas() * dp.first_replica();
  std::mt19937 rng(7);
  for (int step = 0; step < steps; ++step) {
    Batch b = DrawBatch(rng, kBatch, kPixels, 10);
    std::vector<float> x(b.x.begin() + first * kPixels, b.x.begin() + (first + rows) * kPixels);
    std::vector<int32_t> y(b.y.begin() + first, b.y.begin() + first + rows);
    Tensor loss =
        seam::nn::cross_entropy(model.forward(dp.shard(x, {rows, kPixels})), dp.shard(y, {rows}));
    optimizer.step(loss, dp);
    Tensor whole = dp.mean(loss);
    seam::sync();
    Print(whole);
  }
}

void Cnn(int steps) {
  constexpr int64_t kBatch = 16, kSide = fashion_cnn::kImageSide;
  seam::nn::Sequential model = fashion_cnn::MakeModel(/*seed=*/42);
  seam::optim::Adam optimizer(model, 1e-3F);
  std::mt19937 rng(7);
  for (int step = 0; step < steps; ++step) {
    Batch b = DrawBatch(rng, kBatch, kSide * kSide, fashion_cnn::kClasses);
    Tensor x = Tensor::from_vector(b.x, {kBatch, 1, kSide, kSide});
    Tensor loss = seam::nn::cross_entropy(model.forward(x), Tensor::from_vector(b.y, {kBatch}));
    optimizer.step(loss);
    seam::sync();
    Print(loss);
  }
}

void Transformer(int steps) {
  char_transformer::ModelConfig config;
  config.vocab = 48;
  config.width = 64;
  config.layers = 2;
  config.heads = 4;
  config.context = 32;
  constexpr int64_t kBatch = 8;
  char_transformer::CharTransformer model(config, /*seed=*/1);
  seam::optim::AdamW optimizer(model, 2e-3F, 0.9F, 0.999F, 1e-8F, 0.01F);
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(config.vocab) - 1);
  const int64_t n = kBatch * config.context;
  for (int step = 0; step < steps; ++step) {
    std::vector<int32_t> inputs(static_cast<size_t>(n)), targets(static_cast<size_t>(n));
    for (int32_t& t : inputs) t = token(rng);
    for (int32_t& t : targets) t = token(rng);
    Tensor logits = model.forward(Tensor::from_vector(inputs, {kBatch, config.context}));
    Tensor loss = seam::nn::cross_entropy(logits.reshape({n, config.vocab}),
                                          Tensor::from_vector(targets, {n}));
    optimizer.step(loss);
    seam::sync();
    Print(loss);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : "";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (steps <= 0 || steps > 1000) {
    std::fprintf(stderr, "program_format_losses: steps must be in [1, 1000], got '%s'\n", argv[2]);
    return 2;
  }
  try {
    if (model == "mlp") {
      Mlp(steps);
    } else if (model == "mlp_data_parallel") {
      MlpDataParallel(steps);
    } else if (model == "cnn") {
      Cnn(steps);
    } else if (model == "transformer") {
      Transformer(steps);
    } else {
      std::fprintf(stderr,
                   "usage: program_format_losses mlp|cnn|transformer|mlp_data_parallel [steps]\n");
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "program_format_losses: %s\n", e.what());
    return 1;
  }
  return 0;
}
