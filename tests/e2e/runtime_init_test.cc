// How PJRT_DEVICE becomes (or fails to become) the process's client. The client is a
// per-process singleton, so every TEST here needs a process of its own: ctest runs them
// that way (gtest_discover_tests); running this binary directly runs them all in one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "seam/tensor.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

void SetDevice(const char* value) {
  if (value == nullptr) {
    unsetenv("PJRT_DEVICE");
  } else {
    setenv("PJRT_DEVICE", value, 1);
  }
}

TEST(RuntimeInitTest, UnsetDeviceIsRefusedBeforeAnythingElse) {
  SetDevice(nullptr);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kFailedPrecondition);
  // The reference's exact message comes first; the sentence after it says how to fix it.
  EXPECT_TRUE(absl::StartsWith(client.status().message(), "$PJRT_DEVICE is not set. Set "))
      << client.status().message();
  EXPECT_THAT(std::string(client.status().message()),
              ::testing::HasSubstr("PJRT_DEVICE=CPU to run on this machine's processors"));
  EXPECT_THAT(std::string(client.status().message()),
              ::testing::HasSubstr("docs/architecture.md (\"Choosing a device\")"));
  EXPECT_EQ(GetComputationClientIfInitialized(), nullptr);
}

TEST(RuntimeInitTest, EmptyDeviceCountsAsUnset) {
  SetDevice("");
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_TRUE(absl::StartsWith(client.status().message(), "$PJRT_DEVICE is not set. Set "));
}

TEST(RuntimeInitTest, FailedInitializationIsRememberedWithTheSameError) {
  SetDevice("cpu");
  absl::StatusOr<ComputationClient*> first = GetComputationClient();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(first.status().message(), "Unknown PJRT_DEVICE: 'cpu'");
  SetDevice("CPU");  // too late: the first outcome stands
  absl::StatusOr<ComputationClient*> second = GetComputationClient();
  EXPECT_EQ(second.status(), first.status());
}

TEST(RuntimeInitTest, LowercaseAndUnknownNamesAreUnknown) {
  SetDevice("TPUv9");
  absl::StatusOr<std::unique_ptr<ComputationClient>> client = InitializeComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(), "Unknown PJRT_DEVICE: 'TPUv9'");
}

TEST(RuntimeInitTest, CpuBuildsTheInProcessClientOnce) {
  SetDevice("CPU");
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetPlatformName(), "cpu");
  EXPECT_EQ((*client)->GetDefaultDevice(), "CPU:0");
  EXPECT_EQ(GetComputationClientIfInitialized(), *client);
  // GetComputationClient hands back the same client...
  EXPECT_EQ(*GetComputationClient(), *client);
  // ...but building another one is refused.
  absl::StatusOr<std::unique_ptr<ComputationClient>> again = InitializeComputationClient();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(again.status().message(), "ComputationClient can only be initialized once.");
}

TEST(RuntimeInitTest, CpuNumDevicesSetsTheDeviceCount) {
  SetDevice("CPU");
  setenv("CPU_NUM_DEVICES", "4", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetLocalDevices(),
            (std::vector<std::string>{"CPU:0", "CPU:1", "CPU:2", "CPU:3"}));
}

TEST(RuntimeInitTest, BadCpuNumDevicesNamesTheVariable) {
  SetDevice("CPU");
  setenv("CPU_NUM_DEVICES", "four", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "Environment variable CPU_NUM_DEVICES must be an integer, got 'four'");
}

TEST(RuntimeInitTest, ZeroCpuDevicesIsRefusedByThePlugin) {
  SetDevice("CPU");
  setenv("CPU_NUM_DEVICES", "0", 1);
  absl::StatusOr<ComputationClient*> client = GetComputationClient();
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            "PJRT_Client_Create: option 'cpu_device_count' must be in [1, 1024], got 0");
}

TEST(RuntimeInitTest, TensorApiReportsTheRuntimeErrorAsAnException) {
  SetDevice(nullptr);
  Tensor t = Tensor::from_vector({1.0f, 2.0f}, {2}) * 2.0f;
  try {
    (void)t.to_vector<float>();
    FAIL() << "expected seam::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kFailedPrecondition);
    EXPECT_TRUE(absl::StartsWith(e.what(), "$PJRT_DEVICE is not set. Set PJRT_DEVICE=CPU"))
        << e.what();
  }
}

}  // namespace
}  // namespace seam::runtime
