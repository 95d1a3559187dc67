// The CPU plugin's function table, for linking the plugin into the framework's process
// (PJRT_DEVICE=CPU). The shared library libseam_pjrt_cpu.so returns the same table from
// its one exported symbol, GetPjrtApi.
#ifndef SEAM_PLUGINS_CPU_CPU_PLUGIN_H_
#define SEAM_PLUGINS_CPU_CPU_PLUGIN_H_

#include "seam/c/pjrt_c_api.h"

namespace seam::cpu {

const PJRT_Api* GetCpuPjrtApi();

// Name of the client-create option that sets the number of devices (int64, >= 1).
inline constexpr char kDeviceCountOption[] = "cpu_device_count";

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_CPU_PLUGIN_H_
