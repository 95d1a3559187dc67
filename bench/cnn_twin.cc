// The libtorch twin of examples/fashion_mnist_cnn (issue 16): the same model in libtorch
// C++ (Debian's libtorch-dev), started from the weights seam wrote as safetensors.
//
//   cnn_twin write-init FILE     seam's initial model (fashion_cnn::MakeModel(42)) as
//                                safetensors, PyTorch's names and layouts
//   cnn_twin curve --init FILE   libtorch trains from FILE on the first --steps batches of
//                                the training set in file order (batch norm in training
//                                mode, Adam) and prints the loss of every step: the curve
//                                tests/e2e/fashion_cnn_curve_test.cc follows
//   cnn_twin step                the training step (batch 64, NCHW, Adam), seam and libtorch
//                                from the same weights on the same batch, in alternating
//                                rounds; bench/cnn_twin.sh pins the threads
//
// The safetensors file is read here with nlohmann-json and the raw bytes, not with seam.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples/fashion_mnist_cnn/model.h"
#include "nlohmann/json.hpp"
#include "seam/checkpoint.h"
#include "seam/data.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

extern "C" char* openblas_get_corename(void);

namespace {

constexpr uint64_t kSeed = 42;
constexpr int64_t kSide = fashion_cnn::kImageSide;

// ---- safetensors, read by hand --------------------------------------------------------

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// FNV-1a over the file's bytes: the curve file records it, the test checks seam's file.
uint64_t Fnv1a(const std::string& bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

std::map<std::string, torch::Tensor> ReadSafetensors(const std::string& bytes,
                                                     const std::string& path) {
  if (bytes.size() < 8) throw std::runtime_error(path + ": shorter than a safetensors header");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<uint8_t>(bytes[i]);
  if (header_size > bytes.size() - 8) throw std::runtime_error(path + ": header past the end");
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_size));
  const char* data = bytes.data() + 8 + header_size;
  const size_t data_size = bytes.size() - 8 - header_size;
  std::map<std::string, torch::Tensor> out;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string dtype = entry.at("dtype").get<std::string>();
    const auto shape = entry.at("shape").get<std::vector<int64_t>>();
    const auto offsets = entry.at("data_offsets").get<std::vector<size_t>>();
    torch::Dtype type = dtype == "F32" ? torch::kFloat32
                        : dtype == "I64"
                            ? torch::kInt64
                            : throw std::runtime_error(path + ": " + name + " has dtype " + dtype);
    const int64_t numel =
        std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
    const size_t bytes_needed = static_cast<size_t>(numel) * (type == torch::kFloat32 ? 4 : 8);
    if (offsets.size() != 2 || offsets[1] > data_size || offsets[1] - offsets[0] != bytes_needed) {
      throw std::runtime_error(path + ": " + name + " has bad data_offsets");
    }
    torch::Tensor t = torch::empty(shape, type);
    std::memcpy(t.data_ptr(), data + offsets[0], bytes_needed);  // little-endian, as here
    out[name] = t;
  }
  return out;
}

// ---- the model ------------------------------------------------------------------------

torch::nn::Sequential MakeTorchModel() {
  namespace tnn = torch::nn;
  constexpr int64_t kFlat = int64_t{64} * (kSide / 4) * (kSide / 4);
  return tnn::Sequential(
      tnn::Conv2d(tnn::Conv2dOptions(1, 32, 3).padding(1)), tnn::BatchNorm2d(32), tnn::ReLU(),
      tnn::MaxPool2d(2), tnn::Conv2d(tnn::Conv2dOptions(32, 64, 3).padding(1)),
      tnn::BatchNorm2d(64), tnn::ReLU(), tnn::MaxPool2d(2), tnn::Flatten(), tnn::Linear(kFlat, 128),
      tnn::ReLU(), tnn::Linear(128, fashion_cnn::kClasses));
}

// Every parameter and buffer of `model` from `state`, checked by name and shape both ways.
void LoadInto(torch::nn::Sequential& model, const std::map<std::string, torch::Tensor>& state,
              const std::string& path) {
  torch::NoGradGuard no_grad;
  size_t used = 0;
  auto load = [&](const std::string& name, torch::Tensor& target) {
    auto it = state.find(name);
    if (it == state.end()) throw std::runtime_error(path + " has no " + name);
    if (it->second.sizes() != target.sizes() || it->second.dtype() != target.dtype()) {
      throw std::runtime_error(path + ": " + name + " does not fit the libtorch model");
    }
    target.copy_(it->second);
    ++used;
  };
  for (auto& item : model->named_parameters()) load(item.key(), item.value());
  for (auto& item : model->named_buffers()) load(item.key(), item.value());
  if (used != state.size()) throw std::runtime_error(path + " holds entries the model lacks");
}

