// The CPU plugin's function table, for linking the plugin into the framework's process
// (PJRT_DEVICE=CPU). The shared library libseam_pjrt_cpu.so returns the same table from
// its one exported symbol, GetPjrtApi.
#ifndef SEAM_PLUGINS_CPU_CPU_PLUGIN_H_
#define SEAM_PLUGINS_CPU_CPU_PLUGIN_H_

#include <cstdint>

#include "seam/c/pjrt_c_api.h"

namespace seam::cpu {

const PJRT_Api* GetCpuPjrtApi();

// Name of the client-create option that sets the number of devices (int64, >= 1).
inline constexpr char kDeviceCountOption[] = "cpu_device_count";

// The environment variable read at client creation that bounds which runs may execute on
// the caller's thread (docs/plugins.md, "Inline runs"), and its default: programs of at
// most this many element operations (Executable::cost).
inline constexpr char kInlineMaxCostVariable[] = "SEAM_CPU_INLINE_MAX_COST";
inline constexpr int64_t kDefaultInlineMaxCost = int64_t{32} * 1024;

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_CPU_PLUGIN_H_
