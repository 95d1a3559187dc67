// The public plugin-registration API (include/seam/runtime.h) over the runtime's registry.
#include "seam/runtime.h"
#include "seam/tensor.h"
#include "src/runtime/pjrt_registry.h"

namespace seam {

void RegisterPjRtPlugin(const std::string& name, std::shared_ptr<const PjRtPlugin> plugin) {
  absl::Status status = runtime::RegisterPlugin(name, std::move(plugin));
  if (!status.ok()) throw Error(static_cast<int>(status.code()), std::string(status.message()));
}

}  // namespace seam
