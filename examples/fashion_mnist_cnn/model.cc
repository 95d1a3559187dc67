#include "examples/fashion_mnist_cnn/model.h"

#include <memory>

#include "seam/tensor.h"

namespace fashion_cnn {

seam::nn::Sequential MakeModel(uint64_t seed) {
  using seam::nn::BatchNorm2d;
  using seam::nn::Conv2d;
  using seam::nn::Flatten;
  using seam::nn::Linear;
  using seam::nn::MaxPool2d;
  using seam::nn::ReLU;
  seam::nn::Conv2dOptions same;
  same.padding = {1, 1};
  constexpr int64_t kFlat = int64_t{64} * (kImageSide / 4) * (kImageSide / 4);
  seam::nn::Sequential model;
  model.add(std::make_shared<Conv2d>(1, 32, std::array<int64_t, 2>{3, 3}, seed + 1, same))
      .add(std::make_shared<BatchNorm2d>(32))
      .add(std::make_shared<ReLU>())
      .add(std::make_shared<MaxPool2d>(std::array<int64_t, 2>{2, 2}))
      .add(std::make_shared<Conv2d>(32, 64, std::array<int64_t, 2>{3, 3}, seed + 2, same))
      .add(std::make_shared<BatchNorm2d>(64))
      .add(std::make_shared<ReLU>())
      .add(std::make_shared<MaxPool2d>(std::array<int64_t, 2>{2, 2}))
      .add(std::make_shared<Flatten>())
      .add(std::make_shared<Linear>(kFlat, 128, seed + 3))
      .add(std::make_shared<ReLU>())
      .add(std::make_shared<Linear>(128, kClasses, seed + 4));
  return model;
}

}  // namespace fashion_cnn
