// The CPU plugin's multi-process settings within one process: create options, the process
// index it reports, the execute rule, the address rule, the store's timeout, a dtype Gloo
// does not take, and that a single-process job never touches Gloo.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/collectives/gloo_collectives.h"
#include "src/plugins/cpu/collectives/gloo_store.h"
#include "src/plugins/cpu/collectives/local_address.h"
#include "src/plugins/cpu/collectives/sigpipe_guard.h"
#include "src/testing/file_kv_store.h"
#include "src/testing/pjrt_client.h"
#include "src/testing/process_sockets.h"
#include "src/testing/reduction_cases.h"
#include "src/testing/worker_process.h"

namespace seam::testing {
namespace {

using Clock = std::chrono::steady_clock;

absl::StatusOr<std::unique_ptr<PjrtClient>> Client(const std::vector<IntOption>& options,
                                                   FileKvStore* store) {
  return PjrtClient::Create(cpu::GetCpuPjrtApi(), options, store);
}

class CpuGlooClientTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("MASTER_ADDR", "127.0.0.1", 1); }
  TempDir dir_;
  FileKvStore store_{dir_.path()};
};

TEST_F(CpuGlooClientTest, SingleProcessJobsUseNoGlooAndNoSocket) {
  for (bool explicit_options : {false, true}) {
    std::vector<IntOption> options = {{"cpu_device_count", 2}};
    if (explicit_options) {
      options.push_back({"process_index", 0});
      options.push_back({"process_count", 1});
    }
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options, &store_);
    ASSERT_TRUE(client.ok()) << client.status();
    ReductionCase c{
        .op = "sum", .dtype = ir::DType::kF32, .processes = 1, .devices = 2, .elements = 5};
    absl::StatusOr<PJRT_LoadedExecutable*> executable = (*client)->Compile(c.ProgramText());
    ASSERT_TRUE(executable.ok()) << executable.status();
    std::vector<PJRT_Buffer*> arguments;
    for (size_t d = 0; d < 2; ++d) {
      const std::vector<uint8_t> input = c.Input(static_cast<int64_t>(d));
      arguments.push_back(*(*client)->Upload(input.data(), c.BufferType(), {c.elements}, d));
    }
    absl::StatusOr<PjrtClient::Launch> launch = (*client)->Execute(*executable, arguments);
    ASSERT_TRUE(launch.ok()) << launch.status();
    for (size_t d = 0; d < 2; ++d) {
      std::vector<uint8_t> got(c.Input(0).size());
      ASSERT_TRUE((*client)->Download(launch->outputs[d], got.data(), got.size()).ok());
      EXPECT_EQ(c.Check(static_cast<int64_t>(d), got), "");
      // The host's check does catch a wrong result.
      EXPECT_NE(c.Check(static_cast<int64_t>(d), c.Input(0)), "");
      (*client)->Destroy(arguments[d]);
    }
    (*client)->Destroy(*launch);
    (*client)->Destroy(*executable);
    EXPECT_EQ((*client)->ProcessIndex().value_or(-1), 0);
  }
  EXPECT_EQ(cpu::GlooContextsBuilt(), 0);
  EXPECT_TRUE(OwnTcpSockets().empty());
  EXPECT_TRUE(store_.Keys().empty());
}

TEST_F(CpuGlooClientTest, ReportsItsProcessIndex) {
  absl::StatusOr<std::unique_ptr<PjrtClient>> client =
      Client({{"cpu_device_count", 2}, {"process_index", 2}, {"process_count", 3}}, &store_);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->ProcessIndex().value_or(-1), 2);
  EXPECT_EQ((*client)->DeviceProcessIndex(0).value_or(-1), 2);
  EXPECT_EQ((*client)->DeviceProcessIndex(1).value_or(-1), 2);
  // Creating the client opens no connection: that waits for the first collective.
  EXPECT_TRUE(OwnTcpSockets().empty());
  EXPECT_EQ(cpu::GlooContextsBuilt(), 0);
}

