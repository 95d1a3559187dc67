#include "src/runtime/distributed/distributed_config.h"

#include <cstdint>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/status_macros.h"
#include "src/runtime/distributed/job_secret.h"

namespace seam::runtime {
namespace {

constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
// Durations in seconds stay far from overflowing a count of nanoseconds.
constexpr int64_t kMaxSeconds = int64_t{30} * 24 * 3600;

// A variable's value when it is set and not empty.
std::optional<std::string> Read(const EnvGetter& env, const char* name) {
  std::optional<std::string> value = env(name);
  if (!value.has_value() || value->empty()) return std::nullopt;
  return value;
}

absl::StatusOr<int64_t> ParseInt(const char* name, const std::string& value, int64_t min,
                                 int64_t max) {
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(value, &parsed) || parsed < min || parsed > max) {
    return absl::InvalidArgumentError(absl::StrCat("Environment variable ", name,
                                                   " must be an integer from ", min, " to ", max,
                                                   ", got '", value, "'"));
  }
  return parsed;
}

// An integer variable and the name it came from ("" when the default was taken).
struct Found {
  int64_t value = 0;
  std::string from;
};

// `first`, else `second` (may be null), else `fallback`; the fall-back name is read only when
// the first is unset or empty.
absl::StatusOr<Found> ReadInt(const EnvGetter& env, const char* first, const char* second,
                              int64_t fallback, int64_t min) {
  for (const char* name : {first, second}) {
    if (name == nullptr) continue;
    if (std::optional<std::string> value = Read(env, name)) {
      SEAM_ASSIGN_OR_RETURN(int64_t parsed, ParseInt(name, *value, min, kIntMax));
      return Found{parsed, name};
    }
  }
  return Found{fallback, ""};
}

std::string Describe(const Found& found, const char* what, const char* names) {
  if (!found.from.empty()) return absl::StrCat(found.from, "=", found.value);
  return absl::StrCat(what, " ", found.value, " (the default: none of ", names, " is set)");
}

absl::StatusOr<int64_t> ReadBounded(const EnvGetter& env, const char* name, int64_t fallback,
                                    int64_t min, int64_t max) {
  std::optional<std::string> value = Read(env, name);
  if (!value.has_value()) return fallback;
  return ParseInt(name, *value, min, max);
}

}  // namespace

EnvGetter ProcessEnv() {
  return [](const char* name) { return base::GetEnv(name); };
}

absl::StatusOr<JobTopology> ReadJobTopology(const EnvGetter& env) {
  SEAM_ASSIGN_OR_RETURN(Found local_rank,
                        ReadInt(env, "PJRT_LOCAL_PROCESS_RANK", "LOCAL_RANK", 0, 0));
  SEAM_ASSIGN_OR_RETURN(Found rank, ReadInt(env, "RANK", nullptr, local_rank.value, 0));
  SEAM_ASSIGN_OR_RETURN(Found local_world,
                        ReadInt(env, "PJRT_LOCAL_PROCESS_COUNT", "LOCAL_WORLD_SIZE", 1, 1));
  SEAM_ASSIGN_OR_RETURN(Found world, ReadInt(env, "WORLD_SIZE", nullptr, local_world.value, 1));
  if (rank.from.empty()) rank.from = local_rank.from;
  if (world.from.empty()) world.from = local_world.from;

  const char* const kRankNames = "RANK, PJRT_LOCAL_PROCESS_RANK, LOCAL_RANK";
  const char* const kWorldNames = "WORLD_SIZE, PJRT_LOCAL_PROCESS_COUNT, LOCAL_WORLD_SIZE";
  if (local_rank.value >= local_world.value) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The local rank must be below the local world size: ",
        Describe(local_rank, "local rank", "PJRT_LOCAL_PROCESS_RANK, LOCAL_RANK"), ", ",
        Describe(local_world, "local world size", "PJRT_LOCAL_PROCESS_COUNT, LOCAL_WORLD_SIZE")));
  }
  if (rank.value >= world.value) {
    return absl::InvalidArgumentError(
        absl::StrCat("The rank must be below the world size: ", Describe(rank, "rank", kRankNames),
                     ", ", Describe(world, "world size", kWorldNames)));
  }
  if (local_world.value > world.value) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The local world size cannot exceed the world size: ",
        Describe(local_world, "local world size", "PJRT_LOCAL_PROCESS_COUNT, LOCAL_WORLD_SIZE"),
        ", ", Describe(world, "world size", kWorldNames)));
  }
  JobTopology topology;
  topology.local_rank = static_cast<int>(local_rank.value);
  topology.rank = static_cast<int>(rank.value);
  topology.local_world_size = static_cast<int>(local_world.value);
  topology.world_size = static_cast<int>(world.value);
  return topology;
}

std::string CoordinatorOptions::Target() const {
  const bool ipv6 = address.find(':') != std::string::npos && address.front() != '[';
  return ipv6 ? absl::StrCat("[", address, "]:", port) : absl::StrCat(address, ":", port);
}

absl::StatusOr<CoordinatorOptions> ReadCoordinatorOptions(const EnvGetter& env) {
  CoordinatorOptions options;
  if (std::optional<std::string> address = Read(env, "MASTER_ADDR")) options.address = *address;
  SEAM_ASSIGN_OR_RETURN(int64_t port, ReadBounded(env, "XLA_COORDINATOR_PORT", 8547, 1, 65535));
  options.port = static_cast<int>(port);
  SEAM_ASSIGN_OR_RETURN(int64_t interval, ReadBounded(env, "DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC",
                                                      5, 1, kMaxSeconds));
  options.heartbeat_interval = std::chrono::seconds(interval);
  SEAM_ASSIGN_OR_RETURN(int64_t missing,
                        ReadBounded(env, "DIST_SERVICE_MAX_MISSING_HEARTBEATS", 3, 1, 1000));
  options.max_missing_heartbeats = static_cast<int>(missing);
  SEAM_ASSIGN_OR_RETURN(int64_t startup,
                        ReadBounded(env, "SEAM_COORDINATOR_TIMEOUT_SEC", 120, 1, kMaxSeconds));
  options.startup_timeout = std::chrono::seconds(startup);
  SEAM_ASSIGN_OR_RETURN(int64_t shutdown, ReadBounded(env, "DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN",
                                                      5, 0, kMaxSeconds / 60));
  options.shutdown_timeout = std::chrono::minutes(shutdown);
  SEAM_ASSIGN_OR_RETURN(int64_t grace,
                        ReadBounded(env, "SEAM_LOST_JOB_GRACE_SEC", 10, 0, kMaxSeconds));
  options.lost_job_grace = std::chrono::seconds(grace);
  if (std::optional<std::string> file = Read(env, kJobSecretFileVariable)) {
    SEAM_ASSIGN_OR_RETURN(options.secret, ReadJobSecretFile(*file));
    options.secret_file = *file;
  }
  return options;
}

}  // namespace seam::runtime
