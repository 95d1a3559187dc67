// The reference evaluator: a slow interpreter of the IR written to be obviously correct
// rather than fast. Each op is computed element by element from its definition in
// docs/ir.md: float dtypes in double precision with every result rounded to its dtype,
// integers exactly with two's complement wrapping, pred as 0/1. It shares no code with any
// plugin; the conformance tests hold plugins to it.
#ifndef SEAM_IR_REFERENCE_EVALUATOR_H_
#define SEAM_IR_REFERENCE_EVALUATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/program.h"

namespace seam::ir {

// Runs all replicas of `program` in lockstep, so that all_reduce sees every replica's
// operand. arguments[r][i] is parameter i of replica r; there must be
// program.replica_count replicas with the parameter shapes. Returns results[r][k], result
// k of replica r. Errors: the program does not verify, or the arguments do not fit it.
absl::StatusOr<std::vector<std::vector<Literal>>> EvaluateReplicated(
    const Program& program, const std::vector<std::vector<Literal>>& arguments);

// A program with replicas=1.
absl::StatusOr<std::vector<Literal>> Evaluate(const Program& program,
                                              const std::vector<Literal>& arguments);

}  // namespace seam::ir

#endif  // SEAM_IR_REFERENCE_EVALUATOR_H_
