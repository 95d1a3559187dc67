// A cross-process all_reduce through the CPU plugin (a compiled program of replicas=P, one
// device per process, run through the C ABI) beside a plain Gloo program doing the same
// f32 sum in the same processes, 4 KiB to 64 MiB (BENCHMARKS.md, "Cross-process
// all_reduce").
//
//   cross_process_bench [processes=2] [max_bytes=67108864] [repetitions=5]
//
// starts `processes` copies of itself on 127.0.0.1 sharing a key-value store in a
// temporary directory, and process 0 prints one row per size: the time per all_reduce of
// each (the median over the repetitions of a block of iterations; the two alternate, after
// a barrier) and their ratio, and the CPU time the process spent per all_reduce (user +
// system, every thread: Gloo's event loop and the kernel's loopback copies included; the
// median block's). On a machine with as many cores as processes, that CPU time is what a
// data-parallel step pays for its gradient exchange even when the exchange overlaps compute.
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gloo/allreduce.h"
#include "gloo/barrier.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/testing/file_kv_store.h"
#include "src/testing/pjrt_client.h"
#include "src/testing/reduction_cases.h"
#include "src/testing/worker_process.h"

namespace {

using seam::testing::PjrtClient;
using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> ParseFlags(int argc, char** argv, int first) {
  std::map<std::string, std::string> flags;
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) flags[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  return flags;
}

int64_t Flag(const std::map<std::string, std::string>& flags, const std::string& key,
             int64_t fallback) {
  auto it = flags.find(key);
  return it == flags.end() ? fallback : std::stoll(it->second);
}

// Iterations per timed block: about 1 GiB of all_reduce input, 10 to 2000 (the same in
// every process, since each iteration is a collective).
int64_t Iterations(int64_t bytes) {
  return std::clamp<int64_t>((int64_t{1} << 30) / bytes, 10, 2000);
}

struct Row {
  int64_t bytes;
  double seam_us, gloo_us, seam_cpu_us, gloo_cpu_us;
};

// Wall and CPU microseconds per iteration of one timed block.
struct Timing {
  double wall_us = 0, cpu_us = 0;
};

double ProcessCpuMicros() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto micros = [](const timeval& t) { return t.tv_sec * 1e6 + t.tv_usec; };
  return micros(usage.ru_utime) + micros(usage.ru_stime);
}

// Runs `body` `iterations` times and times it.
template <typename Body>
Timing TimeBlock(int64_t iterations, Body body) {
  const double cpu_start = ProcessCpuMicros();
  const Clock::time_point start = Clock::now();
  for (int64_t i = 0; i < iterations; ++i) body();
  const double n = static_cast<double>(iterations);
  return {std::chrono::duration<double, std::micro>(Clock::now() - start).count() / n,
          (ProcessCpuMicros() - cpu_start) / n};
}

// One all_reduce of the program per iteration, awaited before the next.
Timing TimeSeam(PjrtClient& client, PJRT_LoadedExecutable* executable, PJRT_Buffer* input,
                int64_t iterations) {
  return TimeBlock(iterations, [&] {
    absl::StatusOr<PjrtClient::Launch> launch = client.Execute(executable, {input});
    if (!launch.ok() || !client.Await(launch->done[0]).ok()) {
      std::fprintf(stderr, "seam all_reduce failed\n");
      std::exit(1);
    }
    client.Destroy(*launch);
  });
}

Timing TimeGloo(const std::shared_ptr<gloo::Context>& context, std::vector<float>& in,
                std::vector<float>& out, int64_t iterations) {
  return TimeBlock(iterations, [&] {
    gloo::AllreduceOptions options(context);
    options.setInput(in.data(), in.size());
    options.setOutput(out.data(), out.size());
    options.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    gloo::allreduce(options);
  });
}

// The block with the median wall time.
Timing MedianBlock(std::vector<Timing> blocks) {
  std::sort(blocks.begin(), blocks.end(),
            [](const Timing& a, const Timing& b) { return a.wall_us < b.wall_us; });
  return blocks[blocks.size() / 2];
}

