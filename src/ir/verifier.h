// Structural checks on a whole program.
#ifndef SEAM_IR_VERIFIER_H_
#define SEAM_IR_VERIFIER_H_

#include "absl/status/status.h"
#include "src/ir/program.h"

namespace seam::ir {

// InvalidArgument naming the instruction ("%3 (add): ...") when: an operand index is not an
// earlier instruction, the operand count differs from the op's arity, an operand's dtype is
// not one the op computes on, the declared shape differs from the inferred one, an
// all_reduce's groups do not cover exactly the program's replicas, parameter indices are
// not exactly 0..n-1 once each, the result tuple is empty or names a missing instruction,
// or replica_count < 1.
absl::Status VerifyProgram(const Program& program);

// As above; on an error about one instruction also stores its index in *bad_instruction
// (else -1), so that callers such as the text parser can point at its source line.
absl::Status VerifyProgram(const Program& program, int* bad_instruction);

// The input/output aliases alone (VerifyProgram calls it last): each names an existing
// output and parameter of equal shape and dtype, and no output or parameter is aliased
// twice. Messages start with the alias ("alias output 0 = parameter 3: ..."); on an error
// *bad_alias is its index in program.aliases (else -1).
absl::Status VerifyAliases(const Program& program, int* bad_alias);

}  // namespace seam::ir

#endif  // SEAM_IR_VERIFIER_H_
