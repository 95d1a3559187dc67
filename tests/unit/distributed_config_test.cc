// The job's variables: PyTorch/XLA's precedence and defaults, seam's limits, and errors that
// name the variable and the value.
#include "src/runtime/distributed/distributed_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace seam::runtime {
namespace {

using Vars = std::map<std::string, std::string>;

// An environment holding `vars`; records the names read, in order.
struct FakeEnv {
  Vars vars;
  std::vector<std::string> read;
  EnvGetter Getter() {
    return [this](const char* name) -> std::optional<std::string> {
      read.emplace_back(name);
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  }
};

absl::StatusOr<JobTopology> Topology(Vars vars) {
  FakeEnv env{std::move(vars), {}};
  return ReadJobTopology(env.Getter());
}

absl::StatusOr<CoordinatorOptions> Options(Vars vars) {
  FakeEnv env{std::move(vars), {}};
  return ReadCoordinatorOptions(env.Getter());
}

std::string Error(const absl::Status& status) { return std::string(status.message()); }

TEST(JobTopology, DefaultsAreASingleProcess) {
  FakeEnv env;
  auto topology = ReadJobTopology(env.Getter());
  ASSERT_TRUE(topology.ok());
  EXPECT_EQ(topology->local_rank, 0);
  EXPECT_EQ(topology->rank, 0);
  EXPECT_EQ(topology->local_world_size, 1);
  EXPECT_EQ(topology->world_size, 1);
  EXPECT_EQ(env.read, (std::vector<std::string>{"PJRT_LOCAL_PROCESS_RANK", "LOCAL_RANK", "RANK",
                                                "PJRT_LOCAL_PROCESS_COUNT", "LOCAL_WORLD_SIZE",
                                                "WORLD_SIZE"}));
}

TEST(JobTopology, PjrtNamesComeBeforeTorchrunNames) {
  FakeEnv env{{{"PJRT_LOCAL_PROCESS_RANK", "1"},
               {"LOCAL_RANK", "3"},
               {"PJRT_LOCAL_PROCESS_COUNT", "2"},
               {"LOCAL_WORLD_SIZE", "4"}},
              {}};
  auto topology = ReadJobTopology(env.Getter());
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->local_rank, 1);
  EXPECT_EQ(topology->local_world_size, 2);
  // The fall-back names are not even read when the first ones are set.
  EXPECT_EQ(env.read, (std::vector<std::string>{"PJRT_LOCAL_PROCESS_RANK", "RANK",
                                                "PJRT_LOCAL_PROCESS_COUNT", "WORLD_SIZE"}));
}

TEST(JobTopology, TorchrunNamesAreTheFallBack) {
  auto topology =
      Topology({{"LOCAL_RANK", "3"}, {"LOCAL_WORLD_SIZE", "4"}, {"PJRT_LOCAL_PROCESS_RANK", ""}});
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->local_rank, 3);
  EXPECT_EQ(topology->local_world_size, 4);
}