TEST_F(CpuGlooClientTest, RefusesBadProcessOptions) {
  auto message = [&](const std::vector<IntOption>& options, FileKvStore* store) {
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options, store);
    return client.ok() ? std::string("ok") : std::string(client.status().message());
  };
  EXPECT_EQ(message({{"process_index", 2}, {"process_count", 2}}, &store_),
            "PJRT_Client_Create: option 'process_index' must be in [0, 1], got 2");
  EXPECT_EQ(message({{"process_count", 0}}, &store_),
            "PJRT_Client_Create: option 'process_count' must be in [1, 65536], got 0");
  EXPECT_EQ(message({{"process_count", 2}, {"collective_timeout_ms", 0}}, &store_),
            "PJRT_Client_Create: option 'collective_timeout_ms' must be in [1, 604800000], got 0");
  EXPECT_EQ(message({{"process_count", 2}, {"local_process_count", 3}}, &store_),
            "PJRT_Client_Create: option 'local_process_count' must be in [1, 2], got 3");
  EXPECT_EQ(message({{"process_count", 2}, {"local_process_count", 0}}, &store_),
            "PJRT_Client_Create: option 'local_process_count' must be in [1, 2], got 0");
  EXPECT_EQ(message({{"process_count", 2}, {"collective_spin_us", 1000001}}, &store_),
            "PJRT_Client_Create: option 'collective_spin_us' must be a number of microseconds "
            "from 0 to 1000000, got '1000001'");
  EXPECT_EQ(message({{"process_count", 2}}, nullptr),
            "PJRT_Client_Create: option 'process_count' is 2 but no key-value store was given "
            "(kv_get_callback, kv_put_callback, kv_try_get_callback): the processes of a job "
            "find each other through it");
  EXPECT_EQ(message({{"process_counts", 2}}, &store_),
            "PJRT_Client_Create: unknown client option 'process_counts' (the cpu plugin accepts: "
            "cpu_device_count, process_index, process_count, collective_timeout_ms, "
            "collective_spin_us, kernel_spin_us, local_process_count, threads, "
            "gemm, conv, epilogues, layouts, dump_to, inline_max_cost, inline_cross_process, "
            "master_addr, attention, jit, stream_min_bytes)");
  // MASTER_ADDR unset means localhost, for the collectives as for the coordinator.
  unsetenv("MASTER_ADDR");
  EXPECT_EQ(message({{"process_count", 2}}, &store_), "ok");
  // One process needs neither the variable nor a store.
  EXPECT_EQ(message({{"process_count", 1}}, nullptr), "ok");
  setenv("MASTER_ADDR", "no-such-host.invalid", 1);
  EXPECT_EQ(
      message({{"process_count", 2}}, &store_)
          .rfind("PJRT_Client_Create: MASTER_ADDR='no-such-host.invalid' cannot be resolved", 0),
      0u);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("SEAM_CPU_COLLECTIVE_TIMEOUT_MS", "soon", 1);
  EXPECT_EQ(message({{"process_count", 2}}, &store_),
            "PJRT_Client_Create: environment variable SEAM_CPU_COLLECTIVE_TIMEOUT_MS must be a "
            "positive integer, got 'soon'");
  unsetenv("SEAM_CPU_COLLECTIVE_TIMEOUT_MS");
}