// Batch k of the curve: training images [k * batch, (k + 1) * batch) in file order.
void CurveBatch(const seam::data::ImageSet& train, int64_t k, int64_t batch,
                std::vector<float>* images, std::vector<int32_t>* labels) {
  const int64_t pixels = kSide * kSide;
  const int64_t first = (k * batch) % (train.count - batch + 1);
  images->assign(train.images.begin() + first * pixels,
                 train.images.begin() + (first + batch) * pixels);
  labels->assign(train.labels.begin() + first, train.labels.begin() + first + batch);
}

torch::Tensor TorchImages(const std::vector<float>& images, int64_t batch) {
  return torch::from_blob(const_cast<float*>(images.data()), {batch, 1, kSide, kSide},
                          torch::kFloat32)
      .clone();
}

torch::Tensor TorchLabels(const std::vector<int32_t>& labels) {
  return torch::from_blob(const_cast<int32_t*>(labels.data()),
                          {static_cast<int64_t>(labels.size())}, torch::kInt32)
      .to(torch::kInt64);
}

std::string EnvOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

int Threads() {
  const int n = std::atoi(EnvOr("OMP_NUM_THREADS", "1").c_str());
  return n > 0 ? n : 1;
}

void PrintSetup(const char* prefix) {
  std::printf(
      "%slibtorch %s, OpenBLAS core %s, mkldnn %s; OMP_NUM_THREADS=%s OPENBLAS_NUM_THREADS=%s "
      "SEAM_CPU_THREADS=%s OPENBLAS_CORETYPE=%s; at::get_num_threads()=%d\n",
      prefix, TORCH_VERSION, openblas_get_corename(),
      at::globalContext().userEnabledMkldnn() ? "on" : "off", EnvOr("OMP_NUM_THREADS", "-").c_str(),
      EnvOr("OPENBLAS_NUM_THREADS", "-").c_str(), EnvOr("SEAM_CPU_THREADS", "-").c_str(),
      EnvOr("OPENBLAS_CORETYPE", "-").c_str(), at::get_num_threads());
}

// ---- the commands ---------------------------------------------------------------------

struct Args {
  std::string init;
  std::string data = seam::data::kFashionMnistDir;
  int64_t steps = 200;
  int64_t batch = 64;
  double lr = 1e-3;
  int rounds = 5;
  int iters = 20;
  std::string only;
  std::string mkldnn = "on";
};

int WriteInit(const std::string& path) {
  seam::nn::Sequential model = fashion_cnn::MakeModel(kSeed);
  seam::checkpoint::save_file(path, model.state_dict());
  std::printf("wrote %s (fnv1a64 %016llx)\n", path.c_str(),
              static_cast<unsigned long long>(Fnv1a(ReadAll(path))));
  return 0;
}

