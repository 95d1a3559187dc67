#include "src/lazy/step_runner.h"

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "src/base/env.h"
#include "src/base/scratch.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"
#include "src/ir/hash.h"
#include "src/lazy/compile_cache.h"
#include "src/lazy/donation.h"
#include "src/lazy/replicated.h"
#include "src/runtime/metrics.h"
#include "src/runtime/trace.h"

namespace seam::lazy {
namespace {

using runtime::ComputationClient;

// A program run, whatever its entry point: the fields of the typed steps (step_runner.h).
struct ProgramRun {
  StepKind kind = StepKind::kBarrier;
  int64_t replicas = 1;
  int64_t global_replicas = 0;
  StepParameters parameters;
  ComputationClient::ComputationPtr computation;  // a replay's; else found through `program`
  StepProgram* program = nullptr;
  absl::Span<const ir::Alias> donations;
  std::string_view op = "sync";  // names the caller in errors
};

// The counters of the runner, looked up once (the registry lookup takes a lock and
// compares names).
struct Counters {
  metrics::Counter* mark_step = metrics::GetOrCreateCounter("MarkStep");
  metrics::Counter* cached = metrics::GetOrCreateCounter("CachedCompile");
  metrics::Counter* uncached = metrics::GetOrCreateCounter("UncachedCompile");
  metrics::Counter* replays = metrics::GetOrCreateCounter("CompiledStepReplay");
};
const Counters& GetCounters() {
  static const Counters* counters = new Counters();
  return *counters;
}

// One value to send: `literal` to `device`, stored at `*target`.
struct Upload {
  const ir::Literal* literal;
  const std::string* device;
  ComputationClient::DataPtr* target;
};

// The lists of one RunStep, per thread (src/base/scratch.h): emptied when it returns, so
// that they hold no value or buffer after it, and kept with their capacity for the next.
struct Scratch {
  std::vector<Upload> uploads;
  std::vector<ComputationClient::TensorSource> sources;
  std::vector<DeviceValue*> device_only;
  std::vector<ComputationClient::DataPtr> handles;
  std::vector<std::vector<ComputationClient::DataPtr>> arguments;

