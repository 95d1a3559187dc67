#include "examples/fashion_mnist_cnn/model.h"

#include <memory>

#include "seam/tensor.h"

namespace fashion_cnn {

namespace {

std::shared_ptr<seam::nn::Module> Relu() {
  return std::make_shared<seam::nn::Lambda>([](const seam::Tensor& x) { return x.relu(); });
}

std::shared_ptr<seam::nn::Module> MaxPool2() {
  return std::make_shared<seam::nn::Lambda>([](const seam::Tensor& x) {
    return seam::nn::max_pool2d(x, {2, 2});
  });
}

}  // namespace

seam::nn::Sequential MakeModel(uint64_t seed) {
  using seam::nn::BatchNorm2d;
  using seam::nn::Conv2d;
  using seam::nn::Linear;
  seam::nn::Conv2dOptions same;
  same.padding = {1, 1};
  constexpr int64_t kFlat = int64_t{64} * (kImageSide / 4) * (kImageSide / 4);
  seam::nn::Sequential model;
  model.add(std::make_shared<Conv2d>(1, 32, std::array<int64_t, 2>{3, 3}, seed + 1, same))
      .add(std::make_shared<BatchNorm2d>(32))
      .add(Relu())
      .add(MaxPool2())
      .add(std::make_shared<Conv2d>(32, 64, std::array<int64_t, 2>{3, 3}, seed + 2, same))
      .add(std::make_shared<BatchNorm2d>(64))
      .add(Relu())
      .add(MaxPool2())
      .add(std::make_shared<seam::nn::Lambda>([](const seam::Tensor& x) {
        return x.reshape({x.shape()[0], kFlat});
      }))
      .add(std::make_shared<Linear>(kFlat, 128, seed + 3))
      .add(Relu())
      .add(std::make_shared<Linear>(128, kClasses, seed + 4));
  return model;
}

}  // namespace fashion_cnn
