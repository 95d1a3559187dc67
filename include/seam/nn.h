// Layers and losses built from seam::Tensor operations (front-end code; see src/nn/).
#ifndef SEAM_NN_H_
#define SEAM_NN_H_

#include <cstdint>
#include <vector>

#include "seam/tensor.h"

namespace seam::nn {

// y = x @ weight + bias; weight [in, out], bias [out]. Both are drawn uniformly from
// [-1/sqrt(in), 1/sqrt(in)] (PyTorch's default Kaiming-uniform bound) with
// std::mt19937_64 seeded by `seed`.
class Linear {
 public:
  Linear(int64_t in, int64_t out, uint64_t seed, DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const;
  Tensor weight, bias;
};

// Linear layers with relu between them: sizes {784, 256, 128, 10} gives three layers.
class Mlp {
 public:
  Mlp(const std::vector<int64_t>& sizes, uint64_t seed, DType dtype = DType::kFloat32);
  Tensor forward(const Tensor& x) const;
  // Handles to every weight and bias, in layer order; an optimizer assigns through them.
  std::vector<Tensor*> parameters();
  std::vector<Linear> layers;
};

Tensor relu(const Tensor& x);
// Mean over the batch of -log_softmax(logits)[label]; logits [n, classes], labels int32 [n].
Tensor cross_entropy(const Tensor& logits, const Tensor& labels);
// The number of rows whose argmax equals the label, as an int32 scalar (lazy).
Tensor correct_count(const Tensor& logits, const Tensor& labels);
// The fraction of rows whose argmax equals the label (reads the result).
double accuracy(const Tensor& logits, const Tensor& labels);

}  // namespace seam::nn

#endif  // SEAM_NN_H_
