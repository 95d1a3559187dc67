// The pieces of `seam launch` that need no child process: line prefixing, exit
// descriptions, the port's precedence, the children's environment, PATH lookup and the
// option checks. launch_test.sh runs the real processes.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/launch_command.h"
#include "tools/process_group.h"

namespace seam::tools {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(LinePrefixer, LabelsEveryCompleteLine) {
  LinePrefixer prefixer("[rank 3] ");
  EXPECT_EQ(prefixer.Feed("a\nb\n"), "[rank 3] a\n[rank 3] b\n");
  EXPECT_EQ(prefixer.Finish(), "");
}

TEST(LinePrefixer, KeepsAPartialLineUntilItEnds) {
  LinePrefixer prefixer("[rank 0] ");
  EXPECT_EQ(prefixer.Feed("hal"), "");
  EXPECT_EQ(prefixer.Feed("f\nnext"), "[rank 0] half\n");
  EXPECT_EQ(prefixer.Feed(" one\n\n"), "[rank 0] next one\n[rank 0] \n");
}

TEST(LinePrefixer, FinishEndsTheLastLine) {
  LinePrefixer prefixer("> ");
  EXPECT_EQ(prefixer.Feed("x\ntail"), "> x\n");
  EXPECT_EQ(prefixer.Finish(), "> tail\n");
  EXPECT_EQ(prefixer.Finish(), "");
}

TEST(LinePrefixer, CutsAnOverlongLine) {
  LinePrefixer prefixer("> ", 4);
  EXPECT_EQ(prefixer.Feed("abcdefghij"), "> abcd\n> efgh\n");
  EXPECT_EQ(prefixer.Feed("\n"), "> ij\n");
  EXPECT_EQ(prefixer.Feed("abcd\n"), "> abcd\n> \n");
}

TEST(DescribeExit, StatusAndSignal) {
  EXPECT_EQ(DescribeExit({false, 3, false}), "exited with status 3");
  EXPECT_EQ(DescribeExit({true, SIGKILL, false}), "was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(DescribeExit({true, SIGSEGV, true}), "was killed by signal 11 (SIGSEGV) (core dumped)");
  EXPECT_EQ(SignalName(SIGRTMIN + 1), "signal " + std::to_string(SIGRTMIN + 1));
}

EnvLookup FakeEnv(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

LaunchOptions TwoProcesses() {
  LaunchOptions options;
  options.nproc = 2;
  options.command = {"prog"};
  return options;
}

TEST(ResolveEndpoint, FlagThenXlaCoordinatorPortThenMasterPort) {
  LaunchOptions options = TwoProcesses();
  const auto env = FakeEnv({{"XLA_COORDINATOR_PORT", "2222"}, {"MASTER_PORT", "3333"}});
  options.master_port = 1111;
  EXPECT_EQ(ResolveEndpoint(options, env)->port, 1111);
  options.master_port = 0;
  EXPECT_EQ(ResolveEndpoint(options, env)->port, 2222);
  EXPECT_EQ(ResolveEndpoint(options, env)->port_source, "XLA_COORDINATOR_PORT");
  const auto master_only = FakeEnv({{"XLA_COORDINATOR_PORT", ""}, {"MASTER_PORT", "3333"}});
  EXPECT_EQ(ResolveEndpoint(options, master_only)->port, 3333);
  EXPECT_EQ(ResolveEndpoint(options, master_only)->addr, "127.0.0.1");
}

TEST(ResolveEndpoint, AFreePortOn127001) {
  absl::StatusOr<Endpoint> endpoint = ResolveEndpoint(TwoProcesses(), FakeEnv({}));
  ASSERT_TRUE(endpoint.ok()) << endpoint.status();
  EXPECT_EQ(endpoint->port_source, "free");
  // The port is free: it can be bound on 127.0.0.1 right away.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(endpoint->port));
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(fd);
}

TEST(ResolveEndpoint, RefusesABadPortAndAFreePortForSeveralNodes) {
  LaunchOptions options = TwoProcesses();
  EXPECT_EQ(ResolveEndpoint(options, FakeEnv({{"MASTER_PORT", "70000"}})).status().message(),
            "MASTER_PORT='70000' is not a port (an integer from 1 to 65535)");
  options.nnodes = 2;
  options.master_addr = "127.0.0.1";
  EXPECT_THAT(std::string(ResolveEndpoint(options, FakeEnv({})).status().message()),
              HasSubstr("with --nnodes 2 the port must be given"));
}

TEST(ChildEnvironment, RanksFromNodeRankAndOverridesInherited) {
  LaunchOptions options = TwoProcesses();
  options.nnodes = 3;
  options.node_rank = 2;
  options.devices_per_process = 4;
  Endpoint endpoint{"10.0.0.1", 4444, "--master-port"};
  const std::vector<std::string> env =
      ChildEnvironment({"PATH=/bin", "RANK=9", "CPU_NUM_DEVICES=1", "PJRT_LOCAL_PROCESS_RANK=5"},
                       options, endpoint, 1, /*restart=*/2);
  for (const char* expected :
       {"PATH=/bin", "RANK=5", "WORLD_SIZE=6", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2",
        "PJRT_LOCAL_PROCESS_RANK=1", "PJRT_LOCAL_PROCESS_COUNT=2", "MASTER_ADDR=10.0.0.1",
        "MASTER_PORT=4444", "XLA_COORDINATOR_PORT=4444", "SEAM_RESTART_COUNT=2",
        "CPU_NUM_DEVICES=4"}) {
    EXPECT_THAT(env, Contains(std::string(expected)));
  }
  EXPECT_THAT(env, Not(Contains(std::string("RANK=9"))));
  EXPECT_THAT(env, Not(Contains(std::string("CPU_NUM_DEVICES=1"))));
  EXPECT_EQ(env.size(), 12u);
}

TEST(ChildEnvironment, LeavesCpuNumDevicesWithoutDevicesPerProcess) {
  const std::vector<std::string> env =
      ChildEnvironment({"CPU_NUM_DEVICES=8"}, TwoProcesses(), {"127.0.0.1", 1, "free"}, 0);
  EXPECT_THAT(env, Contains(std::string("CPU_NUM_DEVICES=8")));
}

TEST(ChildEnvironment, SetsTheSecretFileOverAnInheritedOne) {
  const std::vector<std::string> env =
      ChildEnvironment({"SEAM_JOB_SECRET_FILE=/old"}, TwoProcesses(), {"127.0.0.1", 1, "free"}, 0,
                       0, "/tmp/seam-job-secret-x");
  EXPECT_THAT(env, Contains(std::string("SEAM_JOB_SECRET_FILE=/tmp/seam-job-secret-x")));
  EXPECT_THAT(env, Not(Contains(std::string("SEAM_JOB_SECRET_FILE=/old"))));
}

TEST(PlanJobSecret, OwnSecretForOneNodeWarningForSeveralAndTheUsersFileChecked) {
  LaunchOptions options = TwoProcesses();
  absl::StatusOr<JobSecretPlan> plan = PlanJobSecret(options, FakeEnv({}));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->make);
  EXPECT_EQ(plan->warning, "");
  options.nnodes = 2;
  plan = PlanJobSecret(options, FakeEnv({}));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->make);
  EXPECT_THAT(plan->warning, HasSubstr("SEAM_JOB_SECRET_FILE is not set, so the job of 2 nodes "
                                       "has no secret"));
  plan = PlanJobSecret(options, FakeEnv({{"SEAM_JOB_SECRET_FILE", "/dev/null"}}));
  EXPECT_THAT(std::string(plan.status().message()),
              HasSubstr("SEAM_JOB_SECRET_FILE='/dev/null' is not a regular file"));
}

TEST(JobSecretFile, PrivateFileOfHexRemovedAtTheEnd) {
  std::string path;
  {
    absl::StatusOr<std::unique_ptr<JobSecretFile>> file = JobSecretFile::Create("/tmp");
    ASSERT_TRUE(file.ok()) << file.status();
    path = (*file)->path();
    struct stat info {};
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    EXPECT_EQ(info.st_size, 65);
    EXPECT_TRUE(PlanJobSecret(TwoProcesses(), FakeEnv({{"SEAM_JOB_SECRET_FILE", path}})).ok());
  }
  EXPECT_NE(access(path.c_str(), F_OK), 0) << path << " still exists";
  EXPECT_THAT(std::string(JobSecretFile::Create("/nonexistent").status().message()),
              HasSubstr("cannot create the job's secret file in '/nonexistent'"));
}

TEST(FindProgram, SearchesPath) {
  EXPECT_EQ(*FindProgram("sh", "/nonexistent::/bin"), "/bin/sh");
  EXPECT_EQ(*FindProgram("./relative/prog", "/bin"), "./relative/prog");
  EXPECT_EQ(FindProgram("no-such-program-here", "/bin").status().message(),
            "program 'no-such-program-here' not found in PATH (/bin)");
}

TEST(ValidateLaunchOptions, NodeRankAndAddress) {
  LaunchOptions options = TwoProcesses();
  EXPECT_TRUE(ValidateLaunchOptions(options).ok());
  options.nnodes = 2;
  options.node_rank = 2;
  options.master_addr = "127.0.0.1";
  EXPECT_EQ(ValidateLaunchOptions(options).message(),
            "--node-rank 2 is out of range: with --nnodes 2 the node ranks are 0 to 1");
  options.node_rank = 1;
  options.master_addr = "";
  EXPECT_THAT(std::string(ValidateLaunchOptions(options).message()),
              HasSubstr("--master-addr is required with --nnodes 2"));
}

}  // namespace
}  // namespace seam::tools
