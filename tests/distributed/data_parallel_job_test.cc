// Data-parallel training across processes, started the way users start it: `seam launch`
// with tests/distributed/dp_worker (public API only), PJRT_DEVICE=CPU, 127.0.0.1 and a free
// port per test. Against one process on the whole batch: the same losses within float
// tolerance, parameters bit-identical on every rank (compared by hash), the cross-process
// counters derived from the program. And a rank killed with SIGKILL mid-training: every
// other rank and `seam launch` end non-zero within 30 s, naming it.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "src/testing/spawn.h"

namespace seam::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kSteps = 5;
// The worker's model: Mlp {6, 16, 3}; its parameters in bytes (f32).
constexpr int64_t kParamBytes = (6 * 16 + 16 + 16 * 3 + 3) * 4;

std::map<std::string, std::string> CpuEnv() {
  return {{"PJRT_DEVICE", "CPU"},
          {"MASTER_ADDR", "127.0.0.1"},
          {"DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC", "1"},
          {"DIST_SERVICE_MAX_MISSING_HEARTBEATS", "3"},
          {"SEAM_COORDINATOR_TIMEOUT_SEC", "60"},
          {"SEAM_LOST_JOB_GRACE_SEC", "5"}};
}

// What one rank printed (lines of `seam launch` start with "[rank <r>] ").
struct RankOutput {
  std::vector<double> losses;
  std::string params;
  double checksum = -1;
  std::string replicas;
  int64_t collectives = -1;
  int64_t collective_bytes = -1;
  int64_t bytes_sent = -1;  // the plugin's CollectiveBytesSent
  int64_t exposed_ns = -1;  // the plugin's CollectiveExposedNanos
};

// What Gloo's ring sends from each of `processes` for an all_reduce of `bytes`.
int64_t RingBytes(int64_t bytes, int64_t processes) {
  return 2 * (processes - 1) * ((bytes + processes - 1) / processes);
}

void ParseLine(const std::string& line, RankOutput& out) {
  std::istringstream in(line);
  std::string word;
  in >> word;
  if (word == "loss") {
    int step = 0;
    double value = 0;
    in >> step >> value;
    out.losses.push_back(value);
  } else if (word == "params") {
    in >> out.params;
  } else if (word == "checksum") {
    in >> out.checksum;
  } else if (word == "replicas") {
    std::getline(in, out.replicas);
  } else if (word.rfind("CrossProcessAllReduce=", 0) == 0) {
    out.collectives = std::stoll(word.substr(word.find('=') + 1));
  } else if (word.rfind("CrossProcessAllReduceBytes=", 0) == 0) {
    out.collective_bytes = std::stoll(word.substr(word.find('=') + 1));
  } else if (word.rfind("CollectiveBytesSent=", 0) == 0) {
    out.bytes_sent = std::stoll(word.substr(word.find('=') + 1));
  } else if (word.rfind("CollectiveExposedNanos=", 0) == 0) {
    out.exposed_ns = std::stoll(word.substr(word.find('=') + 1));
  }
}

std::map<int, RankOutput> ParseRanks(const std::string& text) {
  std::map<int, RankOutput> ranks;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    int rank = -1;
    int consumed = 0;
    if (std::sscanf(line.c_str(), "[rank %d] %n", &rank, &consumed) != 1 || consumed == 0) {
      continue;
    }
    ParseLine(line.substr(static_cast<size_t>(consumed)), ranks[rank]);
  }
  return ranks;
}

RankOutput Reference() {
  Child child({SEAM_DP_WORKER, "--reference", "--steps", std::to_string(kSteps)},
              {{"PJRT_DEVICE", "CPU"}});
  Exit exit = child.WaitOrKill(seconds(60));
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.Describe() << child.Stderr();
  RankOutput out;
  std::istringstream in(child.Stdout());
  std::string line;
  while (std::getline(in, line)) ParseLine(line, out);
  return out;
}

