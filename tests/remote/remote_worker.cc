// A client process for remote_failure_test: connects as SEAM_REMOTE_ADDRESS says, uploads
// 4 MiB, then runs steps on it until killed (at most 120 s). Prints "ready" after its first
// step's result is read.
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "src/ir/text.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "src/testing/remote_fixture.h"

int main() {
  using seam::runtime::ComputationClient;
  auto options =
      seam::runtime::ReadRemoteClientOptions([](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        return value == nullptr ? std::nullopt : std::optional<std::string>(value);
      });
  if (!options.ok()) {
    std::cerr << options.status() << "\n";
    return 1;
  }
  auto client = seam::runtime::RemoteComputationClient::Connect(*options);
  if (!client.ok()) {
    std::cerr << client.status() << "\n";
    return 1;
  }
  constexpr int kN = 1 << 20;
  seam::ir::Literal input = seam::ir::Literal::FromF32(std::vector<float>(kN, 1.0f), {kN});
  auto uploaded = (*client)->TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
  auto program = seam::ir::ParseProgram(seam::testing::ScaleAndSumProgram(kN));
  if (!uploaded.ok() || !program.ok()) return 1;
  auto compiled = (*client)->Compile({{*std::move(program), "CPU:0", false}});
  if (!compiled.ok()) return 1;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool announced = false;
  std::vector<ComputationClient::DataPtr> previous;
  while (std::chrono::steady_clock::now() < end) {
    auto outputs = (*client)->ExecuteComputation(*(*compiled)[0], *uploaded, "CPU:0", {});
    if (!outputs.ok()) {
      std::cerr << outputs.status() << "\n";
      return 1;
    }
    previous = *outputs;  // one step's outputs stay alive on the server
    if (!announced) {
      if (!(*client)->TransferFromDevice({(*outputs)[1]}).ok()) return 1;
      std::cout << "ready" << std::endl;
      announced = true;
    }
  }
  return 0;
}