// The device's thread polls for an overlapped all_reduce while the host's processes times
// their kernel threads fit its CPUs (cpu_settings.h, CollectiveSpin), never beyond them, and
// the option or the variable overrides the rule.
TEST_F(CpuGlooClientTest, PollsForCollectivesOnlyWhereTheProcessesFitTheCpus) {
  auto spin = [&](const std::vector<IntOption>& extra) -> int64_t {
    std::vector<IntOption> options = {{"process_index", 0}, {"process_count", 2}};
    options.insert(options.end(), extra.begin(), extra.end());
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options, &store_);
    if (!client.ok()) {
      ADD_FAILURE() << client.status();
      return -1;
    }
    return (*client)->client()->gloo->config().finish_spin.count();
  };
  // One process of one thread fits any machine.
  EXPECT_EQ(spin({{"threads", 1}, {"local_process_count", 1}}), cpu::kDefaultCollectiveSpinUs);
  // One process with a kernel thread per usable CPU fits; without local_process_count both
  // processes of the job count as this host's, and two such processes do not.
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const int64_t cpus = CPU_COUNT(&set);
  EXPECT_EQ(spin({{"threads", cpus}, {"local_process_count", 1}}), cpu::kDefaultCollectiveSpinUs);
  EXPECT_EQ(spin({{"threads", cpus}}), 0);
  // Two processes of 256 threads each fit no machine this runs on.
  EXPECT_EQ(spin({{"threads", 256}, {"local_process_count", 2}}), 0);
  EXPECT_EQ(spin({{"threads", 256}, {"local_process_count", 2}, {"collective_spin_us", 700}}), 700);
  EXPECT_EQ(spin({{"threads", 1}, {"collective_spin_us", 0}}), 0);
  setenv("SEAM_CPU_COLLECTIVE_SPIN_US", "1500", 1);
  EXPECT_EQ(spin({{"threads", 256}, {"local_process_count", 2}}), 1500);
  EXPECT_EQ(spin({{"collective_spin_us", 30}}), 30);  // the option wins
  setenv("SEAM_CPU_COLLECTIVE_SPIN_US", "soon", 1);
  absl::StatusOr<std::unique_ptr<PjrtClient>> refused =
      Client({{"process_index", 0}, {"process_count", 2}}, &store_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "PJRT_Client_Create: environment variable SEAM_CPU_COLLECTIVE_SPIN_US must be a number "
            "of microseconds from 0 to 1000000, got 'soon'");
  setenv("SEAM_CPU_COLLECTIVE_SPIN_US", "2000000", 1);
  refused = Client({{"process_index", 0}, {"process_count", 2}}, &store_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "PJRT_Client_Create: environment variable SEAM_CPU_COLLECTIVE_SPIN_US must be a number "
            "of microseconds from 0 to 1000000, got '2000000'");
  unsetenv("SEAM_CPU_COLLECTIVE_SPIN_US");
}

TEST_F(CpuGlooClientTest, ExecuteNamesTheMultiProcessRule) {
  absl::StatusOr<std::unique_ptr<PjrtClient>> client =
      Client({{"cpu_device_count", 2}, {"process_index", 0}, {"process_count", 2}}, &store_);
  ASSERT_TRUE(client.ok()) << client.status();
  ReductionCase c{.op = "sum", .processes = 3, .devices = 1, .elements = 1};
  absl::StatusOr<PJRT_LoadedExecutable*> executable = (*client)->Compile(c.ProgramText());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const float one = 1;
  std::vector<PJRT_Buffer*> arguments = {*(*client)->Upload(&one, PJRT_Buffer_Type_F32, {1}, 0),
                                         *(*client)->Upload(&one, PJRT_Buffer_Type_F32, {1}, 1)};
  absl::StatusOr<PjrtClient::Launch> launch = (*client)->Execute(*executable, arguments);
  EXPECT_EQ(launch.status().message(),
            "PJRT_LoadedExecutable_Execute: the program has replicas=3, the call runs on 2 "
            "device(s) (num_devices must equal the replica count, or, in this job of 2 processes, "
            "be all 2 devices of this process for a program of replicas=4)");
  for (PJRT_Buffer* argument : arguments) (*client)->Destroy(argument);
  (*client)->Destroy(*executable);
}