// `seam launch -n <processes> --devices-per-process <devices>` of the worker; with
// `bucket_bytes` > 0, SEAM_DP_BUCKET_BYTES set to it, expecting gradient buckets of the
// sizes `buckets` lists (default: one of every gradient). With `bf16`, the workers exchange
// gradients in bf16 (each bucket half its bytes; losses within bf16's tolerance).
void TrainAcross(int processes, int devices, int64_t bucket_bytes = 0,
                 std::vector<int64_t> buckets = {kParamBytes}, bool bf16 = false) {
  const RankOutput reference = Reference();
  ASSERT_EQ(reference.losses.size(), static_cast<size_t>(kSteps));
  std::vector<std::string> argv = {SEAM_CLI,
                                   "launch",
                                   "-n",
                                   std::to_string(processes),
                                   "--devices-per-process",
                                   std::to_string(devices),
                                   "--master-port",
                                   std::to_string(FreePort()),
                                   "--",
                                   SEAM_DP_WORKER,
                                   "--steps",
                                   std::to_string(kSteps)};
  if (bf16) argv.push_back("--bf16-exchange");
  std::map<std::string, std::string> env = CpuEnv();
  if (bucket_bytes > 0) env["SEAM_DP_BUCKET_BYTES"] = std::to_string(bucket_bytes);
  Child launch(argv, env);
  Exit exit = launch.WaitOrKill(seconds(120));
  ASSERT_TRUE(exit.exited && exit.code == 0) << exit.Describe() << "\n"
                                             << launch.Stdout() << launch.Stderr();
  std::map<int, RankOutput> ranks = ParseRanks(launch.Stdout());
  ASSERT_EQ(ranks.size(), static_cast<size_t>(processes)) << launch.Stdout();
  const int64_t replicas = int64_t{processes} * devices;
  for (const auto& [rank, out] : ranks) {
    SCOPED_TRACE(::testing::Message() << "rank " << rank);
    ASSERT_EQ(out.losses.size(), reference.losses.size());
    for (size_t s = 0; s < out.losses.size(); ++s) {
      const double tolerance = bf16 ? 1e-2 : 1e-5;
      EXPECT_NEAR(out.losses[s], reference.losses[s],
                  tolerance * std::abs(reference.losses[s]) + 1e-6)
          << "step " << s;
    }
    EXPECT_NEAR(out.checksum, reference.checksum, (bf16 ? 1e-2 : 1e-4) * reference.checksum);
    EXPECT_EQ(out.params, ranks.begin()->second.params) << "parameters differ between ranks";
    std::ostringstream expected;
    expected << ' ' << replicas << ' ' << devices << ' ' << int64_t{rank} * devices;
    EXPECT_EQ(out.replicas, expected.str());
    // Per step: one all_reduce per bucket of gradients (the optimizer concatenates each
    // bucket's) and the loss's mean, each counted with one replica's operand.
    const int64_t wire = bf16 ? 2 : 1;  // gradient bytes per f32 byte
    EXPECT_EQ(out.collectives, kSteps * static_cast<int64_t>(buckets.size() + 1));
    EXPECT_EQ(out.collective_bytes, kSteps * (kParamBytes / wire + 4));
    // What the plugin counted Gloo sending: the ring's traffic of every bucket and the loss.
    int64_t sent = RingBytes(4, processes);
    for (int64_t bucket : buckets) sent += RingBytes(bucket / wire, processes);
    EXPECT_EQ(out.bytes_sent, kSteps * sent);
    EXPECT_GT(out.exposed_ns, 0) << "every step waits for at least its loss's all_reduce";
  }
}

TEST(DataParallelJob, TwoProcessesTrainLikeOneOnTheWholeBatch) { TrainAcross(2, 1); }

TEST(DataParallelJob, FourProcessesTrainLikeOneOnTheWholeBatch) { TrainAcross(4, 1); }

// 64-byte buckets, last parameter first: b2 (12 bytes) with W2 (192), b1 (64), W1 (384);
// each bucket's all_reduce overlaps the rest of the backward pass.
TEST(DataParallelJob, TwoProcessesWithSmallBucketsTrainLikeOne) {
  TrainAcross(2, 1, 64, {(16 * 3 + 3) * 4, 16 * 4, 6 * 16 * 4});
}

// The bf16 gradient exchange: half the gradient bytes on the wire by the plugin's count,
// training close to f32's, parameters still bit-identical on every rank.
TEST(DataParallelJob, TwoProcessesWithBf16ExchangeSendHalfTheGradientBytes) {
  TrainAcross(2, 1, 0, {kParamBytes}, /*bf16=*/true);
}

TEST(DataParallelJob, TwoProcessesOfTwoDevicesTrainLikeOneOnTheWholeBatch) { TrainAcross(2, 2); }

std::vector<std::string> DyingJobArgs() {
  return {"--steps", "100000", "--step-delay-ms", "20", "--die-rank", "1", "--die-at", "10"};
}

