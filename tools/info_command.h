// `seam info`: which client PJRT_DEVICE selects here, and why.
#ifndef SEAM_TOOLS_INFO_COMMAND_H_
#define SEAM_TOOLS_INFO_COMMAND_H_

#include <ostream>

namespace seam::tools {

// Runs client selection as the runtime would and prints the client SEAM_CLIENT picks and
// why; for the remote client, the server's address and its devices. Otherwise PJRT_DEVICE, the
// branch taken, every environment variable read (or "unset"), the plugin path and version, the
// platform, the devices and the plugin's attributes (for the CPU plugin: the OpenBLAS core, and a
// note when OpenBLAS runs generic kernels). With `memory` (`seam info --devices`), each
// device's line is followed by its memory figures (seam::memory_stats), or by why the plugin
// cannot give them. On failure prints the runtime's error; returns 1 then, else 0.
int PrintInfo(std::ostream& out, std::ostream& err, bool memory = false);
// `seam info --variables`: docs/architecture.md's table of environment variables, from the
// registry (src/base/settings.def).
int PrintVariables(std::ostream& out);

}  // namespace seam::tools

#endif  // SEAM_TOOLS_INFO_COMMAND_H_
