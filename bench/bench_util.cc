#include "bench/bench_util.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "src/ir/text.h"
#include "src/runtime/pjrt_api.h"
#include "src/runtime/pjrt_computation_client.h"

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
  // Reading one element back would add a copy of the whole output; spinning on readiness
  // measures the run itself.
  for (const auto& output : *outputs) {
    while (!output->IsReady()) std::this_thread::yield();  // leave the core to the worker
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
