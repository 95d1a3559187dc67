// Jobs of real processes (tests/distributed/coordinator_worker.cc) on 127.0.0.1: the store
// across processes, the start-up barrier, bad settings, a second job on the same port, the
// listening address, and what the others see when a rank is killed, stopped or fails.
// Every wait is bounded; every child is killed and reaped at the latest when its Child
// goes out of scope. Ports are picked free per test, so tests run side by side.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "src/testing/spawn.h"

namespace seam::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

using Env = std::map<std::string, std::string>;

// A job of `world` ranks on a free port with short liveness limits: a silent rank is lost
// after 1 s x 2 heartbeats; a lost job ends a stuck process after 1 s.
struct Job {
  explicit Job(int world_size) : world(world_size), port(FreePort()) {}

  Env EnvFor(int rank) const {
    return {{"MASTER_ADDR", "127.0.0.1"},
            {"XLA_COORDINATOR_PORT", std::to_string(port)},
            {"RANK", std::to_string(rank)},
            {"WORLD_SIZE", std::to_string(world)},
            {"DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC", "1"},
            {"DIST_SERVICE_MAX_MISSING_HEARTBEATS", "2"},
            {"SEAM_COORDINATOR_TIMEOUT_SEC", "30"},
            {"SEAM_LOST_JOB_GRACE_SEC", "1"}};
  }

  Child Start(int rank, const std::vector<std::string>& args, const Env& extra = {}) const {
    Env env = EnvFor(rank);
    for (const auto& [name, value] : extra) env[name] = value;
    std::vector<std::string> argv = {SEAM_COORDINATOR_WORKER};
    argv.insert(argv.end(), args.begin(), args.end());
    return Child(argv, env);
  }

  std::vector<Child> StartAll(const std::vector<std::string>& args, const Env& extra = {}) const {
    std::vector<Child> children;
    for (int rank = 0; rank < world; ++rank) children.push_back(Start(rank, args, extra));
    return children;
  }

  int world;
  int port;
};

std::string Output(const Child& child) {
  return "stdout:\n" + child.Stdout() + "stderr:\n" + child.Stderr();
}

// ---- The store.

void StoreAcross(int world) {
  Job job(world);
  const int64_t started = WallMillis();
  std::vector<Child> children = job.StartAll({"kv"});
  std::set<int64_t> incarnations;
  int64_t slowest = 0;
  for (int rank = 0; rank < world; ++rank) {
    Child& child = children[static_cast<size_t>(rank)];
    Exit exit = child.WaitOrKill(seconds(60));
    ASSERT_EQ(exit.Describe(), "exit status 0") << Output(child);
    const std::string out = child.Stdout();
    for (int other = 0; other < world; ++other) {
      EXPECT_THAT(out, HasSubstr("got " + std::to_string(other) + " 'value of rank " +
                                 std::to_string(other) + "'"));
    }
    EXPECT_THAT(out, HasSubstr("try_get_missing=NOT_FOUND"));
    EXPECT_THAT(out, HasSubstr("get_missing=DEADLINE_EXCEEDED"));
    const size_t at = out.find("incarnation=");
    ASSERT_NE(at, std::string::npos);
    incarnations.insert(static_cast<int64_t>(std::stoull(out.substr(at + 12, 16), nullptr, 16)));
    slowest = std::max(slowest, child.Value("ready_at_ms").value_or(0) - started);
    EXPECT_THAT(child.Stderr(),
                HasSubstr("Creating coordinator for rank=" + std::to_string(rank) +
                          ", world size=" + std::to_string(world) +
                          ", coordinator address=127.0.0.1:" + std::to_string(job.port)));
  }
  EXPECT_EQ(incarnations.size(), 1u) << "every rank agrees on the job's incarnation";
  std::printf("start-up to the first barrier, %d processes: %lld ms\n", world,
              static_cast<long long>(slowest));
}

TEST(DistributedStore, PutAndGetAcrossTwoProcesses) { StoreAcross(2); }
TEST(DistributedStore, PutAndGetAcrossFourProcesses) { StoreAcross(4); }

TEST(DistributedStartup, EightProcessesMeetAtTheStartupBarrier) {
  Job job(8);
  const int64_t started = WallMillis();
  std::vector<Child> children = job.StartAll({"init"});
  int64_t slowest = 0;
  for (Child& child : children) {
    ASSERT_EQ(child.WaitOrKill(seconds(60)).Describe(), "exit status 0") << Output(child);
    slowest = std::max(slowest, child.Value("ready_at_ms").value_or(0) - started);
  }
  std::printf("start-up to the first barrier, 8 processes: %lld ms\n",
              static_cast<long long>(slowest));
}