// An all_reduce of pred never reaches Gloo (the verifier refuses it at compile time); Gloo's
// layer itself answers UNIMPLEMENTED naming the dtype.
TEST_F(CpuGlooClientTest, PredIsRefusedNamingIt) {
  absl::StatusOr<std::unique_ptr<PjrtClient>> client =
      Client({{"process_index", 0}, {"process_count", 2}}, &store_);
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string text =
      "program @p replicas=2 {\n  %0 = parameter(0) : pred[2]\n"
      "  %1 = all_reduce_max(%0), group_size={2}, replica_groups={0,1} : pred[2]\n"
      "  return (%1)\n}\n";
  absl::StatusOr<PJRT_LoadedExecutable*> executable = (*client)->Compile(text);
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(executable.status().message().find("element type pred"), absl::string_view::npos)
      << executable.status();

  PJRT_Client_Create_Args args{};
  args.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  store_.Attach(args);
  cpu::GlooConfig config{.store = **plugin::KvStore::FromCreateArgs(args),
                         .process_index = 0,
                         .process_count = 2,
                         .local_devices = 1,
                         .local_address = *cpu::MasterAddress("127.0.0.1"),
                         .timeout = std::chrono::milliseconds(100)};
  cpu::GlooCollectives gloo(config);
  uint8_t in[2] = {1, 0}, out[2] = {};
  absl::Status status =
      gloo.AllReduce({0, 1}, ir::Op::kAllReduceMax, ir::DType::kPred, {in}, {out}, 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(),
            "all_reduce across processes does not support element type pred (supported: f32, f64, "
            "bf16, s32, s64)");
  EXPECT_EQ(cpu::GlooContextsBuilt(), 0);
}

// A process whose peers never come: its first collective fails with DEADLINE_EXCEEDED after
// the timeout, it marks generation 0 broken, and its next try uses generation 1's keys.
TEST_F(CpuGlooClientTest, LonelyProcessTimesOutAndMovesToTheNextGeneration) {
  absl::StatusOr<std::unique_ptr<PjrtClient>> client =
      Client({{"process_index", 0}, {"process_count", 2}, {"collective_timeout_ms", 300}}, &store_);
  ASSERT_TRUE(client.ok()) << client.status();
  ReductionCase c{.op = "sum", .processes = 2, .devices = 1, .elements = 3};
  absl::StatusOr<PJRT_LoadedExecutable*> executable = (*client)->Compile(c.ProgramText());
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::vector<uint8_t> input = c.Input(0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    PJRT_Buffer* argument = *(*client)->Upload(input.data(), c.BufferType(), {3}, 0);
    const Clock::time_point start = Clock::now();
    absl::StatusOr<PjrtClient::Launch> launch = (*client)->Execute(*executable, {argument});
    ASSERT_TRUE(launch.ok()) << launch.status();  // the call returns at once
    absl::Status done = (*client)->Await(launch->done[0]);
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    EXPECT_EQ(done.code(), absl::StatusCode::kDeadlineExceeded) << done;
    EXPECT_NE(done.message().find("%1 (all_reduce_sum): building the Gloo context of processes "
                                  "{0, 1} (generation " +
                                  std::to_string(attempt) + ", keys under 'cpu/gloo/0-1/" +
                                  std::to_string(attempt) + "/') failed: key-value store: get"),
              absl::string_view::npos)
        << done;
    EXPECT_EQ((*client)->ReadyStatus(launch->outputs[0]), done);
    EXPECT_GE(waited, 250);
    EXPECT_LT(waited, 5000);
    (*client)->Destroy(*launch);
    (*client)->Destroy(argument);
  }
  const std::vector<std::string> keys = store_.Keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"cpu/gloo/0-1/0/broken", "cpu/gloo/0-1/0/devices/0",
                                            "cpu/gloo/0-1/1/broken", "cpu/gloo/0-1/1/devices/0"}));
  (*client)->Destroy(*executable);
}

