// The step runner: the one function of the front end that crosses the seam.
//
// Every path that runs something on a device — the step barrier (seam::sync and the sync
// before a host read), data parallel steps, eager ops, compiled-step replays, and host
// reads — builds a StepRequest and hands it to RunStep, which performs the crossings in
// their fixed order:
//   1. TransferToDevice: the parameters that exist only on the host (for a replicated step,
//      every replica's copy, after reading back once a value that is only on device 0);
//   2. Compile: the compile cache is looked up (CachedCompile / UncachedCompile) and the
//      program compiled and inserted on a miss;
//   3. ExecuteComputation (ExecuteReplicated for several replicas): returns at once;
//      then the donated parameters are marked (their buffers now belong to the outputs).
//      A step of seam::sync or a replay first waits until fewer than
//      SEAM_MAX_INFLIGHT_STEPS (default 1) runs are unfinished on its devices;
//   4. TransferFromDevice: the values the request reads back (blocks).
// Each crossing is skipped when the request has nothing for it.
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

// The variable that bounds the steps in flight per device (RunStep's crossing 3).
inline constexpr char kMaxInflightStepsVariable[] = "SEAM_MAX_INFLIGHT_STEPS";

// What a caller of RunStep is, for the metrics: the step barrier of seam::sync and a
// compiled-step replay count as MarkStep; a replay's program was found without a lookup
// (CachedCompile, CompiledStepReplay); eager ops record EagerOpCompileTime and
// EagerOpExecuteTime.
enum class StepKind { kBarrier, kHostRead, kEagerOp, kReplay };

struct StepRequest {
  StepKind kind = StepKind::kBarrier;
  // The replicas of a data-parallel step: the step runs on the first `replicas` local
  // devices (one replica: the default device).
  int64_t replicas = 1;
  // The program's replica count when the step spans every device of a job of several
  // processes (replicas = every local device, this process's share); 0: `replicas`. Such a
  // step always runs with ExecuteReplicated, even on one local device.
  int64_t global_replicas = 0;
  // Parameter p of the program is parameters[p] (replica d of a replicated step: its
  // ReplicaData(d)). Values still on the host are sent first; a value whose buffer was
  // donated is an error naming `op`.
  absl::Span<const std::shared_ptr<DeviceValue>> parameters;
  // The program: `computation` when the caller already holds it (a replay), else found
  // through `program` (null: nothing runs, e.g. a plain host read).
  runtime::ComputationClient::ComputationPtr computation;
  StepProgram* program = nullptr;
  // Input/output aliases of the program (output i overwrites parameter j): after the run
  // the parameters they name are marked donated. Must equal the program's own aliases.
  absl::Span<const ir::Alias> donations;
  // Device values to bring back to the host after the run.
  absl::Span<const runtime::ComputationClient::DataPtr> reads;
  // Not empty: `reads` has one entry, copied into this caller memory of exactly its size
  // (TransferFromDeviceInto) instead of into result.read.
  absl::Span<uint8_t> read_into;
  // Host bytes to send to the default device as new values (crossing 1, before anything
  // else; a source's `device` is ignored): result.uploaded[i] holds the i-th. The bytes are
  // read during the call only (a checkpoint's mapping, say), never kept.
  absl::Span<const runtime::ComputationClient::TensorSource> uploads;
  std::string_view op = "sync";  // names the caller in errors
};

struct StepResult {
  runtime::ComputationClient::ComputationPtr computation;  // what ran, if anything
  // outputs[d][i]: result i of replica d (d = 0 only, unless replicated).
  std::vector<std::vector<runtime::ComputationClient::DataPtr>> outputs;
  std::vector<ir::Literal> read;                              // per entry of request.reads
  std::vector<runtime::ComputationClient::DataPtr> uploaded;  // per entry of request.uploads
};

// The step lock (Runtime::LockSteps). Every path holds it from the moment it reads the
// device values of a step (which are on the device, which donated) until the step is
// launched and the tensors point at its results: the barrier (SyncTensors), an eager op, a
// replay, the inspection of a value before a host read. So steps of different threads are
// atomic with respect to each other, and a donation decided under it sees every other
// step's references. A blocking read of a value (TransferFromDevice) runs outside it.
// Recursive: a barrier inside a barrier (from an observer) takes it again.

// Runs `request` as described at the top of this file, into `result` (whose vectors keep
// their capacity from an earlier call). On error nothing is marked donated.
absl::Status RunStep(Runtime& rt, const StepRequest& request, StepResult& result);

// A leaf whose value is on the default device only (no host copy), sent from `bytes`
// (shape.byte_size() of them, read during the call only).
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