TEST(DistributedStore, ASecondJobOnTheSameAddressNeverReadsTheFirstJobsKeys) {
  Job job(2);
  std::vector<std::string> incarnations;
  {
    std::vector<Child> first = job.StartAll({"leftover-write"});
    for (Child& child : first) {
      ASSERT_EQ(child.WaitOrKill(seconds(60)).Describe(), "exit status 0") << Output(child);
    }
    const std::string out = first[0].Stdout();
    incarnations.push_back(out.substr(out.find("incarnation=") + 12, 16));
  }
  std::vector<Child> second = job.StartAll({"leftover-read"});
  for (Child& child : second) {
    ASSERT_EQ(child.WaitOrKill(seconds(60)).Describe(), "exit status 0") << Output(child);
    EXPECT_THAT(child.Stdout(), HasSubstr("leftover=NOT_FOUND"));
  }
  const std::string out = second[0].Stdout();
  incarnations.push_back(out.substr(out.find("incarnation=") + 12, 16));
  EXPECT_NE(incarnations[0], incarnations[1]);
}

// ---- Start-up failures.

TEST(DistributedStartup, AMissingRankIsNamedWithinTheTimeout) {
  Job job(3);
  const Env env = {{"SEAM_COORDINATOR_TIMEOUT_SEC", "2"}};
  Child rank0 = job.Start(0, {"init"}, env);
  Child rank1 = job.Start(1, {"init"}, env);
  for (Child* child : {&rank0, &rank1}) {
    ASSERT_EQ(child->WaitOrKill(seconds(20)).Describe(), "exit status 2") << Output(*child);
    EXPECT_THAT(child->Stdout(), HasSubstr("error=DEADLINE_EXCEEDED"));
    EXPECT_THAT(child->Stdout(), HasSubstr("rank 2 of 3 did not arrive (rank 2 never connected "
                                           "to the coordinator)"));
    EXPECT_THAT(child->Stdout(), HasSubstr("SEAM_COORDINATOR_TIMEOUT_SEC=2"));
    EXPECT_LE(child->Value("failed_after_ms").value_or(99999), 8000) << Output(*child);
  }
}

// Only the newcomer fails (it may be a stray process of another job); rank 0 waits for a
// rank 1 that agrees, and names the refused process when none comes.
TEST(DistributedStartup, RanksThatDisagreeAboutTheWorldSizeAreToldBothValues) {
  Job job(2);
  Child rank0 = job.Start(0, {"init"}, {{"SEAM_COORDINATOR_TIMEOUT_SEC", "3"}});
  Child rank1 = job.Start(1, {"init"}, {{"WORLD_SIZE", "3"}});
  ASSERT_EQ(rank1.WaitOrKill(seconds(20)).Describe(), "exit status 2") << Output(rank1);
  EXPECT_THAT(rank1.Stdout(),
              HasSubstr("The ranks disagree about the world size: rank 0 (which hosts the "
                        "coordinator) has world size 2, rank 1 (pid "));
  EXPECT_THAT(rank1.Stdout(),
              HasSubstr(") has world size 3. The coordinator at 127.0.0.1:" +
                        std::to_string(job.port) + " refused this process; its job goes on"));
  EXPECT_LE(rank1.Value("failed_after_ms").value_or(99999), 10000) << "long before the timeout";
  ASSERT_EQ(rank0.WaitOrKill(seconds(20)).Describe(), "exit status 2") << Output(rank0);
  EXPECT_THAT(rank0.Stdout(), HasSubstr("rank 1 of 2 did not arrive (rank 1 never connected to "
                                        "the coordinator; refused: pid "));
  EXPECT_THAT(rank0.Stdout(), HasSubstr(" connected as rank 1 with world size 3 and was refused)"));
}

