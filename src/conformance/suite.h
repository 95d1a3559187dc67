// The plugin conformance suite: one set of checks that runs against any PJRT_Api table,
// the in-process CPU plugin or a .so loaded by path. Used by `seam plugin check` and by
// the ctest suite (tests/conformance/).
//
// Checks come in two sections. Contract checks are what every plugin must do (the table,
// struct sizes, errors, the client and its devices): each must pass, and a slot answering
// UNIMPLEMENTED fails one. Capability checks are what a plugin may not do yet (buffers,
// events, compile, execute, and with `ops` the op-by-dtype numeric checks): a slot
// answering UNIMPLEMENTED lists the check as not implemented without failing the run, but
// a wrong answer fails it.
#ifndef SEAM_CONFORMANCE_SUITE_H_
#define SEAM_CONFORMANCE_SUITE_H_

#include <string>
#include <vector>

#include "src/conformance/check_result.h"

struct PJRT_Api;

namespace seam::conformance {

// Runs every check. The caller has loaded the plugin, passed the version handshake and
// called PJRT_Plugin_Initialize. Checks are independent: one failing does not stop the
// others (but a plugin that crashes ends the process).
std::vector<CheckResult> RunSuite(const PJRT_Api* api, const SuiteOptions& options = {});

// True when no check failed: every contract check passed, and every capability check
// passed or was not implemented.
bool AllRequiredPassed(const std::vector<CheckResult>& results);

// One row per check under its section's heading ("PASS  area: name", "FAIL  area: name:
// message", "NOT IMPLEMENTED  area: name: message") and a summary line.
std::string FormatResults(const std::vector<CheckResult>& results);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_SUITE_H_
