// CheckGrad: a function's gradient through seam::grad against central finite differences,
// in f64 through the CPU plugin. Shared by the e2e tests of gradient rules.
#ifndef SEAM_TESTS_E2E_GRAD_CHECK_H_
#define SEAM_TESTS_E2E_GRAD_CHECK_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "seam/tensor.h"

namespace seam::gradcheck {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// n values drawn uniformly from [low, high) with std::mt19937_64 seeded by `seed`.
inline std::vector<double> Random(size_t n, uint64_t seed, double low = -2, double high = 2) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(low, high);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

inline size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

struct Options {
  double low = -2, high = 2;  // where the inputs are drawn from
  // loss = sum(y * w * y) instead of sum(y * w): for normalizations, whose plain weighted
  // sums can have gradients that vanish.
  bool squared = false;
  bool plus_linear = false;  // with squared: sum(y * w * y) + sum(y * w)
  double tolerance = 1e-5;   // relative, plus the same absolute
};

// loss = sum(f(inputs) * w) (or sum(y * w * y)) for fixed random w in [0.5, 1.5), so that every
// output element matters.
inline Tensor Loss(const Fn& f, const std::vector<Tensor>& inputs, const Options& options) {
  Tensor y = f(inputs);
  Tensor w = Tensor::from_vector(Random(static_cast<size_t>(y.numel()), 99, 0.5, 1.5), y.shape());
  if (!options.squared) return (y * w).sum();
  return options.plus_linear ? (y * w * y).sum() + (y * w).sum() : (y * w * y).sum();
}

inline double LossAt(const Fn& f, const std::vector<std::vector<double>>& values,
                     const std::vector<std::vector<int64_t>>& shapes, const Options& options) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < values.size(); ++i)
    inputs.push_back(Tensor::from_vector(values[i], shapes[i]));
  return Loss(f, inputs, options).item<double>();
}

// Every input element's analytic gradient within options.tolerance (relative, plus the same
// absolute) of the central difference with step 1e-6. The inputs are `values`, then for the
// shapes beyond them input i is drawn with seed 7 + i.
inline void CheckGradAt(const Fn& f, const std::vector<std::vector<int64_t>>& shapes,
                        std::vector<std::vector<double>> values, const Options& options = {}) {
  for (size_t i = values.size(); i < shapes.size(); ++i) {
    values.push_back(Random(Count(shapes[i]), 7 + i, options.low, options.high));
  }
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < values.size(); ++i) {
    inputs.push_back(Tensor::from_vector(values[i], shapes[i]));
  }
  // grad() needs the recorded graph, so the loss is not read (synced) before it.
  std::vector<Tensor> grads = grad(Loss(f, inputs, options), inputs);
  ASSERT_EQ(grads.size(), inputs.size());
  const double h = 1e-6;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::vector<double> analytic = grads[i].to_vector<double>();
    ASSERT_EQ(analytic.size(), values[i].size());
    for (size_t k = 0; k < values[i].size(); ++k) {
      auto plus = values, minus = values;
      plus[i][k] += h;
      minus[i][k] -= h;
      const double numeric =
          (LossAt(f, plus, shapes, options) - LossAt(f, minus, shapes, options)) / (2 * h);
      EXPECT_NEAR(analytic[k], numeric, options.tolerance * (1 + std::abs(numeric)))
          << "input " << i << " element " << k;
    }
  }
}

// The same with every input drawn.
inline void CheckGrad(const Fn& f, const std::vector<std::vector<int64_t>>& shapes,
                      const Options& options = {}) {
  CheckGradAt(f, shapes, {}, options);
}

// The same with inputs drawn from [low, high).
inline void CheckGrad(const Fn& f, const std::vector<std::vector<int64_t>>& shapes, double low,
                      double high) {
  CheckGrad(f, shapes, Options{.low = low, .high = high});
}

}  // namespace seam::gradcheck

#endif  // SEAM_TESTS_E2E_GRAD_CHECK_H_
