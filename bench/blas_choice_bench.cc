// Which BLAS should run the CPU plugin's f32 dot_general: OpenBLAS's cblas_sgemm or
// oneDNN's dnnl_sgemm, on the same row-major data, on 1 and 2 threads, in one run
// (BENCHMARKS.md, "BLAS choice"). Each (shape, threads) pair runs OpenBLAS then oneDNN
// back to back so that the ratio is taken under the same machine load.
//
// Threads: OpenBLAS (the pthread build) through openblas_set_num_threads; oneDNN here is
// built on OpenMP (libgomp), so through omp_set_num_threads.
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

extern "C" void openblas_set_num_threads(int num_threads);

namespace {

std::vector<float> Random(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

struct Problem {
  int64_t m, k, n;
  std::vector<float> a, b, c;
  Problem(int64_t m_, int64_t k_, int64_t n_)
      : m(m_), k(k_), n(n_), a(Random(m * k, 1)), b(Random(k * n, 2)), c(m * n) {}
};

void SetThreads(int threads) {
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
}

void Report(benchmark::State& state, const Problem& p, int threads) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * p.m * p.k * p.n, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
  state.counters["threads"] = threads;
}

// Arguments: m, k, n, threads. C[m,n] = A[m,k] * B[k,n], row-major.
void BM_OpenBlasSgemm(benchmark::State& state) {
  Problem p(state.range(0), state.range(1), state.range(2));
  const int threads = static_cast<int>(state.range(3));
  SetThreads(threads);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.m, p.n, p.k, 1.0f, p.a.data(), p.k,
                p.b.data(), p.n, 0.0f, p.c.data(), p.n);
    benchmark::DoNotOptimize(p.c.data());
  }
  Report(state, p, threads);
}

void BM_OneDnnSgemm(benchmark::State& state) {
  Problem p(state.range(0), state.range(1), state.range(2));
  const int threads = static_cast<int>(state.range(3));
  SetThreads(threads);
  for (auto _ : state) {
    dnnl_status_t status = dnnl_sgemm('N', 'N', p.m, p.n, p.k, 1.0f, p.a.data(), p.k,
                                      p.b.data(), p.n, 0.0f, p.c.data(), p.n);
    if (status != dnnl_success) {
      state.SkipWithError("dnnl_sgemm failed");
      break;
    }
    benchmark::DoNotOptimize(p.c.data());
  }
  Report(state, p, threads);
}

// The two libraries must agree on the product (loosely: their summation orders differ).
bool SameProduct() {
  Problem p(64, 96, 80), q(64, 96, 80);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p.m, p.n, p.k, 1.0f, p.a.data(), p.k,
              p.b.data(), p.n, 0.0f, p.c.data(), p.n);
  dnnl_sgemm('N', 'N', q.m, q.n, q.k, 1.0f, q.a.data(), q.k, q.b.data(), q.n, 0.0f, q.c.data(),
             q.n);
  for (size_t i = 0; i < p.c.size(); ++i) {
    float d = p.c[i] - q.c[i];
    if (d > 1e-4f || d < -1e-4f) return false;
  }
  return true;
}

void Register() {
  const int64_t shapes[][3] = {{256, 256, 256}, {1024, 1024, 1024}, {512, 4096, 4096},
                               {512, 784, 128}};
  for (int threads : {1, 2}) {
    for (const auto& s : shapes) {
      benchmark::RegisterBenchmark("BM_OpenBlasSgemm", BM_OpenBlasSgemm)
          ->Args({s[0], s[1], s[2], threads})
          ->ArgNames({"m", "k", "n", "threads"})
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark("BM_OneDnnSgemm", BM_OneDnnSgemm)
          ->Args({s[0], s[1], s[2], threads})
          ->ArgNames({"m", "k", "n", "threads"})
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!SameProduct()) {
    std::fprintf(stderr, "blas_choice_bench: OpenBLAS and oneDNN disagree on a product\n");
    return 1;
  }
  const dnnl_version_t* version = dnnl_version();
  std::printf("oneDNN %d.%d.%d (cpu runtime %u)\n", version->major, version->minor,
              version->patch, version->cpu_runtime);
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
