// The plugin conformance suite: one set of checks that runs against any PJRT_Api table,
// the in-process CPU plugin or a .so loaded by path. Used by the ctest suite
// (suite_test.cc) and by `seam plugin check`.
#ifndef SEAM_TESTS_CONFORMANCE_SUITE_H_
#define SEAM_TESTS_CONFORMANCE_SUITE_H_

#include <string>
#include <vector>

struct PJRT_Api;

namespace seam::conformance {

enum class Outcome { kPass, kFail, kUnimplemented };

struct CheckResult {
  std::string area;  // "client", "buffers", "struct size", ...
  std::string name;  // what was checked
  Outcome outcome = Outcome::kPass;
  std::string message;   // why it failed (or the plugin's UNIMPLEMENTED message)
  bool required = true;  // an optional check may be unimplemented without failing the suite
};

// Runs every check. The caller has loaded the plugin, passed the version handshake and
// called PJRT_Plugin_Initialize. Checks are independent: one failing does not stop the
// others (but a plugin that crashes ends the process).
std::vector<CheckResult> RunSuite(const PJRT_Api* api);

// True when every required check passed (optional ones may be unimplemented).
bool AllRequiredPassed(const std::vector<CheckResult>& results);

// One row per check ("PASS  area: name", "FAIL  area: name: message", ...) and a summary.
std::string FormatResults(const std::vector<CheckResult>& results);

}  // namespace seam::conformance

#endif  // SEAM_TESTS_CONFORMANCE_SUITE_H_
