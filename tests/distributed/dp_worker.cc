// One process of a data-parallel training job, written against the public API only: the
// multi-process tests start it through `seam launch` (data_parallel_job_test.cc). Each
// process feeds the rows of its replicas; the global batch is the same on every process.
//
//   dp_worker [--reference] [--bf16-exchange] [--steps N] [--step-delay-ms D] [--die-rank R
//   --die-at S]
//             [--leave-rank R --leave-at S]
//
// Prints, per step, "loss <step> <value>" (the global batch's mean loss), then
// "params <hex>" (a hash of every parameter's bytes), "checksum <sum of |param|>",
// "replicas <global> <local> <first>" and the cross-process counters. --reference trains
// one process on the whole batch without DataParallel. --die-rank R --die-at S: rank R
// kills itself with SIGKILL before step S (the others must notice and end). --leave-rank R
// --leave-at S: rank R returns from main (status 0) before step S, as a rank that ran out of
// batches early does (the others must fail naming it instead of waiting for it).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace {

constexpr int64_t kFeatures = 6;
constexpr int64_t kBatch = 48;  // a multiple of 2, 4 and 8 replicas
constexpr int64_t kClasses = 3;

struct Options {
  bool reference = false;
  bool bf16_exchange = false;  // DataParallelOptions::bf16_gradient_exchange
  int steps = 5;
  int delay_ms = 0;
  int64_t die_rank = -1;
  int die_at = -1;
  int64_t leave_rank = -1;
  int leave_at = -1;
};

int64_t IntAfter(int& i, int argc, char** argv) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "dp_worker: %s needs a value\n", argv[i]);
    std::exit(2);
  }
  return std::strtoll(argv[++i], nullptr, 10);
}

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reference") {
      options.reference = true;
    } else if (arg == "--bf16-exchange") {
      options.bf16_exchange = true;
    } else if (arg == "--steps") {
      options.steps = static_cast<int>(IntAfter(i, argc, argv));
    } else if (arg == "--step-delay-ms") {
      options.delay_ms = static_cast<int>(IntAfter(i, argc, argv));
    } else if (arg == "--die-rank") {
      options.die_rank = IntAfter(i, argc, argv);
    } else if (arg == "--die-at") {
      options.die_at = static_cast<int>(IntAfter(i, argc, argv));
    } else if (arg == "--leave-rank") {
      options.leave_rank = IntAfter(i, argc, argv);
    } else if (arg == "--leave-at") {
      options.leave_at = static_cast<int>(IntAfter(i, argc, argv));
    } else {
      std::fprintf(stderr, "dp_worker: unknown argument '%s'\n", arg.c_str());
      std::exit(2);
    }
  }
  return options;
}

// The step's global batch: the same on every process (the class is a sign pattern).
void MakeBatch(int step, std::vector<float>* x, std::vector<int32_t>* y) {
  std::mt19937_64 rng(1000 + static_cast<uint64_t>(step));
  std::normal_distribution<float> dist(0, 1);
  x->resize(static_cast<size_t>(kBatch * kFeatures));
  y->resize(static_cast<size_t>(kBatch));
  for (int64_t i = 0; i < kBatch; ++i) {
    for (int64_t f = 0; f < kFeatures; ++f) (*x)[i * kFeatures + f] = dist(rng);
    const float a = (*x)[i * kFeatures] + (*x)[i * kFeatures + 1];
    const float b = (*x)[i * kFeatures + 2] - (*x)[i * kFeatures + 3];
    (*y)[i] = a > 0 ? 2 : (b > 0 ? 1 : 0);
  }
}

// Rows [first, first + count) of a row-major batch of `width` values per row.
template <typename T>
std::vector<T> Rows(const std::vector<T>& all, int64_t first, int64_t count, int64_t width) {
  return {all.begin() + first * width, all.begin() + (first + count) * width};
}

uint64_t Fnv1a(uint64_t hash, const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  return hash;
}

