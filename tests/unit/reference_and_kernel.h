// Runs a one-op program on the IR's reference evaluator and its op on the CPU plugin's
// kernel, for the unit tests of ops that check both against values worked out by hand.
#ifndef SEAM_TESTS_UNIT_REFERENCE_AND_KERNEL_H_
#define SEAM_TESTS_UNIT_REFERENCE_AND_KERNEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::ir {

// The program `body` (its instructions and return) on the reference evaluator, and its
// result instruction on the CPU kernel (the output pre-filled with 0xAB, so unwritten bytes
// show): {reference result, kernel result}, or {} after a test failure.
inline std::vector<Literal> Both(const std::string& body, const std::vector<Literal>& args) {
  absl::StatusOr<Program> program = ParseProgram("program @t {\n" + body + "\n}\n");
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  absl::StatusOr<std::vector<Literal>> reference = Evaluate(*program, args);
  EXPECT_TRUE(reference.ok()) << reference.status();
  if (!reference.ok()) return {};
  const Instruction& op = program->instructions[program->results[0]];
  std::vector<const uint8_t*> in;
  for (int k : op.operands)
    in.push_back(args[program->instructions[k].parameter_index].bytes.data());
  Literal out;
  out.shape = op.shape;
  out.bytes.assign(op.shape.byte_size(), 0xAB);
  cpu::RunKernel(
      op, [&](size_t k) -> const Shape& { return program->instructions[op.operands[k]].shape; }, in,
      out.bytes.data());
  return {(*reference)[0], out};
}

// Both results must equal `expected`.
inline void ExpectBoth(const std::string& body, const std::vector<Literal>& args,
                       const Literal& expected) {
  std::vector<Literal> r = Both(body, args);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], expected) << "reference evaluator: " << body;
  EXPECT_EQ(r[1], expected) << "CPU kernel: " << body;
}

}  // namespace seam::ir

#endif  // SEAM_TESTS_UNIT_REFERENCE_AND_KERNEL_H_
