// The seam: the abstract client every device operation of the framework goes through.
//
// A lazy step crosses it four times: TransferToDevice (inputs down), Compile (program down,
// on a cache miss), ExecuteComputation (run; returns before the device finishes) and
// TransferFromDevice (one value up; blocks). Collectives and buffer donation never cross
// it at run time: they are part of the program.
#ifndef SEAM_RUNTIME_COMPUTATION_CLIENT_H_
#define SEAM_RUNTIME_COMPUTATION_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/ir/program.h"
#include "src/ir/shape.h"
#include "src/runtime/metrics.h"

namespace seam::runtime {

class ComputationClient {
 public:
  // A value that lives on one device. Handles are shared; the device memory is released
  // when the last handle goes.
  class Data {
   public:
    Data(std::string device, ir::Shape shape)
        : Data(std::move(device), std::make_shared<const ir::Shape>(std::move(shape))) {}
    // `shape` is shared with other handles (e.g. every output of one computation's runs).
    Data(std::string device, std::shared_ptr<const ir::Shape> shape)
        : device_(std::move(device)), shape_(std::move(shape)) {}
    virtual ~Data() = default;
    const std::string& device() const { return device_; }
    const ir::Shape& shape() const { return *shape_; }
    // True once the value is computed (or its computation failed).
    virtual bool IsReady() const = 0;
    // Blocks (without spinning) until the value is computed; the status of the computation
    // that produces it.
    virtual absl::Status AwaitReady() const = 0;
    // The implementation's own object for the value (a PJRT_Buffer* for the PJRT client),
    // for tests and debugging tools; null when there is none.
    virtual const void* native_handle() const { return nullptr; }

   private:
    std::string device_;
    std::shared_ptr<const ir::Shape> shape_;  // never null
  };
  using DataPtr = std::shared_ptr<Data>;

  // A compiled, loaded program.
  class Computation {
   public:
    explicit Computation(ir::Program program)
        : program_(std::move(program)), result_shapes_(program_.ResultShapes()) {}
    virtual ~Computation() = default;
    const ir::Program& program() const { return program_; }
    const std::vector<ir::Shape>& result_shapes() const { return result_shapes_; }

   private:
    ir::Program program_;
    std::vector<ir::Shape> result_shapes_;
  };
  using ComputationPtr = std::shared_ptr<Computation>;

  // Host data to send: `data` holds shape.byte_size() bytes, row-major, and is only read
  // during the call.
  struct TensorSource {
    ir::Shape shape;
    const void* data = nullptr;
    std::string device;
  };

  struct CompileInstance {
    ir::Program program;
    std::string compilation_device;
    // An eager op's program: timed under EagerOpCompileTime instead of CompileTime.
    bool eager_mode = false;
  };

  // Results always come back as one Data per element of the program's result tuple (there
  // is no tuple-shaped buffer to untuple), so PyTorch/XLA's first boolean has no
  // counterpart here; the second picks the metric a run is recorded under.
  struct ExecuteComputationOptions {
    bool eager_mode = false;  // record under EagerOpExecuteTime instead of ExecuteTime
  };

  virtual ~ComputationClient() = default;

  // The crossings. Each is a non-virtual call that does the bookkeeping every client shares
  // (the trace span named after the crossing, in category "crossing"; the timer and counters
  // named below) and hands the work to the implementation's Do* function, so no client
  // records them itself. Counters count what a successful call returned.

  // One sample on TransferToDeviceTime per call, whatever the number of tensors; one
  // InboundData sample per tensor; CreateDataHandles counts the handles.
  absl::StatusOr<std::vector<DataPtr>> TransferToDevice(const std::vector<TensorSource>& tensors);

  // Blocks until every value is computed and copied; one sample on TransferFromDeviceTime.
  absl::StatusOr<std::vector<ir::Literal>> TransferFromDevice(const std::vector<DataPtr>& handles);
  // TransferFromDevice of one value into caller memory of exactly its byte size (an error
  // names both sizes otherwise, before the device is waited for and without a sample), so a
  // caller reading many values (a checkpoint save) can reuse one host buffer. Blocks; one
  // sample on TransferFromDeviceTime.
  absl::Status TransferFromDeviceInto(const DataPtr& handle, absl::Span<uint8_t> destination);

  // Compiles and loads each instance; one sample per call, on CompileTime (or on
  // EagerOpCompileTime when the first instance is an eager op's); CreateCompileHandles
  // counts the computations.
  absl::StatusOr<std::vector<ComputationPtr>> Compile(std::vector<CompileInstance> instances);

  // Starts the run and returns at once with outputs that may not be ready yet. The run's
  // ExecuteTime sample is the implementation's to record (the PJRT client records it when
  // the device finishes the run, covering the run itself: from the later of its launch and
  // the end of the device's previous run). CreateDataHandles counts the outputs and
  // InputOutputAliasCount the program's aliases.
  absl::StatusOr<std::vector<DataPtr>> ExecuteComputation(const Computation& computation,
                                                          const std::vector<DataPtr>& arguments,
                                                          const std::string& device,
                                                          const ExecuteComputationOptions& options);

