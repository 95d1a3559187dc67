// The devices' memory figures (PJRT_Device_MemoryStats, decision 12 of the move to PJRT):
// that the query answers with consistent figures, and that bytes in use follows a buffer's
// life.
#include <vector>

#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

absl::StatusOr<PJRT_Device_MemoryStats_Args> Query(Suite& suite, PJRT_Device* device) {
  auto args = SEAM_PJRT_ARGS(PJRT_Device_MemoryStats_Args);
  args.device = device;
  absl::Status status = SEAM_CALL(suite, PJRT_Device_MemoryStats, &args);
  if (!status.ok()) return status;
  return args;
}

// The figures must not contradict each other.
absl::Status Consistent(const PJRT_Device_MemoryStats_Args& s, size_t device) {
  std::string where = absl::StrCat("device ", device, ": ");
  if (s.bytes_in_use < 0) {
    return absl::InternalError(absl::StrCat(where, "bytes_in_use is ", s.bytes_in_use));
  }
  if (s.peak_bytes_in_use_is_set && s.peak_bytes_in_use < s.bytes_in_use) {
    return absl::InternalError(absl::StrCat(where, "peak_bytes_in_use ", s.peak_bytes_in_use,
                                            " is below bytes_in_use ", s.bytes_in_use));
  }
  if (s.bytes_limit_is_set && s.bytes_limit < s.bytes_in_use) {
    return absl::InternalError(absl::StrCat(where, "bytes_limit ", s.bytes_limit,
                                            " is below bytes_in_use ", s.bytes_in_use));
  }
  if (s.pool_bytes_is_set && s.pool_bytes < s.bytes_in_use) {
    return absl::InternalError(absl::StrCat(where, "pool_bytes ", s.pool_bytes,
                                            " (in use and cached) is below bytes_in_use ",
                                            s.bytes_in_use));
  }
  return absl::OkStatus();
}

void DestroyBuffer(Suite& suite, PJRT_Buffer* buffer) {
  auto args = SEAM_PJRT_ARGS(PJRT_Buffer_Destroy_Args);
  args.buffer = buffer;
  SEAM_CALL(suite, PJRT_Buffer_Destroy, &args).IgnoreError();
}

// bytes_in_use grows by at least the buffer's dense size while it lives and falls back by as
// much once it is destroyed (it is ready and no work reads it).
absl::Status FollowsABuffer(Suite& suite) {
  PJRT_Device* device = suite.devices().front();
  absl::StatusOr<PJRT_Device_MemoryStats_Args> before = Query(suite, device);
  if (!before.ok()) return before.status();
  const std::vector<float> zeros(size_t{64} * 64);
  absl::StatusOr<PJRT_Buffer*> buffer = Upload(suite, zeros.data(), PJRT_Buffer_Type_F32, {64, 64});
  if (!buffer.ok()) return buffer.status();
  absl::StatusOr<PJRT_Device_MemoryStats_Args> during = Query(suite, device);
  DestroyBuffer(suite, *buffer);
  if (!during.ok()) return during.status();
  absl::StatusOr<PJRT_Device_MemoryStats_Args> after = Query(suite, device);
  if (!after.ok()) return after.status();
  // Whatever a plugin adds (padding, layout), the buffer holds at least its dense bytes.
  constexpr int64_t bytes = int64_t{64} * 64 * sizeof(float);
  if (during->bytes_in_use - before->bytes_in_use < bytes) {
    return absl::InternalError(absl::StrCat("f32[64,64] of ", bytes,
                                            " bytes on the device: bytes_in_use went from ",
                                            before->bytes_in_use, " to ", during->bytes_in_use));
  }
  if (during->peak_bytes_in_use_is_set && during->peak_bytes_in_use < during->bytes_in_use) {
    return absl::InternalError(absl::StrCat("peak_bytes_in_use ", during->peak_bytes_in_use,
                                            " is below bytes_in_use ", during->bytes_in_use));
  }
  if (during->bytes_in_use - after->bytes_in_use < bytes) {
    return absl::InternalError(absl::StrCat("after destroying f32[64,64] (", bytes,
                                            " bytes): bytes_in_use went from ",
                                            during->bytes_in_use, " to ", after->bytes_in_use));
  }
  return absl::OkStatus();
}

}  // namespace

void CheckMemoryStats(Suite& suite) {
  suite.Optional("memory", "every device answers with consistent figures", [&]() -> absl::Status {
    if (absl::Status status = suite.NeedClient(); !status.ok()) return status;
    for (size_t d = 0; d < suite.devices().size(); ++d) {
      absl::StatusOr<PJRT_Device_MemoryStats_Args> stats = Query(suite, suite.devices()[d]);
      if (!stats.ok()) return stats.status();
      if (absl::Status status = Consistent(*stats, d); !status.ok()) return status;
    }
    return absl::OkStatus();
  });
  suite.Optional("memory", "bytes in use grows with a buffer and drops when it is destroyed",
                 [&]() -> absl::Status {
                   if (absl::Status status = suite.NeedClient(); !status.ok()) return status;
                   return FollowsABuffer(suite);
                 });
}

}  // namespace seam::conformance
