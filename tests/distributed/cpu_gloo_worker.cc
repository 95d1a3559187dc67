// One process of a multi-process job for the CPU plugin's tests (cpu_gloo_test starts
// several): creates a client through the C ABI with process_index/process_count and a
// key-value store in a directory, runs a scenario and reports on stdout, one line per
// event. Exit status 0 when the scenario went as expected.
//
//   cpu_gloo_worker <scenario> store=DIR index=I count=P [devices=L] [timeout_ms=T] ...
//
// Scenarios:
//   matrix      every all_reduce op x dtype x group layout, small-integer and random values,
//               checked against the host; then every TCP socket of this process must be on
//               `address` (default 127.0.0.1)
//   loop        rounds of an f32 sum of `elements` until one fails (or `rounds` pass); with
//               rejoin=1, one more round after the failure
//   once        one round of the loop's program
//   idle        one round, then sleeps (a peer that stops taking part)
//   fail_local  round 0, then round 1 with device 0 failing before its all_reduce, then
//               round 2
//   bytes       an f32 and a bf16 sum of `elements` over every replica, each checked
//               against the host; prints the bytes each sent (the plugin's counter)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/plugins/cpu/collectives/gloo_collectives.h"
#include "src/testing/file_kv_store.h"
#include "src/testing/pjrt_client.h"
#include "src/testing/process_sockets.h"
#include "src/testing/reduction_cases.h"