int Curve(const Args& args) {
  at::set_num_threads(Threads());
  // --mkldnn off: libtorch's own im2col convolutions instead of oneDNN's, the same model
  // with other roundings (how far two correct implementations drift apart; docs/frontend.md).
  if (args.mkldnn == "off") at::globalContext().setUserEnabledMkldnn(false);
  const std::string bytes = ReadAll(args.init);
  torch::nn::Sequential model = MakeTorchModel();
  LoadInto(model, ReadSafetensors(bytes, args.init), args.init);
  model->train();
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(args.lr));
  const seam::data::ImageSet train = seam::data::load_fashion_mnist(true, args.data);
  std::printf("# fashion_cnn loss curve, computed by libtorch (bench/cnn_twin curve)\n");
  std::printf("# init %s fnv1a64 %016llx (cnn_twin write-init: fashion_cnn::MakeModel(%llu))\n",
              args.init.c_str(), static_cast<unsigned long long>(Fnv1a(bytes)),
              static_cast<unsigned long long>(kSeed));
  std::printf(
      "# batch %lld, Adam lr %g, batch norm in training mode; batch k = training images "
      "[k*batch, (k+1)*batch) in file order\n",
      static_cast<long long>(args.batch), args.lr);
  PrintSetup("# ");
  std::printf("# step loss\n");
  std::vector<float> images;
  std::vector<int32_t> labels;
  for (int64_t k = 0; k < args.steps; ++k) {
    CurveBatch(train, k, args.batch, &images, &labels);
    adam.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        model->forward(TorchImages(images, args.batch)), TorchLabels(labels));
    loss.backward();
    adam.step();
    std::printf("%lld %.9g\n", static_cast<long long>(k), loss.item<double>());
  }
  return 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Step(const Args& args) {
  at::set_num_threads(Threads());
  PrintSetup("");
  const std::string init = "cnn_twin_init.safetensors";
  seam::nn::Sequential seam_model = fashion_cnn::MakeModel(kSeed);
  seam::checkpoint::save_file(init, seam_model.state_dict());
  torch::nn::Sequential torch_model = MakeTorchModel();
  LoadInto(torch_model, ReadSafetensors(ReadAll(init), init), init);
  std::remove(init.c_str());
  const seam::data::ImageSet train = seam::data::load_fashion_mnist(true, args.data);
  std::vector<float> images;
  std::vector<int32_t> labels;
  CurveBatch(train, 0, args.batch, &images, &labels);

  seam::optim::Adam seam_adam(seam_model, static_cast<float>(args.lr));
  seam::Tensor x = seam::Tensor::from_vector(images, {args.batch, 1, kSide, kSide});
  seam::Tensor y = seam::Tensor::from_vector(labels, {args.batch});
  auto seam_step = [&] {
    seam::Tensor loss = seam::nn::cross_entropy(seam_model.forward(x), y);
    seam_adam.step(loss);
    seam::sync();
    return loss.item<float>();
  };
  torch::optim::Adam torch_adam(torch_model->parameters(), torch::optim::AdamOptions(args.lr));
  torch::Tensor tx = TorchImages(images, args.batch), ty = TorchLabels(labels);
  auto torch_step = [&] {
    torch_adam.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(torch_model->forward(tx), ty);
    loss.backward();
    torch_adam.step();
    return loss.item<float>();
  };
  auto time_ms = [&](auto& step) {
    const auto start = std::chrono::steady_clock::now();
    float sink = 0;
    for (int i = 0; i < args.iters; ++i) sink += step();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!(sink == sink)) std::printf("(a loss was NaN)\n");
    return ms / args.iters;
  };
  for (int i = 0; i < 3; ++i) (void)seam_step(), (void)torch_step();  // compile, warm up
  std::vector<double> seam_ms, torch_ms, ratios;
  std::printf(
      "CNN training step, batch %lld, NCHW, Adam (ms per step)\nround  seam  libtorch  "
      "libtorch/seam\n",
      static_cast<long long>(args.batch));
  for (int r = 0; r < args.rounds; ++r) {
    // --only seam|libtorch: one side alone (for a profiler); the other column reads 0.
    seam_ms.push_back(args.only == "libtorch" ? 0 : time_ms(seam_step));
    torch_ms.push_back(args.only == "seam" ? 0 : time_ms(torch_step));
    ratios.push_back(torch_ms.back() / seam_ms.back());
    std::printf("%5d  %6.2f  %8.2f  %6.2f\n", r + 1, seam_ms.back(), torch_ms.back(),
                ratios.back());
    std::fflush(stdout);
  }
  std::printf("median %6.2f  %8.2f  %6.2f  (> 1: seam faster)\n", Median(seam_ms), Median(torch_ms),
              Median(ratios));
  // The fastest round of each: on a shared machine, the least disturbed.
  const double seam_best = *std::min_element(seam_ms.begin(), seam_ms.end());
  const double torch_best = *std::min_element(torch_ms.begin(), torch_ms.end());
  std::printf("best   %6.2f  %8.2f  %6.2f\n", seam_best, torch_best,
              seam_best > 0 ? torch_best / seam_best : 0.0);
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: cnn_twin write-init FILE\n"
               "       cnn_twin curve --init FILE [--steps N] [--batch N] [--lr X] [--data DIR] "
               "[--mkldnn off]\n"
               "       cnn_twin step [--rounds N] [--iters N] [--batch N] [--data DIR] "
               "[--only seam|libtorch]\n");
  return 2;
}

bool ParseArgs(int argc, char** argv, Args* args) {
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return false;
    const std::string value = argv[++i];
    if (flag == "--init")
      args->init = value;
    else if (flag == "--data")
      args->data = value;
    else if (flag == "--steps")
      args->steps = std::stoll(value);
    else if (flag == "--batch")
      args->batch = std::stoll(value);
    else if (flag == "--lr")
      args->lr = std::stod(value);
    else if (flag == "--rounds")
      args->rounds = std::stoi(value);
    else if (flag == "--iters")
      args->iters = std::stoi(value);
    else if (flag == "--only")
      args->only = value;
    else if (flag == "--mkldnn")
      args->mkldnn = value;
    else
      return false;
  }
  return args->steps > 0 && args->batch > 0 && args->rounds > 0 && args->iters > 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string command = argv[1];
  try {
    if (command == "write-init") return argc == 3 ? WriteInit(argv[2]) : Usage();
    Args args;
    if (!ParseArgs(argc, argv, &args)) return Usage();
    if (command == "curve" && !args.init.empty()) return Curve(args);
    if (command == "step") return Step(args);
    return Usage();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cnn_twin: %s\n", error.what());
    return 1;
  }
}
