// A lazy step of more than a dozen ops (two linear layers with bias broadcasts, a squared
// error and reductions) and the same formula computed in plain C++, shared by the e2e tests.
#ifndef SEAM_TESTS_E2E_STEP_FIXTURE_H_
#define SEAM_TESTS_E2E_STEP_FIXTURE_H_

#include <cstdint>
#include <vector>

namespace seam::testing {

struct StepInputs {
  std::vector<float> x, w1, b1, w2, b2, target;  // [5,4] [4,3] [3] [3,2] [2] [5,2]
  static constexpr int64_t kBatch = 5, kIn = 4, kHidden = 3, kOut = 2;
};

// Deterministic values; `seed` changes every input.
StepInputs MakeStepInputs(int seed);

struct StepResult {
  float loss;                  // 0.5 * sum((y - target)^2) * scale
  std::vector<float> y;        // [5,2]
  std::vector<float> row_sum;  // 1 + sum of y over axis 1, [5]
};

// y = (x @ w1 + b1) @ w2 + b2; loss = sum((y - target)^2) * 0.5 (by a scalar that is
// passed as data, as the front end does for values other than 0 and +-1).
StepResult ReferenceStep(const StepInputs& in);

}  // namespace seam::testing

#endif  // SEAM_TESTS_E2E_STEP_FIXTURE_H_