int Train(const Options& options) {
  seam::nn::Mlp model({kFeatures, 16, kClasses}, 7);
  seam::optim::Sgd opt(model.parameters(), 0.1F, 0.9F);
  seam::DataParallel* dp = nullptr;
  std::unique_ptr<seam::DataParallel> owned;
  if (!options.reference) {
    owned = std::make_unique<seam::DataParallel>(
        0, seam::DataParallelOptions{.bf16_gradient_exchange = options.bf16_exchange});
    dp = owned.get();
  }
  const int64_t rank = seam::process_index();
  for (int step = 0; step < options.steps; ++step) {
    if (step == options.die_at && rank == options.die_rank) {
      std::printf("dying at step %d\n", step);
      std::fflush(stdout);
      std::raise(SIGKILL);
    }
    if (step == options.leave_at && rank == options.leave_rank) {
      std::printf("leaving at step %d\n", step);
      std::fflush(stdout);
      return 0;
    }
    std::vector<float> xs;
    std::vector<int32_t> ys;
    MakeBatch(step, &xs, &ys);
    float value = 0;
    if (dp == nullptr) {
      seam::Tensor loss =
          seam::nn::cross_entropy(model.forward(seam::Tensor::from_vector(xs, {kBatch, kFeatures})),
                                  seam::Tensor::from_vector(ys, {kBatch}));
      opt.step(loss);
      seam::sync();
      value = loss.item<float>();
    } else {
      const int64_t rows = kBatch / dp->replicas() * dp->local_replicas();
      const int64_t first = kBatch / dp->replicas() * dp->first_replica();
      seam::Tensor x = dp->shard(Rows(xs, first, rows, kFeatures), {rows, kFeatures});
      seam::Tensor y = dp->shard(Rows(ys, first, rows, 1), {rows});
      seam::Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
      opt.step(loss, *dp);
      seam::Tensor global = dp->mean(loss);
      seam::sync();
      value = global.item<float>();
    }
    std::printf("loss %d %.9g\n", step, static_cast<double>(value));
    std::fflush(stdout);
    if (options.delay_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.delay_ms));
  }
  uint64_t hash = 14695981039346656037ULL;
  double checksum = 0;
  for (seam::Tensor* p : model.parameters()) {
    std::vector<float> values = p->to_vector<float>();
    hash = Fnv1a(hash, values.data(), values.size() * sizeof(float));
    for (float v : values) checksum += v < 0 ? -v : v;
  }
  std::printf("params %016llx\n", static_cast<unsigned long long>(hash));
  std::printf("checksum %.9g\n", checksum);
  if (dp != nullptr) {
    std::printf("replicas %lld %lld %lld\n", static_cast<long long>(dp->replicas()),
                static_cast<long long>(dp->local_replicas()),
                static_cast<long long>(dp->first_replica()));
  }
  std::printf("process %lld of %lld\n", static_cast<long long>(rank),
              static_cast<long long>(seam::process_count()));
  std::printf("CrossProcessAllReduce=%lld\n",
              static_cast<long long>(seam::metrics::CounterValue("CrossProcessAllReduce")));
  std::printf("CrossProcessAllReduceBytes=%lld\n",
              static_cast<long long>(seam::metrics::CounterValue("CrossProcessAllReduceBytes")));
  // The plugin's count reaches the report when a launch's completion is recorded, which may
  // come just after its values were readable: wait (bounded) for the last launch's sample.
  for (int i = 0; i < 2000 && dp != nullptr &&
                  seam::metrics::MetricTotalSamples("ExecuteReplicatedTime") +
                          seam::metrics::MetricTotalSamples("ExecuteTime") <
                      options.steps;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("CollectiveBytesSent=%lld\n",
              static_cast<long long>(seam::metrics::CounterValue("CollectiveBytesSent")));
  std::printf("CollectiveExposedNanos=%lld\n",
              static_cast<long long>(seam::metrics::CounterValue("CollectiveExposedNanos")));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  try {
    return Train(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dp_worker: %s\n", e.what());
    return 1;
  }
}
