// The StableHLO emitter: lowers a seam::ir::Program to the StableHLO text (MLIR, PJRT
// program format "mlir") that plugins without seam's IR compile. docs/stablehlo.md is the
// contract: the module, the op-by-op lowering, constants as hex bit patterns, donation as
// tf.aliasing_output, the bodies of argmax/argmin, argsort and cumsum, scatter's clamp.
// The text uses only the stablehlo dialect (and chlo.erf), in MLIR's generic op form;
// never custom_call, never seam's IR.
#ifndef SEAM_STABLEHLO_EMIT_H_
#define SEAM_STABLEHLO_EMIT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/stablehlo/emit_options.h"

namespace seam::stablehlo {

// The StableHLO version whose specification (openxla/stablehlo docs/spec.md and
// StablehloOps.td) the emitted text was written against (docs/ir.md, "Lowering to
// StableHLO").
inline constexpr char kEmitterStableHloVersion[] = "1.20.0";

// "highest" or "tf32" (SEAM_MATMUL_PRECISION's values, read by the runtime); anything else
// is InvalidArgument naming the value and the allowed ones.
absl::StatusOr<MatmulPrecision> ParseMatmulPrecision(std::string_view value);
std::string_view MatmulPrecisionName(MatmulPrecision precision);  // "highest", "tf32"

// The module for `program`: `module @<name> attributes {mhlo.num_partitions = 1 : i32,
// mhlo.num_replicas = R : i32}` with one `func.func public @main`. The program is verified
// first (ir::VerifyProgram); a program that does not verify is that error. Every op of
// ops.def lowers, so a verified program never fails otherwise.
absl::StatusOr<std::string> EmitStableHlo(const ir::Program& program,
                                          const EmitOptions& options = {});

// The StableHLO (or CHLO) op a row of ops.def names in its lowering column:
// "stablehlo.negate", "chlo.erf", "stablehlo.reduce", ... ("%arg" for parameter).
std::string_view StableHloOpName(ir::Op op);

}  // namespace seam::stablehlo

#endif  // SEAM_STABLEHLO_EMIT_H_
