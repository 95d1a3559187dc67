// Soak: many training steps of one small MLP, with the process's resident memory (RSS) and
// live heap sampled as they go. A step that leaves memory behind shows as growth after
// the warm-up; the goal (issue 14) is at most 5% growth of RSS in every mode.
//
//   soak_bench [--steps N] [--warmup N] [--every N] [--batch N] [--sizes a,b,...]
//              [--same-process] [mode...]
//
// Modes: lazy (a recorded step and seam::sync), compiled (seam::compile), eager
// (seam::set_eager), inline (lazy with every run on the calling thread:
// SEAM_CPU_INLINE_MAX_COST set high). Default: lazy compiled eager. The model is the
// 64-32-10 MLP, batch 64, plain SGD, unless --sizes and --batch say otherwise. Each mode
// runs in a child process of its own, so that one mode's memory does not count for the
// next; --same-process runs the one mode given in this process instead (for callgrind:
// a run of N steps minus a run of M steps is the cost of N - M steps). Not a Google
// Benchmark program: its result is memory over steps, not time per step.
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/mlp_step.h"
#include "seam/compile.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/base/object_pool.h"

namespace {

struct Options {
  int64_t steps = 10000;
  int64_t warmup = 1000;
  int64_t every = 500;
  int64_t batch = 64;
  std::vector<int64_t> sizes = {64, 32, 10};
  bool same_process = false;
  std::vector<std::string> modes;
};

struct Sample {
  int64_t step;
  double rss_kib;
  double heap_kib;
  int64_t pooled;  // blocks the object pool holds (live objects and cached ones)
};

double RssKib() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long pages = 0, resident = 0;  // NOLINT(google-runtime-int): the format's type
  const int read = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1024.0;
}

// Bytes malloc has handed out and not got back: chunks in use in every arena plus
// chunks malloc mapped on their own. (The CPU plugin's blocks of 2 MiB and more are mapped
// without malloc and are not in this figure; they are in RSS.)
double LiveHeapKib() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd) / 1024.0;
}

// Runs `mode` for options.steps steps and prints the samples and the growth after the
// warm-up. Returns the process's exit status.
int RunMode(const std::string& mode, const Options& options) {
  if (mode == "inline") setenv("SEAM_CPU_INLINE_MAX_COST", "1000000000", 1);
  seam::set_eager(mode == "eager");
  seam::nn::Mlp model(options.sizes, /*seed=*/1);
  seam::optim::Sgd sgd(model.parameters(), /*lr=*/0.01f);
  const seam::Tensor x = seam::Tensor::randn({options.batch, options.sizes.front()}, /*seed=*/2);
  const seam::Tensor y = seam::Tensor::from_vector(
      seam::bench::MlpLabels(options.batch, options.sizes.back()), {options.batch});
  seam::CompiledStep compiled = seam::compile([&](const std::vector<seam::Tensor>& in) {
    seam::Tensor loss = seam::nn::cross_entropy(model.forward(in[0]), in[1]);
    sgd.step(loss);
    return std::vector<seam::Tensor>{loss};
  });
  auto step = [&]() -> float {
    if (mode == "compiled") return compiled({x, y})[0].item<float>();
    seam::Tensor loss = seam::nn::cross_entropy(model.forward(x), y);
    sgd.step(loss);
    seam::sync();
    return loss.item<float>();
  };
  std::vector<Sample> samples;
  float loss = 0;
  for (int64_t s = 1; s <= options.steps; ++s) {
    loss = step();
    if (s % options.every == 0 || s == options.warmup) {
      samples.push_back({s, RssKib(), LiveHeapKib(), seam::base::GetPoolCounts().outstanding});
    }
  }
  std::printf("mode %s: %lld steps, batch %lld, final loss %.4f\n", mode.c_str(),
              static_cast<long long>(options.steps),         // NOLINT(google-runtime-int)
              static_cast<long long>(options.batch), loss);  // NOLINT(google-runtime-int)
  std::printf("  %8s %12s %12s %14s\n", "step", "RSS KiB", "heap KiB", "pooled blocks");
  const Sample* base = nullptr;
  double peak_rss = 0, peak_heap = 0;
  for (const Sample& sample : samples) {
    std::printf("  %8lld %12.0f %12.0f %14lld\n", static_cast<long long>(sample.step),  // NOLINT
                sample.rss_kib, sample.heap_kib,
                static_cast<long long>(sample.pooled));  // NOLINT(google-runtime-int)
    if (sample.step == options.warmup) base = &sample;
    if (base != nullptr) {
      peak_rss = std::max(peak_rss, sample.rss_kib);
      peak_heap = std::max(peak_heap, sample.heap_kib);
    }
  }
  if (base == nullptr || base->rss_kib <= 0) {
    std::printf("  no sample at the warm-up step %lld\n",
                static_cast<long long>(options.warmup));  // NOLINT(google-runtime-int)
    return 1;
  }
  const Sample& last = samples.back();
  std::printf(
      "  growth after step %lld: RSS %+.2f%% (peak %+.2f%%), live heap %+.2f%% (peak %+.2f%%)\n",
      static_cast<long long>(options.warmup),  // NOLINT(google-runtime-int)
      100.0 * (last.rss_kib - base->rss_kib) / base->rss_kib,
      100.0 * (peak_rss - base->rss_kib) / base->rss_kib,
      100.0 * (last.heap_kib - base->heap_kib) / base->heap_kib,
      100.0 * (peak_heap - base->heap_kib) / base->heap_kib);
  std::fflush(stdout);
  return 0;
}

