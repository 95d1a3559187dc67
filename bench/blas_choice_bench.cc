// Which BLAS should run the CPU plugin's f32 dot_general: OpenBLAS's cblas_sgemm or
// oneDNN's dnnl_sgemm, on the same row-major data, on 1 and 2 threads, in one run
// (BENCHMARKS.md, "BLAS choice" and "Session 5: matrix products"). Each (shape, layout,
// threads) runs OpenBLAS then oneDNN back to back so that the ratio is taken under the
// same machine load. Layouts: 0 = A.B, 1 = A^T.B (a weight gradient), 2 = A.B^T (an input
// gradient). The shapes are square products, the sizes around the plugin's switch to oneDNN
// (gemm.h, kOneDnnMinimumWork = 2^20 multiply-adds) and the training steps' own products.
//
// Threads: OpenBLAS (the pthread build) through openblas_set_num_threads; oneDNN here is
// built on OpenMP (libgomp), so through omp_set_num_threads.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

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
  bool trans_a, trans_b;
  std::vector<float> a, b, c;
  Problem(int64_t m_, int64_t k_, int64_t n_, int64_t layout = 0)
      : m(m_),
        k(k_),
        n(n_),
        trans_a(layout == 1),
        trans_b(layout == 2),
        a(Random(m * k, 1)),
        b(Random(k * n, 2)),
        c(m * n) {}
  int64_t lda() const { return trans_a ? m : k; }
  int64_t ldb() const { return trans_b ? k : n; }
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

// Arguments: m, k, n, layout, threads. C[m,n] = op(A)[m,k] * op(B)[k,n], row-major.
void BM_OpenBlasSgemm(benchmark::State& state) {
  Problem p(state.range(0), state.range(1), state.range(2), state.range(3));
  const int threads = static_cast<int>(state.range(4));
  SetThreads(threads);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, p.trans_a ? CblasTrans : CblasNoTrans,
                p.trans_b ? CblasTrans : CblasNoTrans, p.m, p.n, p.k, 1.0f, p.a.data(), p.lda(),
                p.b.data(), p.ldb(), 0.0f, p.c.data(), p.n);
    benchmark::DoNotOptimize(p.c.data());
  }
  Report(state, p, threads);
}

void BM_OneDnnSgemm(benchmark::State& state) {
  Problem p(state.range(0), state.range(1), state.range(2), state.range(3));
  const int threads = static_cast<int>(state.range(4));
  SetThreads(threads);
  for (auto _ : state) {
    dnnl_status_t status =
        dnnl_sgemm(p.trans_a ? 'T' : 'N', p.trans_b ? 'T' : 'N', p.m, p.n, p.k, 1.0f, p.a.data(),
                   p.lda(), p.b.data(), p.ldb(), 0.0f, p.c.data(), p.n);
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
  // {m, k, n, layout}
  const int64_t shapes[][4] = {
      {256, 256, 256, 0}, {1024, 1024, 1024, 0}, {512, 4096, 4096, 0},  // square and large
      {32, 32, 32, 0},    {64, 64, 64, 0},       {64, 64, 128, 0},      // around 2^18 ..
      {128, 128, 64, 0},  {64, 128, 128, 2},     {128, 128, 128, 1},    // .. 2^21
      {64, 784, 128, 0},  {784, 64, 128, 1},     {64, 128, 10, 0},      // 784-128-10 b64
      {64, 10, 128, 2},   {256, 784, 512, 0},    {784, 256, 512, 1},    // 784-512-512-10
      {256, 512, 512, 2}, {256, 512, 10, 0},     {256, 10, 512, 2}};    //   b256
  for (int threads : {1, 2}) {
    for (const auto& s : shapes) {
      using Fn = void (*)(benchmark::State&);
      for (auto [name, fn] : {std::pair<const char*, Fn>{"BM_OpenBlasSgemm", BM_OpenBlasSgemm},
                              std::pair<const char*, Fn>{"BM_OneDnnSgemm", BM_OneDnnSgemm}}) {
        benchmark::RegisterBenchmark(name, fn)
            ->Args({s[0], s[1], s[2], s[3], threads})
            ->ArgNames({"m", "k", "n", "layout", "threads"})
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
      }
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
  std::printf("oneDNN %d.%d.%d (cpu runtime %u)\n", version->major, version->minor, version->patch,
              version->cpu_runtime);
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
