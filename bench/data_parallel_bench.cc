// Data-parallel training throughput across processes (issue 15's performance goals), run by
// bench/data_parallel_bench.sh through `seam launch`: the medium MLP (784-512-512-10, SGD,
// global batch 256) on every process of the job, public API only. Prints, per process:
//   images_per_s <global batch images per second over the timed steps>
//   step_ms <mean step time>
//   first_step_wall_ms <CLOCK_REALTIME ms when the first step's result was back>
// --no-reduce: each process trains alone on its rows (no DataParallel, no all_reduce): the
// step without the collective, to measure the collective's share of the step.
// --bf16: DataParallelOptions::bf16_gradient_exchange (gradients travel in bf16). Also
// prints bytes_sent_per_step and exposed_ms_per_step, the plugin's CollectiveBytesSent and
// CollectiveExposedNanos (the device's thread waiting for collectives) over the timed steps.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace {

constexpr int64_t kIn = 784;
constexpr int64_t kClasses = 10;
constexpr int64_t kBatch = 256;

int64_t WallMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int Run(int steps, int warmup, bool no_reduce, bool bf16) {
  const int64_t processes = seam::process_count();
  std::unique_ptr<seam::DataParallel> dp;
  if (!no_reduce) {
    dp = std::make_unique<seam::DataParallel>(
        0, seam::DataParallelOptions{.bf16_gradient_exchange = bf16});
  }
  const int64_t replicas = dp ? dp->replicas() : processes;
  const int64_t first_replica = dp ? dp->first_replica() : seam::process_index();
  const int64_t local = dp ? dp->local_replicas() : 1;
  const int64_t rows = kBatch / replicas * local;
  std::mt19937 rng(static_cast<uint32_t>(11 + first_replica));
  std::normal_distribution<float> dist(0, 1);
  std::vector<float> xs(static_cast<size_t>(rows * kIn));
  std::vector<int32_t> ys(static_cast<size_t>(rows));
  for (float& v : xs) v = dist(rng);
  for (size_t i = 0; i < ys.size(); ++i) ys[i] = static_cast<int32_t>(i % kClasses);

  seam::nn::Mlp model({kIn, 512, 512, kClasses}, 3);
  seam::optim::Sgd opt(model.parameters(), 0.01F);
  auto step = [&] {
    seam::Tensor loss;
    if (dp) {
      seam::Tensor x = dp->shard(xs, {rows, kIn});
      seam::Tensor y = dp->shard(ys, {rows});
      loss = seam::nn::cross_entropy(model.forward(x), y);
      opt.step(loss, *dp);
    } else {
      loss = seam::nn::cross_entropy(model.forward(seam::Tensor::from_vector(xs, {rows, kIn})),
                                     seam::Tensor::from_vector(ys, {rows}));
      opt.step(loss);
    }
    seam::sync();
    return loss.item<float>();
  };
  step();
  std::printf("first_step_wall_ms %lld\n", static_cast<long long>(WallMillis()));
  for (int i = 1; i < warmup; ++i) step();
  const int64_t sent_before = seam::metrics::CounterValue("CollectiveBytesSent");
  const int64_t waited_before = seam::metrics::CounterValue("CollectiveExposedNanos");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("images_per_s %.1f\n", static_cast<double>(kBatch) * steps / seconds);
  std::printf("step_ms %.3f\n", 1000.0 * seconds / steps);
  std::printf(
      "bytes_sent_per_step %.0f\n",
      static_cast<double>(seam::metrics::CounterValue("CollectiveBytesSent") - sent_before) /
          steps);
  const int64_t waited = seam::metrics::CounterValue("CollectiveExposedNanos") - waited_before;
  std::printf("exposed_ms_per_step %.3f\n", 1e-6 * static_cast<double>(waited) / steps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 100;
  int warmup = 5;
  bool no_reduce = false;
  bool bf16 = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (arg == "--warmup" && i + 1 < argc) {
      warmup = std::atoi(argv[++i]);
    } else if (arg == "--no-reduce") {
      no_reduce = true;
    } else if (arg == "--bf16") {
      bf16 = true;
    } else {
      std::fprintf(stderr, "data_parallel_bench: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  if (steps < 1 || warmup < 1) {
    std::fprintf(stderr, "data_parallel_bench: --steps and --warmup must be at least 1\n");
    return 2;
  }
  try {
    return Run(steps, warmup, no_reduce, bf16);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "data_parallel_bench: %s\n", e.what());
    return 1;
  }
}
