#include "tools/info_command.h"

#include "src/runtime/pjrt_registry.h"

namespace seam::tools {

int PrintInfo(std::ostream& out, std::ostream& err) {
  runtime::ClientSelection selection;
  auto client = runtime::CreateClientFromEnvironment(&selection);
  out << "PJRT_DEVICE   " << (selection.device_type.empty() ? "(unset)" : selection.device_type)
      << "\n";
  out << "branch        " << selection.branch << "\n";
  out << "environment   (every variable read, in order)\n";
  for (const auto& [name, value] : selection.env_read) {
    out << "  " << name << " = " << (value.has_value() ? "'" + *value + "'" : "unset") << "\n";
  }
  if (!selection.plugin_version.empty()) {
    out << "plugin        "
        << (selection.library_path.empty() ? "in process (no shared library)"
                                           : selection.library_path)
        << ", PJRT API " << selection.plugin_version << "\n";
  }
  if (!client.ok()) {
    err << "seam info: " << client.status().message() << "\n";
    return 1;
  }
  out << "platform      " << (*client)->GetPlatformName() << "\n";
  auto devices = (*client)->GetDeviceInfos();
  out << "devices       " << devices.size() << "\n";
  for (const auto& device : devices) {
    out << "  " << device.name << "  id " << device.id << "  kind " << device.kind << "\n";
  }
  return 0;
}

}  // namespace seam::tools
