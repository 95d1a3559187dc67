// The step runner: the functions of the front end that cross the seam.
//
// Every path that runs something on a device calls one typed entry point, which takes only
// what its kind of step uses:
//   RunBarrier      the step barrier on the default device (seam::sync, and the sync before
//                   a host read), and CountEmptyBarrier for a barrier with nothing pending;
//   RunReplicated   a data-parallel step, or one spanning every device of a job;
//   RunEagerOp      one op of eager mode;
//   RunReplay       a compiled step's replay (its program already compiled);
//   UploadHostBytes host bytes sent as new device values (a checkpoint's tensors);
//   ReadDeviceValues / ReadDeviceValueInto  device values brought back to the host.
// A program run performs the crossings in their fixed order:
//   1. TransferToDevice: the parameters that exist only on the host (for a replicated step,
//      every replica's copy, after reading back once a value that is only on device 0);
//   2. Compile: the compile cache is looked up (CachedCompile / UncachedCompile) and the
//      program compiled and inserted on a miss (a replay brings its program: CachedCompile);
//   3. ExecuteComputation (ExecuteReplicated for several replicas): returns at once;
//      then the donated parameters are marked (their buffers now belong to the outputs).
//      Before it the client is told the run begins (ComputationClient::BeginRun: where the
//      process's client decorators check the job's health and tests inject faults), and
//      a step of seam::sync or a replay waits until fewer than SEAM_MAX_INFLIGHT_STEPS
//      (default 1) runs are unfinished on its devices.
// Each crossing is skipped when the run has nothing for it. Reads (4. TransferFromDevice)
// are a call of their own and block.
//
// The step lock (Runtime::LockSteps, a StepLock token). Every path holds it from the moment
// it reads the device values of a step (which are on the device, which donated) until the
// step is launched and the tensors point at its results: the barrier (SyncTensors), an eager
// op, a replay, the inspection of a value before a host read. So steps of different threads
// are atomic with respect to each other, and a donation decided under it sees every other
// step's references. The rule is checked by the compiler: every entry point that runs a
// program or uploads takes the token (`const StepLock&`), which only LockSteps makes. Reads
// take no token: a blocking read of a value runs outside the lock (ReadValue inspects the
// value under it and releases it before the transfer). Recursive: a barrier inside a
// barrier (from an observer) takes it again.
#ifndef SEAM_LAZY_STEP_RUNNER_H_
#define SEAM_LAZY_STEP_RUNNER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"
#include "src/lazy/runtime.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

// Where a step's program comes from when it is not compiled yet: the compile-cache key
// and the check of a cached program, both without building one, and the program itself
// on a miss.
class StepProgram {
 public:
  virtual ~StepProgram() = default;
  // The key in the compile cache (RunStep combines it with the device).
  virtual uint64_t Key() const = 0;
  // Whether `cached`, inserted with `signature` (what Lower gave; maybe empty), is the
  // program this source stands for. A key collision must never pass this check.
  virtual bool Matches(const ir::Program& cached, absl::Span<const uint64_t> signature) const = 0;
  // The program to compile on a miss, and (optionally) the signature to keep with it for
  // Matches.
  virtual absl::StatusOr<ir::Program> Lower(std::vector<uint64_t>* signature) = 0;
};

// A program already built (a replicated step's, an eager op's that has no short key):
// keyed by its structural hash, matched by comparing instructions.
class BuiltProgram final : public StepProgram {
 public:
  explicit BuiltProgram(const ir::Program& program);
  uint64_t Key() const override { return hash_; }
  bool Matches(const ir::Program& cached, absl::Span<const uint64_t> signature) const override;
  absl::StatusOr<ir::Program> Lower(std::vector<uint64_t>* signature) override;

 private:
  const ir::Program& program_;
  uint64_t hash_;
};

// The variable that bounds the steps in flight per device (a run's crossing 3).
inline constexpr char kMaxInflightStepsVariable[] = "SEAM_MAX_INFLIGHT_STEPS";

// What a program run is, for the metrics and the pacing: the step barrier of seam::sync
// and a compiled-step replay count as MarkStep and wait for runs in flight; a replay's
// program was found without a lookup (CachedCompile, CompiledStepReplay); eager ops record
// EagerOpCompileTime and EagerOpExecuteTime; the sync before a host read (kHostRead) is a
// barrier that is no step: no MarkStep, no wait, no donation.
enum class StepKind { kBarrier, kHostRead, kEagerOp, kReplay };

