// The training-step shapes of issue 6, shared by the seam and libtorch step benchmarks so
// that both measure the same thing, and the matrix-product work of one step.
#ifndef SEAM_BENCH_MLP_SHAPES_H_
#define SEAM_BENCH_MLP_SHAPES_H_

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace seam::bench {

struct MlpShape {
  std::vector<int64_t> sizes;  // input, hidden..., classes
  int64_t batch;
};

// Index = the benchmark's argument. 0 is the tiny fixed-cost case; 1-3 the sizes.
inline const std::vector<MlpShape>& MlpShapes() {
  static const std::vector<MlpShape> shapes = {
      {{16, 16, 4}, 4},
      {{784, 128, 10}, 64},
      {{784, 512, 512, 10}, 256},
      {{1024, 4096, 4096, 1024}, 512},
  };
  return shapes;
}

inline std::string MlpLabel(const MlpShape& shape) {
  std::string label;
  for (size_t i = 0; i < shape.sizes.size(); ++i) {
    if (i > 0) label.push_back('-');
    label.append(std::to_string(shape.sizes[i]));
  }
  label.append(" batch ");
  label.append(std::to_string(shape.batch));
  return label;
}

// FLOPs of the step's matrix products: per layer the forward product and the weight
// gradient, and the input gradient for every layer but the first (the data needs none).
inline double MlpStepMatmulFlops(const MlpShape& shape) {
  double flops = 0;
  for (size_t i = 0; i + 1 < shape.sizes.size(); ++i) {
    double one = 2.0 * static_cast<double>(shape.batch * shape.sizes[i] * shape.sizes[i + 1]);
    flops += (i == 0 ? 2 : 3) * one;
  }
  return flops;
}

// OMP_NUM_THREADS as the benchmark run was started with (1 when unset or bad).
inline int BenchThreads() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  int n = value != nullptr ? std::atoi(value) : 1;
  return n > 0 ? n : 1;
}

}  // namespace seam::bench

#endif  // SEAM_BENCH_MLP_SHAPES_H_
