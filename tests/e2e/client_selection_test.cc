// How PJRT_DEVICE becomes a client: the branch chain, the variables each branch reads, and
// the exact outcome. Every case runs in a process of its own (ctest runs each TEST that
// way), because plugin tables and the client are per-process.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "seam/runtime.h"
#include "seam/tensor.h"
#include "src/runtime/distributed/coordinator.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/runtime.h"
#include "src/testing/spawn.h"

namespace seam::runtime {
namespace {

using EnvRead = std::pair<std::string, std::optional<std::string>>;

constexpr const char* kVariables[] = {
    "PJRT_DEVICE",      "PJRT_DYNAMIC_PLUGINS", "PJRT_LIBRARY_PATH",
    "CPU_NUM_DEVICES",  "TPU_LIBRARY_PATH",     "PTXLA_TPU_LIBRARY_PATH",
    "XPU_LIBRARY_PATH", "NEURON_LIBRARY_PATH",  "ENABLE_PJRT_COMPATIBILITY"};

void ClearEnvironment() {
  for (const char* name : kVariables) unsetenv(name);
  for (const std::string& name : testing::JobVariables()) unsetenv(name.c_str());
}

// What the CPU branch reads after CPU_NUM_DEVICES: the job's place (a single process here).
#define SEAM_JOB_READS                                                                             \
  "PJRT_LOCAL_PROCESS_RANK", "LOCAL_RANK", "RANK", "PJRT_LOCAL_PROCESS_COUNT", "LOCAL_WORLD_SIZE", \
      "WORLD_SIZE"

// A user's plugin, through the public API (include/seam/runtime.h).
using ::seam::PluginOptions;
class SimplePlugin : public ::seam::PjRtPlugin {
 public:
  SimplePlugin(std::string path, PluginOptions options = {}, bool coordinator = false)
      : path_(std::move(path)), options_(std::move(options)), coordinator_(coordinator) {}
  std::string library_path() const override { return path_; }
  PluginOptions client_create_options() const override { return options_; }
  bool requires_xla_coordinator() const override { return coordinator_; }

