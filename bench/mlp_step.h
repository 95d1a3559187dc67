// The model, optimizer and one batch of an MLP training step through the public API, the
// same for every benchmark that runs the step (plain, compiled, remote).
#ifndef SEAM_BENCH_MLP_STEP_H_
#define SEAM_BENCH_MLP_STEP_H_

#include <cstdint>
#include <vector>

#include "bench/mlp_shapes.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"

namespace seam::bench {

// count labels cycling through the classes in a fixed order ((i * 7 + 3) % classes).
std::vector<int32_t> MlpLabels(int64_t count, int64_t classes);

struct MlpStepSetUp {
  explicit MlpStepSetUp(const MlpShape& shape);
  nn::Mlp model;
  optim::Sgd sgd;
  Tensor x, y;
};

}  // namespace seam::bench

#endif  // SEAM_BENCH_MLP_STEP_H_
