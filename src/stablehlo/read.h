// The StableHLO reader (docs/stablehlo.md): StableHLO text, the generic MLIR form of every
// op the contract lists and the pretty form of the common ones, turned into a verified
// seam::ir::Program, so that seam's CPU plugin compiles PJRT program format "mlir".
#ifndef SEAM_STABLEHLO_READ_H_
#define SEAM_STABLEHLO_READ_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/ir/program.h"

namespace seam::stablehlo {

// The StableHLO version range the reader's subset follows (openxla/stablehlo's
// stablehlo/dialect/Version.h; docs/stablehlo.md "Versions"): {major, minor, patch}.
inline constexpr int64_t kReaderCurrentVersion[3] = {1, 20, 0};
inline constexpr int64_t kReaderMinimumVersion[3] = {0, 9, 0};

// Parses, maps and verifies one module. Every problem is InvalidArgument starting with
// "line L, column C: " (1-based) and quoting the offending text; MLIR bytecode gets its
// own message. Never crashes; sizes are checked before anything is allocated for them.
absl::StatusOr<ir::Program> ReadStableHlo(std::string_view text);

// The message for PJRT program format "hlo" (an HloModuleProto), which no seam plugin reads.
inline constexpr char kHloFormatMessage[] =
    "program format 'hlo' (HloModuleProto) is not supported by this plugin; supported: mlir "
    "(StableHLO text), seam-ir";

}  // namespace seam::stablehlo

#endif  // SEAM_STABLEHLO_READ_H_
