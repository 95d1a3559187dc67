// The second client behind the seam: every crossing goes over gRPC to `seam serve`
// (remote_service.h), which owns the devices. Selected by SEAM_CLIENT=remote with
// SEAM_REMOTE_ADDRESS (and SEAM_REMOTE_TOKEN_FILE); docs/remote.md.
//
// Asynchronous like the in-process client: ExecuteComputation names the outputs from the
// session's block and returns once the call is sent (remote_pipeline.h; with
// SEAM_REMOTE_PIPELINE=0 or an older server, once the server has launched the run and named
// them); a handle's AwaitReady asks the server. A
// handle's release is queued and sent with the next execute (or a Release call). Small
// uploads are kept back and travel inside the next execute (remote_deferred.h), and a step
// asks the server about runs in flight only when this client cannot tell that its own
// runs have finished (RunTracker). Thread-safe, as every ComputationClient.
#ifndef SEAM_RUNTIME_REMOTE_REMOTE_COMPUTATION_CLIENT_H_
#define SEAM_RUNTIME_REMOTE_REMOTE_COMPUTATION_CLIENT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/runtime/client_registry.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/remote/remote_deferred.h"
#include "src/runtime/remote/remote_run_tracker.h"

namespace seam::runtime {

struct RemoteClientOptions {
  std::string address;   // "host:port" of `seam serve`
  std::string token;     // empty: send none
  bool pipeline = true;  // executes do not wait for their reply (docs/remote.md)
};

// SEAM_REMOTE_ADDRESS (required, host:port), SEAM_REMOTE_TOKEN_FILE and SEAM_REMOTE_PIPELINE
// (optional) through `get`; errors name the variable and its value.
absl::StatusOr<RemoteClientOptions> ReadRemoteClientOptions(
    const std::function<std::optional<std::string>(const char*)>& get);

class RemoteConnection;

class RemoteComputationClient : public ComputationClient {
 public:
  // Connects (waiting up to 10 s for the server) and opens this client's session.
  static absl::StatusOr<std::unique_ptr<RemoteComputationClient>> Connect(
      const RemoteClientOptions& options);
  // Ends the session: the server frees its buffers and computations.
  ~RemoteComputationClient() override;

  absl::Status AwaitRunsInFlightBelow(const std::string& device, int64_t limit) override;
  absl::StatusOr<int64_t> RunsInFlight(const std::string& device) const override;
  absl::StatusOr<MemoryStats> GetMemoryStats(const std::string& device) const override;

  std::string GetPlatformName() const override { return platform_; }
  std::vector<DeviceInfo> GetDeviceInfos() const override { return devices_; }
  std::string GetDefaultDevice() const override { return default_device_; }
  std::vector<std::string> GetLocalDevices() const override;

  // The server's figures, after sending the releases still queued.
  struct ServerStats {
    int64_t sessions = 0;
    int64_t buffers = 0;
    int64_t computations = 0;
    int64_t session_buffers = 0;
    std::string metrics_report;
  };
  absl::StatusOr<ServerStats> GetServerStats() const;
  uint64_t session() const;
  const std::string& address() const;  // the server's, as SEAM_REMOTE_ADDRESS gave it
  // "Server: <address>" and the server's figures (GetServerStats), indented; one line
  // "  Unavailable: <why>" in their place when the server cannot say.
  void AppendServerReport(std::string* report) const override;

 protected:
  // The crossings (computation_client.h); the crossing layer records their spans and metrics.
  absl::StatusOr<std::vector<DataPtr>> DoTransferToDevice(
      const std::vector<TensorSource>& tensors) override;
  absl::StatusOr<std::vector<ir::Literal>> DoTransferFromDevice(
      const std::vector<DataPtr>& handles) override;
  // Straight into `destination` (no host value of its own in between).
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
  // RESOURCE_EXHAUSTED, naming the bytes and the shape, for a tensor larger than this host's
  // physical memory or than its device's limit on the server (when the server reports one);
  // InvalidArgument for a shape whose size overflows. Reads no byte of the data.
  absl::Status CheckUploadSizes(const std::vector<TensorSource>& tensors) const;
  // Receives a download's bytes: value `index`, at byte `offset` of it, `n` bytes.
  using ByteSink = std::function<void(size_t index, size_t offset, const uint8_t* data, size_t n)>;
  // One TransferFromDevice call for `handles`: every byte goes to `sink`, in order; errors
  // name `operation`. Marks the values read.
  absl::Status ReadStream(const std::vector<DataPtr>& handles, const ByteSink& sink,
                          const char* operation);
  // The index of `device` in devices_, or -1.
  int DeviceIndex(const std::string& device) const;
  // Sends `request` (whose outputs this client named) without waiting for the reply; the
  // outputs (remote_pipeline.h).
  std::vector<DataPtr> ExecutePipelined(::seam::remote::ExecuteRequest request,
                                        DeferredUploads::Batch batch,
                                        const std::vector<std::shared_ptr<const ir::Shape>>& shapes,
                                        const std::string& device,
                                        const ExecuteComputationOptions& options);

  explicit RemoteComputationClient(std::shared_ptr<RemoteConnection> connection);

  std::shared_ptr<RemoteConnection> connection_;
  std::string platform_;
  std::string default_device_;
  std::vector<DeviceInfo> devices_;
  // Per device (as devices_), what its plugin refuses to allocate beyond; 0: not reported.
  std::vector<int64_t> device_limits_;
  RunTracker runs_;
};

// SEAM_CLIENT's value that chooses this client.
inline constexpr char kRemoteClientKind[] = "remote";

// Registers this client's factory as "remote" (client_registry.h): it reads
// ReadRemoteClientOptions from the environment, records the address and connects.
absl::Status RegisterRemoteClientFactory();

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_REMOTE_REMOTE_COMPUTATION_CLIENT_H_
