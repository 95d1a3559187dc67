// The PJRT client's ranged reads and streamed uploads over PJRT's slots for them
// (PJRT_Buffer_CopyRawToHost and the async host-to-device transfer manager, upstream's
// semantics). Used by pjrt_computation_client.cc only, for a plugin whose table has the
// slots (reaches them and they are not null).
#ifndef SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_TRANSFERS_H_
#define SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_TRANSFERS_H_

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
struct PJRT_Memory;

namespace seam::runtime {

// True when the plugin's table has every transfer-manager slot an upload calls.
bool HasStreamedTransfers(const PJRT_Api* api);
// True when the plugin's table has PJRT_Buffer_CopyRawToHost.
bool HasRangedReads(const PJRT_Api* api);

// Copies `destination.size()` bytes at `offset` of `buffer` (which must be ready, or its
// error is returned) into `destination` and waits for the copy.
absl::Status CopyRawToHost(const PJRT_Api* api, PJRT_Buffer* buffer, size_t offset,
                           absl::Span<uint8_t> destination);

// Makes the client's handle for target `index`'s new buffer (which it then owns).
using MakePjrtHandle = std::function<ComputationClient::DataPtr(size_t index, PJRT_Buffer*)>;

// An upload over one transfer manager per device memory of `targets` (memories[i], the
// default memory of target i's device); the targets are valid
// (ComputationClient::CheckUploadTargets).
absl::StatusOr<std::unique_ptr<ComputationClient::Upload>> StartPjrtUpload(
    const PJRT_Api* api, PJRT_Client* client, std::vector<ComputationClient::UploadTarget> targets,
    const std::vector<PJRT_Memory*>& memories, MakePjrtHandle make_handle);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_TRANSFERS_H_