 private:
  std::string path_;
  PluginOptions options_;
  bool coordinator_;
};

// Calls made into a loaded test plugin (-1: that library is not loaded in this process).
int CallCount(const char* path) {
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto count = reinterpret_cast<int (*)()>(dlsym(handle, "SeamTestPluginCallCount"));
  int value = count == nullptr ? -2 : count();
  dlclose(handle);
  return value;
}

// ---- The table: device string x PJRT_DYNAMIC_PLUGINS.

struct Case {
  const char* device;
  bool dynamic;
  const char* branch;
  std::vector<const char*> more_reads;  // after PJRT_DEVICE and PJRT_DYNAMIC_PLUGINS
  const char* error;                    // nullptr: a client is built
};

std::string Miss(const std::string& device) {
  return "No PjRtPlugin registered for: " + device +
         ". Make sure the environment variable PJRT_DEVICE is set to a correct device name. " +
         kRegisterPluginDocs;
}

class ClientSelectionTest : public ::testing::TestWithParam<Case> {};

TEST_P(ClientSelectionTest, BranchVariablesAndOutcome) {
  const Case& c = GetParam();
  ClearEnvironment();
  setenv("PJRT_DEVICE", c.device, 1);
  if (c.dynamic) setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  for (const char* name :
       {"PJRT_LIBRARY_PATH", "TPU_LIBRARY_PATH", "XPU_LIBRARY_PATH", "NEURON_LIBRARY_PATH"}) {
    setenv(name, SEAM_CPU_PLUGIN_PATH, 1);
  }
  RegisterPjRtPlugin("MYDEVICE", std::make_shared<SimplePlugin>(SEAM_CPU_PLUGIN_PATH));

  ClientSelection selection;
  absl::StatusOr<std::unique_ptr<ComputationClient>> client =
      CreateClientFromEnvironment(&selection);

  EXPECT_EQ(selection.branch, c.branch);
  std::vector<std::string> read;
  for (const EnvRead& r : selection.env_read) read.push_back(r.first);
  std::vector<std::string> expected_reads = {"PJRT_DEVICE"};
  if (std::string(c.device) != "") {
    expected_reads.push_back("PJRT_DYNAMIC_PLUGINS");
    expected_reads.insert(expected_reads.end(), c.more_reads.begin(), c.more_reads.end());
  }
  EXPECT_EQ(read, expected_reads);
  if (c.error == nullptr) {
    ASSERT_TRUE(client.ok()) << client.status();
    EXPECT_EQ((*client)->GetPlatformName(), "cpu");
  } else {
    ASSERT_FALSE(client.ok());
    EXPECT_EQ(client.status().message(), c.error);
  }
}

const std::string kMissCpu = Miss("cpu"), kMissTpu = Miss("TPU"), kMissTpuLower = Miss("tpu"),
                  kMissXpu = Miss("XPU"), kMissNeuron = Miss("NEURON"), kMissGpu = Miss("GPU");
// The reference's exact text first, then the fix (issue 17: an unset PJRT_DEVICE says how
// to fix it, with no silent default).
const std::string kUnset =
    "$PJRT_DEVICE is not set. Set PJRT_DEVICE=CPU to run on this machine's processors, or "
    "see docs/architecture.md (\"Choosing a device\") for the other devices.";

INSTANTIATE_TEST_SUITE_P(
    DeviceStrings, ClientSelectionTest,
    ::testing::Values(Case{"CPU", false, "CPU", {"CPU_NUM_DEVICES", SEAM_JOB_READS}, nullptr},
                      Case{"CPU", true, "CPU", {"CPU_NUM_DEVICES", SEAM_JOB_READS}, nullptr},
                      Case{"cpu", false, "none", {}, "Unknown PJRT_DEVICE: 'cpu'"},
                      Case{"cpu", true, "dynamic plugin", {}, kMissCpu.c_str()},
                      Case{"TPU", false, "TPU", {"TPU_LIBRARY_PATH"}, nullptr},
                      Case{"TPU", true, "dynamic plugin", {}, kMissTpu.c_str()},
                      Case{"tpu", false, "none", {}, "Unknown PJRT_DEVICE: 'tpu'"},
                      Case{"tpu", true, "dynamic plugin", {}, kMissTpuLower.c_str()},
                      Case{"XPU", false, "XPU", {"XPU_LIBRARY_PATH"}, nullptr},
                      Case{"XPU", true, "dynamic plugin", {}, kMissXpu.c_str()},
                      Case{"NEURON", false, "NEURON", {"NEURON_LIBRARY_PATH"}, nullptr},
                      Case{"NEURON", true, "dynamic plugin", {}, kMissNeuron.c_str()},
                      Case{"LIBRARY", false, "none", {}, "Unknown PJRT_DEVICE: 'LIBRARY'"},
                      Case{"LIBRARY", true, "dynamic plugin", {"PJRT_LIBRARY_PATH"}, nullptr},
                      Case{"MYDEVICE", false, "none", {}, "Unknown PJRT_DEVICE: 'MYDEVICE'"},
                      Case{"MYDEVICE", true, "dynamic plugin", {}, nullptr},
                      Case{"GPU", false, "none", {}, "Unknown PJRT_DEVICE: 'GPU'"},
                      Case{"GPU", true, "dynamic plugin", {}, kMissGpu.c_str()},
                      Case{"", false, "none", {}, kUnset.c_str()},
                      Case{"", true, "none", {}, kUnset.c_str()}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = std::string(info.param.device).empty() ? "empty" : info.param.device;
      return name + (info.param.dynamic ? "_dynamic_on" : "_dynamic_off");
    });

// ---- The TPU library search order.

TEST(TpuSearchOrderTest, TpuLibraryPathWinsAndIsNeverOverwritten) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "TPU", 1);
  setenv("TPU_LIBRARY_PATH", SEAM_PLUGIN_TPU_ENV, 1);
  setenv("PTXLA_TPU_LIBRARY_PATH", SEAM_PLUGIN_TPU_PTXLA, 1);
  ClientSelection selection;
  auto client = CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(selection.library_path, SEAM_PLUGIN_TPU_ENV);
  EXPECT_GT(CallCount(SEAM_PLUGIN_TPU_ENV), 0);
  EXPECT_EQ(CallCount(SEAM_PLUGIN_TPU_PTXLA), -1);  // never even loaded
  EXPECT_STREQ(std::getenv("TPU_LIBRARY_PATH"), SEAM_PLUGIN_TPU_ENV);
}

