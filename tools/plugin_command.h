// `seam plugin inspect <path.so>` and `seam plugin check <path.so>`.
#ifndef SEAM_TOOLS_PLUGIN_COMMAND_H_
#define SEAM_TOOLS_PLUGIN_COMMAND_H_

#include <ostream>
#include <string>

namespace seam::tools {

// Loads the plugin and prints its version, the handshake verdict under the current
// ENABLE_PJRT_COMPATIBILITY, and (when accepted) its attributes, platform and devices.
// Returns the exit status: 0 when the plugin could be used, 1 otherwise.
int InspectPlugin(const std::string& path, std::ostream& out, std::ostream& err);

// Loads, handshakes and initializes the plugin, then runs the conformance suite and prints
// one row per check, contract checks first, then capability checks (with `ops`, the
// op-by-dtype numeric checks too, in `format`: "seam", "stablehlo" or "both"). Returns 0
// only when no check failed: every contract check passed and every capability check passed
// or was not implemented.
int CheckPlugin(const std::string& path, bool ops, const std::string& format, std::ostream& out,
                std::ostream& err);

}  // namespace seam::tools

#endif  // SEAM_TOOLS_PLUGIN_COMMAND_H_