namespace seam::testing {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  std::map<std::string, std::string> values;
  int64_t Int(const std::string& key, int64_t fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : std::stoll(it->second);
  }
  std::string Str(const std::string& key, const std::string& fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
};

void Say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

std::string Describe(const absl::Status& status) {
  return std::string(absl::StatusCodeToString(status.code())) + ": " +
         std::string(status.message());
}

// Runs `c` on this process's devices (replicas index*L .. index*L + L-1) with `executable`
// and checks every output. Empty on success.
std::string RunCase(PjrtClient& client, PJRT_LoadedExecutable* executable, const ReductionCase& c,
                    int64_t index) {
  const int64_t local = static_cast<int64_t>(client.devices().size());
  std::vector<PJRT_Buffer*> arguments;
  for (int64_t d = 0; d < local; ++d) {
    const std::vector<uint8_t> input = c.Input(index * local + d);
    absl::StatusOr<PJRT_Buffer*> buffer =
        client.Upload(input.data(), c.BufferType(), {c.elements}, static_cast<size_t>(d));
    if (!buffer.ok()) return c.Name() + ": upload: " + Describe(buffer.status());
    arguments.push_back(*buffer);
  }
  absl::StatusOr<PjrtClient::Launch> launch = client.Execute(executable, arguments);
  for (PJRT_Buffer* argument : arguments) client.Destroy(argument);
  if (!launch.ok()) return c.Name() + ": execute: " + Describe(launch.status());
  std::string problem;
  for (int64_t d = 0; d < local && problem.empty(); ++d) {
    std::vector<uint8_t> got(c.Input(0).size());
    absl::Status status =
        client.Download(launch->outputs[static_cast<size_t>(d)], got.data(), got.size());
    problem = status.ok() ? c.Check(index * local + d, got)
                          : c.Name() + ": download: " + Describe(status);
  }
  client.Destroy(*launch);
  return problem;
}

int Matrix(PjrtClient& client, const Flags& flags) {
  const int64_t index = flags.Int("index", 0), count = flags.Int("count", 1);
  const int64_t devices = static_cast<int64_t>(client.devices().size());
  int cases = 0;
  auto run = [&](ReductionCase c) -> bool {
    absl::StatusOr<PJRT_LoadedExecutable*> executable = client.Compile(c.ProgramText());
    if (!executable.ok()) {
      Say("FAIL " + c.Name() + ": compile: " + Describe(executable.status()));
      return false;
    }
    for (bool random : {false, true}) {
      c.random = random;
      ++c.round;
      const std::string problem = RunCase(client, *executable, c, index);
      ++cases;
      if (!problem.empty()) {
        Say("FAIL " + problem);
        client.Destroy(*executable);
        return false;
      }
    }
    client.Destroy(*executable);
    return true;
  };
  for (const char* op : {"sum", "max", "min"}) {
    for (ir::DType dtype :
         {ir::DType::kF32, ir::DType::kF64, ir::DType::kBF16, ir::DType::kS32, ir::DType::kS64}) {
      for (GroupLayout layout :
           {GroupLayout::kAll, GroupLayout::kReversed, GroupLayout::kPairs, GroupLayout::kLocal}) {
        if (!run({.op = op,
                  .dtype = dtype,
                  .layout = layout,
                  .processes = count,
                  .devices = devices,
                  .elements = 37})) {
          return 1;
        }
      }
    }
  }
  // Large enough for Gloo's ring to cut each process's share into several segments.
  if (!run({.op = "sum",
            .dtype = ir::DType::kF32,
            .layout = GroupLayout::kAll,
            .processes = count,
            .devices = devices,
            .elements = (1 << 20) + 3}) ||
      !run({.op = "max",
            .dtype = ir::DType::kS64,
            .layout = GroupLayout::kPairs,
            .processes = count,
            .devices = devices,
            .elements = 300001})) {
    return 1;
  }
  const std::string address = flags.Str("address", "127.0.0.1");
  const std::vector<TcpSocket> sockets = OwnTcpSockets();
  for (const TcpSocket& socket : sockets) {
    if (socket.local_address != address) {
      Say("FAIL a TCP socket is on " + socket.local_address + ", expected " + address);
      return 1;
    }
  }
  Say("sockets " + std::to_string(sockets.size()) + " all on " + address);
  Say("matrix ok " + std::to_string(cases) + " cases");
  return 0;
}

// One f32 and one bf16 sum over every replica: what each sent, by the plugin's counter.
int Bytes(PjrtClient& client, const Flags& flags) {
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kBF16}) {
    ReductionCase c{.op = "sum",
                    .dtype = dtype,
                    .processes = flags.Int("count", 1),
                    .devices = static_cast<int64_t>(client.devices().size()),
                    .elements = flags.Int("elements", 100003),
                    .random = true};
    absl::StatusOr<PJRT_LoadedExecutable*> executable = client.Compile(c.ProgramText());
    if (!executable.ok()) {
      Say("FAIL " + c.Name() + ": compile: " + Describe(executable.status()));
      return 1;
    }
    const int64_t before = cpu::GlooBytesSent();
    const std::string problem = RunCase(client, *executable, c, flags.Int("index", 0));
    const int64_t sent = cpu::GlooBytesSent() - before;
    client.Destroy(*executable);
    if (!problem.empty()) {
      Say("FAIL " + problem);
      return 1;
    }
    Say("bytes " + std::string(ir::DTypeName(dtype)) + " " + std::to_string(sent));
  }
  return 0;
}

// The loop scenarios' program: an f32 sum over every replica; replica r contributes r + 1.
struct LoopRound {
  PjrtClient& client;
  PJRT_LoadedExecutable* executable;
  int64_t elements, index, replicas;

  // OK with the expected values, or the failure (also checked on the outputs' events).
  absl::Status Run() {
    const int64_t local = static_cast<int64_t>(client.devices().size());
    std::vector<PJRT_Buffer*> arguments;
    for (int64_t d = 0; d < local; ++d) {
      std::vector<float> input(static_cast<size_t>(elements),
                               static_cast<float>(index * local + d + 1));
      absl::StatusOr<PJRT_Buffer*> buffer =
          client.Upload(input.data(), PJRT_Buffer_Type_F32, {elements}, static_cast<size_t>(d));
      if (!buffer.ok()) return buffer.status();
      arguments.push_back(*buffer);
    }
    absl::StatusOr<PjrtClient::Launch> launch = client.Execute(executable, arguments);
    for (PJRT_Buffer* argument : arguments) client.Destroy(argument);
    if (!launch.ok()) return launch.status();
    absl::Status done = client.Await(launch->done[0]);
    if (!done.ok()) {
      Say("event: " + Describe(done));
      Say("buffer: " + Describe(client.ReadyStatus(launch->outputs[0])));
      std::vector<float> out(static_cast<size_t>(elements));
      Say("download: " + Describe(client.Download(launch->outputs[0], out.data(), out.size() * 4)));
      client.Destroy(*launch);
      return done;
    }
    std::vector<float> out(static_cast<size_t>(elements));
    absl::Status status = client.Download(launch->outputs[0], out.data(), out.size() * 4);
    client.Destroy(*launch);
    const auto want = static_cast<float>(replicas * (replicas + 1) / 2);
    if (status.ok() && (out.front() != want || out.back() != want)) {
      status = absl::InternalError("got " + std::to_string(out.front()) + ", want " +
                                   std::to_string(want));
    }
    return status;
  }
};

