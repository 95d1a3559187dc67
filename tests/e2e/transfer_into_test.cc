// ComputationClient::TransferFromDeviceInto: a value copied into caller memory, by the PJRT
// client (straight into the destination) and by the interface's default (through
// TransferFromDevice), with its size checked before anything is copied.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "seam/metrics.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;

// Forwards every pure virtual to `inner` and keeps the interface's default
// TransferFromDeviceInto, which is what this test exercises through it.
class ForwardingClient : public ComputationClient {
 public:
  explicit ForwardingClient(ComputationClient& inner) : inner_(inner) {}
  absl::Status AwaitRunsInFlightBelow(const std::string& device, int64_t limit) override {
    return inner_.AwaitRunsInFlightBelow(device, limit);
  }
  absl::StatusOr<int64_t> RunsInFlight(const std::string& device) const override {
    return inner_.RunsInFlight(device);
  }
  std::string GetPlatformName() const override { return inner_.GetPlatformName(); }
  std::vector<DeviceInfo> GetDeviceInfos() const override { return inner_.GetDeviceInfos(); }
  std::string GetDefaultDevice() const override { return inner_.GetDefaultDevice(); }
  std::vector<std::string> GetLocalDevices() const override { return inner_.GetLocalDevices(); }

  int reads = 0;

 protected:
  absl::StatusOr<std::vector<DataPtr>> DoTransferToDevice(
      const std::vector<TensorSource>& tensors) override {
    return inner_.TransferToDevice(tensors);
  }
  absl::StatusOr<std::vector<ir::Literal>> DoTransferFromDevice(
      const std::vector<DataPtr>& handles) override {
    ++reads;
    return inner_.TransferFromDevice(handles);
  }
  absl::StatusOr<std::vector<ComputationPtr>> DoCompile(
      std::vector<CompileInstance> instances) override {
    return inner_.Compile(std::move(instances));
  }
  absl::StatusOr<std::vector<DataPtr>> DoExecuteComputation(
      const Computation& computation, const std::vector<DataPtr>& arguments,
      const std::string& device, const ExecuteComputationOptions& options) override {
    return inner_.ExecuteComputation(computation, arguments, device, options);
  }
  absl::StatusOr<std::vector<std::vector<DataPtr>>> DoExecuteReplicated(
      const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
      const std::vector<std::string>& devices) override {
    return inner_.ExecuteReplicated(computation, arguments, devices);
  }

 private:
  ComputationClient& inner_;
};

ComputationClient::DataPtr Upload(ComputationClient& client, const ir::Literal& literal) {
  auto handles =
      client.TransferToDevice({{literal.shape, literal.bytes.data(), client.GetDefaultDevice()}});
  EXPECT_TRUE(handles.ok()) << handles.status();
  return handles.ok() ? handles->front() : nullptr;
}

std::vector<float> AsFloats(const std::vector<uint8_t>& bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// `samples_per_copy`: TransferFromDeviceTime samples one successful copy records (one per
// client crossed: the crossing layer of computation_client.h records each).
void ExpectCopiesAndChecksTheSize(ComputationClient& client, int64_t samples_per_copy) {
  const ir::Literal literal = ir::Literal::FromF32({1.5F, -2.0F, 3.25F, 4.0F}, {2, 2});
  ComputationClient::DataPtr data = Upload(client, literal);
  ASSERT_NE(data, nullptr);
  const int64_t before = metrics::MetricTotalSamples("TransferFromDeviceTime");

  std::vector<uint8_t> destination(16, 0xAB);
  ASSERT_TRUE(client.TransferFromDeviceInto(data, absl::MakeSpan(destination)).ok());
  EXPECT_EQ(AsFloats(destination), (std::vector<float>{1.5F, -2.0F, 3.25F, 4.0F}));

  std::vector<uint8_t> wrong(12, 0xAB);
  absl::Status status = client.TransferFromDeviceInto(data, absl::MakeSpan(wrong));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("f32[2,2] needs 16 bytes, the destination has 12"));
  EXPECT_EQ(wrong, std::vector<uint8_t>(12, 0xAB));  // nothing was written
  // Once per successful copy and client crossed (the refused one never read the device).
  EXPECT_EQ(metrics::MetricTotalSamples("TransferFromDeviceTime"), before + samples_per_copy);
}

TEST(TransferIntoTest, ThePjrtClientCopiesIntoCallerMemory) {
  ComputationClient* client = *GetComputationClient();
  ExpectCopiesAndChecksTheSize(*client, 1);
}

TEST(TransferIntoTest, TheDefaultReadsThroughTransferFromDevice) {
  ForwardingClient client(**GetComputationClient());
  // The forwarding client's crossing and the PJRT client's under it.
  ExpectCopiesAndChecksTheSize(client, 2);
  EXPECT_EQ(client.reads, 1);
}

TEST(TransferIntoTest, AnEmptyValueNeedsNoBytes) {
  ComputationClient* client = *GetComputationClient();
  const ir::Literal literal = ir::Literal::FromF32({}, {0, 3});
  ComputationClient::DataPtr data = Upload(*client, literal);
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE(client->TransferFromDeviceInto(data, {}).ok());
  auto host = client->TransferFromDevice({data});
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(host->front().bytes.empty());
}

}  // namespace
}  // namespace seam::runtime
