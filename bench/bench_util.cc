#include "bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"

namespace seam::bench {
namespace {

[[noreturn]] void Die(const absl::Status& status) {
  std::fprintf(stderr, "benchmark set-up failed: %s\n", std::string(status.message()).c_str());
  std::exit(1);
}

}  // namespace

runtime::ComputationClient& Client() {
  static runtime::ComputationClient* client = [] {
    auto created = runtime::PjrtComputationClient::Create(runtime::GetInProcessCpuPjrtApi());
    if (!created.ok()) Die(created.status());
    return created->release();
  }();
  return *client;
}

runtime::ComputationClient::ComputationPtr CompileText(const std::string& text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  if (!program.ok()) Die(program.status());
  auto compiled = Client().Compile({{*program, Client().GetDefaultDevice()}});
  if (!compiled.ok()) Die(compiled.status());
  return compiled->front();
}

std::vector<runtime::ComputationClient::DataPtr> Upload(const std::vector<ir::Literal>& literals) {
  std::vector<runtime::ComputationClient::TensorSource> sources;
  for (const ir::Literal& l : literals) {
    sources.push_back({l.shape, l.bytes.data(), Client().GetDefaultDevice()});
  }
  auto data = Client().TransferToDevice(sources);
  if (!data.ok()) Die(data.status());
  return *data;
}

void RunAndWait(const runtime::ComputationClient::Computation& computation,
                const std::vector<runtime::ComputationClient::DataPtr>& arguments) {
  auto outputs =
      Client().ExecuteComputation(computation, arguments, Client().GetDefaultDevice(), {});
  if (!outputs.ok()) Die(outputs.status());
  // Reading one element back would add a copy of the whole output; awaiting readiness
  // measures the run itself. The wait blocks rather than polls, so that this thread does not
  // take a core from the plugin's worker and kernel threads (the machine has two).
  for (const auto& output : *outputs) {
    absl::Status status = output->AwaitReady();
    if (!status.ok()) Die(status);
  }
}

std::vector<float> RandomFloats(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

}  // namespace seam::bench
