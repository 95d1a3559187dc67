// A chain of 10 elementwise ops on 4M f32: seam's executable (the CPU plugin fuses the
// chain into one loop) beside a hand-fused C++ loop over the same data, on one thread and
// on two (the plugin's kernel threads; the hand loop split in two halves). The issue's
// goal: the seam within 1.2x of the hand-fused loop. The CPU column is the whole process's
// CPU time (the plugin's worker and kernel threads included; the benchmark thread blocks
// while it waits): on a loaded machine it is steadier than the real time.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "bench/bench_util.h"
#include "bench/ten_op_chain.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::bench {
namespace {

constexpr int64_t kCount = 4 * 1024 * 1024;

constexpr const char* kChain = kTenOpChain;

void HandFused(const float* x, const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] * a[i] + b[i];
    v = v * x[i] - a[i];
    v = std::max(v, b[i]) * a[i] + x[i];
    v = std::min(v, a[i]) - b[i];
    y[i] = v * v;
  }
}

void BM_HandFusedLoop(benchmark::State& state) {
  std::vector<float> x = RandomFloats(kCount, 1), a = RandomFloats(kCount, 2),
                     b = RandomFloats(kCount, 3), y(kCount);
  for (auto _ : state) {
    HandFused(x.data(), a.data(), b.data(), y.data(), kCount);
    benchmark::DoNotOptimize(y.data());
  }
}

// The same loop on arrays that, like seam's blocks of 2 MiB and more (block_pool.cc), are
// mappings of their own on a 2 MiB boundary advised for transparent huge pages: what the
// page size alone is worth to the hand loop (std::vector's memory gets 4 KiB pages where
// the kernel gives huge pages only on request, as on the build machine).
class HugePageArray {
 public:
  explicit HugePageArray(const std::vector<float>& values) : bytes_(values.size() * 4 + kHuge) {
    void* mapped =
        mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) std::abort();
    mapped_ = static_cast<uint8_t*>(mapped);
    const auto start = reinterpret_cast<uintptr_t>(mapped_);
    data_ = reinterpret_cast<float*>((start + kHuge - 1) / kHuge * kHuge);
    madvise(data_, values.size() * 4, MADV_HUGEPAGE);
    std::memcpy(data_, values.data(), values.size() * 4);
  }
  ~HugePageArray() { munmap(mapped_, bytes_); }
  HugePageArray(const HugePageArray&) = delete;
  HugePageArray& operator=(const HugePageArray&) = delete;
  float* data() { return data_; }

 private:
  static constexpr size_t kHuge = size_t{2} << 20;
  size_t bytes_;
  uint8_t* mapped_ = nullptr;
  float* data_ = nullptr;
};

void BM_HandFusedLoopHugePages(benchmark::State& state) {
  HugePageArray x(RandomFloats(kCount, 1)), a(RandomFloats(kCount, 2)), b(RandomFloats(kCount, 3)),
      y{std::vector<float>(kCount)};
  for (auto _ : state) {
    HandFused(x.data(), a.data(), b.data(), y.data(), kCount);
    benchmark::DoNotOptimize(y.data());
  }
}

// The hand-fused loop split in two halves, the second on a thread started per iteration
// (starting a thread costs tens of microseconds, small next to the loop).
void BM_HandFusedLoop2Threads(benchmark::State& state) {
  std::vector<float> x = RandomFloats(kCount, 1), a = RandomFloats(kCount, 2),
                     b = RandomFloats(kCount, 3), y(kCount);
  const int64_t half = kCount / 2;
  for (auto _ : state) {
    std::thread second([&] {
      HandFused(x.data() + half, a.data() + half, b.data() + half, y.data() + half, kCount - half);
    });
    HandFused(x.data(), a.data(), b.data(), y.data(), half);
    second.join();
    benchmark::DoNotOptimize(y.data());
  }
}

// state.range(0): the plugin's kernel threads.
void BM_SeamChain(benchmark::State& state) {
  cpu::SetKernelThreads(static_cast<int>(state.range(0)));
  auto computation = CompileText(kChain);
  auto args = Upload({ir::Literal::FromF32(RandomFloats(kCount, 1), {kCount}),
                      ir::Literal::FromF32(RandomFloats(kCount, 2), {kCount}),
                      ir::Literal::FromF32(RandomFloats(kCount, 3), {kCount})});
  for (auto _ : state) RunAndWait(*computation, args);
  cpu::SetKernelThreads(0);
}

// The same chain on 1024 elements (one tile): what a run costs beyond its loop (argument
// checks, output allocation, the hand-off to the worker thread and the ready event).
constexpr int64_t kSmallCount = 1024;

void BM_HandFusedLoopSmall(benchmark::State& state) {
  std::vector<float> x = RandomFloats(kSmallCount, 1), a = RandomFloats(kSmallCount, 2),
                     b = RandomFloats(kSmallCount, 3), y(kSmallCount);
  for (auto _ : state) {
    HandFused(x.data(), a.data(), b.data(), y.data(), kSmallCount);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_SeamChainSmall(benchmark::State& state) {
  std::string text = kChain;
  const std::string big = std::to_string(kCount), small = std::to_string(kSmallCount);
  for (size_t at = text.find(big); at != std::string::npos; at = text.find(big, at)) {
    text.replace(at, big.size(), small);
  }
  auto computation = CompileText(text);
  auto args = Upload({ir::Literal::FromF32(RandomFloats(kSmallCount, 1), {kSmallCount}),
                      ir::Literal::FromF32(RandomFloats(kSmallCount, 2), {kSmallCount}),
                      ir::Literal::FromF32(RandomFloats(kSmallCount, 3), {kSmallCount})});
  for (auto _ : state) RunAndWait(*computation, args);
}

BENCHMARK(BM_HandFusedLoop)->Unit(benchmark::kMillisecond)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_SeamChain)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_HandFusedLoopHugePages)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_HandFusedLoop2Threads)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_SeamChain)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_HandFusedLoopSmall)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_SeamChainSmall)->Unit(benchmark::kMicrosecond)->UseRealTime()->MeasureProcessCPUTime();

}  // namespace
}  // namespace seam::bench
