#include "src/runtime/pjrt/program_format.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "src/base/env.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"

namespace seam::runtime {
namespace {

constexpr char kSeamIrAttribute[] = "seam_ir_version";

// <dir>/<hash>.stablehlo.mlir, the directory made if needed.
absl::Status DumpStableHlo(const std::string& dir, const ir::Program& program,
                           const std::string& text) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::UnavailableError(absl::StrCat("cannot create '", dir, "': ", error.message()));
  }
  const std::filesystem::path path =
      std::filesystem::path(dir) /
      absl::StrFormat("%016x.stablehlo.mlir", ir::HashProgram(program));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (out) out.close();
  if (!out) {
    return absl::UnavailableError(
        absl::StrCat("cannot write '", path.string(), "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

const char* PjrtFormatName(ProgramFormat format) {
  return format == ProgramFormat::kSeamIr ? "seam-ir" : "mlir";
}

absl::StatusOr<ProgramFormatChoice> ChooseProgramFormat(
    const PluginOptions& attributes, const std::string& plugin,
    const std::optional<std::string>& requested, const std::optional<std::string>& precision) {
  ProgramFormatChoice choice;
  if (precision.has_value() && !precision->empty()) {
    SEAM_ASSIGN_OR_RETURN(choice.emit.matmul_precision,
                          stablehlo::ParseMatmulPrecision(*precision));
  }
  const bool reads_seam_ir = attributes.count(kSeamIrAttribute) > 0;
  const std::string value = requested.value_or("");
  if (value.empty() || value == "auto") {
    choice.format = reads_seam_ir ? ProgramFormat::kSeamIr : ProgramFormat::kStableHlo;
    choice.reason = reads_seam_ir ? "the plugin announces seam_ir_version"
                                  : "the plugin does not announce seam_ir_version";
    return choice;
  }
  if (value == "stablehlo") {
    choice.format = ProgramFormat::kStableHlo;
    choice.reason = "SEAM_PROGRAM_FORMAT=stablehlo";
    return choice;
  }
  if (value == "seam") {
    if (!reads_seam_ir) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SEAM_PROGRAM_FORMAT=seam, but plugin '", plugin,
          "' does not announce the attribute seam_ir_version, so it cannot read seam's IR; "
          "use SEAM_PROGRAM_FORMAT=auto or stablehlo"));
    }
    choice.format = ProgramFormat::kSeamIr;
    choice.reason = "SEAM_PROGRAM_FORMAT=seam";
    return choice;
  }
  return absl::InvalidArgumentError(absl::StrCat("SEAM_PROGRAM_FORMAT='", value,
                                                 "' is not a program format; allowed: auto (the "
                                                 "default), stablehlo, seam"));
}

absl::StatusOr<ProgramFormatChoice> ChooseProgramFormatFromEnvironment(
    const PluginOptions& attributes, const std::string& plugin) {
  return ChooseProgramFormat(attributes, plugin,
                             base::ReadSetting(base::Setting::kSeamProgramFormat),
                             base::ReadSetting(base::Setting::kSeamMatmulPrecision));
}

absl::StatusOr<std::string> ProgramText(const ir::Program& program,
                                        const ProgramFormatChoice& choice) {
  if (choice.format == ProgramFormat::kSeamIr) return ir::PrintProgram(program);
  SEAM_ASSIGN_OR_RETURN(std::string text, stablehlo::EmitStableHlo(program, choice.emit));
  const std::optional<std::string> dir = base::ReadSetting(base::Setting::kSeamDumpTo);
  if (dir.has_value() && !dir->empty()) {
    absl::Status dumped = DumpStableHlo(*dir, program, text);
    if (!dumped.ok()) {
      std::fprintf(stderr, "seam: warning: SEAM_DUMP_TO=%s: %s\n", dir->c_str(),
                   std::string(dumped.message()).c_str());
    }
  }
  return text;
}

std::string DescribeProgramFormat(const ProgramFormatChoice& choice) {
  if (choice.format == ProgramFormat::kSeamIr) {
    return absl::StrCat("seam (PJRT format \"seam-ir\"; ", choice.reason, ")");
  }
  return absl::StrCat(
      "stablehlo (PJRT format \"mlir\", StableHLO text checked against ",
      stablehlo::kEmitterStableHloVersion, "; ", choice.reason, "), f32 products at ",
      std::string(stablehlo::MatmulPrecisionName(choice.emit.matmul_precision)), " precision");
}

}  // namespace seam::runtime
