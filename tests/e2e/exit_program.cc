// A small program that returns from main right after launching its last step, with device
// work still queued (no wait_device_ops, no host read): convolutions, products and, with
// --replicas 2, an all_reduce over two in-process devices. tests/e2e/exit_under_load_test.py
// runs it many times under load and checks that each run exits 0, soon after its last step.
//
//   exit_program lazy|eager|compiled [--replicas N]
//
// Prints "last step launched at <CLOCK_MONOTONIC ns>" just before returning.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "seam/compile.h"
#include "seam/distributed.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace {

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// The model: two convolutions and a product. A training step's forward and backward passes
// are tens of milliseconds of oneDNN and BLAS work (convolutions forward, backward for the
// data and for the weights; products).
struct Model {
  seam::nn::Conv2d conv1{3, 16, {3, 3}, 1};
  seam::nn::Conv2d conv2{16, 16, {3, 3}, 2};
  seam::Tensor w = seam::Tensor::randn({16 * 28 * 28, 64}, 3) * 0.01f;

  std::vector<seam::Tensor*> parameters() {
    std::vector<seam::Tensor*> all = conv1.parameters();
    for (seam::Tensor* p : conv2.parameters()) all.push_back(p);
    all.push_back(&w);
    return all;
  }
  seam::Tensor Loss(const seam::Tensor& x) const {
    seam::Tensor h = conv2.forward(seam::relu(conv1.forward(x)));  // [8, 16, 28, 28]
    return h.reshape({8, 16 * 28 * 28}).matmul(w).relu().sum() * 1e-3f;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int replicas = 1;
  if (argc > 3 && std::strcmp(argv[2], "--replicas") == 0) replicas = std::atoi(argv[3]);
  if (mode != "lazy" && mode != "eager" && mode != "compiled") {
    std::fprintf(stderr, "usage: exit_program lazy|eager|compiled [--replicas N]\n");
    return 2;
  }
  seam::set_eager(mode == "eager");
  Model model;
  seam::optim::Sgd sgd(model.parameters(), 0.01f);
  seam::Tensor x = seam::Tensor::randn({8, 3, 32, 32}, 7);
  if (replicas > 1) {
    // One all_reduce of the gradients per step, across the in-process devices.
    seam::DataParallel dp(replicas);
    std::vector<float> batch(static_cast<size_t>(8 * replicas) * 3 * 32 * 32, 0.5f);
    seam::Tensor shard = dp.shard(batch, {8 * replicas, 3, 32, 32});
    for (int step = 0; step < 3; ++step) {
      sgd.step(model.Loss(shard), dp);
      seam::sync();
    }
  } else if (mode == "compiled") {
    std::vector<seam::Tensor*> params = model.parameters();
    seam::CompiledStep step = seam::compile([&](const std::vector<seam::Tensor>& in) {
      seam::Tensor loss = model.Loss(in[0]);
      sgd.step(loss);
      return std::vector<seam::Tensor>{loss};
    });
    for (int i = 0; i < 3; ++i) step({x});
  } else {
    for (int step = 0; step < 3; ++step) {
      sgd.step(model.Loss(x));
      seam::sync();
    }
  }
  std::printf("last step launched at %lld\n", static_cast<long long>(MonotonicNs()));
  std::fflush(stdout);
  return 0;  // the last step may still be running: exit must finish it cleanly
}
