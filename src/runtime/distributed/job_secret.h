// The secret that authenticates the processes of one multi-process job to its coordinator
// (docs/distributed.md, "Authentication"): made by `seam launch` for its ranks, read by
// every rank from the file SEAM_JOB_SECRET_FILE names, and compared by rank 0's service in
// constant time.
#ifndef SEAM_RUNTIME_DISTRIBUTED_JOB_SECRET_H_
#define SEAM_RUNTIME_DISTRIBUTED_JOB_SECRET_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace seam::runtime {

// The variable naming the job's secret file.
inline constexpr char kJobSecretFileVariable[] = "SEAM_JOB_SECRET_FILE";
// The gRPC metadata key that carries the secret on every call to the coordinator.
inline constexpr char kJobSecretMetadataKey[] = "seam-job-secret-bin";
// Bounds on a secret file's contents (after trailing whitespace is dropped).
inline constexpr size_t kMinJobSecretBytes = 16;
inline constexpr size_t kMaxJobSecretFileBytes = 4096;

// Reads the secret from `path` (named in errors as `what`='path'). Refused, each with a
// message naming the file: a file that cannot be opened, that is not a regular file (a
// device, a FIFO, a folder), whose mode lets its group or others read or write it (as ssh
// refuses such keys), that is larger than kMaxJobSecretFileBytes, or whose contents
// without trailing whitespace are shorter than kMinJobSecretBytes. At most
// kMaxJobSecretFileBytes + 1 bytes are ever read.
absl::StatusOr<std::string> ReadJobSecretFile(const std::string& path,
                                              const std::string& what = kJobSecretFileVariable);

// `bytes` random bytes from the system's generator (getrandom, else /dev/urandom), as
// 2 x `bytes` lowercase hex digits.
absl::StatusOr<std::string> NewJobSecret(size_t bytes = 32);

// Whether `a` equals `b`, in a time that depends only on their lengths, never on where
// they first differ.
bool SecretsEqual(std::string_view a, std::string_view b);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_JOB_SECRET_H_
