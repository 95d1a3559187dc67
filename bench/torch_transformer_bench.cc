// The libtorch twin of transformer_step_bench.cc: the same pre-norm transformer block
// training step (width 256, 4 heads, sequence 128, batch 16, causal; loss mean(y^2),
// backward, AdamW) in libtorch C++ (Debian's libtorch-dev) with its stock modules
// (LayerNorm, MultiheadAttention with need_weights=false and a causal mask, Linear, GELU).
// Threads: OMP_NUM_THREADS, applied with at::set_num_threads (Debian's torch keeps its own
// OpenMP pool). Same output format as the seam program. Arguments: [steps] (default 20).
#include <time.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/steps_argument.h"

extern "C" char* openblas_get_corename(void);

namespace {

constexpr int64_t kWidth = 256, kHeads = 4, kSeq = 128, kBatch = 16;

struct BlockImpl : torch::nn::Module {
  BlockImpl()
      : ln_1(register_module("ln_1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({kWidth})))),
        attn(register_module("attn", torch::nn::MultiheadAttention(kWidth, kHeads))),
        ln_2(register_module("ln_2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({kWidth})))),
        mlp(register_module(
            "mlp", torch::nn::Sequential(torch::nn::Linear(kWidth, 4 * kWidth), torch::nn::GELU(),
                                         torch::nn::Linear(4 * kWidth, kWidth)))),
        mask(torch::ones({kSeq, kSeq}, torch::kBool).triu(1)) {}

  // x [N, L, E]; libtorch's C++ MultiheadAttention is sequence-first ([L, N, E]).
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = ln_1(x).transpose(0, 1);
    torch::Tensor a = std::get<0>(attn->forward(h, h, h, /*key_padding_mask=*/torch::Tensor(),
                                                /*need_weights=*/false, /*attn_mask=*/mask));
    torch::Tensor r = x + a.transpose(0, 1);
    return r + mlp->forward(ln_2(r));
  }

  torch::nn::LayerNorm ln_1;
  torch::nn::MultiheadAttention attn;
  torch::nn::LayerNorm ln_2;
  torch::nn::Sequential mlp;
  torch::Tensor mask;
};
TORCH_MODULE(Block);

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "(unset)" : value;
}

// This process's CPU time (every thread), in ms: on a shared machine it moves less with
// the load than the wall clock does.
double CpuMs() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = seam::bench::StepsArgument(argc, argv, 20);
  const char* omp = std::getenv("OMP_NUM_THREADS");
  at::set_num_threads(omp == nullptr ? 1 : std::max(1, std::atoi(omp)));
  torch::manual_seed(1);
  std::printf(
      "libtorch: %s, openblas_core: %s, at::get_num_threads %d, "
      "OPENBLAS_NUM_THREADS=%s\n",
      TORCH_VERSION, openblas_get_corename(), at::get_num_threads(), Env("OPENBLAS_NUM_THREADS"));
  Block block;
  torch::optim::AdamW adamw(block->parameters(), torch::optim::AdamWOptions(1e-4));
  const torch::Tensor x = torch::randn({kBatch, kSeq, kWidth});
  const auto step = [&] {
    adamw.zero_grad();
    const torch::Tensor y = block->forward(x);
    torch::Tensor loss = (y * y).mean();
    loss.backward();
    adamw.step();
    return loss.item<float>();
  };
  for (int i = 0; i < 3; ++i) step();
  std::vector<double> ms, cpu;
  float loss = 0;
  for (int i = 0; i < steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = CpuMs();
    loss = step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    cpu.push_back(CpuMs() - cpu_start);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf("torch %-8s median_ms %8.2f best_ms %8.2f cpu_median_ms %8.2f loss %.6f\n", "eager",
              ms[ms.size() / 2], ms.front(), cpu[cpu.size() / 2], static_cast<double>(loss));
  return 0;
}
