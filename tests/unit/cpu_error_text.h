// What the CPU plugin's C-level unit tests share: the CPU plugin's table, and a returned
// PJRT_Error turned into its message (and destroyed).
#ifndef SEAM_TESTS_UNIT_CPU_ERROR_TEXT_H_
#define SEAM_TESTS_UNIT_CPU_ERROR_TEXT_H_

#include <string>

#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/plugins/cpu/api/cpu_plugin.h"

namespace seam::testing {

inline const PJRT_Api* Api() { return seam::cpu::GetCpuPjrtApi(); }

// The error's message (the error is freed); "" for success.
inline std::string Take(PJRT_Error* error) {
  if (error == nullptr) return "";
  auto message = SEAM_ABI_ARGS(PJRT_Error_Message_Args);
  message.error = error;
  Api()->PJRT_Error_Message(&message);
  std::string text(message.message, message.message_size);
  auto destroy = SEAM_ABI_ARGS(PJRT_Error_Destroy_Args);
  destroy.error = error;
  Api()->PJRT_Error_Destroy(&destroy);
  return text;
}

}  // namespace seam::testing

#define EXPECT_OK(call) EXPECT_EQ(::seam::testing::Take(call), "")

#endif  // SEAM_TESTS_UNIT_CPU_ERROR_TEXT_H_
