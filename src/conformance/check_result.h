// What one conformance check found, and the suite's options (suite.h runs the checks).
#ifndef SEAM_CONFORMANCE_CHECK_RESULT_H_
#define SEAM_CONFORMANCE_CHECK_RESULT_H_

#include <cstdint>
#include <string>

namespace seam::conformance {

// kUnimplemented: an optional check whose function answered UNIMPLEMENTED (or lies past
// the plugin's table); never a required check, where it is a failure. kSkipped: a check
// the plugin does not ask for (a seam IR check on a plugin that does not announce
// seam_ir_version), with the reason.
enum class Outcome { kPass, kFail, kUnimplemented, kSkipped };

// kUpstream: what any PJRT plugin must do, in upstream's words (OpenXLA's PJRT C API).
// kSeam: seam's extras (its IR, its extensions, its figures), checked where a plugin
// offers them.
enum class Group { kUpstream, kSeam };

struct CheckResult {
  std::string area;  // "client", "buffers", "struct size", ...
  std::string name;  // what was checked
  Outcome outcome = Outcome::kPass;
  std::string message;  // why it failed, the plugin's UNIMPLEMENTED message, or why skipped
  Group group = Group::kUpstream;
  bool required = true;  // false: UNIMPLEMENTED lists it as not implemented
};

// The program formats the op checks send (`seam plugin check --ops --format`):
//   kSeamIr     seam's IR (PJRT format "seam-ir"), to a plugin that announces
//               seam_ir_version (skipped for any other): rows "ops: ...", the default;
//   kStableHlo  each case lowered by the StableHLO emitter (format "mlir"), to any plugin:
//               rows "ops stablehlo: ...";
//   kBoth       both sets of rows.
enum class OpFormat { kSeamIr, kStableHlo, kBoth };

struct SuiteOptions {
  // Also run the op-by-dtype numeric checks against the reference evaluator (opt-in: every
  // op of ops.def on every dtype it accepts, on seeded random shapes, compiled one by one).
  bool ops = false;
  uint64_t seed = 20240611;  // of the ops' random cases
  OpFormat format = OpFormat::kSeamIr;
};

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_CHECK_RESULT_H_
