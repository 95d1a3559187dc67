#include "tests/e2e/step_fixture.h"

namespace seam::testing {
namespace {

std::vector<float> Values(int count, int seed, float scale) {
  std::vector<float> v(count);
  for (int i = 0; i < count; ++i) {
    v[i] = scale * static_cast<float>(((i * 7 + seed * 13) % 11) - 5);
  }
  return v;
}

std::vector<float> MatMul(const std::vector<float>& a, const std::vector<float>& b, int64_t m,
                          int64_t k, int64_t n) {
  std::vector<float> c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
  return c;
}

}  // namespace

StepInputs MakeStepInputs(int seed) {
  using S = StepInputs;
  StepInputs in;
  in.x = Values(S::kBatch * S::kIn, seed, 0.5f);
  in.w1 = Values(S::kIn * S::kHidden, seed + 1, 0.25f);
  in.b1 = Values(S::kHidden, seed + 2, 0.125f);
  in.w2 = Values(S::kHidden * S::kOut, seed + 3, 0.25f);
  in.b2 = Values(S::kOut, seed + 4, 0.5f);
  in.target = Values(S::kBatch * S::kOut, seed + 5, 1.0f);
  return in;
}

StepResult ReferenceStep(const StepInputs& in) {
  using S = StepInputs;
  std::vector<float> h = MatMul(in.x, in.w1, S::kBatch, S::kIn, S::kHidden);
  for (int64_t i = 0; i < S::kBatch; ++i)
    for (int64_t j = 0; j < S::kHidden; ++j) h[i * S::kHidden + j] += in.b1[j];
  StepResult r;
  r.y = MatMul(h, in.w2, S::kBatch, S::kHidden, S::kOut);
  r.row_sum.assign(S::kBatch, 1.0f);
  double loss = 0.0;
  for (int64_t i = 0; i < S::kBatch; ++i)
    for (int64_t j = 0; j < S::kOut; ++j) {
      float& y = r.y[i * S::kOut + j];
      y += in.b2[j];
      r.row_sum[i] += y;
      float d = y - in.target[i * S::kOut + j];
      loss += d * d;
    }
  r.loss = static_cast<float>(loss * 0.5);
  return r;
}

}  // namespace seam::testing
