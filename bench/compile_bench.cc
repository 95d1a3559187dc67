// Compiling a 200-instruction program (parse, verify, plan) through the seam.
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "src/ir/text.h"

namespace seam::bench {
namespace {

std::string Program200() {
  std::string text = "program @p200 {\n  %0 = parameter(0) : f32[64,64]\n";
  for (int i = 1; i < 200; ++i) {
    const char* op = i % 4 == 0 ? "dot_general" : (i % 3 == 0 ? "multiply" : "add");
    if (i % 4 == 0) {
      absl::StrAppend(&text, "  %", i, " = dot_general(%", i - 1, ", %", i - 1,
                      "), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} "
                      ": f32[64,64]\n");
    } else {
      absl::StrAppend(&text, "  %", i, " = ", op, "(%", i - 1, ", %", i / 2, ") : f32[64,64]\n");
    }
  }
  absl::StrAppend(&text, "  return (%199)\n}\n");
  return text;
}

void BM_Compile200Instructions(benchmark::State& state) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(Program200());
  if (!program.ok()) {
    state.SkipWithError(std::string(program.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    auto compiled = Client().Compile({{*program, Client().GetDefaultDevice()}});
    benchmark::DoNotOptimize(compiled);
  }
}

BENCHMARK(BM_Compile200Instructions)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace seam::bench