// Parameter p of a program is parameters[p]. Values still on the host are sent first; a
// value whose buffer was donated is an error naming the caller ("sync", or the eager op).
using StepParameters = absl::Span<const std::shared_ptr<DeviceValue>>;

// The step barrier on the default device.
struct BarrierRun {
  bool host_read = false;  // the sync before a host read (StepKind::kHostRead), not a step
  StepParameters parameters;
  StepProgram* program = nullptr;  // never null
  // Input/output aliases of the program (output i overwrites parameter j): after the run
  // the parameters they name are marked donated. Must equal the program's own aliases.
  absl::Span<const ir::Alias> donations;
};

// A step whose values are per-replica, or that spans the devices of several processes.
struct ReplicatedRun {
  bool host_read = false;  // as BarrierRun's
  // The step runs on the first `replicas` local devices; replica d of parameter p is its
  // ReplicaData(d).
  int64_t replicas = 1;
  // The program's replica count when the step spans every device of a job of several
  // processes (replicas = every local device, this process's share); 0: `replicas`. Such a
  // step always runs with ExecuteReplicated, even on one local device.
  int64_t global_replicas = 0;
  StepParameters parameters;
  StepProgram* program = nullptr;  // never null
};

// One op of eager mode, on the default device.
struct EagerOpRun {
  std::string_view op;  // names the op in errors
  StepParameters parameters;
  StepProgram* program = nullptr;  // never null
};

// A compiled step's replay, on the default device.
struct ReplayRun {
  StepParameters parameters;
  runtime::ComputationClient::ComputationPtr computation;  // never null
  absl::Span<const ir::Alias> donations;                   // as BarrierRun's
};

struct StepResult {
  runtime::ComputationClient::ComputationPtr computation;  // what ran
  // outputs[d][i]: result i of replica d (d = 0 only, unless replicated).
  std::vector<std::vector<runtime::ComputationClient::DataPtr>> outputs;
};

// Each runs its step as described at the top of this file, into `result` (whose vectors
// keep their capacity from an earlier call), on the runtime whose step lock `steps` is. On
// error nothing is marked donated.
absl::Status RunBarrier(const StepLock& steps, const BarrierRun& step, StepResult& result);
absl::Status RunReplicated(const StepLock& steps, const ReplicatedRun& step, StepResult& result);
absl::Status RunEagerOp(const StepLock& steps, const EagerOpRun& step, StepResult& result);
absl::Status RunReplay(const StepLock& steps, const ReplayRun& step, StepResult& result);
// A step barrier with nothing pending: counts MarkStep, crosses nothing.
void CountEmptyBarrier(const StepLock& steps);

// Sends host bytes to the default device as new values (one TransferToDevice; a source's
// `device` is ignored), in order. The bytes are read during the call only (a checkpoint's
// mapping, say), never kept.
absl::StatusOr<std::vector<runtime::ComputationClient::DataPtr>> UploadHostBytes(
    const StepLock& steps, absl::Span<const runtime::ComputationClient::TensorSource> sources);

// Brings device values back to the host (one TransferFromDevice; blocks): `read` holds one
// literal per handle. Called without the step lock.
absl::Status ReadDeviceValues(Runtime& rt,
                              absl::Span<const runtime::ComputationClient::DataPtr> handles,
                              std::vector<ir::Literal>& read);
// One device value into caller memory of exactly its size (TransferFromDeviceInto; blocks).
absl::Status ReadDeviceValueInto(Runtime& rt, const runtime::ComputationClient::DataPtr& handle,
                                 absl::Span<uint8_t> destination);

// A leaf whose value is on the default device only (no host copy), sent from `bytes`
// (shape.byte_size() of them, read during the call only). Takes the step lock for the
// upload.
absl::StatusOr<NodePtr> UploadedLeaf(Runtime& rt, const ir::Shape& shape, const void* bytes);

// The value of a host read: the value's host copy when it never went to the device, else
// one read-only step of `value->device`. `op` names the caller in errors. Takes the step
// lock to look at the value, and reads the device outside it.
absl::StatusOr<ir::Literal> ReadValue(Runtime& rt, const DeviceValue& value, std::string_view op);
// ReadValue into caller memory of exactly the value's byte size (an error names both sizes).
absl::Status ReadValueInto(Runtime& rt, const DeviceValue& value, std::string_view op,
                           absl::Span<uint8_t> destination);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_STEP_RUNNER_H_
