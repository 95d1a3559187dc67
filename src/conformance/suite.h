// The plugin conformance suite: one set of checks that runs against any PJRT_Api table
// (OpenXLA's PJRT C API, major 0), seam's CPU plugin in-process, a seam plugin or a
// vendor's plugin loaded by path. Used by `seam plugin check` and by the ctest suite
// (tests/conformance/).
//
// The rows come in two groups:
//   - upstream contract: what any PJRT plugin must do, with upstream's messages (the
//     table, struct sizes, errors, events, the client, devices and memories, buffers from
//     and to the host, compile and execute, the executable's output queries, donation);
//   - seam extras: what seam adds (seam IR programs, announced by the attribute
//     seam_ir_version; the op cases against the reference evaluator; the SEAM_Profiler
//     extension; memory figures; ranged reads and streamed uploads; seam's messages).
// A row is required (UNIMPLEMENTED fails it) or optional (UNIMPLEMENTED, or a function past
// the plugin's table, lists it as not implemented); a row that needs what the plugin does
// not announce (seam IR) is skipped with the reason. Any other wrong answer fails.
#ifndef SEAM_CONFORMANCE_SUITE_H_
#define SEAM_CONFORMANCE_SUITE_H_

#include <string>
#include <vector>

#include "src/conformance/check_result.h"

struct PJRT_Api;

namespace seam::conformance {

// The headings FormatResults prints above each group.
inline constexpr char kUpstreamHeading[] =
    "upstream contract (what every PJRT plugin must do; an optional function answering "
    "UNIMPLEMENTED is listed as not implemented)";
inline constexpr char kSeamHeading[] =
    "seam extras (seam IR, seam's extensions and figures; skipped where the plugin does not "
    "announce them)";

// Runs every check. The caller has loaded the plugin, passed the version handshake and
// called PJRT_Plugin_Initialize. Checks are independent: one failing does not stop the
// others (but a plugin that crashes ends the process).
std::vector<CheckResult> RunSuite(const PJRT_Api* api, const SuiteOptions& options = {});

// True when no check failed.
bool AllRequiredPassed(const std::vector<CheckResult>& results);

// One row per check under its group's heading ("PASS  area: name", "FAIL  area: name:
// message", "NOT IMPLEMENTED  area: name: message", "SKIP  area: name: reason") and a
// summary line "checks: <n> pass, <n> fail, <n> unimplemented (optional), <n> skipped".
std::string FormatResults(const std::vector<CheckResult>& results);

}  // namespace seam::conformance

#endif  // SEAM_CONFORMANCE_SUITE_H_