// Gloo's base Store ignores the timeout of wait(); ours enforces it.
TEST_F(CpuGlooClientTest, GlooStoreEnforcesItsTimeouts) {
  PJRT_Client_Create_Args args{};
  args.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  store_.Attach(args);
  const plugin::KvStore kv = **plugin::KvStore::FromCreateArgs(args);
  cpu::GlooStore store(kv, "job/", std::chrono::milliseconds(5000));
  const Clock::time_point start = Clock::now();
  try {
    store.wait({"never"}, std::chrono::milliseconds(200));
    ADD_FAILURE() << "wait returned";
  } catch (const cpu::GlooStoreError& e) {
    EXPECT_EQ(e.status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_EQ(
        std::string(e.what()).rfind("key-value store: wait for 'job/never' (up to 200 ms)", 0), 0u)
        << e.what();
  }
  const auto waited =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  EXPECT_GE(waited, 150);
  EXPECT_LT(waited, 3000);
  store.set("k", {'v'});
  EXPECT_EQ(store.get("k"), std::vector<char>{'v'});
  EXPECT_EQ(store_.Keys(), std::vector<std::string>{"job/k"});
  try {
    store.set("k", {'w'});
    ADD_FAILURE() << "a second set of a key succeeded";
  } catch (const cpu::GlooStoreError& e) {
    EXPECT_EQ(e.status().code(), absl::StatusCode::kAlreadyExists);
  }
}

TEST(LocalAddressTest, TheInterfaceThatRoutesToTheMaster) {
  absl::StatusOr<cpu::SocketAddress> master = cpu::MasterAddress("127.0.0.1");
  ASSERT_TRUE(master.ok()) << master.status();
  absl::StatusOr<cpu::SocketAddress> local = cpu::LocalAddressTowards(*master);
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_EQ(local->ToString(), "127.0.0.1");
  // Any 127/8 address routes through the loopback interface.
  local = cpu::LocalAddressTowards(*cpu::MasterAddress("127.0.0.2"));
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_EQ(local->ToString(), "127.0.0.1");
  // IPv6, with or without brackets, where the machine has an IPv6 loopback.
  absl::StatusOr<cpu::SocketAddress> v6 = cpu::MasterAddress("[::1]");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_EQ(v6->ToString(), "::1");
  if (absl::StatusOr<cpu::SocketAddress> v6_local = cpu::LocalAddressTowards(*v6); v6_local.ok()) {
    EXPECT_EQ(v6_local->ToString(), "::1");
  }
  // A host name is resolved (here by /etc/hosts); the local side is still found by routing.
  absl::StatusOr<cpu::SocketAddress> named = cpu::MasterAddress("localhost");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_TRUE(named->ToString() == "127.0.0.1" || named->ToString() == "::1") << named->ToString();
  EXPECT_EQ(cpu::MasterAddress("").status().code(), absl::StatusCode::kInvalidArgument);
}

// Gloo writes with writev(2): to a peer that died, that raises SIGPIPE, which by default
// ends the process. Inside the guard the write fails with EPIPE and nothing is left pending.
TEST(SigpipeGuardTest, AWriteToAPeerThatIsGoneFailsInsteadOfEndingTheProcess) {
  auto write_to_closed_peer = [] {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return -2;
    close(fds[1]);
    const char byte = 1;
    const ssize_t written = write(fds[0], &byte, 1);
    const int error = errno;
    close(fds[0]);
    return written == -1 ? error : 0;
  };
  EXPECT_EXIT(write_to_closed_peer(), ::testing::KilledBySignal(SIGPIPE), "");
  {
    const cpu::SigpipeGuard guard;
    EXPECT_EQ(write_to_closed_peer(), EPIPE);
  }
  sigset_t pending, mask;
  sigpending(&pending);
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  EXPECT_FALSE(sigismember(&pending, SIGPIPE));
  EXPECT_FALSE(sigismember(&mask, SIGPIPE));
}

}  // namespace
}  // namespace seam::testing
