// A program linked with seam_core only (no CPU plugin, no BLAS library): it trains nothing,
// but records a small step, runs it on whatever plugin PJRT_DEVICE selects, and checks the
// result against the same arithmetic on the host. Exit 0 and "core-only: ok" when right;
// exit 1 with the error otherwise (run by core_only_test.cmake, which also checks with ldd
// that neither OpenBLAS nor oneDNN is a dependency).
#include <cmath>
#include <cstdio>
#include <vector>

#include "seam/tensor.h"

int main() {
  try {
    std::vector<float> x = {1, 2, 3, 4, 5, 6};
    seam::Tensor t = seam::Tensor::from_vector(x, {2, 3});
    float got = (t * 2.0f + 1.0f).matmul(t.transpose()).sum().item<float>();
    float want = 0;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 3; ++k) want += (x[i * 3 + k] * 2 + 1) * x[j * 3 + k];
      }
    }
    if (std::fabs(got - want) > 1e-3f * std::fabs(want)) {
      std::printf("core-only: wrong result %g, expected %g\n", got, want);
      return 1;
    }
    std::printf("core-only: ok %g\n", got);
  } catch (const seam::Error& error) {
    std::printf("core-only: %s\n", error.what());
    return 1;
  }
  return 0;
}