TEST(TpuSearchOrderTest, PtxlaPathIsSecond) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "TPU", 1);
  setenv("PTXLA_TPU_LIBRARY_PATH", SEAM_PLUGIN_TPU_PTXLA, 1);
  ClientSelection selection;
  auto client = CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(selection.library_path, SEAM_PLUGIN_TPU_PTXLA);
  EXPECT_GT(CallCount(SEAM_PLUGIN_TPU_PTXLA), 0);
  EXPECT_EQ(std::getenv("TPU_LIBRARY_PATH"), nullptr);  // seam did not set it
  std::vector<std::string> read;
  for (const EnvRead& r : selection.env_read) read.push_back(r.first);
  EXPECT_EQ(read, (std::vector<std::string>{"PJRT_DEVICE", "PJRT_DYNAMIC_PLUGINS",
                                            "TPU_LIBRARY_PATH", "PTXLA_TPU_LIBRARY_PATH"}));
}

TEST(TpuSearchOrderTest, BareLibtpuGoesToTheDynamicLinker) {
  // ctest puts the folder holding the test's libtpu.so on LD_LIBRARY_PATH.
  ClearEnvironment();
  setenv("PJRT_DEVICE", "TPU", 1);
  ClientSelection selection;
  auto client = CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(selection.library_path, "libtpu.so");
  EXPECT_GT(CallCount("libtpu.so"), 0);
  EXPECT_EQ(std::getenv("TPU_LIBRARY_PATH"), nullptr);
}

// ---- XPU / NEURON skip the plugin's initialize; the dynamic branch does not.

TEST(SkippedInitializeTest, XpuBranchUsesAPluginWhoseInitializeWouldFail) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "XPU", 1);
  setenv("XPU_LIBRARY_PATH", SEAM_PLUGIN_INIT_FAILS, 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_FALSE(*IsPjrtPluginInitialized("xpu"));
  EXPECT_EQ((*client)->GetPlatformName(), "cpu");
}

TEST(SkippedInitializeTest, DynamicBranchRunsTheFailingInitialize) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "XPU", 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "true", 1);
  RegisterPjRtPlugin("XPU", std::make_shared<SimplePlugin>(SEAM_PLUGIN_INIT_FAILS));
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "test plugin: the device is unavailable (initialize fails on purpose)");
}

// ---- Options, the coordinator, registration after the client exists.

TEST(PluginOptionsTest, RegisteredPluginOptionsReachTheClient) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "WIDE", 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  RegisterPjRtPlugin(
      "WIDE", std::make_shared<SimplePlugin>(SEAM_CPU_PLUGIN_PATH,
                                             PluginOptions{{"cpu_device_count", int64_t{3}}}));
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetLocalDevices(), (std::vector<std::string>{"CPU:0", "CPU:1", "CPU:2"}));
}

TEST(PluginOptionsTest, AnUnknownOptionIsRefusedByName) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "ODD", 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  RegisterPjRtPlugin("ODD", std::make_shared<SimplePlugin>(
                                SEAM_CPU_PLUGIN_PATH, PluginOptions{{"num_cores", int64_t{3}}}));
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "PJRT_Client_Create: unknown client option 'num_cores' (the cpu plugin accepts: "
            "cpu_device_count, process_index, process_count, collective_timeout_ms, "
            "collective_spin_us, kernel_spin_us, local_process_count, threads, "
            "gemm, conv, epilogues, layouts, dump_to, inline_max_cost, inline_cross_process, "
            "master_addr, attention, jit, stream_min_bytes)");
}

