// Trains an MLP 784-256-128-10 on Fashion-MNIST (Debian's dataset-fashion-mnist) lazily:
// each step records forward, backward and the Adam update, and one sync runs them as one
// program, compiled once and then served by the compile cache. With --data-parallel the
// batch of 128 is split over every device of the job (CPU_NUM_DEVICES per process, and
// every process `seam launch` started): each process gathers its replicas' rows, and the
// gradients are averaged inside the step's program.
//
// The model's initial values come from seam::manual_seed(--seed) and the epochs' orders from
// seam::data::shuffled_order with a generator seeded the same: examples/python/fashion_mnist.py
// makes the same draws, so the two print the same losses (--print-losses).
//
//   PJRT_DEVICE=CPU ./fashion_mnist [--epochs N] [--data DIR] [--data-parallel [--bf16-exchange]]
//                                   [--save DIR] [--resume DIR] [--steps N] [--trace FILE]
//                                   [--seed S] [--print-losses]
//   PJRT_DEVICE=CPU seam launch -n 2 -- ./fashion_mnist --data-parallel
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "examples/fashion_mnist/checkpointing.h"
#include "seam/data.h"
#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "seam/trace.h"

namespace {

constexpr int64_t kBatch = 128;
constexpr int64_t kEvalBatch = 2000;
constexpr int64_t kPixels = int64_t{28} * 28;

void Gather(const seam::data::ImageSet& set, const std::vector<int64_t>& order, int64_t first,
            int64_t count, std::vector<float>* images, std::vector<int32_t>* labels) {
  images->resize(static_cast<size_t>(count * kPixels));
  labels->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t src = order[first + i];
    std::copy_n(set.images.begin() + src * kPixels, kPixels, images->begin() + i * kPixels);
    (*labels)[i] = set.labels[src];
  }
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// The loader refuses empty sets and images that are not 28x28; the example also needs a
// training set of at least one batch (the last partial batch is dropped).
bool CheckSets(const seam::data::ImageSet& train, const seam::data::ImageSet& test,
               const std::string& dir) {
  for (const seam::data::ImageSet* set : {&train, &test}) {
    if (set->rows * set->cols != kPixels || set->count < 1) {
      std::fprintf(stderr,
                   "fashion_mnist: %s: a set of %lld images of %lldx%lld pixels; need 28x28\n",
                   dir.c_str(), static_cast<long long>(set->count),
                   static_cast<long long>(set->rows), static_cast<long long>(set->cols));
      return false;
    }
  }
  if (train.count < kBatch) {
    std::fprintf(stderr,
                 "fashion_mnist: %s: the training set has %lld images, fewer than one batch "
                 "(%lld)\n",
                 dir.c_str(), static_cast<long long>(train.count), static_cast<long long>(kBatch));
    return false;
  }
  return true;
}

// The replicas of --data-parallel (null without it); the batch must split over them.
std::unique_ptr<seam::DataParallel> MakeDataParallel(bool enabled, bool bf16_exchange) {
  if (!enabled) return nullptr;
  auto dp = std::make_unique<seam::DataParallel>(
      0, seam::DataParallelOptions{.bf16_gradient_exchange = bf16_exchange});
  if (kBatch % dp->replicas() != 0) {
    throw std::runtime_error("--data-parallel: the batch of " + std::to_string(kBatch) +
                             " does not split over " + std::to_string(dp->replicas()) +
                             " replicas");
  }
  std::printf("data parallel: %lld replicas, this process %lld of %lld holds %lld\n",
              static_cast<long long>(dp->replicas()), static_cast<long long>(seam::process_index()),
              static_cast<long long>(seam::process_count()),
              static_cast<long long>(dp->local_replicas()));
  return dp;
}

// How many test images the model classifies right, in batches of kEvalBatch.
int64_t CountCorrect(const seam::nn::Mlp& model, const seam::data::ImageSet& test) {
  std::vector<int64_t> order(static_cast<size_t>(test.count));
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> images;
  std::vector<int32_t> labels;
  int64_t correct = 0;
  for (int64_t first = 0; first < test.count; first += kEvalBatch) {
    int64_t count = std::min(kEvalBatch, test.count - first);
    Gather(test, order, first, count, &images, &labels);
    seam::Tensor x = seam::Tensor::from_vector(images, {count, kPixels});
    seam::Tensor y = seam::Tensor::from_vector(labels, {count});
    correct += seam::nn::correct_count(model.forward(x), y).item<int32_t>();
  }
  return correct;
}

// Records one training step on this process's rows (all of them without `dp`) and adds its
// loss (the whole batch's) to `loss_sum`; nothing runs until the caller's sync. Returns that
// loss.
seam::Tensor RecordStep(seam::nn::Mlp& model, seam::optim::Adam& optimizer,
                        const seam::DataParallel* dp, const std::vector<float>& images,
                        const std::vector<int32_t>& labels, int64_t rows, seam::Tensor& loss_sum) {
  using seam::Tensor;
  if (dp == nullptr) {
    Tensor x = Tensor::from_vector(images, {kBatch, kPixels});
    Tensor y = Tensor::from_vector(labels, {kBatch});
    Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
    optimizer.step(loss);
    loss_sum.assign(loss_sum + loss);
    return loss;
  }
  Tensor x = dp->shard(images, {rows, kPixels});
  Tensor y = dp->shard(labels, {rows});
  Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
  optimizer.step(loss, *dp);
  Tensor whole = dp->mean(loss);  // the whole batch's loss
  loss_sum.assign(loss_sum + whole);
  return whole;
}

struct Options {
  int epochs = 10;
  std::string data = seam::data::kFashionMnistDir;
  bool data_parallel = false;
  bool bf16_exchange = false;  // --bf16-exchange: gradients exchanged in bf16
  std::string save;            // --save DIR: a checkpoint after every epoch
  std::string resume;          // --resume DIR: continue from the one DIR/latest names
  int64_t max_steps = 0;       // --steps N: stop training after N steps in all (0: no limit)
  std::string trace;           // --trace FILE: the step timeline, written when training ends
  uint64_t seed = 42;          // --seed S: the model's draws and the data order
  bool print_losses = false;   // --print-losses: each step's loss, %.9g (every float's own text)
};

// The epoch's progress bar, on a terminal.
void ShowProgress(int epoch, int64_t step, int64_t steps) {
  const int filled = static_cast<int>(int64_t{30} * (step + 1) / steps);
  std::printf("\repoch %d [%-30s] %lld/%lld", epoch, std::string(filled, '=').c_str(),
              static_cast<long long>(step) + 1, static_cast<long long>(steps));
  std::fflush(stdout);
}

// After training: the trace's end, the test accuracy and the metrics report.
void Report(const seam::nn::Mlp& model, const seam::data::ImageSet& test, const std::string& trace,
            int64_t steps_taken) {
  const int64_t correct = CountCorrect(model, test);
  if (!trace.empty()) {
    seam::trace::stop();
    std::printf("trace of %lld step(s) written to %s\n", static_cast<long long>(steps_taken),
                trace.c_str());
  }
  std::printf("test accuracy: %.4f (%lld/%lld)\n\n",
              static_cast<double>(correct) / static_cast<double>(test.count),
              static_cast<long long>(correct), static_cast<long long>(test.count));
  std::printf("%s", seam::metrics::CreateMetricReport().c_str());
}

int Run(const Options& options) {
  using seam::Tensor;
  // With --save, a SIGTERM (to this process or to `seam launch`) is a preemption notice: every
  // rank stops at one agreed step, rank 0 saves there, and the process exits with 143.
  // Activated first, before seam starts its threads (docs/distributed.md, "Preemption").
  const bool preemptible = !options.save.empty();
  if (preemptible) seam::activate_preemption_sync();
  const int epochs = options.epochs;
  const std::string& dir = options.data;
  seam::data::ImageSet train = seam::data::load_fashion_mnist(/*train=*/true, dir);
  seam::data::ImageSet test = seam::data::load_fashion_mnist(/*train=*/false, dir);
  if (!CheckSets(train, test, dir)) return 1;
  std::printf("Fashion-MNIST: %lld training and %lld test images\n",
              static_cast<long long>(train.count), static_cast<long long>(test.count));

  // The layers' draws in order from the seed's sequence (as Python's seam.nn.Linear).
  seam::manual_seed(options.seed);
  seam::nn::Mlp model({kPixels, 256, 128, 10});
  seam::optim::Adam optimizer(model, 1e-3f);
  std::unique_ptr<seam::DataParallel> dp =
      MakeDataParallel(options.data_parallel, options.bf16_exchange);
  // This process's rows of each batch: all of them, or those of its replicas.
  const int64_t rows = dp == nullptr ? kBatch : kBatch / dp->replicas() * dp->local_replicas();
  const int64_t first_row = dp == nullptr ? 0 : kBatch / dp->replicas() * dp->first_replica();
  const bool tty = isatty(STDOUT_FILENO) != 0;
  const int64_t steps = train.count / kBatch;  // the last partial batch is dropped: one shape
  std::mt19937_64 rng(options.seed);
  const fashion_mnist::Position resumed =
      options.resume.empty()
          ? fashion_mnist::Position{}
          : fashion_mnist::ResumeAndSay(options.resume, model, optimizer, rng, steps);
  const int first_epoch = resumed.epoch + 1;
  int64_t global_step = int64_t{resumed.epoch} * steps + resumed.step;  // steps of the whole run
  std::vector<int64_t> order(static_cast<size_t>(train.count));
  std::vector<float> images;
  std::vector<int32_t> labels;
  int64_t steps_taken = 0;
  const auto step_limit_reached = [&] {
    return options.max_steps > 0 && steps_taken >= options.max_steps;
  };
  if (!options.trace.empty()) seam::trace::start(options.trace);

  for (int epoch = first_epoch; epoch <= epochs && !step_limit_reached(); ++epoch) {
    // Adam at 1e-3, halved every epoch over the last four: the rate is program data, so
    // changing it does not recompile.
    // (A checkpoint from the middle of an epoch holds the epoch's rate already.)
    const int64_t first_step = epoch == first_epoch ? resumed.step : 0;
    if (epoch > epochs - 4 && epoch > 1 && first_step == 0) optimizer.lr *= 0.5f;
    // Each epoch's order depends only on the generator's state, which a checkpoint keeps.
    const std::mt19937_64 epoch_rng = rng;
    order = seam::data::shuffled_order(train.count, rng);
    auto start = std::chrono::steady_clock::now();
    Tensor loss_sum = first_step == 0
                          ? Tensor::zeros({})
                          : Tensor::from_vector(std::vector<float>{resumed.loss_sum}, {});
    int64_t epoch_steps = first_step;
    for (int64_t step = first_step; step < steps && !step_limit_reached(); ++step, ++epoch_steps) {
      Gather(train, order, step * kBatch + first_row, rows, &images, &labels);
      const Tensor step_loss =
          RecordStep(model, optimizer, dp.get(), images, labels, rows, loss_sum);
      seam::sync();  // forward + backward + update + running loss: one program
      ++steps_taken;
      ++global_step;
      if (options.print_losses) {
        std::printf("step %lld loss %.9g\n", static_cast<long long>(global_step),
                    static_cast<double>(step_loss.item<float>()));
      }
      if (preemptible && seam::reached_preemption_sync_point(global_step)) {
        return fashion_mnist::StopAtPreemption(
            options.save, fashion_mnist::Position{epoch - 1, step + 1, 0}, steps, global_step,
            model, optimizer, epoch_rng, loss_sum, dp == nullptr || seam::process_index() == 0);
      }
      if (tty && (step % 20 == 0 || step + 1 == steps)) ShowProgress(epoch, step, steps);
    }
    double loss = loss_sum.item<float>() / static_cast<double>(epoch_steps);
    double elapsed = Seconds(start);
    std::printf("%sepoch %d  lr %.2g  loss %.4f  %.0f images/s  (%.1f s)\n", tty ? "\r\033[K" : "",
                epoch, static_cast<double>(optimizer.lr), loss,
                static_cast<double>(epoch_steps * kBatch) / elapsed, elapsed);
    std::fflush(stdout);
    // Parameters are the same on every process of a job: rank 0 writes.
    if (!options.save.empty() && (dp == nullptr || seam::process_index() == 0)) {
      fashion_mnist::SaveEpoch(options.save, epoch, model, optimizer, rng);
    }
  }

  Report(model, test, options.trace, steps_taken);
  return 0;
}

// Parses the command line (anything but the options below is refused) and trains.
int Main(int argc, char** argv) {
  CLI::App app{"Trains an MLP on Fashion-MNIST with seam's lazy tensors"};
  Options options;
  app.add_option("--epochs", options.epochs, "Training epochs (default 10)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--data", options.data,
                 "Folder holding {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz (default: where "
                 "Debian's dataset-fashion-mnist puts them)");
  app.add_option("--save", options.save,
                 "Write a checkpoint after every epoch: DIR/epoch-<k>/{model,optimizer}"
                 ".safetensors, then DIR/latest; and treat SIGTERM as a preemption notice: "
                 "stop at a step every rank agrees on, save DIR/epoch-<k>-step-<s>/ there and "
                 "exit with status 143");
  app.add_option("--resume", options.resume,
                 "Continue from the checkpoint DIR/latest names (the same --epochs as the "
                 "interrupted run gives the same result); without DIR/latest, start from "
                 "epoch 1 (so a restarted job can pass it every time)");
  app.add_flag("--data-parallel", options.data_parallel,
               "Split each batch over every device of the job (all local devices, and every "
               "process of a job started by `seam launch`)");
  app.add_flag("--bf16-exchange", options.bf16_exchange,
               "With --data-parallel: exchange the gradients in bfloat16, half the bytes "
               "(docs/distributed.md, \"bf16 gradient exchange\")");
  app.add_option("--steps", options.max_steps,
                 "Stop training after N steps in all (default: every step of every epoch)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--trace", options.trace,
                 "Record the step timeline of training and the test pass to FILE "
                 "(Chrome-trace JSON for ui.perfetto.dev; docs/tracing.md)");
  app.add_option("--seed", options.seed,
                 "Seed of the model's initial values (seam::manual_seed) and of the data order "
                 "(default 42; examples/python/fashion_mnist.py draws the same)");
  app.add_flag("--print-losses", options.print_losses,
               "Print each step's loss with 9 significant digits (every float32's own text)");
  CLI11_PARSE(app, argc, argv);
  return Run(options);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const seam::Error& error) {
    std::fprintf(stderr, "fashion_mnist: %s\n", error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fashion_mnist: unexpected error: %s\n", error.what());
  }
  return 1;
}
