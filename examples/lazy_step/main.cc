// A two-layer linear model's forward pass and squared-error loss, recorded lazily and run
// as one program: the step crosses the seam four times (inputs down, program down, run,
// result up). A second step with new inputs reuses the compiled program.
//
//   PJRT_DEVICE=CPU ./lazy_step
#include <cstdio>
#include <vector>

#include "seam/metrics.h"
#include "seam/tensor.h"

namespace {

std::vector<float> Ramp(int count, float start, float step) {
  std::vector<float> values(count);
  for (int i = 0; i < count; ++i) values[i] = start + step * static_cast<float>(i % 7);
  return values;
}

float Step(float input_offset) {
  using seam::Tensor;
  Tensor x = Tensor::from_vector(Ramp(8 * 4, input_offset, 0.25f), {8, 4});
  Tensor w1 = Tensor::from_vector(Ramp(4 * 6, -0.5f, 0.125f), {4, 6});
  Tensor b1 = Tensor::from_vector(Ramp(6, 0.1f, 0.05f), {6});
  Tensor w2 = Tensor::from_vector(Ramp(6 * 3, 0.3f, -0.1f), {6, 3});
  Tensor b2 = Tensor::from_vector({0.0f, 0.5f, -0.5f}, {3});
  Tensor target = Tensor::from_vector(Ramp(8 * 3, 1.0f, 0.5f), {8, 3});

  Tensor hidden = x.matmul(w1) + b1;
  Tensor y = hidden.matmul(w2) + b2;
  Tensor diff = y - target;
  Tensor loss = (diff * diff).sum() * 0.5f;
  return loss.item<float>();  // the only host read: syncs the graph and blocks
}

}  // namespace

int main() {
  try {
    float first = Step(0.0f);
    std::printf("step 1: loss = %.6f\n", first);
    float second = Step(1.0f);
    std::printf("step 2: loss = %.6f  (new inputs, same program: served by the compile cache)\n\n",
                second);
    std::printf("%s", seam::metrics::CreateMetricReport().c_str());
  } catch (const seam::Error& error) {
    std::fprintf(stderr, "lazy_step: %s\n", error.what());
    return 1;
  }
  return 0;
}