// Through seam launch: launch stops the other ranks and exits non-zero naming rank 1.
TEST(DataParallelJob, ARankKilledMidTrainingEndsTheLaunchNamingIt) {
  std::vector<std::string> argv = {SEAM_CLI, "launch",        "-n",
                                   "2",      "--master-port", std::to_string(FreePort()),
                                   "--",     SEAM_DP_WORKER};
  for (const std::string& arg : DyingJobArgs()) argv.push_back(arg);
  Child launch(argv, CpuEnv());
  ASSERT_TRUE(launch.WaitForOutput("dying at step 10", seconds(60)))
      << launch.Stdout() << launch.Stderr();
  const int64_t killed_at = WallMillis();
  Exit exit = launch.WaitOrKill(seconds(30));
  ASSERT_TRUE(exit.exited) << "seam launch still running 30 s after the kill\n"
                           << launch.Stdout() << launch.Stderr();
  EXPECT_NE(exit.code, 0);
  EXPECT_THAT(launch.Stderr(), HasSubstr("seam launch: rank 1 was killed by signal 9 (SIGKILL)"));
  std::printf("from the kill to the end of seam launch: %lld ms\n",
              static_cast<long long>(WallMillis() - killed_at));
}

// Without a launcher to stop it: the surviving rank's next step fails naming the lost rank,
// and the process exits non-zero, within 30 s.
TEST(DataParallelJob, ARankKilledMidTrainingEndsEveryOtherRankNamingIt) {
  std::map<std::string, std::string> env = CpuEnv();
  env["XLA_COORDINATOR_PORT"] = std::to_string(FreePort());
  env["WORLD_SIZE"] = "2";
  std::vector<std::string> argv = {SEAM_DP_WORKER};
  for (const std::string& arg : DyingJobArgs()) argv.push_back(arg);
  std::vector<Child> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    env["RANK"] = std::to_string(rank);
    ranks.emplace_back(argv, env);
  }
  ASSERT_TRUE(ranks[1].WaitForOutput("dying at step 10", seconds(60))) << ranks[1].Stderr();
  const int64_t killed_at = WallMillis();
  Exit dead = ranks[1].WaitOrKill(seconds(10));
  EXPECT_EQ(dead.signal, SIGKILL) << dead.Describe();
  Exit survivor = ranks[0].WaitOrKill(seconds(30));
  const int64_t took = WallMillis() - killed_at;
  ASSERT_TRUE(survivor.exited) << "rank 0 still running 30 s after rank 1 was killed\n"
                               << ranks[0].Stdout() << ranks[0].Stderr();
  EXPECT_NE(survivor.code, 0) << survivor.Describe();
  EXPECT_LT(took, 30000);
  // The worker prints the step's error: it names the lost rank first.
  EXPECT_THAT(ranks[0].Stderr(), HasSubstr("dp_worker: The job has lost rank 1"));
  std::printf("from the kill to the end of rank 0: %lld ms\n", static_cast<long long>(took));
}

// A rank that runs out of batches early returns from main (status 0) while the other is
// about to wait in the next step's all_reduce: the other fails naming it within the
// heartbeat bound (1 s x 3 here), instead of waiting for a collective that cannot complete.
TEST(DataParallelJob, ARankThatLeavesEarlyIsNamedWithinTheHeartbeatBound) {
  std::map<std::string, std::string> env = CpuEnv();
  env["XLA_COORDINATOR_PORT"] = std::to_string(FreePort());
  env["WORLD_SIZE"] = "2";
  env["SEAM_LOST_JOB_GRACE_SEC"] = "1";
  const std::vector<std::string> argv = {
      SEAM_DP_WORKER, "--steps", "100000", "--step-delay-ms", "20", "--leave-rank", "1",
      "--leave-at",   "10"};
  std::vector<Child> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    env["RANK"] = std::to_string(rank);
    ranks.emplace_back(argv, env);
  }
  ASSERT_TRUE(ranks[1].WaitForOutput("leaving at step 10", seconds(60))) << ranks[1].Stderr();
  const int64_t left_at = WallMillis();
  Exit survivor = ranks[0].WaitOrKill(seconds(30));
  const int64_t took = WallMillis() - left_at;
  ASSERT_TRUE(survivor.exited) << "rank 0 still running 30 s after rank 1 left\n"
                               << ranks[0].Stdout() << ranks[0].Stderr();
  EXPECT_NE(survivor.code, 0) << survivor.Describe();
  EXPECT_THAT(ranks[0].Stderr(), HasSubstr("The job has lost rank 1 (pid "));
  EXPECT_THAT(ranks[0].Stderr(), HasSubstr("): it exited (status 0) and left the job after 10 "
                                           "job-wide steps"));
  EXPECT_LT(took, 3000 + 1000 + 3000) << "heartbeat bound + grace + a loaded machine's slack";
  // The rank that left exits 0 once the job is over (its exit waits for the others).
  Exit leaver = ranks[1].WaitOrKill(seconds(30));
  EXPECT_EQ(leaver.Describe(), "exit status 0") << ranks[1].Stderr();
  std::printf("from rank 1's early exit to the end of rank 0: %lld ms\n",
              static_cast<long long>(took));
}