  // Runs one replica per device: arguments[d] are replica d's arguments, on devices[d].
  // Returns replica d's outputs at [d], at once, before they are ready. `devices` must be
  // the first devices.size() addressable devices in order, and the program's replica count
  // must equal devices.size() -- or, in a job of several processes, be GetNumProcesses()
  // times the number of local devices, `devices` being all of them: this process's share
  // of one launch over every device of the job, local device d running global replica
  // GetProcessIndex() * devices.size() + d (docs/distributed.md). One
  // ExecuteReplicatedTime sample per call (the implementation's to record; the PJRT client
  // records it when every device has finished); the counters as ExecuteComputation's, for
  // every replica.
  absl::StatusOr<std::vector<std::vector<DataPtr>>> ExecuteReplicated(
      const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
      const std::vector<std::string>& devices);

  // Appends this client's entry of the metrics report's server section (include/seam/metrics.h,
  // ReportOptions::server). This default appends one line saying there is no server: the
  // devices are this process's. The remote client appends its server's figures.
  virtual void AppendServerReport(std::string* report) const;

  // Bytes [offset, offset + destination.size()) of one value's dense row-major bytes into
  // `destination`, so a caller that sends a large value in pieces (seam serve's download
  // stream) copies each piece once, straight where it goes. Blocks until the value is
  // computed (its error otherwise) and the piece copied. A range past the value's end is
  // InvalidArgument naming offset, size and the value's bytes, refused before anything is
  // waited for. This default reads the whole value through TransferFromDevice (its
  // metrics) and copies the range; the PJRT client overrides it to copy only the range
  // (PJRT_Buffer_CopyRawToHost, ABI 1.5; one OutboundData sample, no
  // TransferFromDeviceTime sample: a caller reading a value in pieces times the whole).
  virtual absl::Status TransferFromDeviceRange(const DataPtr& handle, size_t offset,
                                               absl::Span<uint8_t> destination);
  // Its range check: InvalidArgument naming size, offset, the value's shape and bytes when
  // [offset, offset + size) is not within `value`.
  static absl::Status CheckReadRange(const Data& value, size_t offset, size_t size);

  // The tensors of an upload whose bytes arrive in pieces (StartUpload).
  struct UploadTarget {
    ir::Shape shape;
    std::string device;
  };
  // The targets' byte sizes, in order.
  static std::vector<size_t> UploadSizes(const std::vector<UploadTarget>& targets);
  // An upload in progress: each tensor's bytes are written in order, piece by piece, then
  // Finish returns the handles. Destroying it unfinished abandons the upload (nothing
  // stays allocated). Not thread-safe: one writer.
  class Upload {
   public:
    virtual ~Upload() = default;
    // The next `bytes` of tensor `index`, which must start where its previous piece ended
    // (`offset`, 0 for the first). An index out of range, an offset other than the bytes
    // written so far, or a piece past the tensor's end is InvalidArgument naming the
    // values; a failed upload refuses every later call with its first error.
    virtual absl::Status Write(size_t index, size_t offset, absl::Span<const uint8_t> bytes) = 0;
    // The handles, in the targets' order, once every tensor has all its bytes (else
    // InvalidArgument naming the first incomplete tensor and its byte counts). Once only.
    virtual absl::StatusOr<std::vector<DataPtr>> Finish() = 0;
  };
  // Starts an upload of `targets`, validating every shape and device first. One
  // TransferToDeviceTime sample per upload (the PJRT client's from this call to Finish,
  // the default's that of TransferToDevice at Finish). This default stages the bytes in
  // host memory (allocated here, every byte of every target) and hands them to
  // TransferToDevice at Finish; the PJRT client overrides it to write each piece straight
  // into device buffers allocated here (PJRT_Client_CreateBuffersForAsyncHostToDevice, ABI
  // 1.5), and falls back to this default for a plugin of an older minor.
  virtual absl::StatusOr<std::unique_ptr<Upload>> StartUpload(std::vector<UploadTarget> targets);
  // StartUpload's checks: every shape valid, every device a local one (InvalidArgument
  // naming the tensor otherwise).
  absl::Status CheckUploadTargets(const std::vector<UploadTarget>& targets) const;

  // What the step runner is about to launch, told by BeginRun.
  struct RunStart {
    // A step: a barrier's (seam::sync) or a compiled-step replay's run; not an eager op's,
    // nor the sync before a host read.
    bool step = false;
    // One launch over the devices of every process of the job (ExecuteReplicated with a
    // program of GetNumProcesses() times the local devices' replicas).
    bool job_wide = false;
  };
  // Called by the step runner once per program run, after the run's uploads and compile
  // and before it waits for runs in flight and launches it; an error fails the run. This
  // default does nothing: it is where a client decorator acts on run boundaries
  // (forwarding_client.h; the process's job health and fault injection decorators,
  // process/client_decorators.h).
  virtual absl::Status BeginRun(const RunStart& run);

