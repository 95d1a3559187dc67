#include "bench/mlp_step.h"

namespace seam::bench {

std::vector<int32_t> MlpLabels(int64_t count, int64_t classes) {
  std::vector<int32_t> labels(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) labels[i] = static_cast<int32_t>((i * 7 + 3) % classes);
  return labels;
}

MlpStepSetUp::MlpStepSetUp(const MlpShape& shape)
    : model(shape.sizes, /*seed=*/1),
      sgd(model.parameters(), /*lr=*/0.01f),
      x(Tensor::randn({shape.batch, shape.sizes.front()}, /*seed=*/2)),
      y(Tensor::from_vector(MlpLabels(shape.batch, shape.sizes.back()), {shape.batch})) {}

}  // namespace seam::bench
