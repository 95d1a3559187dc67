// A client decorator's base: a ComputationClient that wraps another and forwards every call
// to it, so that a decorator overrides only what it changes.
//
// The crossings' bookkeeping (span, timers, counters) is recorded once, by this client's
// crossing layer: each Do* forwards to the wrapped client's Do*, not to its crossing. Data
// and computations are the wrapped client's own objects, passed through unchanged. The
// process's client is created under the job's decorators
// (src/runtime/process/client_decorators.h); tests install their own.
#ifndef SEAM_RUNTIME_FORWARDING_CLIENT_H_
#define SEAM_RUNTIME_FORWARDING_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include "src/runtime/computation_client.h"

namespace seam::runtime {

class ForwardingClient : public ComputationClient {
 public:
  // Owns `inner` (never null).
  explicit ForwardingClient(std::unique_ptr<ComputationClient> inner);
  ForwardingClient(const ForwardingClient&) = delete;
  ForwardingClient& operator=(const ForwardingClient&) = delete;

  ComputationClient& inner() const { return *inner_; }

  absl::Status BeginRun(const RunStart& run) override;
  void AppendServerReport(std::string* report) const override;
  absl::Status TransferFromDeviceRange(const DataPtr& handle, size_t offset,
                                       absl::Span<uint8_t> destination) override;
  absl::StatusOr<std::unique_ptr<Upload>> StartUpload(std::vector<UploadTarget> targets) override;
  absl::Status AwaitRunsInFlightBelow(const std::string& device, int64_t limit) override;
  absl::StatusOr<int64_t> RunsInFlight(const std::string& device) const override;
  absl::StatusOr<MemoryStats> GetMemoryStats(const std::string& device) const override;
  std::string GetPlatformName() const override;
  std::vector<DeviceInfo> GetDeviceInfos() const override;
  std::string GetDefaultDevice() const override;
  std::vector<std::string> GetLocalDevices() const override;
  int64_t GetProcessIndex() const override;
  int64_t GetNumProcesses() const override;

 protected:
  absl::StatusOr<std::vector<DataPtr>> DoTransferToDevice(
      const std::vector<TensorSource>& tensors) override;
  absl::StatusOr<std::vector<ir::Literal>> DoTransferFromDevice(
      const std::vector<DataPtr>& handles) override;
  absl::Status DoTransferFromDeviceInto(const DataPtr& handle,
                                        absl::Span<uint8_t> destination) override;
  absl::StatusOr<std::vector<ComputationPtr>> DoCompile(
      std::vector<CompileInstance> instances) override;
  absl::StatusOr<std::vector<DataPtr>> DoExecuteComputation(
      const Computation& computation, const std::vector<DataPtr>& arguments,
      const std::string& device, const ExecuteComputationOptions& options) override;
  absl::StatusOr<std::vector<std::vector<DataPtr>>> DoExecuteReplicated(
      const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
      const std::vector<std::string>& devices) override;

 private:
  const std::unique_ptr<ComputationClient> inner_;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_FORWARDING_CLIENT_H_