  // Blocks until fewer than `limit` runs launched on `device` are unfinished. The step
  // runner calls it before launching a step, so that the host is at most `limit` steps ahead
  // of the device (SEAM_MAX_INFLIGHT_STEPS; PyTorch/XLA's device lock is a depth of 1).
  virtual absl::Status AwaitRunsInFlightBelow(const std::string& device, int64_t limit) = 0;
  // Runs launched on `device` and not finished yet.
  virtual absl::StatusOr<int64_t> RunsInFlight(const std::string& device) const = 0;

  struct DeviceInfo {
    std::string name;  // e.g. "CPU:0"
    int id = 0;        // the plugin's device id
    std::string kind;  // the plugin's device kind, e.g. "cpu"
  };

  // One device's memory figures in bytes, as the device's plugin counts them (docs/plugins.md
  // says what the CPU plugin counts). A figure the plugin does not report is -1.
  struct MemoryStats {
    int64_t bytes_in_use = 0;        // device memory held now
    int64_t peak_bytes_in_use = -1;  // the most held at once since the client was created
    int64_t bytes_limit = -1;        // what the plugin refuses to allocate beyond
    int64_t pool_cached_bytes = -1;  // kept by the plugin for reuse, not in use
  };
  // The figures of local device `device` (e.g. "CPU:0"). InvalidArgument naming the device
  // when there is no such local device; Unimplemented, saying why, when the client or its
  // plugin has no memory query (a PJRT plugin of ABI minor 1 or 2).
  virtual absl::StatusOr<MemoryStats> GetMemoryStats(const std::string& device) const;

  virtual std::string GetPlatformName() const = 0;             // e.g. "cpu"
  virtual std::vector<DeviceInfo> GetDeviceInfos() const = 0;  // the local devices
  virtual std::string GetDefaultDevice() const = 0;            // e.g. "CPU:0"
  virtual std::vector<std::string> GetLocalDevices() const = 0;
  // The process of a multi-process job this client belongs to (the job's rank) and the
  // job's process count: 0 and 1 for a client of one process.
  virtual int64_t GetProcessIndex() const { return 0; }
  virtual int64_t GetNumProcesses() const { return 1; }

  // The metrics every implementation records under, whatever its kind.
  static metrics::Metric* TransferToDeviceMetric();
  static metrics::Metric* TransferFromDeviceMetric();
  static metrics::Metric* CompileMetric();
  static metrics::Metric* ExecuteMetric();
  static metrics::Metric* ExecuteReplicatedMetric();
  static metrics::Metric* EagerOpExecuteMetric();
  // Compiles of eager mode's one-op programs (timed by the front end around Compile).
  static metrics::Metric* EagerOpCompileMetric();
  static metrics::Metric* InboundDataMetric();
  static metrics::Metric* OutboundDataMetric();
  static metrics::Counter* CreateDataHandlesCounter();
  static metrics::Counter* CreateCompileHandlesCounter();
  // Input/output aliases (donated arguments) of the programs executed, counted per call.
  static metrics::Counter* InputOutputAliasCounter();

 protected:
  // A decorator forwards each Do* below to the client it wraps (the crossing's bookkeeping
  // is then recorded once, by the decorator's crossing).
  friend class ForwardingClient;

  // The implementations of the crossings above, called by them inside their bookkeeping;
  // each has the contract of its crossing without the span, the timers and the counters
  // that the crossing records.
  virtual absl::StatusOr<std::vector<DataPtr>> DoTransferToDevice(
      const std::vector<TensorSource>& tensors) = 0;
  virtual absl::StatusOr<std::vector<ir::Literal>> DoTransferFromDevice(
      const std::vector<DataPtr>& handles) = 0;
  // Called with a destination of the right size. This default reads through
  // DoTransferFromDevice and copies; clients that can write `destination` directly override
  // it.
  virtual absl::Status DoTransferFromDeviceInto(const DataPtr& handle,
                                                absl::Span<uint8_t> destination);
  virtual absl::StatusOr<std::vector<ComputationPtr>> DoCompile(
      std::vector<CompileInstance> instances) = 0;
  virtual absl::StatusOr<std::vector<DataPtr>> DoExecuteComputation(
      const Computation& computation, const std::vector<DataPtr>& arguments,
      const std::string& device, const ExecuteComputationOptions& options) = 0;
  virtual absl::StatusOr<std::vector<std::vector<DataPtr>>> DoExecuteReplicated(
      const Computation& computation, const std::vector<std::vector<DataPtr>>& arguments,
      const std::vector<std::string>& devices) = 0;
};

// The metrics report's memory entries, one per local device of `client`, in device order:
//   Memory: CPU:0
//     BytesInUse: 1.00KB
//     PeakBytesInUse: 4.00KB
//     BytesLimit: not reported
//     PoolCachedBytes: 64.00KB
// A figure the plugin does not report reads "not reported"; a device whose client cannot
// say has one line "  Unavailable: <why>" instead of the four.
std::string MemoryReport(const ComputationClient& client);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_COMPUTATION_CLIENT_H_