// A port already taken: seam's own message, and none of gRPC's log lines (unless the user
// asks for them with GRPC_VERBOSITY).
TEST(DistributedStartup, ATakenPortGivesSeamsMessageWithoutGrpcLogLines) {
  Job job(2);
  const int holder = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(holder, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(job.port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(holder, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  Child quiet = job.Start(0, {"init"});
  Child loud = job.Start(0, {"init"}, {{"GRPC_VERBOSITY", "ERROR"}});
  for (Child* child : {&quiet, &loud}) {
    ASSERT_EQ(child->WaitOrKill(seconds(20)).Describe(), "exit status 2") << Output(*child);
    EXPECT_THAT(child->Stdout(),
                HasSubstr("Failed to initialize distributed runtime service. Cannot listen on "
                          "127.0.0.1:" +
                          std::to_string(job.port)));
  }
  EXPECT_THAT(quiet.Stderr(), Not(HasSubstr("chttp2"))) << Output(quiet);
  EXPECT_THAT(quiet.Stderr(), Not(HasSubstr("No address added"))) << Output(quiet);
  // The same process with gRPC's logging asked for: the line the quiet one left out.
  EXPECT_THAT(loud.Stderr(), HasSubstr("No address added")) << Output(loud);
  close(holder);
}

TEST(DistributedStartup, AnUnreachableCoordinatorIsAnErrorNamingTheAddress) {
  Job job(2);  // rank 0 is never started: nothing listens on the port
  Child rank1 = job.Start(1, {"init"}, {{"SEAM_COORDINATOR_TIMEOUT_SEC", "1"}});
  ASSERT_EQ(rank1.WaitOrKill(seconds(20)).Describe(), "exit status 2") << Output(rank1);
  EXPECT_THAT(rank1.Stdout(),
              HasSubstr("Failed to initialize distributed runtime client: could not reach the "
                        "coordinator at 127.0.0.1:" +
                        std::to_string(job.port) + " (hosted by rank 0) within 1 s"));
  EXPECT_LE(rank1.Value("failed_after_ms").value_or(99999), 6000);
}

TEST(DistributedStartup, BadValuesAreNamed) {
  const std::vector<std::pair<Env, std::string>> cases = {
      {{{"XLA_COORDINATOR_PORT", "http"}},
       "Environment variable XLA_COORDINATOR_PORT must be an integer from 1 to 65535, got 'http'"},
      {{{"XLA_COORDINATOR_PORT", "70000"}},
       "Environment variable XLA_COORDINATOR_PORT must be an integer from 1 to 65535, got "
       "'70000'"},
      {{{"RANK", "one"}},
       "Environment variable RANK must be an integer from 0 to 2147483647, "
       "got 'one'"},
      {{{"DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC", "0"}},
       "Environment variable DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC must be an integer from 1 "
       "to"},
  };
  for (const auto& [env, message] : cases) {
    Job job(2);
    Child child = job.Start(1, {"init"}, env);
    ASSERT_EQ(child.WaitOrKill(seconds(20)).Describe(), "exit status 2") << Output(child);
    EXPECT_THAT(child.Stdout(), HasSubstr("error=INVALID_ARGUMENT"));
    EXPECT_THAT(child.Stdout(), HasSubstr(message));
  }
}

TEST(DistributedStartup, TheServiceListensOnlyOnTheAddressItWasGiven) {
  Job job(2);
  Child rank0 = job.Start(0, {"init"});  // waits at the start-up barrier for rank 1
  char port_hex[8];
  std::snprintf(port_hex, sizeof(port_hex), "%04X", job.port);
  std::vector<std::string> listening;  // local addresses of listening sockets on the port
  const auto deadline = std::chrono::steady_clock::now() + seconds(20);
  while (listening.empty() && std::chrono::steady_clock::now() < deadline) {
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
      std::ifstream in(table);
      std::string line;
      std::getline(in, line);  // header
      while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state;
        fields >> slot >> local >> remote >> state;
        if (state != "0A" || local.substr(local.find(':') + 1) != port_hex) continue;
        // gRPC may listen with an IPv6 socket on the IPv4-mapped address ::ffff:127.0.0.1,
        // which accepts exactly what 127.0.0.1 does.
        const std::string kMapped = "0000000000000000FFFF0000";
        listening.push_back(local.rfind(kMapped, 0) == 0 ? local.substr(kMapped.size()) : local);
      }
    }
    if (listening.empty()) std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_EQ(listening, std::vector<std::string>{std::string("0100007F:") + port_hex})
      << "one listening socket, on 127.0.0.1 only (not 0.0.0.0 or ::)";
  EXPECT_THAT(rank0.Stderr(), HasSubstr("Creating coordinator for rank=0, world size=2, "
                                        "coordinator address=127.0.0.1:" +
                                        std::to_string(job.port)));
}

// ---- A rank lost while the job runs.

// Starts `world` ranks with `scenarios[rank]`, waits until all are ready, then sends
// `signal` to rank `victim`. The wall-clock time of the signal.
int64_t StartThenSignal(const Job& job, const std::vector<std::string>& scenarios, int victim,
                        int signal, std::vector<Child>* children) {
  for (int rank = 0; rank < job.world; ++rank) {
    children->push_back(job.Start(rank, {scenarios[static_cast<size_t>(rank)]}));
  }
  for (Child& child : *children) {
    EXPECT_TRUE(child.WaitForOutput("ready ", seconds(40))) << Output(child);
  }
  const int64_t at = WallMillis();
  (*children)[static_cast<size_t>(victim)].Signal(signal);
  return at;
}

// Every rank but the victim sees the job lost, naming the victim, within `limit_ms`; the
// longest detection time.
int64_t ExpectOthersSeeTheLoss(std::vector<Child>& children, int victim, int64_t signalled_at,
                               int64_t limit_ms, const std::string& why) {
  int64_t slowest = 0;
  for (size_t rank = 0; rank < children.size(); ++rank) {
    if (static_cast<int>(rank) == victim) continue;
    Child& child = children[rank];
    EXPECT_EQ(child.WaitOrKill(seconds(30)).Describe(), "exit status 3") << Output(child);
    EXPECT_THAT(child.Stdout(), HasSubstr("error=The job has lost rank " + std::to_string(victim)));
    EXPECT_THAT(child.Stdout(), HasSubstr(why)) << Output(child);
    const int64_t detected =
        child.Value("lost_at_ms").value_or(signalled_at + 99999) - signalled_at;
    EXPECT_LE(detected, limit_ms) << Output(child);
    slowest = std::max(slowest, detected);
  }
  return slowest;
}

TEST(DistributedFailure, AKilledRankFailsEveryOtherRankNamingIt) {
  Job job(3);
  std::vector<Child> children;
  const int64_t at = StartThenSignal(job, {"watch", "watch", "watch"}, 1, SIGKILL, &children);
  const int64_t slowest = ExpectOthersSeeTheLoss(
      children, 1, at, 3000, "its connection to the coordinator closed before it left the job");
  std::printf("SIGKILL of rank 1 seen by every other rank after %lld ms\n",
              static_cast<long long>(slowest));
}

TEST(DistributedFailure, AKilledCoordinatorHostFailsEveryOtherRank) {
  Job job(3);
  std::vector<Child> children;
  const int64_t at = StartThenSignal(job, {"watch", "watch", "watch"}, 0, SIGKILL, &children);
  ExpectOthersSeeTheLoss(children, 0, at, 3000, "(hosted by rank 0)");
}

TEST(DistributedFailure, AStoppedRankIsLostAfterTheMissingHeartbeats) {
  Job job(3);
  std::vector<Child> children;
  const int64_t at = StartThenSignal(job, {"watch", "watch", "watch"}, 2, SIGSTOP, &children);
  // 1 s x 2 heartbeats, plus the phase of the last heartbeat and a busy machine's slack.
  const int64_t slowest = ExpectOthersSeeTheLoss(children, 2, at, 6000, "sent no heartbeat for");
  std::printf(
      "SIGSTOP of rank 2 seen by every other rank after %lld ms (limit 2000 ms + one "
      "heartbeat)\n",
      static_cast<long long>(slowest));
}

TEST(DistributedFailure, AStoppedCoordinatorHostIsLostAfterTheMissingHeartbeats) {
  Job job(2);
  std::vector<Child> children;
  const int64_t at = StartThenSignal(job, {"watch", "watch"}, 0, SIGSTOP, &children);
  ExpectOthersSeeTheLoss(children, 0, at, 8000, "answered no heartbeat for");
}

TEST(DistributedFailure, ARankStuckOutsideTheFrameworkIsEndedWithStatus1) {
  Job job(2);
  std::vector<Child> children;
  const int64_t at = StartThenSignal(job, {"stuck", "watch"}, 1, SIGKILL, &children);
  Child& stuck = children[0];
  EXPECT_EQ(stuck.WaitOrKill(seconds(30)).Describe(), "exit status 1") << Output(stuck);
  const int64_t ended = WallMillis() - at;
  EXPECT_THAT(stuck.Stderr(), HasSubstr("The job has lost rank 1"));
  EXPECT_THAT(stuck.Stderr(), HasSubstr("This process ends with exit status 1 in 1 s unless it "
                                        "ends sooner (SEAM_LOST_JOB_GRACE_SEC)"));
  EXPECT_THAT(stuck.Stderr(), HasSubstr("seam E Exiting with status 1: The job has lost rank 1"));
  EXPECT_LE(ended, 8000);
  std::printf("a stuck rank ended %lld ms after its peer's SIGKILL (grace 1 s)\n",
              static_cast<long long>(ended));
}

TEST(DistributedFailure, ARankExitingWithAnErrorFailsTheOthers) {
  Job job(2);
  Child rank0 = job.Start(0, {"watch"});
  Child rank1 = job.Start(1, {"exit", "7"});
  EXPECT_EQ(rank1.WaitOrKill(seconds(30)).Describe(), "exit status 7") << Output(rank1);
  EXPECT_EQ(rank0.WaitOrKill(seconds(30)).Describe(), "exit status 3") << Output(rank0);
  EXPECT_THAT(rank0.Stdout(), HasSubstr("The job has lost rank 1 (pid "));
  EXPECT_THAT(rank0.Stdout(), HasSubstr("its process is exiting with status 7"));
}

TEST(DistributedFailure, AnOrderlyExitWaitsForTheOtherRanks) {
  Job job(2);
  Child rank0 = job.Start(0, {"sleep-exit", "1500"});
  Child rank1 = job.Start(1, {"sleep-exit", "0"});
  ASSERT_EQ(rank1.WaitOrKill(seconds(30)).Describe(), "exit status 0") << Output(rank1);
  const int64_t rank1_ended = WallMillis();
  ASSERT_EQ(rank0.WaitOrKill(seconds(30)).Describe(), "exit status 0") << Output(rank0);
  // Rank 1 stayed (its exit handler waited) until rank 0 began to exit.
  EXPECT_GE(rank1_ended + 100, rank0.Value("exiting_at_ms").value_or(0));
  for (Child* child : {&rank0, &rank1}) {
    EXPECT_THAT(child->Stderr(), Not(HasSubstr("lost"))) << Output(*child);
  }
}

// ---- A plugin that requires the coordinator.

constexpr const char* kReportPattern =
    "read 'from process %d'; try-get miss: NOT_FOUND (Key 'pjrt:";

void ExpectPluginRoundTrip(std::vector<Child>& children, const char* branch) {
  for (size_t rank = 0; rank < children.size(); ++rank) {
    Child& child = children[rank];
    ASSERT_EQ(child.WaitOrKill(seconds(60)).Describe(), "exit status 0") << Output(child);
    const std::string out = child.Stdout();
    EXPECT_THAT(out, HasSubstr(std::string("branch=") + branch + " coordinator=127.0.0.1:"));
    char expected[128];
    std::snprintf(expected, sizeof(expected), kReportPattern,
                  static_cast<int>((rank + 1) % children.size()));
    EXPECT_THAT(out, HasSubstr("report: process " + std::to_string(rank) + " of " +
                               std::to_string(children.size()) + " " + expected));
    // The callbacks put the job's prefix before the plugin's key.
    EXPECT_THAT(out, ::testing::ContainsRegex("Key 'pjrt:[0-9a-f]{16}/never-set' is not set\\)"));
    EXPECT_THAT(out, HasSubstr("get timeout: DEADLINE_EXCEEDED; second put: ALREADY_EXISTS"));
  }
}

TEST(DistributedPlugin, ARegisteredPluginRequiringTheCoordinatorGetsAWorkingStore) {
  Job job(2);
  std::vector<Child> children =
      job.StartAll({"plugin-dynamic"}, {{"PJRT_DYNAMIC_PLUGINS", "1"}, {"PJRT_DEVICE", "KVTEST"}});
  ExpectPluginRoundTrip(children, "dynamic plugin");
}

TEST(DistributedPlugin, TheCpuBranchStartsTheCoordinatorWhenTheWorldIsLargerThanOne) {
  Job job(2);
  std::vector<Child> children = job.StartAll({"plugin-cpu"}, {{"PJRT_DEVICE", "CPU"}});
  ExpectPluginRoundTrip(children, "CPU");
}

// ---- The singleton's messages.

TEST(DistributedSingleton, MessagesBeforeAndAfterInitialization) {
  Job job(1);
  Child before = job.Start(0, {"not-initialized"});
  ASSERT_EQ(before.WaitOrKill(seconds(20)).Describe(), "exit status 0") << Output(before);
  EXPECT_THAT(before.Stdout(), HasSubstr("message=XlaCoordinator has not been initialized"));
  Child twice = job.Start(0, {"init-twice"});
  ASSERT_EQ(twice.WaitOrKill(seconds(20)).Describe(), "exit status 0") << Output(twice);
  EXPECT_THAT(twice.Stdout(), HasSubstr("message=Can only initialize the XlaCoordinator once."));
}

}  // namespace
}  // namespace seam::testing