// A private file of the test's holding `secret`; its path.
std::string SecretFile(const std::string& name, const std::string& secret) {
  const std::string path = ::testing::TempDir() + "dp_job_" + name + "_" + std::to_string(getpid());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  EXPECT_GE(fd, 0) << path;
  EXPECT_EQ(write(fd, secret.data(), secret.size()), static_cast<ssize_t>(secret.size()));
  close(fd);
  return path;
}

// `seam launch -n 2` of the worker with the job secret in `secret_file`.
Child LaunchWithSecret(int port, const std::string& secret_file) {
  std::map<std::string, std::string> env = CpuEnv();
  env["SEAM_JOB_SECRET_FILE"] = secret_file;
  return Child({SEAM_CLI, "launch", "-n", "2", "--master-port", std::to_string(port), "--",
                SEAM_DP_WORKER, "--steps", "60", "--step-delay-ms", "50"},
               env);
}

// Processes that dial a running job's coordinator without its secret, with another job's,
// and with its secret but another world size: each is refused with a message that says
// why, and the job ends exactly as an undisturbed run does.
TEST(DataParallelJob, StraysAreRefusedAndTheJobEndsAsIfUndisturbed) {
  const std::string secret = SecretFile("secret", "a-secret-of-this-job-0123456789\n");
  const std::string other = SecretFile("other", "the-secret-of-another-job-0123456\n");
  std::string undisturbed;
  {
    Child launch = LaunchWithSecret(FreePort(), secret);
    Exit exit = launch.WaitOrKill(seconds(120));
    ASSERT_EQ(exit.Describe(), "exit status 0") << launch.Stdout() << launch.Stderr();
    undisturbed = launch.Stdout();
  }
  const int port = FreePort();
  Child launch = LaunchWithSecret(port, secret);
  ASSERT_TRUE(launch.WaitForOutput("] loss 3 ", seconds(60))) << launch.Stderr();
  const struct {
    std::map<std::string, std::string> env;
    std::string message;
  } strays[] = {
      {{}, "serves a job that has a secret, and the caller sent none"},
      {{{"SEAM_JOB_SECRET_FILE", other}}, "refused the caller's job secret"},
      {{{"SEAM_JOB_SECRET_FILE", secret}, {"WORLD_SIZE", "3"}},
       "The ranks disagree about the world size"},
  };
  std::vector<Child> started;
  for (const auto& stray : strays) {
    std::map<std::string, std::string> env = CpuEnv();
    env["XLA_COORDINATOR_PORT"] = std::to_string(port);
    env["RANK"] = "1";
    env["WORLD_SIZE"] = "2";
    for (const auto& [name, value] : stray.env) env[name] = value;
    started.emplace_back(std::vector<std::string>{SEAM_DP_WORKER, "--steps", "1"}, env);
  }
  for (size_t i = 0; i < started.size(); ++i) {
    Exit exit = started[i].WaitOrKill(seconds(30));
    EXPECT_TRUE(exit.exited && exit.code != 0) << exit.Describe();
    EXPECT_THAT(started[i].Stderr(), HasSubstr(strays[i].message));
  }
  EXPECT_FALSE(launch.Wait(milliseconds(0)).exited) << "the strays came after the job ended";
  Exit exit = launch.WaitOrKill(seconds(120));
  ASSERT_EQ(exit.Describe(), "exit status 0") << launch.Stdout() << launch.Stderr();
  std::map<int, RankOutput> expected = ParseRanks(undisturbed);
  std::map<int, RankOutput> got = ParseRanks(launch.Stdout());
  ASSERT_EQ(got.size(), 2u);
  for (const auto& [rank, out] : got) {
    EXPECT_EQ(out.losses, expected[rank].losses) << "rank " << rank;
    EXPECT_EQ(out.params, expected[rank].params) << "rank " << rank;
  }
  EXPECT_THAT(launch.Stderr(), Not(HasSubstr("lost")));
  unlink(secret.c_str());
  unlink(other.c_str());
}

}  // namespace
}  // namespace seam::testing
