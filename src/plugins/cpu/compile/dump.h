// Option dump_to=<dir> or SEAM_DUMP_TO=<dir> (cpu_settings.h): every successful compile writes the
// program as received and as the plugin runs it, named by ir::HashProgram in hex
// (docs/architecture.md).
#ifndef SEAM_PLUGINS_CPU_DUMP_H_
#define SEAM_PLUGINS_CPU_DUMP_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/compile/executable.h"

namespace seam::cpu {

// The environment variable that names the dump directory.
inline constexpr char kDumpToEnv[] = "SEAM_DUMP_TO";

// Writes, with <hash> the hash of the received program, <dir>/<hash>.received.txt
// (`received`, byte for byte) and
// <dir>/<hash>.optimized.txt (the program after the plugin's passes, in canonical text, with
// the execution plan as '#' comments, so the file parses back). Creates `dir` if needed.
absl::Status DumpCompile(const std::string& dir, std::string_view received,
                         const Executable& executable);

// The optimized dump's text.
std::string OptimizedDumpText(const Executable& executable);

// Called by PJRT_Client_Compile after a successful compile: dumps when the client's
// settings name a folder; a failure is printed to stderr as a warning (naming the option
// or the variable) and never fails the compile.
void MaybeDumpCompile(std::string_view received, const Executable& executable,
                      const CpuSettings& settings);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_DUMP_H_
