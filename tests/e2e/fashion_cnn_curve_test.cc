// The Fashion-MNIST CNN (examples/fashion_mnist_cnn/model.h) trained for a short run must
// follow the loss curve libtorch computed from the same initial weights on the same batches
// (tests/e2e/data/fashion_cnn_curve.txt, written by bench/cnn_twin; its header holds the
// command). The expected values come from libtorch, never from seam.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "examples/fashion_mnist_cnn/model.h"
#include "seam/checkpoint.h"
#include "seam/data.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace {

constexpr int64_t kSide = fashion_cnn::kImageSide;

struct Curve {
  uint64_t init_hash = 0;
  int64_t batch = 0;
  double lr = 0;
  std::vector<double> losses;  // losses[k]: the loss of step k
};

Curve ReadCurve(const std::string& path) {
  std::ifstream in(path);
  Curve curve;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# init ", 0) == 0) {
      const size_t at = line.find("fnv1a64 ");
      if (at != std::string::npos)
        curve.init_hash = std::stoull(line.substr(at + 8, 16), nullptr, 16);
    } else if (line.rfind("# batch ", 0) == 0) {
      std::sscanf(line.c_str(), "# batch %ld, Adam lr %lf", &curve.batch, &curve.lr);
    } else if (!line.empty() && line[0] != '#') {
      std::istringstream fields(line);
      int64_t step = -1;
      double loss = 0;
      fields >> step >> loss;
      if (fields && step == static_cast<int64_t>(curve.losses.size())) curve.losses.push_back(loss);
    }
  }
  return curve;
}

uint64_t Fnv1a(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    hash = (hash ^ static_cast<unsigned char>(*it)) * 0x100000001b3ull;
  }
  return hash;
}

TEST(FashionCnnCurve, FollowsTheLibtorchTwin) {
  const Curve curve = ReadCurve(SEAM_FASHION_CNN_CURVE);
  ASSERT_GE(curve.losses.size(), 100u) << "no curve in " << SEAM_FASHION_CNN_CURVE;
  ASSERT_GT(curve.batch, 0);
  ASSERT_GT(curve.lr, 0);

  seam::nn::Sequential model = fashion_cnn::MakeModel(42);
  const std::string init = (std::filesystem::temp_directory_path() /
                            ("fashion_cnn_init_" + std::to_string(getpid()) + ".safetensors"))
                               .string();
  seam::checkpoint::save_file(init, model.state_dict());
  const uint64_t hash = Fnv1a(init);
  std::filesystem::remove(init);
  // The curve is only meaningful from the very weights it was computed from.
  ASSERT_EQ(hash, curve.init_hash)
      << "seam's initial weights differ from those the libtorch curve started from: "
         "regenerate the curve with the command in its header";

  const seam::data::ImageSet train = seam::data::load_fashion_mnist(true);
  seam::optim::Adam adam(model, static_cast<float>(curve.lr));
  const int64_t pixels = kSide * kSide;
  std::vector<double> losses;
  for (size_t k = 0; k < curve.losses.size(); ++k) {
    const int64_t first = static_cast<int64_t>(k) * curve.batch;  // file order, as the twin
    std::vector<float> images(train.images.begin() + first * pixels,
                              train.images.begin() + (first + curve.batch) * pixels);
    std::vector<int32_t> labels(train.labels.begin() + first,
                                train.labels.begin() + first + curve.batch);
    seam::Tensor x = seam::Tensor::from_vector(images, {curve.batch, 1, kSide, kSide});
    seam::Tensor y = seam::Tensor::from_vector(labels, {curve.batch});
    seam::Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
    adam.step(loss);
    seam::sync();
    losses.push_back(loss.item<float>());
    if (std::getenv("SEAM_CURVE_PRINT") != nullptr) {
      std::printf("%zu %.9g %.9g\n", k, losses.back(), curve.losses[k]);
    }
  }

  // Tolerances (docs/frontend.md, "The CNN's loss curve"). Two correct float32
  // implementations drift apart as training amplifies rounding differences: libtorch against
  // itself (1 vs 2 threads; oneDNN vs its own im2col convolutions) differs by 0.005-0.0065
  // on average over these 200 steps, up to 0.043 on one step and 0.006 between 20-step
  // means. seam measured: first 10 steps 0.0024 at most, mean 0.0117, worst step 0.059,
  // 20-step means 0.0155. The bounds leave 2-4x room; a wrong gradient or update moves
  // the 20-step means by 0.1 or more.
  constexpr double kEarly = 0.01;   // each of the first 10 steps
  constexpr double kStep = 0.15;    // any step
  constexpr double kWindow = 0.04;  // the mean loss of each 20 steps
  constexpr double kMean = 0.025;   // mean |difference| over the run
  double sum = 0, worst = 0;
  size_t worst_step = 0;
  for (size_t k = 0; k < losses.size(); ++k) {
    const double expected = curve.losses[k], deviation = std::abs(losses[k] - expected);
    EXPECT_LE(deviation, k < 10 ? kEarly : kStep)
        << "step " << k << ": seam " << losses[k] << ", libtorch " << expected;
    sum += deviation;
    if (deviation > worst) worst = deviation, worst_step = k;
  }
  constexpr size_t kWindowSteps = 20;
  double worst_window = 0;
  for (size_t w = 0; w + kWindowSteps <= losses.size(); w += kWindowSteps) {
    double seam_sum = 0, torch_sum = 0;
    for (size_t k = w; k < w + kWindowSteps; ++k)
      seam_sum += losses[k], torch_sum += curve.losses[k];
    const double gap = std::abs(seam_sum - torch_sum) / kWindowSteps;
    EXPECT_LE(gap, kWindow) << "steps " << w << "-" << w + kWindowSteps - 1 << ": mean loss seam "
                            << seam_sum / kWindowSteps << ", libtorch " << torch_sum / kWindowSteps;
    worst_window = std::max(worst_window, gap);
  }
  const double mean = sum / static_cast<double>(losses.size());
  EXPECT_LE(mean, kMean);
  std::printf(
      "%zu steps: mean |seam - libtorch| %.2e, worst %.2e at step %zu, worst 20-step mean %.2e "
      "(libtorch loss %.4f -> %.4f)\n",
      losses.size(), mean, worst, worst_step, worst_window, curve.losses.front(),
      curve.losses.back());
}

}  // namespace
