#include "src/runtime/forwarding_client.h"

#include <utility>

namespace seam::runtime {

ForwardingClient::ForwardingClient(std::unique_ptr<ComputationClient> inner)
    : inner_(std::move(inner)) {}

absl::Status ForwardingClient::BeginRun(const RunStart& run) { return inner_->BeginRun(run); }

void ForwardingClient::AppendServerReport(std::string* report) const {
  inner_->AppendServerReport(report);
}

absl::Status ForwardingClient::TransferFromDeviceRange(const DataPtr& handle, size_t offset,
                                                       absl::Span<uint8_t> destination) {
  return inner_->TransferFromDeviceRange(handle, offset, destination);
}

absl::StatusOr<std::unique_ptr<ComputationClient::Upload>> ForwardingClient::StartUpload(
    std::vector<UploadTarget> targets) {
  return inner_->StartUpload(std::move(targets));
}

absl::Status ForwardingClient::AwaitRunsInFlightBelow(const std::string& device, int64_t limit) {
  return inner_->AwaitRunsInFlightBelow(device, limit);
}

absl::StatusOr<int64_t> ForwardingClient::RunsInFlight(const std::string& device) const {
  return inner_->RunsInFlight(device);
}

absl::StatusOr<ComputationClient::MemoryStats> ForwardingClient::GetMemoryStats(
    const std::string& device) const {
  return inner_->GetMemoryStats(device);
}

std::string ForwardingClient::GetPlatformName() const { return inner_->GetPlatformName(); }

std::vector<ComputationClient::DeviceInfo> ForwardingClient::GetDeviceInfos() const {
  return inner_->GetDeviceInfos();
}

std::string ForwardingClient::GetDefaultDevice() const { return inner_->GetDefaultDevice(); }

std::vector<std::string> ForwardingClient::GetLocalDevices() const {
  return inner_->GetLocalDevices();
}

int64_t ForwardingClient::GetProcessIndex() const { return inner_->GetProcessIndex(); }

int64_t ForwardingClient::GetNumProcesses() const { return inner_->GetNumProcesses(); }

absl::StatusOr<std::vector<ComputationClient::DataPtr>> ForwardingClient::DoTransferToDevice(
    const std::vector<TensorSource>& tensors) {
  return inner_->DoTransferToDevice(tensors);
}

absl::StatusOr<std::vector<ir::Literal>> ForwardingClient::DoTransferFromDevice(
    const std::vector<DataPtr>& handles) {
  return inner_->DoTransferFromDevice(handles);
}

absl::Status ForwardingClient::DoTransferFromDeviceInto(const DataPtr& handle,
                                                        absl::Span<uint8_t> destination) {
  return inner_->DoTransferFromDeviceInto(handle, destination);
}

absl::StatusOr<std::vector<ComputationClient::ComputationPtr>> ForwardingClient::DoCompile(
    std::vector<CompileInstance> instances) {
  return inner_->DoCompile(std::move(instances));
}

absl::StatusOr<std::vector<ComputationClient::DataPtr>> ForwardingClient::DoExecuteComputation(
    const Computation& computation, const std::vector<DataPtr>& arguments,
    const std::string& device, const ExecuteComputationOptions& options) {
  return inner_->DoExecuteComputation(computation, arguments, device, options);
}

absl::StatusOr<std::vector<std::vector<ComputationClient::DataPtr>>>
ForwardingClient::DoExecuteReplicated(const Computation& computation,
                                      const std::vector<std::vector<DataPtr>>& arguments,
                                      const std::vector<std::string>& devices) {
  return inner_->DoExecuteReplicated(computation, arguments, devices);
}

}  // namespace seam::runtime
