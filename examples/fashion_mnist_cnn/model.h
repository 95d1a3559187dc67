// The Fashion-MNIST CNN of examples/fashion_mnist_cnn, shared with its loss-curve test
// (tests/e2e/fashion_cnn_curve_test.cc) and the libtorch comparison (bench/cnn_twin.cc):
//
//   0 Conv2d(1, 32, 3x3, padding 1)   1 BatchNorm2d(32)   2 relu   3 max_pool2d(2)
//   4 Conv2d(32, 64, 3x3, padding 1)  5 BatchNorm2d(64)   6 relu   7 max_pool2d(2)
//   8 flatten [n, 64 * 7 * 7]         9 Linear(3136, 128) 10 relu  11 Linear(128, 10)
//
// NCHW input [n, 1, 28, 28]; logits [n, 10]. A torch.nn.Sequential of the same modules has
// the same parameter and buffer names ("0.weight", "1.running_mean", ...), so state_dict()
// loads into it unchanged.
#ifndef SEAM_EXAMPLES_FASHION_MNIST_CNN_MODEL_H_
#define SEAM_EXAMPLES_FASHION_MNIST_CNN_MODEL_H_

#include <cstdint>

#include "seam/nn.h"

namespace fashion_cnn {

inline constexpr int64_t kImageSide = 28;
inline constexpr int64_t kClasses = 10;

// The model with every parameter drawn from `seed` (PyTorch's default initialisations; the
// batch norms start at weight 1, bias 0).
seam::nn::Sequential MakeModel(uint64_t seed);

}  // namespace fashion_cnn

#endif  // SEAM_EXAMPLES_FASHION_MNIST_CNN_MODEL_H_
