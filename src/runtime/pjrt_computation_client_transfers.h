// The PJRT client's ranged reads and streamed uploads over the slots of ABI 1.5
// (PJRT_Buffer_CopyRawToHost and the host-to-device transfer manager). Used by
// pjrt_computation_client.cc only, for a plugin whose minor and table have the slots.
#ifndef SEAM_RUNTIME_PJRT_COMPUTATION_CLIENT_TRANSFERS_H_
#define SEAM_RUNTIME_PJRT_COMPUTATION_CLIENT_TRANSFERS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/runtime/computation_client.h"

struct PJRT_Api;
struct PJRT_Buffer;
struct PJRT_Client;
struct PJRT_Device;

namespace seam::runtime {

// The first minor whose table has the slots.
inline constexpr int kStreamedTransfersMinor = 5;
// True when `api` reports that minor or later and its table reaches the last slot.
bool HasStreamedTransfers(const PJRT_Api* api);

// Copies `destination.size()` bytes at `offset` of `buffer` (which must be ready, or its
// error is returned) into `destination` and waits for the copy.
absl::Status CopyRawToHost(const PJRT_Api* api, PJRT_Buffer* buffer, size_t offset,
                           absl::Span<uint8_t> destination);

// Makes the client's handle for target `index`'s new buffer (which it then owns).
using MakePjrtHandle = std::function<ComputationClient::DataPtr(size_t index, PJRT_Buffer*)>;

// An upload over one transfer manager per device of `targets` (devices[i] is target i's);
// the targets are valid (ComputationClient::CheckUploadTargets).
absl::StatusOr<std::unique_ptr<ComputationClient::Upload>> StartPjrtUpload(
    const PJRT_Api* api, PJRT_Client* client, std::vector<ComputationClient::UploadTarget> targets,
    const std::vector<PJRT_Device*>& devices, MakePjrtHandle make_handle);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_COMPUTATION_CLIENT_TRANSFERS_H_
