// Where this process stands in a multi-process job and how it reaches the job's
// coordinator: PyTorch/XLA's variables (torchrun's names as fall-backs), with their
// precedence and defaults, plus seam's own limits (docs/distributed.md has the table).
#ifndef SEAM_RUNTIME_DISTRIBUTED_DISTRIBUTED_CONFIG_H_
#define SEAM_RUNTIME_DISTRIBUTED_DISTRIBUTED_CONFIG_H_

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace seam::runtime {

// Reads one environment variable (nullopt = unset). Tests pass a map; client selection
// passes a reader that also records each read for `seam info`.
using EnvGetter = std::function<std::optional<std::string>(const char* name)>;

// The process environment.
EnvGetter ProcessEnv();

struct JobTopology {
  int local_rank = 0;        // PJRT_LOCAL_PROCESS_RANK, else LOCAL_RANK; default 0
  int rank = 0;              // RANK; default the local rank
  int local_world_size = 1;  // PJRT_LOCAL_PROCESS_COUNT, else LOCAL_WORLD_SIZE; default 1
  int world_size = 1;        // WORLD_SIZE; default the local world size
};

// Reads the four values in that order, each fall-back only when the first name is unset or
// empty. A value that is not an integer in range, a rank not below its world size, or a
// local world larger than the world is InvalidArgument naming the variable and the value.
absl::StatusOr<JobTopology> ReadJobTopology(const EnvGetter& env);

struct CoordinatorOptions {
  std::string address = "localhost";           // MASTER_ADDR
  int port = 8547;                             // XLA_COORDINATOR_PORT
  std::chrono::seconds heartbeat_interval{5};  // DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC
  int max_missing_heartbeats = 3;              // DIST_SERVICE_MAX_MISSING_HEARTBEATS
  std::chrono::seconds startup_timeout{120};   // SEAM_COORDINATOR_TIMEOUT_SEC
  std::chrono::seconds shutdown_timeout{
      std::chrono::minutes(5)};             // DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN
  std::chrono::seconds lost_job_grace{10};  // SEAM_LOST_JOB_GRACE_SEC
  // The job's secret (job_secret.h) and the file it came from (SEAM_JOB_SECRET_FILE); both
  // empty when the variable is unset: the job then has no secret.
  std::string secret;
  std::string secret_file;

  // "address:port", an IPv6 literal in brackets: what the service binds and clients dial.
  std::string Target() const;
  // How long a rank may be silent before it is lost: interval x max missing heartbeats.
  std::chrono::milliseconds LossTimeout() const {
    return std::chrono::milliseconds(heartbeat_interval) * max_missing_heartbeats;
  }
};

// Reads MASTER_ADDR, XLA_COORDINATOR_PORT, DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC,
// DIST_SERVICE_MAX_MISSING_HEARTBEATS, SEAM_COORDINATOR_TIMEOUT_SEC,
// DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN and SEAM_LOST_JOB_GRACE_SEC; unset or empty means
// the default. A bad value is InvalidArgument naming the variable and the value. Also reads
// the file SEAM_JOB_SECRET_FILE names, when set (ReadJobSecretFile's errors).
absl::StatusOr<CoordinatorOptions> ReadCoordinatorOptions(const EnvGetter& env);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_DISTRIBUTED_DISTRIBUTED_CONFIG_H_
