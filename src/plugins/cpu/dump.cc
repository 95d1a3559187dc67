#include "src/plugins/cpu/dump.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"

namespace seam::cpu {
namespace {

absl::Status WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (out) out.close();
  if (!out) {
    return absl::UnavailableError(absl::StrCat("cannot write '", path.string(),
                                               "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

std::string OptimizedDumpText(const Executable& executable) {
  const ir::Program& program = executable.program();
  std::string out = absl::StrFormat(
      "# seam cpu plugin: the program as it runs (hash %016x).\n"
      "# Passes: simplify (common subexpressions, constant folding, algebraic identities,\n"
      "# dead code; src/plugins/cpu/simplify.h). The plan follows as comments.\n",
      ir::HashProgram(program));
  out += "# plan: instructions run in order, one kernel each; a value's memory is released\n"
         "# after its last use:\n";
  const std::vector<int>& last_use = executable.last_use();
  const int n = static_cast<int>(program.instructions.size());
  for (int i = 0; i < n; ++i) {
    if (last_use[i] == n) {
      absl::StrAppend(&out, "#   %", i, ": kept (a result)\n");
    } else if (last_use[i] < 0) {
      absl::StrAppend(&out, "#   %", i, ": unused, released at once\n");
    } else {
      absl::StrAppend(&out, "#   %", i, ": released after %", last_use[i], "\n");
    }
  }
  for (const ir::Alias& alias : program.aliases) {
    absl::StrAppend(&out, "# plan: output ", alias.output_index,
                    " is copied into the donated memory of parameter ", alias.parameter_index,
                    " at the end of the run\n");
  }
  return out + ir::PrintProgram(program);
}

absl::Status DumpCompile(const std::string& dir, std::string_view received,
                         const Executable& executable) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot create directory '", dir, "': ", error.message()));
  }
  // Named by the received program's hash (as the compile cache knows it), not the
  // simplified one's. The text parsed at compile time, so it parses here too.
  absl::StatusOr<ir::Program> parsed = ir::ParseProgram(received);
  std::string hash = absl::StrFormat(
      "%016x", ir::HashProgram(parsed.ok() ? *parsed : executable.program()));
  std::filesystem::path base(dir);
  absl::Status received_status = WriteFile(base / (hash + ".received.txt"), received);
  if (!received_status.ok()) return received_status;
  return WriteFile(base / (hash + ".optimized.txt"), OptimizedDumpText(executable));
}

void MaybeDumpCompile(std::string_view received, const Executable& executable) {
  const char* dir = std::getenv(kDumpToEnv);
  if (dir == nullptr || dir[0] == '\0') return;
  absl::Status status = DumpCompile(dir, received, executable);
  if (!status.ok()) {
    std::fprintf(stderr, "seam cpu plugin: warning: %s=%s: the compile dump failed: %s\n",
                 kDumpToEnv, dir, std::string(status.message()).c_str());
  }
}

}  // namespace seam::cpu