int Loop(PjrtClient& client, const Flags& flags, const std::string& scenario) {
  const int64_t index = flags.Int("index", 0);
  const int64_t replicas = flags.Int("count", 1) * static_cast<int64_t>(client.devices().size());
  const int64_t elements = flags.Int("elements", 1024);
  ReductionCase c{.op = "sum",
                  .processes = flags.Int("count", 1),
                  .devices = static_cast<int64_t>(client.devices().size()),
                  .elements = elements};
  absl::StatusOr<PJRT_LoadedExecutable*> executable = client.Compile(c.ProgramText());
  if (!executable.ok()) {
    Say("FAIL compile: " + Describe(executable.status()));
    return 1;
  }
  LoopRound round{client, *executable, elements, index, replicas};
  const int64_t rounds = scenario == "loop" ? flags.Int("rounds", 1000000) : 1;
  std::unique_ptr<cpu::testing::RunFailure> injected;
  for (int64_t k = 0; k < rounds || (scenario == "fail_local" && k < 3); ++k) {
    if (scenario == "fail_local" && k == 1) {
      injected = std::make_unique<cpu::testing::RunFailure>(
          0, absl::DataLossError("injected failure on device 0"));
    }
    const Clock::time_point start = Clock::now();
    absl::Status status = round.Run();
    injected.reset();
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    if (status.ok()) {
      Say("round " + std::to_string(k) + " ok");
      continue;
    }
    Say("failed round " + std::to_string(k) + " after " + std::to_string(ms) +
        " ms: " + Describe(status));
    if (scenario == "fail_local") continue;
    if (flags.Int("rejoin", 0) == 0) return 0;
    absl::Status again = round.Run();
    Say(again.ok() ? "rejoined ok" : "rejoin failed: " + Describe(again));
    return again.ok() ? 0 : 1;
  }
  if (scenario == "idle") {
    Say("idling");
    std::this_thread::sleep_for(std::chrono::seconds(flags.Int("idle_s", 60)));
  }
  client.Destroy(*executable);
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    Say("usage: cpu_gloo_worker <scenario> key=value...");
    return 2;
  }
  const std::string scenario = argv[1];
  Flags flags;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) flags.values[arg.substr(0, eq)] = arg.substr(eq + 1);
  }
  FileKvStore store(flags.Str("store", "."));
  std::vector<IntOption> options = {{"cpu_device_count", flags.Int("devices", 1)},
                                    {"process_index", flags.Int("index", 0)},
                                    {"process_count", flags.Int("count", 1)}};
  if (flags.values.count("timeout_ms") > 0) {
    options.push_back({"collective_timeout_ms", flags.Int("timeout_ms", 0)});
  }
  absl::StatusOr<std::unique_ptr<PjrtClient>> client =
      PjrtClient::Create(cpu::GetCpuPjrtApi(), options, &store);
  if (!client.ok()) {
    Say("FAIL client: " + Describe(client.status()));
    return 1;
  }
  if (scenario == "matrix") return Matrix(**client, flags);
  if (scenario == "bytes") return Bytes(**client, flags);
  if (scenario == "loop" || scenario == "once" || scenario == "idle" || scenario == "fail_local") {
    return Loop(**client, flags, scenario);
  }
  Say("FAIL unknown scenario " + scenario);
  return 2;
}

}  // namespace
}  // namespace seam::testing

int main(int argc, char** argv) { return seam::testing::Main(argc, argv); }
