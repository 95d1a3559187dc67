// libFuzzer target: any bytes as StableHLO text (src/stablehlo/read.h). Built and run like
// ir_compile_fuzzer (SEAM_FUZZ=ON; `make test-fuzz`), seeded with the hand-written modules
// of tests/stablehlo and the emitter's smallest program of each op (tests/fuzz/stablehlo_corpus,
// docs/stablehlo.md). Nothing may crash, leak or
// trip a sanitizer; every input is either a program that verifies or an INVALID_ARGUMENT
// error that starts with "line L, column C: ".
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/ir/verifier.h"
#include "src/stablehlo/read.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<seam::ir::Program> program = seam::stablehlo::ReadStableHlo(text);
  if (!program.ok()) {
    if (program.status().code() != absl::StatusCode::kInvalidArgument) __builtin_trap();
    if (program.status().message().substr(0, 5) != "line ") __builtin_trap();
    return 0;
  }
  if (!seam::ir::VerifyProgram(*program).ok()) __builtin_trap();
  return 0;
}
