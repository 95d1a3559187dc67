// The peer of train_step_bench.cc: the same MLP training step in libtorch C++ (Debian's
// libtorch-dev), same shapes, same thread count (OMP_NUM_THREADS, applied with
// at::set_num_threads because Debian's torch keeps its own OpenMP pool). Built only when
// CMake finds Torch. The step: zero_grad, forward, cross_entropy, backward, SGD step, loss
// read (item, which waits for everything before it).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "bench/mlp_shapes.h"

namespace seam::bench {
namespace {

void BM_TorchMlpStep(benchmark::State& state) {
  at::set_num_threads(BenchThreads());
  torch::manual_seed(1);
  const MlpShape& shape = MlpShapes()[state.range(0)];
  torch::nn::Sequential model;
  for (size_t i = 0; i + 1 < shape.sizes.size(); ++i) {
    model->push_back(torch::nn::Linear(shape.sizes[i], shape.sizes[i + 1]));
    if (i + 2 < shape.sizes.size()) model->push_back(torch::nn::ReLU());
  }
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.01));
  torch::Tensor x = torch::randn({shape.batch, shape.sizes.front()});
  torch::Tensor y =
      torch::arange(shape.batch, torch::kLong).mul(7).add(3).remainder(shape.sizes.back());
  float loss_value = 0;
  auto step = [&] {
    sgd.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    sgd.step();
    loss_value = loss.item<float>();
  };
  step();
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(loss_value);
  }
  state.SetLabel(MlpLabel(shape));
  state.counters["matmul_flops"] = MlpStepMatmulFlops(shape);
  state.counters["omp_threads"] = at::get_num_threads();
}

BENCHMARK(BM_TorchMlpStep)
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace seam::bench