  void Clear() {
    uploads.clear();
    sources.clear();
    device_only.clear();
    handles.clear();
    for (auto& list : arguments) list.clear();
  }
};

// The devices of a step: the default one, or the first `replicas` local devices.
absl::StatusOr<std::vector<std::string>> StepDevices(ComputationClient& client, int64_t replicas) {
  if (replicas == 1) return std::vector<std::string>{client.GetDefaultDevice()};
  std::vector<std::string> local = client.GetLocalDevices();
  if (replicas > static_cast<int64_t>(local.size())) {
    return absl::InvalidArgumentError(absl::StrCat("sync: the step has ", replicas,
                                                   " replicas but there are only ", local.size(),
                                                   " local devices"));
  }
  local.resize(static_cast<size_t>(replicas));
  return local;
}

// Makes every parameter per-replica over `devices` (a plain value already on device 0 is
// read back once, in one crossing, to be copied to the others) and lists, in
// scratch.uploads, every copy not yet on its device.
absl::Status PlanReplicaUploads(ComputationClient& client, const std::vector<std::string>& devices,
                                absl::Span<const std::shared_ptr<DeviceValue>> parameters,
                                Scratch& scratch) {
  const int64_t replicas = static_cast<int64_t>(devices.size());
  for (const auto& value : parameters) {
    if (value->replicas != nullptr) continue;
    auto copies = std::make_shared<ReplicaValues>();
    copies->count = replicas;
    copies->host.resize(static_cast<size_t>(replicas));
    copies->device.resize(static_cast<size_t>(replicas));
    value->replicas = std::move(copies);
    if (value->device != nullptr) {
      scratch.device_only.push_back(value.get());
      scratch.handles.push_back(value->device);
    }
  }
  if (!scratch.handles.empty()) {
    SEAM_ASSIGN_OR_RETURN(std::vector<ir::Literal> read,
                          client.TransferFromDevice(scratch.handles));
    for (size_t i = 0; i < scratch.device_only.size(); ++i) {
      for (int64_t d = 1; d < replicas; ++d) scratch.device_only[i]->replicas->host[d] = read[i];
    }
  }
  for (const auto& value : parameters) {
    ReplicaValues& copies = *value->replicas;
    if (value->device == nullptr)
      scratch.uploads.push_back({&*value->host, &devices[0], &value->device});
    for (int64_t d = 1; d < replicas; ++d) {
      if (copies.device[d] != nullptr) continue;
      // A value made per-replica from a plain one has the same data everywhere.
      const ir::Literal* literal = copies.host[d] ? &*copies.host[d] : &*value->host;
      scratch.uploads.push_back({literal, &devices[d], &copies.device[d]});
    }
  }
  return absl::OkStatus();
}

// Crossing 1: sends every value the step needs that is not on its device yet.
absl::Status SendParameters(ComputationClient& client, const std::vector<std::string>& devices,
                            absl::Span<const std::shared_ptr<DeviceValue>> parameters,
                            Scratch& scratch) {
  if (devices.size() > 1) {
    SEAM_RETURN_IF_ERROR(PlanReplicaUploads(client, devices, parameters, scratch));
  } else {
    for (const auto& value : parameters) {
      if (value->device == nullptr)
        scratch.uploads.push_back({&*value->host, &devices[0], &value->device});
    }
  }
  if (scratch.uploads.empty()) return absl::OkStatus();
  for (const Upload& u : scratch.uploads) {
    scratch.sources.push_back({u.literal->shape, u.literal->bytes.data(), *u.device});
  }
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::DataPtr> data,
                        client.TransferToDevice(scratch.sources));
  for (size_t i = 0; i < scratch.uploads.size(); ++i)
    *scratch.uploads[i].target = std::move(data[i]);
  if (devices.size() > 1) {
    // The per-replica host copies are not needed once sent (replica 0's stays, as for plain
    // values, for host reads of values that never ran).
    for (const auto& value : parameters) {
      for (auto& host : value->replicas->host) host.reset();
    }
  }
  return absl::OkStatus();
}

// Crossing 2: the request's program from the compile cache, compiled on a miss.
absl::StatusOr<ComputationClient::ComputationPtr> FindOrCompile(Runtime& rt,
                                                                ComputationClient& client,
                                                                const ProgramRun& request,
                                                                const std::string& device) {
  const Counters& counters = GetCounters();
  if (request.computation != nullptr) {
    counters.cached->Add(1);
    return request.computation;
  }
  SEAM_ASSIGN_OR_RETURN(CompileCache * cache, rt.compile_cache());
  StepProgram& source = *request.program;
  const uint64_t key = CompileCacheKey(source.Key(), device);
  ComputationClient::ComputationPtr computation;
  {
    const trace::Span span("cache lookup", "step");
    computation = cache->FindMatching(
        key, [&](const ir::Program& cached, absl::Span<const uint64_t> signature) {
          return source.Matches(cached, signature);
        });
  }
  if (computation != nullptr) {
    counters.cached->Add(1);
    return computation;
  }
  counters.uncached->Add(1);
  std::vector<uint64_t> signature;
  SEAM_ASSIGN_OR_RETURN(ir::Program program, source.Lower(&signature));
  std::vector<ComputationClient::CompileInstance> instances;
  instances.push_back({std::move(program), device, request.kind == StepKind::kEagerOp});
  SEAM_ASSIGN_OR_RETURN(std::vector<ComputationClient::ComputationPtr> compiled,
                        client.Compile(std::move(instances)));
  cache->Insert(key, compiled.front(), std::move(signature));
  return std::move(compiled.front());
}

// SEAM_MAX_INFLIGHT_STEPS, read once: how many steps may be launched and unfinished on a
// device (default 1, PyTorch/XLA's device lock).
absl::StatusOr<int64_t> MaxStepsInFlight() {
  static const absl::StatusOr<int64_t>* limit = [] {
    absl::StatusOr<int64_t> value = base::ReadIntSetting(base::Setting::kSeamMaxInflightSteps, 1);
    if (value.ok() && *value < 1) {
      value = absl::InvalidArgumentError(absl::StrCat(
          "Environment variable ", kMaxInflightStepsVariable, " must be at least 1, got ", *value));
    }
    return new absl::StatusOr<int64_t>(value);
  }();
  return *limit;
}

// Crossing 3: tells the client the run begins, then runs the program on every replica's
// arguments. A step (a barrier's or a replay's) first waits until fewer than
// SEAM_MAX_INFLIGHT_STEPS runs are unfinished on each of its devices, so the host is never
// more steps ahead than that.
absl::Status Execute(ComputationClient& client, const ProgramRun& request,
                     const std::vector<std::string>& devices, Scratch& scratch,
                     StepResult& result) {
  const bool step = request.kind == StepKind::kBarrier || request.kind == StepKind::kReplay;
  ComputationClient::RunStart start;
  start.step = step;
  start.job_wide = request.global_replicas > request.replicas;
  SEAM_RETURN_IF_ERROR(client.BeginRun(start));
  if (step) {
    SEAM_ASSIGN_OR_RETURN(int64_t limit, MaxStepsInFlight());
    const trace::Span span("wait: runs in flight", "wait");
    for (const std::string& device : devices) {
      SEAM_RETURN_IF_ERROR(client.AwaitRunsInFlightBelow(device, limit));
    }
  }
  const size_t replicas = devices.size();
  if (scratch.arguments.size() < replicas) scratch.arguments.resize(replicas);
  for (size_t d = 0; d < replicas; ++d) {
    std::vector<ComputationClient::DataPtr>& arguments = scratch.arguments[d];
    arguments.reserve(request.parameters.size());
    for (const auto& value : request.parameters) {
      arguments.push_back(ReplicaData(*value, static_cast<int64_t>(d)));
    }
  }
  const ComputationClient::Computation& computation = *result.computation;
  if (replicas == 1 && request.global_replicas <= 1) {
    ComputationClient::ExecuteComputationOptions options;
    options.eager_mode = request.kind == StepKind::kEagerOp;
    result.outputs.resize(1);
    SEAM_ASSIGN_OR_RETURN(
        result.outputs[0],
        client.ExecuteComputation(computation, scratch.arguments[0], devices[0], options));
    return absl::OkStatus();
  }
  scratch.arguments.resize(replicas);
  SEAM_ASSIGN_OR_RETURN(result.outputs,
                        client.ExecuteReplicated(computation, scratch.arguments, devices));
  return absl::OkStatus();
}

}  // namespace

