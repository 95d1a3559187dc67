// The CPU compiler's simplification passes: verified IR in, equivalent verified IR out
// (docs/ir.md, "Compiler passes"). Runs between verification and the later stages
// (fusion, buffer assignment, kernels) of Executable::Compile.
#ifndef SEAM_PLUGINS_CPU_SIMPLIFY_H_
#define SEAM_PLUGINS_CPU_SIMPLIFY_H_

#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/compile/simplify_options.h"

namespace seam::cpu {

// Returns `program` simplified. The parameters (indices, shapes), the result tuple (order
// and shapes), the input/output aliases, the replica count and the name are unchanged, and
// every result has the same bytes as `program` would give on the plugin's kernels. The
// output is checked with ir::VerifyProgram; a failure there is an Internal error (a bug in
// a pass), never a crash. `program` must be verified.
absl::StatusOr<ir::Program> Simplify(const ir::Program& program,
                                     const SimplifyOptions& options = {});

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_SIMPLIFY_H_
