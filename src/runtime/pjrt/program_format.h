// Which program format a plugin is sent (docs/stablehlo.md): seam's IR (PJRT format
// "seam-ir") to a plugin that announces the attribute seam_ir_version, StableHLO text
// (format "mlir") to every other; SEAM_PROGRAM_FORMAT=auto|stablehlo|seam overrides, and
// SEAM_MATMUL_PRECISION=highest|tf32 sets the precision of f32 products in the StableHLO.
#ifndef SEAM_RUNTIME_PJRT_PROGRAM_FORMAT_H_
#define SEAM_RUNTIME_PJRT_PROGRAM_FORMAT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "src/ir/program.h"
#include "src/runtime/pjrt/plugin.h"
#include "src/stablehlo/emit.h"

namespace seam::runtime {

inline constexpr char kProgramFormatEnv[] = "SEAM_PROGRAM_FORMAT";
inline constexpr char kMatmulPrecisionEnv[] = "SEAM_MATMUL_PRECISION";

enum class ProgramFormat { kSeamIr, kStableHlo };

struct ProgramFormatChoice {
  ProgramFormat format = ProgramFormat::kSeamIr;
  std::string reason;  // why: "the plugin announces seam_ir_version", "SEAM_PROGRAM_FORMAT=..."
  stablehlo::EmitOptions emit;  // for kStableHlo
};

// The PJRT program format string: "seam-ir" or "mlir".
const char* PjrtFormatName(ProgramFormat format);

// The choice for a plugin with `attributes`, named `plugin` in messages. `requested` is
// SEAM_PROGRAM_FORMAT's value (unset or empty: auto), `precision` SEAM_MATMUL_PRECISION's
// (unset or empty: highest). A value outside the allowed ones, or `seam` for a plugin that
// does not announce seam_ir_version, is InvalidArgument naming the variable, the value and
// what is allowed (or the plugin).
absl::StatusOr<ProgramFormatChoice> ChooseProgramFormat(
    const PluginOptions& attributes, const std::string& plugin,
    const std::optional<std::string>& requested, const std::optional<std::string>& precision);

// The same, reading both variables from the environment.
absl::StatusOr<ProgramFormatChoice> ChooseProgramFormatFromEnvironment(
    const PluginOptions& attributes, const std::string& plugin);

// The text Compile sends for `program` in the chosen format: ir::PrintProgram, or
// stablehlo::EmitStableHlo with the choice's options. With SEAM_DUMP_TO=<dir> set, the
// StableHLO text is also written to <dir>/<hash>.stablehlo.mlir (<hash>: ir::HashProgram in
// 16 hex digits, the name the CPU plugin gives its dumps of the same program); a failure to
// write is a warning on stderr, never an error.
absl::StatusOr<std::string> ProgramText(const ir::Program& program,
                                        const ProgramFormatChoice& choice);

// One line for `seam info`: "stablehlo (PJRT format \"mlir\"; the plugin does not announce
// seam_ir_version), f32 products at highest precision".
std::string DescribeProgramFormat(const ProgramFormatChoice& choice);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PROGRAM_FORMAT_H_