int Worker(const std::map<std::string, std::string>& flags) {
  const int64_t index = Flag(flags, "index", 0), count = Flag(flags, "processes", 2);
  const std::string dir = flags.at("store");
  seam::testing::FileKvStore store(dir);
  absl::StatusOr<std::unique_ptr<PjrtClient>> client = PjrtClient::Create(
      seam::cpu::GetCpuPjrtApi(), {{"process_index", index}, {"process_count", count}}, &store);
  if (!client.ok()) {
    std::fprintf(stderr, "client: %s\n", std::string(client.status().message()).c_str());
    return 1;
  }
  // The plain Gloo program: Gloo's own file store and its TCP device on 127.0.0.1.
  const std::string gloo_dir = dir + "/plain_gloo";
  mkdir(gloo_dir.c_str(), 0700);  // every process tries; one succeeds
  gloo::rendezvous::FileStore gloo_store(gloo_dir);
  gloo::transport::tcp::attr attr("127.0.0.1");
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context =
      std::make_shared<gloo::rendezvous::Context>(static_cast<int>(index), static_cast<int>(count));
  context->connectFullMesh(gloo_store, device);
  gloo::BarrierOptions barrier(context);

  std::vector<Row> rows;
  const int64_t repetitions = Flag(flags, "repetitions", 5);
  for (int64_t bytes = 4096; bytes <= Flag(flags, "max_bytes", int64_t{64} << 20); bytes *= 4) {
    const int64_t elements = bytes / 4;
    seam::testing::ReductionCase c{
        .op = "sum", .processes = count, .devices = 1, .elements = elements};
    absl::StatusOr<PJRT_LoadedExecutable*> executable = (*client)->Compile(c.ProgramText());
    std::vector<float> in(static_cast<size_t>(elements), 1.0f), out(in.size());
    absl::StatusOr<PJRT_Buffer*> input =
        (*client)->Upload(in.data(), PJRT_Buffer_Type_F32, {elements}, 0);
    if (!executable.ok() || !input.ok()) return 1;
    const int64_t iterations = Iterations(bytes);
    std::vector<Timing> seam_blocks, gloo_blocks;
    TimeSeam(**client, *executable, *input, 2);  // warm-up: builds the plugin's context
    TimeGloo(context, in, out, 2);
    for (int64_t r = 0; r < repetitions; ++r) {
      gloo::barrier(barrier);
      seam_blocks.push_back(TimeSeam(**client, *executable, *input, iterations));
      gloo::barrier(barrier);
      gloo_blocks.push_back(TimeGloo(context, in, out, iterations));
    }
    if (out.front() != static_cast<float>(count)) return 1;
    const Timing seam = MedianBlock(seam_blocks), gloo = MedianBlock(gloo_blocks);
    rows.push_back({bytes, seam.wall_us, gloo.wall_us, seam.cpu_us, gloo.cpu_us});
    (*client)->Destroy(*input);
    (*client)->Destroy(*executable);
  }
  if (index != 0) return 0;
  std::printf(
      "| f32 bytes | seam all_reduce (us) | plain Gloo allreduce (us) | seam / Gloo | "
      "seam GB/s | seam CPU (us) | Gloo CPU (us) |\n|---|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    std::printf("| %lld | %.1f | %.1f | %.3f | %.2f | %.1f | %.1f |\n",
                static_cast<long long>(row.bytes), row.seam_us, row.gloo_us,
                row.seam_us / row.gloo_us, static_cast<double>(row.bytes) / row.seam_us / 1e3,
                row.seam_cpu_us, row.gloo_cpu_us);
  }
  return 0;
}

int Launcher(int argc, char** argv) {
  const std::map<std::string, std::string> flags = ParseFlags(argc, argv, 1);
  const int64_t count = Flag(flags, "processes", 2);
  seam::testing::TempDir store;
  std::vector<std::unique_ptr<seam::testing::WorkerProcess>> workers;
  for (int64_t i = 0; i < count; ++i) {
    std::vector<std::string> args = {"worker", "store=" + store.path(),
                                     "index=" + std::to_string(i)};
    for (int a = 1; a < argc; ++a) args.push_back(argv[a]);
    workers.push_back(std::make_unique<seam::testing::WorkerProcess>("/proc/self/exe", args));
  }
  int failures = 0;
  for (int64_t i = 0; i < count; ++i) {
    const std::optional<int> status = workers[i]->Wait(std::chrono::minutes(30));
    if (i == 0 || status != 0) std::printf("%s", workers[i]->output().c_str());
    failures += status != 0;
  }
  std::printf("(%lld processes, 1 device each, MASTER_ADDR=127.0.0.1)\n",
              static_cast<long long>(count));
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "worker") return Worker(ParseFlags(argc, argv, 2));
  return Launcher(argc, argv);
}
