// The CPU plugin's function table, for linking the plugin into the framework's process
// (PJRT_DEVICE=CPU). The shared library libseam_pjrt_cpu.so returns the same table from
// its one exported symbol, GetPjrtApi.
#ifndef SEAM_PLUGINS_CPU_CPU_PLUGIN_H_
#define SEAM_PLUGINS_CPU_CPU_PLUGIN_H_

#include <cstdint>

#include "seam/c/pjrt_c_api.h"

namespace seam::cpu {

const PJRT_Api* GetCpuPjrtApi();

// The plugin's name, in its stubs' messages ("<PJRT_Name> is not implemented by the cpu
// plugin").
inline constexpr char kCpuPluginName[] = "cpu";

// The version of seam's IR the plugin reads, announced as the int64 plugin attribute
// `seam_ir_version` (PJRT_Plugin_Attributes).
inline constexpr char kSeamIrVersionAttribute[] = "seam_ir_version";
inline constexpr int64_t kSeamIrVersion = 1;

// Name of the client-create option that sets the number of devices (int64, >= 1).
inline constexpr char kDeviceCountOption[] = "cpu_device_count";

// A job of several processes (docs/cpu-plugin.md, "Multi-process collectives"): this
// process's index and the number of processes (int64 each; 0 of 1 by default), and the
// bound on any one wait of a collective across processes (int64 milliseconds), which
// defaults to $SEAM_CPU_COLLECTIVE_TIMEOUT_MS, else 5 minutes.
inline constexpr char kProcessIndexOption[] = "process_index";
inline constexpr char kProcessCountOption[] = "process_count";
inline constexpr char kCollectiveTimeoutOption[] = "collective_timeout_ms";
inline constexpr char kCollectiveTimeoutVariable[] = "SEAM_CPU_COLLECTIVE_TIMEOUT_MS";
inline constexpr int64_t kDefaultCollectiveTimeoutMs = int64_t{5} * 60 * 1000;

// How many processes of the job run on this host (int64, 1 to process_count; 1 by
// default; the runtime passes its LOCAL_WORLD_SIZE): it decides whether the device's
// thread polls for overlapped all_reduces by default (cpu_settings.h, collective_spin_us).
inline constexpr char kLocalProcessCountOption[] = "local_process_count";

// The environment variable read at client creation that bounds which runs may execute on
// the caller's thread (docs/architecture.md, "Inline runs"); its default is
// cpu_settings.h's kDefaultInlineMaxCost.
inline constexpr char kInlineMaxCostVariable[] = "SEAM_CPU_INLINE_MAX_COST";
// 1 (the default): a process's one replica of a launch across processes runs on the
// caller's thread when its device is idle; 0: on the device's thread, like other runs.
inline constexpr char kInlineCrossProcessVariable[] = "SEAM_CPU_INLINE_CROSS_PROCESS";

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_CPU_PLUGIN_H_
