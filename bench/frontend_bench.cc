// The front end's step barrier: a tiny lazy training step with donation and with donation
// blocked (a copy of every parameter kept), and eager mode's cost per op on a cache hit.
#include <benchmark/benchmark.h>

#include <vector>

#include "seam/compile.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace {

// 16-16-4 MLP, batch 4, SGD with momentum; one sync and a loss read per step.
void TinyStep(benchmark::State& state, bool block_donation) {
  seam::set_eager(false);
  seam::nn::Mlp model({16, 16, 4}, 1);
  seam::optim::Sgd opt(model.parameters(), 0.05f, 0.9f);
  seam::Tensor x = seam::Tensor::randn({4, 16}, 2);
  seam::Tensor y = seam::Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  std::vector<seam::Tensor> copies;
  for (auto _ : state) {
    copies.clear();
    if (block_donation) {
      for (seam::Tensor* p : model.parameters()) copies.push_back(*p);
    }
    seam::Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
    opt.step(loss);
    seam::sync();
    benchmark::DoNotOptimize(loss.item<float>());
  }
}

void BM_TinyStepDonating(benchmark::State& state) { TinyStep(state, false); }
void BM_TinyStepNotDonating(benchmark::State& state) { TinyStep(state, true); }
BENCHMARK(BM_TinyStepDonating)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TinyStepNotDonating)->Unit(benchmark::kMicrosecond);

// The same step through seam::compile: after the first calls capture it, a step runs the
// cached program without recording anything; the loss is read every step as above.
void BM_TinyStepCompiled(benchmark::State& state) {
  seam::set_eager(false);
  seam::nn::Mlp model({16, 16, 4}, 1);
  seam::optim::Sgd opt(model.parameters(), 0.05f, 0.9f);
  seam::Tensor x = seam::Tensor::randn({4, 16}, 2);
  seam::Tensor y = seam::Tensor::from_vector(std::vector<int32_t>{0, 1, 2, 3}, {4});
  seam::CompiledStep step = seam::compile([&](const std::vector<seam::Tensor>& in) {
    seam::Tensor loss = seam::nn::cross_entropy(model.forward(in[0]), in[1]);
    opt.step(loss);
    return std::vector<seam::Tensor>{loss};
  });
  for (auto _ : state) {
    std::vector<seam::Tensor> out = step({x, y});
    benchmark::DoNotOptimize(out[0].item<float>());
  }
  state.counters["replayed"] = static_cast<double>(step.replayed_calls());
  state.counters["traced"] = static_cast<double>(step.traced_calls());
}
BENCHMARK(BM_TinyStepCompiled)->Unit(benchmark::kMicrosecond);

// 100 eager adds on f32[4] (every one a cache hit after the first iteration), then one read.
void BM_EagerAddChain(benchmark::State& state) {
  seam::set_eager(true);
  seam::Tensor one = seam::Tensor::ones({4});
  seam::Tensor x = seam::Tensor::zeros({4});
  for (auto _ : state) {
    seam::Tensor acc = x;
    for (int i = 0; i < 100; ++i) acc = acc + one;
    benchmark::DoNotOptimize(acc.to_vector<float>());
  }
  state.SetItemsProcessed(state.iterations() * 100);
  seam::set_eager(false);
}
BENCHMARK(BM_EagerAddChain)->Unit(benchmark::kMicrosecond);

}  // namespace
