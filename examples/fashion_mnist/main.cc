// Trains an MLP 784-256-128-10 on Fashion-MNIST (Debian's dataset-fashion-mnist) lazily:
// each step records forward, backward and the Adam update, and one sync runs them as one
// program, compiled once and then served by the compile cache. With --data-parallel the
// batch of 128 is split over every device of the job (CPU_NUM_DEVICES per process, and
// every process `seam launch` started): each process gathers its replicas' rows, and the
// gradients are averaged inside the step's program.
//
//   PJRT_DEVICE=CPU ./fashion_mnist [--epochs N] [--data DIR] [--data-parallel]
//                                   [--save DIR] [--resume DIR]
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
std::unique_ptr<seam::DataParallel> MakeDataParallel(bool enabled) {
  if (!enabled) return nullptr;
  auto dp = std::make_unique<seam::DataParallel>();
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

struct Options {
  int epochs = 10;
  std::string data = seam::data::kFashionMnistDir;
  bool data_parallel = false;
  std::string save;    // --save DIR: a checkpoint after every epoch
  std::string resume;  // --resume DIR: continue from the one DIR/latest names
};

int Run(const Options& options) {
  using seam::Tensor;
  const int epochs = options.epochs;
  const std::string& dir = options.data;
  seam::data::ImageSet train = seam::data::load_fashion_mnist(/*train=*/true, dir);
  seam::data::ImageSet test = seam::data::load_fashion_mnist(/*train=*/false, dir);
  if (!CheckSets(train, test, dir)) return 1;
  std::printf("Fashion-MNIST: %lld training and %lld test images\n",
              static_cast<long long>(train.count), static_cast<long long>(test.count));

  seam::nn::Mlp model({kPixels, 256, 128, 10}, /*seed=*/42);
  seam::optim::Adam optimizer(model, 1e-3f);
  std::unique_ptr<seam::DataParallel> dp = MakeDataParallel(options.data_parallel);
  // This process's rows of each batch: all of them, or those of its replicas.
  const int64_t rows = dp == nullptr ? kBatch : kBatch / dp->replicas() * dp->local_replicas();
  const int64_t first_row = dp == nullptr ? 0 : kBatch / dp->replicas() * dp->first_replica();
  const bool tty = isatty(STDOUT_FILENO) != 0;
  std::mt19937_64 rng(7);
  int first_epoch = 1;
  if (!options.resume.empty()) {
    first_epoch = fashion_mnist::ResumeFrom(options.resume, model, optimizer, rng) + 1;
    if (first_epoch > 1) {
      std::printf("resumed from %s after epoch %d\n", options.resume.c_str(), first_epoch - 1);
    } else {
      std::printf("no checkpoint in %s yet: starting from epoch 1\n", options.resume.c_str());
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(train.count));
  const int64_t steps = train.count / kBatch;  // the last partial batch is dropped: one shape
  std::vector<float> images;
  std::vector<int32_t> labels;

  for (int epoch = first_epoch; epoch <= epochs; ++epoch) {
    // Adam at 1e-3, halved every epoch over the last four: the rate is program data, so
    // changing it does not recompile.
    if (epoch > epochs - 4 && epoch > 1) optimizer.lr *= 0.5f;
    // Each epoch's order depends only on the generator's state, which a checkpoint keeps.
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    auto start = std::chrono::steady_clock::now();
    Tensor loss_sum = Tensor::zeros({});
    for (int64_t step = 0; step < steps; ++step) {
      Gather(train, order, step * kBatch + first_row, rows, &images, &labels);
      if (dp == nullptr) {
        Tensor x = Tensor::from_vector(images, {kBatch, kPixels});
        Tensor y = Tensor::from_vector(labels, {kBatch});
        Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
        optimizer.step(loss);
        loss_sum.assign(loss_sum + loss);
      } else {
        Tensor x = dp->shard(images, {rows, kPixels});
        Tensor y = dp->shard(labels, {rows});
        Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
        optimizer.step(loss, *dp);
        loss_sum.assign(loss_sum + dp->mean(loss));  // the whole batch's loss
      }
      seam::sync();  // forward + backward + update + running loss: one program
      if (tty && (step % 20 == 0 || step + 1 == steps)) {
        int filled = static_cast<int>(int64_t{30} * (step + 1) / steps);
        std::printf("\repoch %d [%-30s] %lld/%lld", epoch, std::string(filled, '=').c_str(),
                    static_cast<long long>(step) + 1, static_cast<long long>(steps));
        std::fflush(stdout);
      }
    }
    double loss = loss_sum.item<float>() / static_cast<double>(steps);
    double elapsed = Seconds(start);
    std::printf("%sepoch %d  lr %.2g  loss %.4f  %.0f images/s  (%.1f s)\n", tty ? "\r\033[K" : "",
                epoch, static_cast<double>(optimizer.lr), loss,
                static_cast<double>(steps * kBatch) / elapsed, elapsed);
    std::fflush(stdout);
    // Parameters are the same on every process of a job: rank 0 writes.
    if (!options.save.empty() && (dp == nullptr || seam::process_index() == 0)) {
      fashion_mnist::SaveEpoch(options.save, epoch, model, optimizer, rng);
    }
  }

  std::vector<int64_t> test_order(static_cast<size_t>(test.count));
  std::iota(test_order.begin(), test_order.end(), 0);
  int64_t correct = 0;
  for (int64_t first = 0; first < test.count; first += kEvalBatch) {
    int64_t count = std::min(kEvalBatch, test.count - first);
    Gather(test, test_order, first, count, &images, &labels);
    Tensor x = Tensor::from_vector(images, {count, kPixels});
    Tensor y = Tensor::from_vector(labels, {count});
    correct += seam::nn::correct_count(model.forward(x), y).item<int32_t>();
  }
  std::printf("test accuracy: %.4f (%lld/%lld)\n\n",
              static_cast<double>(correct) / static_cast<double>(test.count),
              static_cast<long long>(correct), static_cast<long long>(test.count));
  std::printf("%s", seam::metrics::CreateMetricReport().c_str());
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
                 ".safetensors, then DIR/latest");
  app.add_option("--resume", options.resume,
                 "Continue from the checkpoint DIR/latest names (the same --epochs as the "
                 "interrupted run gives the same result); without DIR/latest, start from "
                 "epoch 1 (so a restarted job can pass it every time)");
  app.add_flag("--data-parallel", options.data_parallel,
               "Split each batch over every device of the job (all local devices, and every "
               "process of a job started by `seam launch`)");
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