bool ParseSizes(const std::string& text, std::vector<int64_t>* sizes) {
  sizes->clear();
  const char* p = text.c_str();
  while (*p != '\0') {
    char* end = nullptr;
    const int64_t size = std::strtoll(p, &end, 10);
    if (end == p || size <= 0 || (*end != ',' && *end != '\0')) return false;
    sizes->push_back(size);
    p = *end == ',' ? end + 1 : end;
  }
  return sizes->size() >= 2;
}

bool ParseOptions(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--same-process") {
      options->same_process = true;
      continue;
    }
    if (arg == "--sizes") {
      if (i + 1 >= argc || !ParseSizes(argv[++i], &options->sizes)) return false;
      continue;
    }
    int64_t* target = nullptr;
    if (arg == "--steps") target = &options->steps;
    if (arg == "--warmup") target = &options->warmup;
    if (arg == "--every") target = &options->every;
    if (arg == "--batch") target = &options->batch;
    if (target != nullptr) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      *target = std::strtoll(argv[++i], &end, 10);
      if (*end != '\0' || *target <= 0) return false;
    } else if (arg == "lazy" || arg == "compiled" || arg == "eager" || arg == "inline") {
      options->modes.push_back(arg);
    } else {
      return false;
    }
  }
  if (options->modes.empty()) options->modes = {"lazy", "compiled", "eager"};
  if (options->same_process && options->modes.size() != 1) return false;
  return options->warmup <= options->steps;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!ParseOptions(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: soak_bench [--steps N] [--warmup N] [--every N] [--batch N] "
                 "[--sizes a,b,...] [--same-process] [lazy|compiled|eager|inline...]\n");
    return 2;
  }
  setenv("PJRT_DEVICE", "CPU", /*overwrite=*/0);
  if (options.same_process) return RunMode(options.modes[0], options);
  int status = 0;
  for (const std::string& mode : options.modes) {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child < 0) {
      std::perror("soak_bench: fork");
      return 1;
    }
    if (child == 0) {
      const int rc = RunMode(mode, options);
      std::fflush(stdout);
      _exit(rc);
    }
    int child_status = 0;
    waitpid(child, &child_status, 0);
    if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) status = 1;
  }
  return status;
}
