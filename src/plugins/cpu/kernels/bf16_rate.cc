#include "src/plugins/cpu/kernels/bf16_rate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace seam::cpu {
namespace {

#if defined(__x86_64__)

constexpr int kChains = 12;        // independent accumulators: more than latency x ports
constexpr int64_t kRounds = 1000;  // instructions per chain and run
constexpr int kRuns = 5;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::atomic<float> sink{0};

// Stores a lane of each chain, so that no chain is optimized away.
__attribute__((target("avx512f"))) void Keep(const __m512* chains) {
  float sum = 0;
  alignas(64) float lanes[16];
  for (int c = 0; c < kChains; ++c) {
    _mm512_store_ps(lanes, chains[c]);
    sum += lanes[c % 16];
  }
  sink.store(sum, std::memory_order_relaxed);
}

// Seconds for kRounds x kChains vdpbf16ps. The chains start apart, so that none is
// computed once for all.
__attribute__((target("avx512f,avx512bf16"))) double TimeBf16Dot() {
  __m512 chains[kChains];
  for (int c = 0; c < kChains; ++c) chains[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80);  // bf16 1.0
  const __m512bh y = (__m512bh)_mm512_set1_epi16(0x3c00);  // bf16 2^-7
  const auto start = std::chrono::steady_clock::now();
  for (int64_t r = 0; r < kRounds; ++r) {
    for (int c = 0; c < kChains; ++c) chains[c] = _mm512_dpbf16_ps(chains[c], x, y);
  }
  const double seconds = Seconds(start);
  Keep(chains);
  return seconds;
}

// Seconds for kRounds x kChains vfmadd231ps.
__attribute__((target("avx512f,fma"))) double TimeFma() {
  __m512 chains[kChains];
  for (int c = 0; c < kChains; ++c) chains[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512 x = _mm512_set1_ps(1.0F), y = _mm512_set1_ps(0x1p-7F);
  const auto start = std::chrono::steady_clock::now();
  for (int64_t r = 0; r < kRounds; ++r) {
    for (int c = 0; c < kChains; ++c) chains[c] = _mm512_fmadd_ps(x, y, chains[c]);
  }
  const double seconds = Seconds(start);
  Keep(chains);
  return seconds;
}

double Measure() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512bf16") || !__builtin_cpu_supports("avx512f")) return 0;
  double bf16 = std::numeric_limits<double>::infinity(), fma = bf16;
  for (int run = 0; run < kRuns; ++run) {  // alternated, each kind's best
    bf16 = std::min(bf16, TimeBf16Dot());
    fma = std::min(fma, TimeFma());
  }
  if (!(bf16 > 0) || !(fma > 0)) return 0;
  // 32 multiply-adds per vdpbf16ps, 16 per vfmadd231ps, the same count of each.
  return (32.0 / bf16) / (16.0 / fma);
}

#else

double Measure() { return 0; }

#endif

}  // namespace

double Bf16DotRateOverFma() {
  static const double ratio = Measure();
  return ratio;
}

}  // namespace seam::cpu
