// Compiling programs through the seam (parse, verify, simplify, plan): a 200-instruction
// program, and long fusible chains (issue 14: compile time must grow about linearly with
// the chain's length).
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

// One chain of `length` adds, each reading the previous one and the parameter:
// %a_i = add(%a_{i-1}, %x). Every add joins the one fusion group of the chain.
std::string LongChain(int64_t length) {
  std::string text = "program @chain {\n  %0 = parameter(0) : f32[16]\n";
  for (int64_t i = 1; i <= length; ++i) {
    absl::StrAppend(&text, "  %", i, " = add(%", i - 1, ", %0) : f32[16]\n");
  }
  absl::StrAppend(&text, "  return (%", length, ")\n}\n");
  return text;
}

void CompileEach(benchmark::State& state, const std::string& text) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  if (!program.ok()) {
    state.SkipWithError(std::string(program.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    auto compiled = Client().Compile({{*program, Client().GetDefaultDevice()}});
    benchmark::DoNotOptimize(compiled);
  }
  state.counters["instructions"] = static_cast<double>(program->instructions.size());
}

void BM_CompileLongChain(benchmark::State& state) { CompileEach(state, LongChain(state.range(0))); }
// One iteration each: the longest ones take seconds.
BENCHMARK(BM_CompileLongChain)
    ->Arg(10000)
    ->Arg(40000)
    ->Arg(100000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace seam::bench
