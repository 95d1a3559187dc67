// The StableHLO emitter's cost (issue 34): lowering the medium MLP training step's program
// (784-512-512-10, batch 256: forward, cross-entropy, backward and the SGD update in one
// program) to StableHLO text, against printing the same program as seam's IR, the text the
// seam-IR path sends. The program is the one the front end builds: one step runs with
// SEAM_DUMP_TO set, and the CPU plugin's dump of the program it received is read back.
// BM_CompileMediumMlpStep compiles that program through the process's client, in the format
// SEAM_PROGRAM_FORMAT chooses: run it once with =seam and once with =stablehlo (emit, read
// back by the CPU plugin, then the same compile) to compare the two paths' compile cost.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/bench_util.h"
#include "bench/mlp_shapes.h"
#include "bench/mlp_step.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/ir/text.h"
#include "src/stablehlo/emit.h"
#include "src/stablehlo/read.h"

namespace seam::bench {
namespace {

// The largest program one medium MLP step compiles (the step itself; the set-up's small
// programs are smaller), as the CPU plugin received it.
const ir::Program& MediumMlpStepProgram() {
  static const ir::Program program = [] {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "seam_stablehlo_emit_bench";
    std::filesystem::remove_all(dir);
    setenv("PJRT_DEVICE", "CPU", /*overwrite=*/0);
    setenv("SEAM_DUMP_TO", dir.c_str(), /*overwrite=*/1);
    MlpStepSetUp s(MlpShapes()[2]);
    Tensor loss = nn::cross_entropy(s.model.forward(s.x), s.y);
    s.sgd.step(loss);
    sync();
    unsetenv("SEAM_DUMP_TO");
    std::string largest;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().string().ends_with(".received.txt")) {
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        if (text.str().size() > largest.size()) largest = text.str();
      }
    }
    std::filesystem::remove_all(dir);
    // With SEAM_PROGRAM_FORMAT=stablehlo the plugin received (and dumped) StableHLO text.
    absl::StatusOr<ir::Program> parsed = largest.starts_with("module")
                                             ? stablehlo::ReadStableHlo(largest)
                                             : ir::ParseProgram(largest);
    return parsed.ok() ? *parsed : ir::Program();
  }();
  return program;
}

void BM_EmitStableHloMediumMlpStep(benchmark::State& state) {
  const ir::Program& program = MediumMlpStepProgram();
  size_t bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<std::string> text = stablehlo::EmitStableHlo(program);
    if (!text.ok()) {
      state.SkipWithError(std::string(text.status().message()).c_str());
      return;
    }
    bytes = text->size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["instructions"] = static_cast<double>(program.instructions.size());
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_EmitStableHloMediumMlpStep)->Unit(benchmark::kMicrosecond);

// What the seam-IR path does in its place: print the program as seam's IR text.
void BM_PrintSeamIrMediumMlpStep(benchmark::State& state) {
  const ir::Program& program = MediumMlpStepProgram();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = ir::PrintProgram(program);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["instructions"] = static_cast<double>(program.instructions.size());
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_PrintSeamIrMediumMlpStep)->Unit(benchmark::kMicrosecond);

// The CPU plugin's side of the StableHLO path: reading the emitted text back into seam's IR.
void BM_ReadStableHloMediumMlpStep(benchmark::State& state) {
  absl::StatusOr<std::string> text = stablehlo::EmitStableHlo(MediumMlpStepProgram());
  if (!text.ok()) {
    state.SkipWithError(std::string(text.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<ir::Program> program = stablehlo::ReadStableHlo(*text);
    if (!program.ok()) {
      state.SkipWithError(std::string(program.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(program);
  }
}
BENCHMARK(BM_ReadStableHloMediumMlpStep)->Unit(benchmark::kMicrosecond);

// What the seam-IR path does in its place: parse seam's IR text.
void BM_ParseSeamIrMediumMlpStep(benchmark::State& state) {
  const std::string text = ir::PrintProgram(MediumMlpStepProgram());
  for (auto _ : state) {
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    benchmark::DoNotOptimize(program);
  }
}
BENCHMARK(BM_ParseSeamIrMediumMlpStep)->Unit(benchmark::kMicrosecond);

// The whole compile crossing of that program (no compile cache: each iteration compiles).
void BM_CompileMediumMlpStep(benchmark::State& state) {
  const ir::Program& program = MediumMlpStepProgram();
  for (auto _ : state) {
    auto compiled = Client().Compile({{program, Client().GetDefaultDevice()}});
    if (!compiled.ok()) {
      state.SkipWithError(std::string(compiled.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(compiled);
  }
  const char* format = std::getenv("SEAM_PROGRAM_FORMAT");
  state.SetLabel(format == nullptr ? "auto" : format);
}
BENCHMARK(BM_CompileMediumMlpStep)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace seam::bench
