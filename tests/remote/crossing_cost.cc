// remote_crossing_cost: what each crossing of the seam costs with the client the
// environment selects (SEAM_CLIENT=remote against a `seam serve`, or PJRT_DEVICE=CPU in
// process), for docs/remote.md's "Cost" table. Not a test: it prints figures.
//   tiny step: f32[16] up, a 16-element program run, its sum read back
//   transfers: 64 MiB up and down
#include <chrono>
#include <cstdio>
#include <vector>

#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/runtime.h"
#include "src/testing/remote_fixture.h"

namespace {

using seam::runtime::ComputationClient;
using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start, int count) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / count;
}

int Run() {
  auto client = seam::runtime::CreateClientFromEnvironment(nullptr);
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", std::string(client.status().message()).c_str());
    return 1;
  }
  ComputationClient& c = **client;
  constexpr int kSmall = 16;
  seam::ir::Literal small = seam::ir::Literal::FromF32(std::vector<float>(kSmall, 1.0f), {kSmall});
  auto program = seam::ir::ParseProgram(seam::testing::ScaleAndSumProgram(kSmall));
  if (!program.ok()) return 1;

  constexpr int kCompiles = 20;
  auto start = Clock::now();
  ComputationClient::ComputationPtr computation;
  for (int i = 0; i < kCompiles; ++i) computation = (*c.Compile({{*program, "CPU:0", false}}))[0];
  std::printf("compile (16-element program)   %10.1f us\n", MicrosSince(start, kCompiles));

  constexpr int kRounds = 2000;
  start = Clock::now();
  for (int i = 0; i < kRounds; ++i) {
    (void)c.TransferToDevice({{small.shape, small.bytes.data(), "CPU:0"}});
  }
  std::printf("TransferToDevice f32[16]       %10.1f us\n", MicrosSince(start, kRounds));
  auto input = *c.TransferToDevice({{small.shape, small.bytes.data(), "CPU:0"}});
  start = Clock::now();
  for (int i = 0; i < kRounds; ++i) (void)c.ExecuteComputation(*computation, input, "CPU:0", {});
  std::printf("ExecuteComputation (launch)    %10.1f us\n", MicrosSince(start, kRounds));
  start = Clock::now();
  for (int i = 0; i < kRounds; ++i) {
    auto outputs = *c.ExecuteComputation(*computation, input, "CPU:0", {});
    (void)outputs[1]->AwaitReady();
  }
  std::printf("launch + AwaitReady            %10.1f us\n", MicrosSince(start, kRounds));
  auto outputs = *c.ExecuteComputation(*computation, input, "CPU:0", {});
  start = Clock::now();
  for (int i = 0; i < kRounds; ++i) (void)c.TransferFromDevice({outputs[1]});
  std::printf("TransferFromDevice f32[]       %10.1f us\n", MicrosSince(start, kRounds));
  start = Clock::now();
  for (int i = 0; i < kRounds; ++i) {
    auto up = *c.TransferToDevice({{small.shape, small.bytes.data(), "CPU:0"}});
    auto out = *c.ExecuteComputation(*computation, up, "CPU:0", {});
    (void)c.TransferFromDevice({out[1]});
  }
  std::printf("tiny step (up, run, read)      %10.1f us\n", MicrosSince(start, kRounds));

  constexpr int64_t kBig = int64_t{16} << 20;  // 16 Mi floats: 64 MiB
  seam::ir::Literal big;
  big.shape = {seam::ir::DType::kF32, {kBig}};
  big.bytes.assign(static_cast<size_t>(kBig) * 4, 1);
  constexpr int kBigRounds = 3;
  start = Clock::now();
  std::vector<ComputationClient::DataPtr> big_data;
  for (int i = 0; i < kBigRounds; ++i) {
    big_data = *c.TransferToDevice({{big.shape, big.bytes.data(), "CPU:0"}});
  }
  const double up_us = MicrosSince(start, kBigRounds);
  start = Clock::now();
  for (int i = 0; i < kBigRounds; ++i) (void)c.TransferFromDevice(big_data);
  const double down_us = MicrosSince(start, kBigRounds);
  std::printf("64 MiB up                      %10.1f MiB/s\n", 64.0 / (up_us / 1e6));
  std::printf("64 MiB down                    %10.1f MiB/s\n", 64.0 / (down_us / 1e6));
  return 0;
}

}  // namespace

int main() { return Run(); }
