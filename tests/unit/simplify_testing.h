// Helpers for the simplification tests: run a program on the CPU plugin's kernels with and
// without the passes and compare the results byte for byte.
#ifndef SEAM_TESTS_UNIT_SIMPLIFY_TESTING_H_
#define SEAM_TESTS_UNIT_SIMPLIFY_TESTING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/ir/program.h"

namespace seam::cpu::testing {

// Parses (and verifies) `text`; fails the test on an error.
ir::Program Parse(const std::string& text);

// Runs `program` one instruction at a time with the plugin's kernels, no passes applied.
std::vector<ir::Literal> RunWithKernels(const ir::Program& program,
                                        const std::vector<ir::Literal>& arguments);

// Compiles `program`'s text with Executable::Compile (which simplifies) and runs it.
std::vector<ir::Literal> RunCompiled(const ir::Program& program,
                                     const std::vector<ir::Literal>& arguments);

// Seeded random arguments for every parameter, mixed with the dtype's special values
// (+-0, +-inf, NaN, 1, -1, integer limits; pred bytes 0, 1 and 2).
std::vector<ir::Literal> RandomArguments(const ir::Program& program, uint64_t seed);

// "" when equal byte for byte, else which result and element differ.
std::string CompareResults(const std::vector<ir::Literal>& want,
                           const std::vector<ir::Literal>& got);

// Checks, for several seeded argument sets, that `simplified` gives the same bytes as
// `original` on the kernels, and that the compiled original (Executable::Compile runs the
// passes) does too. Reports failures through gtest.
void ExpectSameResults(const ir::Program& original, const ir::Program& simplified,
                       int argument_sets = 4);

}  // namespace seam::cpu::testing

#endif  // SEAM_TESTS_UNIT_SIMPLIFY_TESTING_H_
