// A ComputationClient that computes with the IR's reference evaluator on host memory and
// counts its crossings: the fake device the front end's unit tests run against, in one
// process, with a lazy::Runtime of their own (src/lazy/runtime.h).
#ifndef SEAM_TESTS_UNIT_FAKE_CLIENT_H_
#define SEAM_TESTS_UNIT_FAKE_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "src/runtime/computation_client.h"

namespace seam::fake {

class FakeClient final : public runtime::ComputationClient {
 public:
  // Crossings made so far, one per call (whatever the number of tensors in it).
  struct Counts {
    std::atomic<int64_t> transfers_to{0};
    std::atomic<int64_t> compiles{0};
    std::atomic<int64_t> executes{0};
    std::atomic<int64_t> executes_replicated{0};
    std::atomic<int64_t> transfers_from{0};
  };

  explicit FakeClient(int devices = 2);

  const Counts& counts() const { return counts_; }
  // The programs compiled, in order.
  std::vector<ir::Program> compiled() const;

  absl::Status AwaitRunsInFlightBelow(const std::string&, int64_t) override {
    return absl::OkStatus();  // every run finishes inside its call
  }
  absl::StatusOr<int64_t> RunsInFlight(const std::string&) const override { return 0; }
  std::string GetPlatformName() const override { return "fake"; }
  std::vector<DeviceInfo> GetDeviceInfos() const override;
  std::string GetDefaultDevice() const override { return "FAKE:0"; }
  std::vector<std::string> GetLocalDevices() const override;

 protected:
  absl::StatusOr<std::vector<DataPtr>> DoTransferToDevice(
      const std::vector<TensorSource>& tensors) override;
  absl::StatusOr<std::vector<ir::Literal>> DoTransferFromDevice(
      const std::vector<DataPtr>& handles) override;
  absl::StatusOr<std::vector<ComputationPtr>> DoCompile(
      std::vector<CompileInstance> instances) override;
  absl::StatusOr<std::vector<DataPtr>> DoExecuteComputation(
      const Computation& computation, const std::vector<DataPtr>& arguments,
      const std::string& device, const ExecuteComputationOptions& options) override;
  absl::StatusOr<std::vector<std::vector<DataPtr>>> DoExecuteReplicated(
      const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
      const std::vector<std::string>& devices) override;

 private:
  const int devices_;
  Counts counts_;
  mutable std::mutex mu_;
  std::vector<ir::Program> compiled_;  // under mu_
};

}  // namespace seam::fake

#endif  // SEAM_TESTS_UNIT_FAKE_CLIENT_H_
