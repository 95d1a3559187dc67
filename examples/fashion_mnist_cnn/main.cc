// Trains a small convolutional network on Fashion-MNIST (Debian's dataset-fashion-mnist):
// two blocks of 3x3 convolution, batch norm, relu and 2x2 max pooling, then a classifier
// (examples/fashion_mnist_cnn/model.h). Each step records forward, backward and the Adam
// update on NCHW batches, and one sync runs them as one program (compiled once, then served
// by the compile cache). After every epoch the model classifies the test set in evaluation
// mode (batch norm's running statistics).
//
//   PJRT_DEVICE=CPU ./fashion_mnist_cnn [--epochs N] [--batch N] [--data DIR] [--steps N]
//                                       [--save DIR] [--resume DIR] [--trace FILE]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "examples/fashion_mnist/checkpointing.h"
#include "examples/fashion_mnist_cnn/model.h"
#include "seam/data.h"
#include "seam/distributed.h"
#include "seam/metrics.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "seam/trace.h"

namespace {

using fashion_cnn::kImageSide;
constexpr int64_t kPixels = kImageSide * kImageSide;
constexpr int64_t kEvalBatch = 500;

struct Options {
  int epochs = 4;
  int64_t batch = 64;
  std::string data = seam::data::kFashionMnistDir;
  int64_t max_steps = 0;  // --steps N: stop training after N steps in all (0: no limit)
  std::string save;       // --save DIR: a checkpoint after every epoch
  std::string resume;     // --resume DIR: continue from the one DIR/latest names
  std::string trace;      // --trace FILE: the step timeline, written when training ends
};

void Gather(const seam::data::ImageSet& set, const std::vector<int64_t>& order, int64_t first,
            int64_t count, std::vector<float>* images, std::vector<int32_t>* labels) {
  images->resize(static_cast<size_t>(count * kPixels));
  labels->resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t src = order[first + i];
    std::copy_n(set.images.begin() + src * kPixels, kPixels, images->begin() + i * kPixels);
    (*labels)[i] = set.labels[src];
  }
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

bool CheckSets(const seam::data::ImageSet& train, const seam::data::ImageSet& test,
               const Options& options) {
  for (const seam::data::ImageSet* set : {&train, &test}) {
    if (set->rows * set->cols != kPixels || set->count < 1) {
      std::fprintf(stderr,
                   "fashion_mnist_cnn: %s: a set of %lld images of %lldx%lld pixels; need 28x28\n",
                   options.data.c_str(), static_cast<long long>(set->count),
                   static_cast<long long>(set->rows), static_cast<long long>(set->cols));
      return false;
    }
  }
  if (train.count < options.batch) {
    std::fprintf(stderr,
                 "fashion_mnist_cnn: %s: the training set has %lld images, fewer than one batch "
                 "(%lld)\n",
                 options.data.c_str(), static_cast<long long>(train.count),
                 static_cast<long long>(options.batch));
    return false;
  }
  return true;
}

// Test accuracy in evaluation mode (batch norm's running statistics), in batches of
// kEvalBatch (the last one may be shorter: a second program, compiled once).
double TestAccuracy(seam::nn::Module& model, const seam::data::ImageSet& test) {
  model.eval();
  std::vector<int64_t> order(static_cast<size_t>(test.count));
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> images;
  std::vector<int32_t> labels;
  seam::Tensor correct = seam::Tensor::zeros({}, seam::DType::kInt32);
  for (int64_t first = 0; first < test.count; first += kEvalBatch) {
    const int64_t count = std::min(kEvalBatch, test.count - first);
    Gather(test, order, first, count, &images, &labels);
    seam::Tensor x = seam::Tensor::from_vector(images, {count, 1, kImageSide, kImageSide});
    seam::Tensor y = seam::Tensor::from_vector(labels, {count});
    correct.assign(correct + seam::nn::correct_count(model.forward(x), y));
    seam::sync();
  }
  model.train();
  return static_cast<double>(correct.item<int32_t>()) / static_cast<double>(test.count);
}

// The progress line: on a terminal rewritten in place every 20 steps, otherwise a line
// every 200 steps. Reading the running loss waits for the steps before it.
void Progress(bool tty, int epoch, int64_t step, int64_t steps, const seam::Tensor& loss_sum,
              int64_t epoch_steps, int64_t batch, double seconds) {
  const bool last = step + 1 == steps;
  if (!(tty ? (step % 20 == 0 || last) : ((step + 1) % 200 == 0 && !last))) return;
  const double loss = loss_sum.item<float>() / static_cast<double>(epoch_steps);
  const double rate = static_cast<double>(epoch_steps * batch) / seconds;
  std::printf("%sepoch %d  step %lld/%lld  loss %.4f  %.0f images/s%s", tty ? "\r\033[K" : "",
              epoch, static_cast<long long>(step) + 1, static_cast<long long>(steps), loss, rate,
              tty ? "" : "\n");
  std::fflush(stdout);
}

int Run(const Options& options) {
  using seam::Tensor;
  // With --save, SIGTERM is a preemption notice: stop at the next step, save it, exit 143.
  // Activated first, before seam starts its threads (docs/distributed.md, "Preemption").
  const bool preemptible = !options.save.empty();
  if (preemptible) seam::activate_preemption_sync();
  seam::data::ImageSet train = seam::data::load_fashion_mnist(/*train=*/true, options.data);
  seam::data::ImageSet test = seam::data::load_fashion_mnist(/*train=*/false, options.data);
  if (!CheckSets(train, test, options)) return 1;
  std::printf("Fashion-MNIST: %lld training and %lld test images, batch %lld\n",
              static_cast<long long>(train.count), static_cast<long long>(test.count),
              static_cast<long long>(options.batch));

  seam::nn::Sequential model = fashion_cnn::MakeModel(/*seed=*/42);
  seam::optim::Adam optimizer(model, 1e-3f);
  const int64_t batch = options.batch;
  const int64_t steps = train.count / batch;  // the last partial batch is dropped: one shape
  std::mt19937_64 rng(7);
  const fashion_mnist::Position resumed =
      options.resume.empty()
          ? fashion_mnist::Position{}
          : fashion_mnist::ResumeAndSay(options.resume, model, optimizer, rng, steps);
  const int first_epoch = resumed.epoch + 1;
  int64_t global_step = int64_t{resumed.epoch} * steps + resumed.step;  // steps of the whole run
  const bool tty = isatty(STDOUT_FILENO) != 0;
  std::vector<int64_t> order(static_cast<size_t>(train.count));
  std::vector<float> images;
  std::vector<int32_t> labels;
  int64_t steps_taken = 0;
  double accuracy = 0;
  const auto limit_reached = [&] {
    return options.max_steps > 0 && steps_taken >= options.max_steps;
  };
  if (!options.trace.empty()) seam::trace::start(options.trace);
  const auto run_start = std::chrono::steady_clock::now();

  for (int epoch = first_epoch; epoch <= options.epochs && !limit_reached(); ++epoch) {
    // Adam at 1e-3, halved for each of the last two epochs (the rate is program data: no
    // recompile).
    // (A checkpoint from the middle of an epoch holds the epoch's rate already.)
    const int64_t first_step = epoch == first_epoch ? resumed.step : 0;
    if (epoch > options.epochs - 2 && epoch > 1 && first_step == 0) optimizer.lr *= 0.5f;
    const std::mt19937_64 epoch_rng = rng;  // what a checkpoint mid-epoch keeps
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const auto start = std::chrono::steady_clock::now();
    Tensor loss_sum = first_step == 0
                          ? Tensor::zeros({})
                          : Tensor::from_vector(std::vector<float>{resumed.loss_sum}, {});
    int64_t epoch_steps = first_step;
    for (int64_t step = first_step; step < steps && !limit_reached(); ++step) {
      Gather(train, order, step * batch, batch, &images, &labels);
      Tensor x = Tensor::from_vector(images, {batch, 1, kImageSide, kImageSide});
      Tensor y = Tensor::from_vector(labels, {batch});
      Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
      optimizer.step(loss);
      loss_sum.assign(loss_sum + loss);
      seam::sync();  // forward + backward + update + batch-norm statistics: one program
      ++steps_taken;
      ++epoch_steps;
      ++global_step;
      if (preemptible && seam::reached_preemption_sync_point(global_step)) {
        return fashion_mnist::StopAtPreemption(
            options.save, fashion_mnist::Position{epoch - 1, step + 1, 0}, steps, global_step,
            model, optimizer, epoch_rng, loss_sum, /*writer=*/true);
      }
      Progress(tty, epoch, step, steps, loss_sum, epoch_steps, batch, Seconds(start));
    }
    const double loss = loss_sum.item<float>() / static_cast<double>(epoch_steps);
    const double elapsed = Seconds(start);
    accuracy = TestAccuracy(model, test);
    std::printf("%sepoch %d  lr %.2g  loss %.4f  %.0f images/s  (%.1f s)  test accuracy %.4f\n",
                tty ? "\r\033[K" : "", epoch, static_cast<double>(optimizer.lr), loss,
                static_cast<double>(epoch_steps * batch) / elapsed, elapsed, accuracy);
    std::fflush(stdout);
    if (!options.save.empty()) fashion_mnist::SaveEpoch(options.save, epoch, model, optimizer, rng);
  }

  if (!options.trace.empty()) {
    seam::trace::stop();
    std::printf("trace of %lld step(s) written to %s\n", static_cast<long long>(steps_taken),
                options.trace.c_str());
  }
  if (steps_taken == 0) accuracy = TestAccuracy(model, test);
  std::printf("test accuracy: %.4f after %lld steps in %.1f s\n\n", accuracy,
              static_cast<long long>(steps_taken), Seconds(run_start));
  std::printf("%s", seam::metrics::CreateMetricReport().c_str());
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{
      "Trains a two-block CNN (conv, batch norm, relu, max pool) on Fashion-MNIST with "
      "seam's lazy tensors"};
  Options options;
  app.add_option("--epochs", options.epochs, "Training epochs (default 4)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--batch", options.batch, "Images per step (default 64)")
      ->check(CLI::Range(int64_t{1}, int64_t{65536}));
  app.add_option("--data", options.data,
                 "Folder holding {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz (default: where "
                 "Debian's dataset-fashion-mnist puts them)");
  app.add_option("--steps", options.max_steps,
                 "Stop training after N steps in all (default: every step of every epoch)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--save", options.save,
                 "Write a checkpoint after every epoch: DIR/epoch-<k>/{model,optimizer}"
                 ".safetensors (batch-norm statistics included), then DIR/latest; and treat "
                 "SIGTERM as a preemption notice: save DIR/epoch-<k>-step-<s>/ at the next "
                 "step and exit with status 143");
  app.add_option("--resume", options.resume,
                 "Continue from the checkpoint DIR/latest names (the same --epochs as the "
                 "interrupted run gives the same result); without DIR/latest, start from "
                 "epoch 1");
  app.add_option("--trace", options.trace,
                 "Record the step timeline of training and the test passes to FILE "
                 "(Chrome-trace JSON for ui.perfetto.dev; docs/tracing.md)");
  CLI11_PARSE(app, argc, argv);
  return Run(options);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const seam::Error& error) {
    std::fprintf(stderr, "fashion_mnist_cnn: %s\n", error.what());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fashion_mnist_cnn: unexpected error: %s\n", error.what());
  }
  return 1;
}
