// A user's program against the installed seam: the row [1, 2, ..., n] times an n x 4
// matrix of ones, summed. Prints "sum <value>"; the test knows the value from arithmetic
// (4 * n(n+1)/2), not from seam. Usage: app <n>.
#include <seam/tensor.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <n>\n", argv[0]);
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 10);
  if (n < 1 || n > 1000) {
    std::fprintf(stderr, "n must be in [1, 1000], got %s\n", argv[1]);
    return 2;
  }
  try {
    std::vector<float> row(static_cast<size_t>(n));
    for (long i = 0; i < n; ++i) row[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    seam::Tensor a = seam::Tensor::from_vector(row, {1, n});
    seam::Tensor b = seam::Tensor::ones({n, 4});
    const float sum = a.matmul(b).sum().item<float>();
    std::printf("sum %.0f\n", static_cast<double>(sum));
  } catch (const seam::Error& error) {
    std::fprintf(stderr, "seam error: %s\n", error.what());
    return 1;
  }
  return 0;
}