TEST(JobTopology, RankAndWorldDefaultToTheLocalValues) {
  auto topology = Topology({{"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "3"}});
  ASSERT_TRUE(topology.ok()) << topology.status();
  EXPECT_EQ(topology->rank, 2);
  EXPECT_EQ(topology->world_size, 3);
  auto global = Topology(
      {{"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}, {"RANK", "5"}, {"WORLD_SIZE", "8"}});
  ASSERT_TRUE(global.ok()) << global.status();
  EXPECT_EQ(global->local_rank, 1);
  EXPECT_EQ(global->rank, 5);
  EXPECT_EQ(global->world_size, 8);
}

TEST(JobTopology, BadValuesNameTheVariableAndTheValue) {
  EXPECT_EQ(Error(Topology({{"RANK", "x"}}).status()),
            "Environment variable RANK must be an integer from 0 to 2147483647, got 'x'");
  EXPECT_EQ(Error(Topology({{"RANK", "-1"}}).status()),
            "Environment variable RANK must be an integer from 0 to 2147483647, got '-1'");
  EXPECT_EQ(Error(Topology({{"WORLD_SIZE", "0"}}).status()),
            "Environment variable WORLD_SIZE must be an integer from 1 to 2147483647, got '0'");
  EXPECT_EQ(Error(Topology({{"PJRT_LOCAL_PROCESS_RANK", "one"}, {"LOCAL_RANK", "1"}}).status()),
            "Environment variable PJRT_LOCAL_PROCESS_RANK must be an integer from 0 to "
            "2147483647, got 'one'");
  EXPECT_EQ(Error(Topology({{"LOCAL_WORLD_SIZE", "2.5"}}).status()),
            "Environment variable LOCAL_WORLD_SIZE must be an integer from 1 to 2147483647, got "
            "'2.5'");
  EXPECT_EQ(Error(Topology({{"WORLD_SIZE", "99999999999"}}).status()),
            "Environment variable WORLD_SIZE must be an integer from 1 to 2147483647, got "
            "'99999999999'");
}

TEST(JobTopology, ARankMustBeBelowItsWorldSize) {
  EXPECT_EQ(Error(Topology({{"RANK", "2"}, {"WORLD_SIZE", "2"}}).status()),
            "The rank must be below the world size: RANK=2, WORLD_SIZE=2");
  EXPECT_EQ(Error(Topology({{"RANK", "1"}}).status()),
            "The rank must be below the world size: RANK=1, world size 1 (the default: none of "
            "WORLD_SIZE, PJRT_LOCAL_PROCESS_COUNT, LOCAL_WORLD_SIZE is set)");
  EXPECT_EQ(Error(Topology({{"LOCAL_RANK", "1"}}).status()),
            "The local rank must be below the local world size: LOCAL_RANK=1, local world size "
            "1 (the default: none of PJRT_LOCAL_PROCESS_COUNT, LOCAL_WORLD_SIZE is set)");
  EXPECT_EQ(Error(Topology({{"LOCAL_WORLD_SIZE", "4"}, {"WORLD_SIZE", "2"}}).status()),
            "The local world size cannot exceed the world size: LOCAL_WORLD_SIZE=4, "
            "WORLD_SIZE=2");
}

TEST(CoordinatorOptions, Defaults) {
  auto options = Options({});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->address, "localhost");
  EXPECT_EQ(options->port, 8547);
  EXPECT_EQ(options->Target(), "localhost:8547");
  EXPECT_EQ(options->heartbeat_interval.count(), 5);
  EXPECT_EQ(options->max_missing_heartbeats, 3);
  EXPECT_EQ(options->LossTimeout().count(), 15000);
  EXPECT_EQ(options->startup_timeout.count(), 120);
  EXPECT_EQ(options->shutdown_timeout.count(), 300);
  EXPECT_EQ(options->lost_job_grace.count(), 10);
}

TEST(CoordinatorOptions, ValuesAreRead) {
  auto options = Options({{"MASTER_ADDR", "10.1.2.3"},
                          {"XLA_COORDINATOR_PORT", "9000"},
                          {"DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC", "2"},
                          {"DIST_SERVICE_MAX_MISSING_HEARTBEATS", "4"},
                          {"SEAM_COORDINATOR_TIMEOUT_SEC", "7"},
                          {"DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN", "1"},
                          {"SEAM_LOST_JOB_GRACE_SEC", "0"}});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->Target(), "10.1.2.3:9000");
  EXPECT_EQ(options->LossTimeout().count(), 8000);
  EXPECT_EQ(options->startup_timeout.count(), 7);
  EXPECT_EQ(options->shutdown_timeout.count(), 60);
  EXPECT_EQ(options->lost_job_grace.count(), 0);
  EXPECT_EQ(Options({{"MASTER_ADDR", "::1"}})->Target(), "[::1]:8547");
  EXPECT_EQ(Options({{"MASTER_ADDR", ""}})->Target(), "localhost:8547");
}

TEST(CoordinatorOptions, BadValuesNameTheVariableAndTheValue) {
  EXPECT_EQ(Error(Options({{"XLA_COORDINATOR_PORT", "0"}}).status()),
            "Environment variable XLA_COORDINATOR_PORT must be an integer from 1 to 65535, got "
            "'0'");
  EXPECT_EQ(Error(Options({{"XLA_COORDINATOR_PORT", "8547x"}}).status()),
            "Environment variable XLA_COORDINATOR_PORT must be an integer from 1 to 65535, got "
            "'8547x'");
  EXPECT_EQ(Error(Options({{"DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC", "0"}}).status()),
            "Environment variable DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC must be an integer from "
            "1 to 2592000, got '0'");
  EXPECT_EQ(Error(Options({{"DIST_SERVICE_MAX_MISSING_HEARTBEATS", "many"}}).status()),
            "Environment variable DIST_SERVICE_MAX_MISSING_HEARTBEATS must be an integer from 1 "
            "to 1000, got 'many'");
  EXPECT_EQ(Error(Options({{"SEAM_COORDINATOR_TIMEOUT_SEC", "-5"}}).status()),
            "Environment variable SEAM_COORDINATOR_TIMEOUT_SEC must be an integer from 1 to "
            "2592000, got '-5'");
  EXPECT_EQ(Error(Options({{"SEAM_LOST_JOB_GRACE_SEC", "1.5"}}).status()),
            "Environment variable SEAM_LOST_JOB_GRACE_SEC must be an integer from 0 to 2592000, "
            "got '1.5'");
}

TEST(CoordinatorOptionsTest, TheJobSecretComesFromTheFileSeamJobSecretFileNames) {
  absl::StatusOr<CoordinatorOptions> none = Options({});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->secret, "");
  EXPECT_EQ(none->secret_file, "");
  EXPECT_EQ(Options({{"SEAM_JOB_SECRET_FILE", ""}})->secret, "") << "empty means unset";
  EXPECT_EQ(Error(Options({{"SEAM_JOB_SECRET_FILE", "/dev/null"}}).status()),
            "The job's secret file SEAM_JOB_SECRET_FILE='/dev/null' is not a regular file");
  const std::string path = ::testing::TempDir() + "distributed_config_test_secret";
  {
    std::ofstream out(path);
    out << "0123456789abcdef-secret\n";
  }
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  absl::StatusOr<CoordinatorOptions> options = Options({{"SEAM_JOB_SECRET_FILE", path}});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->secret, "0123456789abcdef-secret");
  EXPECT_EQ(options->secret_file, path);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace seam::runtime
