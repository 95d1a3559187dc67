// Makes the CPU plugin the in-process plugin of PJRT_DEVICE=CPU. This file sits above both
// the runtime and the plugin (neither includes the other): it is linked into every program
// that links the target `seam` (as an object file, so that its static initializer is never
// dropped), and into none that links `seam_core` only.
#include "src/plugins/cpu/cpu_plugin.h"
#include "src/runtime/pjrt_api.h"

namespace {

[[maybe_unused]] const bool registered = [] {
  seam::runtime::SetInProcessCpuPjrtApi(&seam::cpu::GetCpuPjrtApi);
  return true;
}();

}  // namespace
