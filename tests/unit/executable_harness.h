// Shared set-up of the CPU compiler's tests: compile program text straight into an
// Executable (no client, no ABI), copy literals into device memory, run and copy back.
#ifndef SEAM_TESTS_UNIT_EXECUTABLE_HARNESS_H_
#define SEAM_TESTS_UNIT_EXECUTABLE_HARNESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/ir/shape.h"
#include "src/plugins/cpu/compile/executable.h"

namespace seam::cpu::harness {

// The compiled program, or null after a failed expectation that prints the status and text.
std::shared_ptr<const Executable> CompileOrDie(const std::string& text, bool fuse);

// One freshly allocated device block per literal, holding its bytes.
std::vector<std::shared_ptr<DeviceMemory>> ToDevice(const std::vector<ir::Literal>& args);

// Runs the executable on copies of args; the results as literals of its result shapes
// (empty after a failed expectation).
std::vector<ir::Literal> RunProgram(const Executable& executable,
                                    const std::vector<ir::Literal>& args);

// The results' bytes alone, for bit-for-bit comparisons of two plans of one program.
std::vector<std::vector<uint8_t>> RunBytes(const Executable& executable,
                                           const std::vector<ir::Literal>& args);

// f32 values drawn uniformly from [-1, 1) (std::mt19937 seeded with `seed`).
ir::Literal RandomF32(const ir::Shape& shape, unsigned seed);

// RandomF32 for each parameter of the program text, seeds 1, 2, ... (empty if it does not
// parse).
std::vector<ir::Literal> RandomF32Arguments(const std::string& text);

}  // namespace seam::cpu::harness

#endif  // SEAM_TESTS_UNIT_EXECUTABLE_HARNESS_H_
