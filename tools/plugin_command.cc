#include "tools/plugin_command.h"

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/settings.h"
#include "src/conformance/op_checks.h"
#include "src/conformance/suite.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"
#include "tools/option_value.h"

namespace seam::tools {
namespace {

// The registry is per process and write-once; the command registers its one plugin under
// this name.
constexpr char kDeviceType[] = "plugin-under-test";

std::string CompatibilityLine() {
  std::optional<std::string> raw = base::ReadSetting(base::Setting::kEnablePjrtCompatibility);
  std::string setting = raw.has_value() ? absl::StrCat("ENABLE_PJRT_COMPATIBILITY='", *raw, "'")
                                        : "ENABLE_PJRT_COMPATIBILITY unset";
  return runtime::IsPjrtCompatibilityEnabled()
             ? absl::StrCat("on (", setting, "): same major, minor >= the minimum")
             : absl::StrCat("off (", setting, "): exact version match");
}

int Fail(std::ostream& err, const char* command, const absl::Status& status) {
  err << "seam plugin " << command << ": " << status.message() << "\n";
  return 1;
}

}  // namespace

int InspectPlugin(const std::string& path, std::ostream& out, std::ostream& err) {
  out << "plugin         " << path << "\n";
  absl::StatusOr<const PJRT_Api*> api = runtime::LoadPjrtPlugin(kDeviceType, path);
  if (!api.ok()) return Fail(err, "inspect", api.status());
  runtime::PluginVersion version = runtime::GetPluginVersion(*api);
  runtime::PluginVersion framework = runtime::FrameworkVersion();
  out << "API version    " << version.major << "." << version.minor << " (framework "
      << framework.major << "." << framework.minor << ", oldest accepted " << framework.major << "."
      << runtime::FrameworkMinimumMinor() << ", layouts read from " << framework.major << "."
      << runtime::kOldestLayoutMinor << ")\n";
  out << "compatibility  " << CompatibilityLine() << "\n";
  absl::Status verdict = runtime::CheckPluginVersion(version.major, version.minor,
                                                     runtime::IsPjrtCompatibilityEnabled());
  if (verdict.ok()) verdict = runtime::CheckPluginLayout(version.major, version.minor);
  if (!verdict.ok()) {
    out << "handshake      refused: " << verdict.message() << "\n";
    out << "               (none of the plugin's functions was called)\n";
    return 1;
  }
  out << "handshake      accepted\n";
  if (absl::Status s = runtime::InitializePjrtPlugin(kDeviceType); !s.ok()) {
    return Fail(err, "inspect", s);
  }
  absl::StatusOr<runtime::PluginOptions> attributes = runtime::GetPluginAttributes(*api);
  if (!attributes.ok()) return Fail(err, "inspect", attributes.status());
  out << "attributes" << (attributes->empty() ? "     (none)" : "") << "\n";
  for (const auto& [name, value] : *attributes) {
    out << "  " << name << " = " << DescribeOptionValue(value) << "\n";
  }
  auto client = runtime::PjrtComputationClient::Create(*api);
  if (!client.ok()) return Fail(err, "inspect", client.status());
  out << "platform       " << (*client)->GetPlatformName() << "\n";
  std::vector<runtime::ComputationClient::DeviceInfo> devices = (*client)->GetDeviceInfos();
  out << "devices        " << devices.size() << "\n";
  for (const auto& device : devices) {
    out << "  " << device.name << "  id " << device.id << "  kind " << device.kind << "\n";
  }
  out << "programs       " << runtime::DescribeProgramFormat((*client)->program_format()) << "\n";
  return 0;
}

int CheckPlugin(const std::string& path, bool ops, const std::string& format, std::ostream& out,
                std::ostream& err) {
  absl::StatusOr<const PJRT_Api*> api = runtime::LoadPjrtPlugin(kDeviceType, path);
  if (!api.ok()) return Fail(err, "check", api.status());
  if (absl::Status s = runtime::InitializePjrtPlugin(kDeviceType); !s.ok()) {
    return Fail(err, "check", s);
  }
  conformance::SuiteOptions options;
  options.ops = ops;
  options.format = format == "stablehlo" ? conformance::OpFormat::kStableHlo
                   : format == "both"    ? conformance::OpFormat::kBoth
                                         : conformance::OpFormat::kSeamIr;
  options.seed = conformance::DefaultOpSeed();
  std::vector<conformance::CheckResult> results = conformance::RunSuite(*api, options);
  out << conformance::FormatResults(results);
  return conformance::AllRequiredPassed(results) ? 0 : 1;
}

}  // namespace seam::tools
