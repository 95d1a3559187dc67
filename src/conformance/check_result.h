// What one conformance check found, and the suite's options (suite.h runs the checks).
#ifndef SEAM_CONFORMANCE_CHECK_RESULT_H_
#define SEAM_CONFORMANCE_CHECK_RESULT_H_

#include <cstdint>
#include <string>

namespace seam::conformance {

// kUnimplemented: a capability check whose slot answered UNIMPLEMENTED (never a contract
// check: there it is a failure).
enum class Outcome { kPass, kFail, kUnimplemented };
enum class Section { kContract, kCapability };

struct CheckResult {
  std::string area;  // "client", "buffers", "struct size", ...
  std::string name;  // what was checked
  Outcome outcome = Outcome::kPass;
  std::string message;  // why it failed (or the plugin's UNIMPLEMENTED message)
  Section section = Section::kContract;
};

struct SuiteOptions {
  // Also run the op-by-dtype numeric checks against the reference evaluator (opt-in: every
  // op of ops.def on every dtype it accepts, on seeded random shapes, compiled one by one).
  bool ops = false;
  uint64_t seed = 20240611;  // of the ops' random cases
};

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_CHECK_RESULT_H_