BuiltProgram::BuiltProgram(const ir::Program& program)
    : program_(program), hash_(ir::HashProgram(program)) {}

bool BuiltProgram::Matches(const ir::Program& cached, absl::Span<const uint64_t>) const {
  return cached == program_;
}

absl::StatusOr<ir::Program> BuiltProgram::Lower(std::vector<uint64_t>*) { return program_; }

namespace {

// A program run of any entry point (step_runner.h, "A program run").
absl::Status RunProgram(Runtime& rt, const ProgramRun& request, StepResult& result) {
  const Counters& counters = GetCounters();
  if (request.kind == StepKind::kBarrier || request.kind == StepKind::kReplay) {
    counters.mark_step->Add(1);
  }
  if (request.kind == StepKind::kReplay) counters.replays->Add(1);
  result.computation = nullptr;
  result.outputs.clear();
  for (const auto& value : request.parameters) {
    SEAM_RETURN_IF_ERROR(CheckNotDonated(*value, request.op));
  }

  base::ScratchLease<Scratch> lease;
  Scratch& scratch = *lease;

  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, rt.client());
  // The devices: a plain step's is the default device, which never changes.
  const std::vector<std::string>* devices = nullptr;
  std::vector<std::string> replica_devices;
  if (request.replicas == 1) {
    SEAM_ASSIGN_OR_RETURN(devices, rt.default_device());
  } else {
    SEAM_ASSIGN_OR_RETURN(replica_devices, StepDevices(*client, request.replicas));
    devices = &replica_devices;
  }
  SEAM_RETURN_IF_ERROR(SendParameters(*client, *devices, request.parameters, scratch));
  SEAM_ASSIGN_OR_RETURN(result.computation, FindOrCompile(rt, *client, request, (*devices)[0]));
  SEAM_RETURN_IF_ERROR(Execute(*client, request, *devices, scratch, result));
  for (const ir::Alias& alias : request.donations) {
    request.parameters[static_cast<size_t>(alias.parameter_index)]->donated = true;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunBarrier(const StepLock& steps, const BarrierRun& step, StepResult& result) {
  ProgramRun run;
  run.kind = step.host_read ? StepKind::kHostRead : StepKind::kBarrier;
  run.parameters = step.parameters;
  run.program = step.program;
  run.donations = step.donations;
  return RunProgram(steps.runtime(), run, result);
}

absl::Status RunReplicated(const StepLock& steps, const ReplicatedRun& step, StepResult& result) {
  ProgramRun run;
  run.kind = step.host_read ? StepKind::kHostRead : StepKind::kBarrier;
  run.replicas = step.replicas;
  run.global_replicas = step.global_replicas;
  run.parameters = step.parameters;
  run.program = step.program;
  return RunProgram(steps.runtime(), run, result);
}

absl::Status RunEagerOp(const StepLock& steps, const EagerOpRun& step, StepResult& result) {
  ProgramRun run;
  run.kind = StepKind::kEagerOp;
  run.parameters = step.parameters;
  run.program = step.program;
  run.op = step.op;
  return RunProgram(steps.runtime(), run, result);
}

absl::Status RunReplay(const StepLock& steps, const ReplayRun& step, StepResult& result) {
  ProgramRun run;
  run.kind = StepKind::kReplay;
  run.parameters = step.parameters;
  run.computation = step.computation;
  run.donations = step.donations;
  return RunProgram(steps.runtime(), run, result);
}

void CountEmptyBarrier(const StepLock&) { GetCounters().mark_step->Add(1); }

absl::StatusOr<std::vector<ComputationClient::DataPtr>> UploadHostBytes(
    const StepLock& steps, absl::Span<const ComputationClient::TensorSource> sources) {
  if (sources.empty()) return std::vector<ComputationClient::DataPtr>();
  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, steps.runtime().client());
  const std::string device = client->GetDefaultDevice();
  std::vector<ComputationClient::TensorSource> on_device;
  on_device.reserve(sources.size());
  for (const ComputationClient::TensorSource& source : sources) {
    on_device.push_back({source.shape, source.data, device});
  }
  return client->TransferToDevice(on_device);
}

absl::Status ReadDeviceValues(Runtime& rt, absl::Span<const ComputationClient::DataPtr> handles,
                              std::vector<ir::Literal>& read) {
  read.clear();
  if (handles.empty()) return absl::OkStatus();
  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, rt.client());
  base::ScratchLease<Scratch> lease;
  Scratch& scratch = *lease;
  scratch.handles.assign(handles.begin(), handles.end());
  SEAM_ASSIGN_OR_RETURN(read, client->TransferFromDevice(scratch.handles));
  return absl::OkStatus();
}

