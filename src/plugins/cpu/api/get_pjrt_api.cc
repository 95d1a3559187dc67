// The one exported symbol of libseam_pjrt_cpu.so.
#include "src/plugins/cpu/api/cpu_plugin.h"

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  return seam::cpu::GetCpuPjrtApi();
}
