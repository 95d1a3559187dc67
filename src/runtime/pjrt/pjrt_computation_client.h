// The ComputationClient that talks to a plugin through its PJRT_Api function table. The
// only framework code (with pjrt_api.*) that calls the plugin ABI.
#ifndef SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_H_
#define SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/runtime/computation_client.h"
#include "src/runtime/distributed/key_value_store.h"
#include "src/runtime/pjrt/device_activity.h"
#include "src/runtime/pjrt/plugin.h"
#include "src/runtime/pjrt/program_format.h"
#include "src/runtime/trace.h"

struct PJRT_Api;
struct PJRT_Client;
struct PJRT_Device;
struct PJRT_Memory;

namespace seam::runtime {

struct KvCallbackState;

class PjrtComputationClient : public ComputationClient {
 public:
  // Creates a client of the plugin behind `api` (which must outlive it): records the
  // plugin's attributes (PJRT_Plugin_Attributes), then PJRT_Client_Create with `options` as
  // its create_options (exactly those). With `store`, the plugin receives the job's
  // key-value store as PJRT_Client_Create's three callbacks (get, try-get, put, all set):
  // each adds `store->key_prefix` to the plugin's key; a try-get miss is NOT_FOUND, a get
  // that times out DEADLINE_EXCEEDED; errors are made with the plugin's callback_error. The
  // store is kept until the plugin's client is destroyed. No slot the plugin lacks (null, or
  // past its table's struct_size) is ever called: the call that needs one fails with
  // "<PJRT_Name> is not provided by this plugin (PJRT API version 0.<m>)".
  static absl::StatusOr<std::unique_ptr<PjrtComputationClient>> Create(
      const PJRT_Api* api, const PluginOptions& options = {},
      std::optional<JobKeyValueStore> store = std::nullopt);
  ~PjrtComputationClient() override;

  // Through PJRT_Buffer_CopyRawToHost and the async transfer manager
  // (pjrt_computation_client_transfers.h); for a plugin whose table lacks those slots, or
  // that answers them UNIMPLEMENTED, the base class's host-staged defaults.
  absl::Status TransferFromDeviceRange(const DataPtr& handle, size_t offset,
                                       absl::Span<uint8_t> destination) override;
  absl::StatusOr<std::unique_ptr<Upload>> StartUpload(std::vector<UploadTarget> targets) override;

  std::string GetPlatformName() const override { return platform_name_; }
  std::string GetDefaultDevice() const override { return device_names_.front(); }
  std::vector<std::string> GetLocalDevices() const override { return device_names_; }
  std::vector<DeviceInfo> GetDeviceInfos() const override { return device_infos_; }
  int64_t GetProcessIndex() const override { return process_index_; }
  int64_t GetNumProcesses() const override { return process_count_; }
  // Client selection says which process of which job this is (with a coordinator).
  void SetJob(int64_t process_index, int64_t process_count) {
    process_index_ = process_index;
    process_count_ = process_count;
  }
  absl::Status AwaitRunsInFlightBelow(const std::string& device, int64_t limit) override;
  absl::StatusOr<int64_t> RunsInFlight(const std::string& device) const override;
  // Through PJRT_Device_MemoryStats: bytes_in_use, peak_bytes_in_use, bytes_limit, and
  // pool_bytes - bytes_in_use as the cached bytes. A plugin whose table lacks the slot is
  // never called for it: Unimplemented "memory figures of <device>: PJRT_Device_MemoryStats
  // is not provided by this plugin (PJRT API version 0.<m>)".
  absl::StatusOr<MemoryStats> GetMemoryStats(const std::string& device) const override;
  // For the CPU platform only (its buffers are this process's memory): the buffer's
  // address (PJRT_Buffer_UnsafePointer) under an external reference
  // (PJRT_Buffer_IncreaseExternalReferenceCount, dropped with the owner; a plugin that
  // answers it UNIMPLEMENTED is used without one, the held handle keeping the buffer).
  // Unimplemented for another platform, or a plugin without the pointer slot.
  absl::StatusOr<SharedHostMemory> ShareHostMemory(const DataPtr& handle) override;
  // Every device of the job (PJRT_Client_Devices; at least the addressable ones).
  int64_t GetNumGlobalDevices() const { return num_global_devices_; }
  // The plugin's attributes as recorded at creation.
  const PluginOptions& plugin_attributes() const { return attributes_; }
  // The program format Compile sends (seam's IR or StableHLO), chosen at creation from the
  // attributes, SEAM_PROGRAM_FORMAT and SEAM_MATMUL_PRECISION (program_format.h).
  const ProgramFormatChoice& program_format() const { return program_format_; }

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
  PjrtComputationClient(const PJRT_Api* api, PJRT_Client* client);
  absl::Status DiscoverDevices();
  // The index of the device named `name`, or -1 (no error built: for the per-run path).
  int FindDevice(const std::string& name) const;
  absl::StatusOr<int> DeviceIndex(const std::string& name) const;

  const PJRT_Api* api_;
  PJRT_Client* client_;
  std::string platform_name_;
  std::vector<std::string> device_names_;  // "<PLATFORM>:<id>", addressable devices
  std::vector<PJRT_Device*> devices_;      // same order
  std::vector<PJRT_Memory*> memories_;     // same order: each one's default memory, or null
  std::vector<DeviceInfo> device_infos_;   // same order
  std::vector<DeviceActivity*> activity_;  // same order; never freed
  // The key-value callbacks' user arg; outlives the plugin's client (destroyed after it).
  std::unique_ptr<KvCallbackState> kv_;
  // The plugin's profiler extension as a trace source; null when it has none.
  std::unique_ptr<trace::Source> profiler_;
  // PJRT_Plugin_Attributes, recorded at creation (seam_ir_version: the plugin reads seam's IR).
  PluginOptions attributes_;
  ProgramFormatChoice program_format_;
  int64_t num_global_devices_ = 0;  // PJRT_Client_Devices: every process's
  // Cleared when the plugin answers the slots UNIMPLEMENTED: the defaults from then on.
  std::atomic<bool> ranged_reads_{true};
  std::atomic<bool> streamed_uploads_{true};
  int64_t process_index_ = 0;
  int64_t process_count_ = 1;
};

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PJRT_COMPUTATION_CLIENT_H_