absl::Status ReadDeviceValueInto(Runtime& rt, const ComputationClient::DataPtr& handle,
                                 absl::Span<uint8_t> destination) {
  SEAM_ASSIGN_OR_RETURN(ComputationClient * client, rt.client());
  return client->TransferFromDeviceInto(handle, destination);
}

absl::StatusOr<NodePtr> UploadedLeaf(Runtime& rt, const ir::Shape& shape, const void* bytes) {
  const ComputationClient::TensorSource source{shape, bytes, ""};
  std::vector<ComputationClient::DataPtr> uploaded;
  {
    const StepLock steps = rt.LockSteps();
    SEAM_ASSIGN_OR_RETURN(uploaded, UploadHostBytes(steps, absl::MakeConstSpan(&source, 1)));
  }
  auto value = NewDeviceValue();
  value->shape = shape;
  value->device = std::move(uploaded.front());
  return MakeLeaf(std::move(value));
}

absl::StatusOr<ir::Literal> ReadValue(Runtime& rt, const DeviceValue& value, std::string_view op) {
  ComputationClient::DataPtr device;
  {
    const StepLock steps = rt.LockSteps();
    SEAM_RETURN_IF_ERROR(CheckNotDonated(value, op));
    if (value.device == nullptr) return *value.host;
    device = value.device;
  }
  thread_local std::vector<ir::Literal> read;
  SEAM_RETURN_IF_ERROR(ReadDeviceValues(rt, absl::MakeConstSpan(&device, 1), read));
  ir::Literal literal = std::move(read.front());
  read.clear();
  return literal;
}

absl::Status ReadValueInto(Runtime& rt, const DeviceValue& value, std::string_view op,
                           absl::Span<uint8_t> destination) {
  ComputationClient::DataPtr device;
  {
    const StepLock steps = rt.LockSteps();
    SEAM_RETURN_IF_ERROR(CheckNotDonated(value, op));
    if (value.device != nullptr && !destination.empty()) device = value.device;
  }
  if (device != nullptr) return ReadDeviceValueInto(rt, device, destination);
  // On the host, or nothing to copy: the plain read, then a copy of what it gave.
  SEAM_ASSIGN_OR_RETURN(ir::Literal literal, ReadValue(rt, value, op));
  if (literal.bytes.size() != destination.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(op), ": ", literal.shape.ToString(), " needs ",
                     literal.bytes.size(), " bytes, the destination has ", destination.size()));
  }
  if (!destination.empty()) {
    std::memcpy(destination.data(), literal.bytes.data(), destination.size());
  }
  return absl::OkStatus();
}

}  // namespace seam::lazy
