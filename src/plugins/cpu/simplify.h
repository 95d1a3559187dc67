// The CPU compiler's simplification passes: verified IR in, equivalent verified IR out
// (docs/ir.md, "Compiler passes"). Runs between verification and the later stages
// (fusion, buffer assignment, kernels) of Executable::Compile.
#ifndef SEAM_PLUGINS_CPU_SIMPLIFY_H_
#define SEAM_PLUGINS_CPU_SIMPLIFY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "src/ir/program.h"

namespace seam::cpu {

// Which passes run. Every combination is valid; tests switch single passes on.
struct SimplifyOptions {
  // Rewrites such as x*1 -> x, neg(neg(x)) -> x, reshape to the same shape -> x, and
  // elementwise ops over equal broadcasts computed before the broadcast.
  bool identities = true;
  // Instructions whose operands are all constants become constants, computed by the
  // plugin's own kernels, when the result has at most max_fold_elements elements.
  bool fold_constants = true;
  int64_t max_fold_elements = 65536;
  // Instructions equal in op, operands, attributes, shape and value share one instruction.
  bool common_subexpressions = true;
  // Instructions that no result depends on are removed (parameters always stay).
  bool dead_code = true;
};

// Returns `program` simplified. The parameters (indices, shapes), the result tuple (order
// and shapes), the input/output aliases, the replica count and the name are unchanged, and
// every result has the same bytes as `program` would give on the plugin's kernels. The
// output is checked with ir::VerifyProgram; a failure there is an Internal error (a bug in
// a pass), never a crash. `program` must be verified.
absl::StatusOr<ir::Program> Simplify(const ir::Program& program,
                                     const SimplifyOptions& options = {});

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_SIMPLIFY_H_