TEST(PluginOptionsTest, CpuNumDevicesGivesThatManyDevices) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "CPU", 1);
  setenv("CPU_NUM_DEVICES", "4", 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetLocalDevices().size(), 4u);
}

TEST(PluginOptionsTest, APluginRequiringTheCoordinatorGetsOne) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "MULTI", 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  const std::string port = std::to_string(testing::FreePort());
  setenv("XLA_COORDINATOR_PORT", port.c_str(), 1);
  RegisterPjRtPlugin("MULTI", std::make_shared<SimplePlugin>(SEAM_CPU_PLUGIN_PATH, PluginOptions{},
                                                             /*coordinator=*/true));
  ClientSelection selection;
  auto client = CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(selection.coordinator, "127.0.0.1:" + port);
  ASSERT_TRUE(selection.job.has_value());
  EXPECT_EQ(selection.job->world_size, 1);
  absl::StatusOr<Coordinator*> coordinator = GetCoordinator();
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  EXPECT_EQ((*coordinator)->incarnation(), selection.job_incarnation);
  std::vector<std::string> read;
  for (const EnvRead& r : selection.env_read) read.push_back(r.first);
  EXPECT_EQ(read, (std::vector<std::string>{
                      "PJRT_DEVICE", "PJRT_DYNAMIC_PLUGINS", SEAM_JOB_READS, "MASTER_ADDR",
                      "XLA_COORDINATOR_PORT", "DIST_SERVICE_HEARTBEAT_INTERVAL_IN_SEC",
                      "DIST_SERVICE_MAX_MISSING_HEARTBEATS", "SEAM_COORDINATOR_TIMEOUT_SEC",
                      "DIST_SERVICE_SHUTDOWN_TIMEOUT_IN_MIN", "SEAM_LOST_JOB_GRACE_SEC",
                      "SEAM_JOB_SECRET_FILE"}));
}

TEST(PluginOptionsTest, ASingleProcessCpuJobHasNoCoordinator) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "CPU", 1);
  ClientSelection selection;
  auto client = CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(selection.coordinator, "");
  EXPECT_EQ(GetCoordinator().status().message(), "XlaCoordinator has not been initialized");
}

TEST(PluginOptionsTest, ABadJobVariableFailsTheCpuBranchNamingIt) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "CPU", 1);
  setenv("WORLD_SIZE", "two", 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "Environment variable WORLD_SIZE must be an integer from 1 to 2147483647, got 'two'");
}

TEST(PluginOptionsTest, RegisteringAfterTheClientExistsIsAnError) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "CPU", 1);
  ASSERT_TRUE(GetComputationClient().ok());
  try {
    RegisterPjRtPlugin("LATE", std::make_shared<SimplePlugin>(SEAM_CPU_PLUGIN_PATH));
    FAIL() << "expected seam::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_STREQ(e.what(),
                 "RegisterPjRtPlugin('LATE'): the ComputationClient already exists, so the "
                 "plugin could never be used; register plugins before the first use of a device");
  }
}

TEST(PluginOptionsTest, FailedInitializationIsRememberedThenOnceIsOnce) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "GPU", 1);
  absl::StatusOr<ComputationClient*> first = GetComputationClient();
  setenv("PJRT_DEVICE", "CPU", 1);
  absl::StatusOr<ComputationClient*> second = GetComputationClient();
  EXPECT_EQ(first.status().message(), "Unknown PJRT_DEVICE: 'GPU'");
  EXPECT_EQ(second.status(), first.status());
  EXPECT_EQ(InitializeComputationClient().status().message(),
            "ComputationClient can only be initialized once.");
}

}  // namespace
}  // namespace seam::runtime
