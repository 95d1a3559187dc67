// Makes the CPU plugin the in-process plugin of PJRT_DEVICE=CPU. This file sits above both
// the runtime and the plugin (neither includes the other): it is part of every program that
// links the target `seam` (an object file of libseam.so; a static seam links its archive
// whole, so that its static initializer is never dropped), and of none that links
// `seam_core` only.
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/runtime/pjrt/pjrt_api.h"

namespace {

[[maybe_unused]] const bool registered = [] {
  seam::runtime::SetInProcessCpuPjrtApi(&seam::cpu::GetCpuPjrtApi);
  return true;
}();

}  // namespace
