// Running a loaded executable: validation at the call, the work on the device's worker.
#include <algorithm>
#include <new>

#include "absl/cleanup/cleanup.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "src/base/object_pool.h"
#include "src/base/status_macros.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/cpu/api/api_functions.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/api/testing_hooks.h"

namespace seam::cpu {
namespace {

// What one run works on: owned by a Run for a queued run, borrowed from the call's
// handles (alive until the call returns) for a run on the caller's thread.
struct RunView {
  const Executable& executable;
  int64_t replica;
  int device_id;
  Rendezvous* rendezvous;                         // null for a single replica
  const std::shared_ptr<MemoryCounters>& memory;  // the device's memory figures
  size_t num_inputs, num_outputs;
  absl::FunctionRef<BufferState&(size_t)> input;
  absl::FunctionRef<BufferState&(size_t)> output;
  EventState& complete;
  EventState& outputs_ready;  // every output's `ready`
};

// A queued run: its references keep the executable, the inputs' memory and the outputs'
// states alive until it has run.
struct Run {
  std::shared_ptr<const Executable> executable;
  int64_t replica = 0;
  int device_id = 0;
  std::shared_ptr<Rendezvous> rendezvous;  // null for a single replica
  std::shared_ptr<MemoryCounters> memory;  // the device's memory figures
  // The handle lists' blocks come from the object pool, as the run itself does.
  using States =
      std::vector<std::shared_ptr<BufferState>, base::PoolAllocator<std::shared_ptr<BufferState>>>;
  States inputs;
  States outputs;
  std::shared_ptr<EventState> complete;
  std::shared_ptr<EventState> outputs_ready;
};

absl::Status Compute(const RunView& run) {
  // The run's span on the profiler's timeline; its kernels name the device too.
  const plugin::profiler::DeviceScope device(run.device_id);
  const plugin::profiler::Scope span("run", "run", run.device_id);
  if (absl::Status injected = testing::InjectedRunFailure(run.device_id); !injected.ok()) {
    return injected;
  }
  for (size_t i = 0; i < run.num_inputs; ++i) {
    absl::Status input_status = run.input(i).ready->Await();
    if (!input_status.ok()) {
      return absl::Status(input_status.code(),
                          absl::StrCat("argument ", i, " failed: ", input_status.message()));
    }
  }
  // Per-thread list, reused from run to run (a run never starts another on its thread),
  // emptied again before returning so that it keeps no memory alive.
  thread_local std::vector<std::shared_ptr<DeviceMemory>> results;
  absl::Cleanup release = [] { results.clear(); };
  // The inputs' memory is final once they are ready.
  auto input = [&](size_t i) -> const std::shared_ptr<DeviceMemory>& {
    return run.input(i).memory;
  };
  absl::Status status;
  try {
    testing::ThrowIfInjected();
    status = run.executable.RunInto(input, results, run.replica, run.rendezvous, run.memory);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        "PJRT_LoadedExecutable_Execute: out of host memory while running the program");
  } catch (const std::exception& e) {
    // Never expected; but the run may be on the device's worker thread, which must live on:
    // the failure goes to this run's events and outputs like any other.
    return absl::InternalError(absl::StrCat(
        "PJRT_LoadedExecutable_Execute: internal error while running the program: ", e.what()));
  } catch (...) {
    return absl::InternalError(
        "PJRT_LoadedExecutable_Execute: internal error while running the program (an exception "
        "that is not a std::exception)");
  }
  if (!status.ok()) return status;
  for (size_t o = 0; o < results.size(); ++o) run.output(o).memory = std::move(results[o]);
  return absl::OkStatus();
}

void Perform(const RunView& run) {
  testing::WaitWhileExecutionHeld();
  absl::Status status = Compute(run);
  if (!status.ok() && run.rendezvous != nullptr) {
    // Release the replicas waiting for this one at an all_reduce.
    run.rendezvous->Abort(run.replica,
                          absl::Status(status.code(), absl::StrCat("replica ", run.replica,
                                                                   " failed: ", status.message())));
  }
  // The completion event first (its callbacks, e.g. the framework's timers, run now), so
  // that whoever waits on an output sees the run's bookkeeping already done.
  run.complete.Set(status);
  run.outputs_ready.Set(status);
}

void Perform(const Run& run) {
  Perform(RunView{*run.executable, run.replica, run.device_id, run.rendezvous.get(), run.memory,
                  run.inputs.size(), run.outputs.size(),
                  [&](size_t i) -> BufferState& { return *run.inputs[i]; },
                  [&](size_t o) -> BufferState& { return *run.outputs[o]; }, *run.complete,
                  *run.outputs_ready});
}

// Whether a run may execute on the caller's thread (when its worker is idle): it must not
// wait for anything, so every input is ready, and no test hold is keeping runs back.
// The outcome is the same either way: the run's events and outputs are set when it ends,
// with its status; only the thread and the moment differ (XLA's CPU client runs cheap
// programs inline the same way).
bool MayRunInline(PJRT_Buffer* const* arguments, size_t num_args) {
  if (testing::ExecutionHeld()) return false;
  for (size_t i = 0; i < num_args; ++i) {
    if (!arguments[i]->state->ready->IsReady()) return false;
  }
  return true;
}

absl::Status CheckArgument(const PJRT_Buffer* buffer, size_t device_index, size_t arg_index,
                           const ir::Shape& expected, const PJRT_Device* device) {
  if (buffer == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_LoadedExecutable_Execute: argument ",
                                                   arg_index, " of device ", device_index,
                                                   " is null"));
  }
  if (buffer->deleted) {
    return absl::FailedPreconditionError(absl::StrCat(
        "PJRT_LoadedExecutable_Execute: argument ", arg_index,
        buffer->donated ? ": the buffer was donated to an earlier execution" : " was deleted"));
  }
  if (!(*buffer->shape == expected)) {
    return absl::InvalidArgumentError(
        absl::StrCat("PJRT_LoadedExecutable_Execute: argument ", arg_index, " has shape ",
                     buffer->shape->ToString(), ", the program's parameter ", arg_index, " is ",
                     expected.ToString()));
  }
  if (buffer->device != device) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_LoadedExecutable_Execute: argument ", arg_index, " is on device ",
        buffer->device->description.id, ", the run is on device ", device->description.id));
  }
  return absl::OkStatus();
}

// A donated argument must not also be passed as another argument of the same run: the
// run would read memory that it overwrites.
absl::Status CheckDonations(const ir::Program& program, PJRT_Buffer* const* arguments,
                            size_t num_args) {
  if (program.aliases.empty()) return absl::OkStatus();
  // Only a buffer passed twice can break the rule; the usual call passes none, which one
  // sort of the argument list shows (instead of comparing each donation with every
  // argument).
  absl::InlinedVector<const BufferState*, 16> states(num_args);
  for (size_t i = 0; i < num_args; ++i) states[i] = arguments[i]->state.get();
  std::sort(states.begin(), states.end());
  if (std::adjacent_find(states.begin(), states.end()) == states.end()) return absl::OkStatus();
  for (const ir::Alias& alias : program.aliases) {
    const auto p = static_cast<size_t>(alias.parameter_index);
    for (size_t i = 0; i < num_args; ++i) {
      if (i != p && arguments[i]->state == arguments[p]->state) {
        return absl::InvalidArgumentError(absl::StrCat(
            "PJRT_LoadedExecutable_Execute: argument ", p, " is donated (alias output ",
            alias.output_index, " = parameter ", p, ") but the same buffer is also argument ", i));
      }
    }
  }
  return absl::OkStatus();
}

// The handle gives its memory to the run: it keeps only its shape, as after Delete.
void MarkDonated(PJRT_Buffer* buffer) {
  buffer->state.reset();
  buffer->deleted = true;
  buffer->donated = true;
}

// The devices of a launch, one per replica.
using RunDevices = absl::InlinedVector<PJRT_Device*, 4>;

// Whether the call runs this process's share of a program over every process of the job:
// replicas = process_count x the client's devices, run on all of them, in order.
bool SpansProcesses(const PJRT_LoadedExecutable_Execute_Args& args) {
  const PJRT_Client& client = *args.executable->client;
  return client.process_count > 1 && args.execute_device == nullptr &&
         args.num_devices == client.addressable_devices.size() &&
         args.executable->executable->program().replica_count ==
             client.process_count * static_cast<int64_t>(args.num_devices);
}

// Everything about the call that can be wrong, checked before any output, event or
// donation exists (so a refused call changes nothing). Fills `run_devices`.
absl::Status CheckExecute(const PJRT_LoadedExecutable_Execute_Args& args, RunDevices& run_devices) {
  const PJRT_LoadedExecutable& loaded = *args.executable;
  const std::vector<PJRT_Device*>& devices = loaded.client->addressable_devices;
  if (args.num_devices == 0 || args.num_devices > devices.size()) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_LoadedExecutable_Execute: num_devices is ",
                                                   args.num_devices, ", the client has ",
                                                   devices.size(), " addressable device(s)"));
  }
  if (args.execute_device != nullptr && args.num_devices != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_LoadedExecutable_Execute: execute_device is set, so num_devices must be 1, got ",
        args.num_devices));
  }
  const int64_t replicas = loaded.executable->program().replica_count;
  if (replicas != static_cast<int64_t>(args.num_devices) && !SpansProcesses(args)) {
    const int64_t processes = loaded.client->process_count;
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_LoadedExecutable_Execute: the program has replicas=", replicas, ", the call runs on ",
        args.num_devices, " device(s) (num_devices must equal the replica count",
        processes == 1 ? ")"
                       : absl::StrCat(", or, in this job of ", processes, " processes, be all ",
                                      devices.size(),
                                      " devices of this process for a program of "
                                      "replicas=",
                                      processes * static_cast<int64_t>(devices.size()), ")")));
  }
  const std::vector<ir::Shape>& params = loaded.executable->parameter_shapes();
  if (args.num_args != params.size()) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_LoadedExecutable_Execute: num_args is ",
                                                   args.num_args, ", the program has ",
                                                   params.size(), " parameter(s)"));
  }
  if (args.num_args > 0 && args.argument_lists == nullptr) {
    return absl::InvalidArgumentError(
        "PJRT_LoadedExecutable_Execute: args->argument_lists is null");
  }
  for (size_t d = 0; d < args.num_devices; ++d) {
    PJRT_Device* device = args.execute_device != nullptr ? args.execute_device : devices[d];
    if (device->client != loaded.client) {
      return absl::InvalidArgumentError(
          "PJRT_LoadedExecutable_Execute: execute_device belongs to another client");
    }
    if (!device->addressable) {
      return absl::InvalidArgumentError(absl::StrCat(
          "PJRT_LoadedExecutable_Execute: execute_device ", device->description.id,
          " belongs to process ", device->description.process_index, ", not to this one"));
    }
    if (args.output_lists[d] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("PJRT_LoadedExecutable_Execute: output_lists[", d, "] is null"));
    }
    for (size_t i = 0; i < args.num_args; ++i) {
      if (args.argument_lists[d] == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("PJRT_LoadedExecutable_Execute: argument_lists[", d, "] is null"));
      }
      SEAM_RETURN_IF_ERROR(CheckArgument(args.argument_lists[d][i], d, i, params[i], device));
    }
    // A program without parameters may come with no argument lists at all.
    PJRT_Buffer* const* arguments =
        args.argument_lists == nullptr ? nullptr : args.argument_lists[d];
    SEAM_RETURN_IF_ERROR(CheckDonations(loaded.executable->program(), arguments, args.num_args));
    run_devices.push_back(device);
  }
  // Upstream's non_donatable_input_indices: seam's donations are the program's aliases, made
  // when it was written; a run may not take them back.
  if (args.options != nullptr && args.options->num_non_donatable_input_indices > 0) {
    const PJRT_ExecuteOptions& options = *args.options;
    if (options.non_donatable_input_indices == nullptr) {
      return absl::InvalidArgumentError(
          "PJRT_LoadedExecutable_Execute: options->non_donatable_input_indices is null with "
          "num_non_donatable_input_indices > 0");
    }
    for (size_t k = 0; k < options.num_non_donatable_input_indices; ++k) {
      for (const ir::Alias& alias : loaded.executable->program().aliases) {
        if (alias.parameter_index == options.non_donatable_input_indices[k]) {
          return absl::UnimplementedError(absl::StrCat(
              "PJRT_LoadedExecutable_Execute: options->non_donatable_input_indices lists "
              "argument ",
              alias.parameter_index, ", which the program donates (alias output ",
              alias.output_index, " = parameter ", alias.parameter_index,
              "); the cpu plugin cannot run it without the donation"));
        }
      }
    }
  }
  return absl::OkStatus();
}

// Starts replica `d` of a checked call on `device`: its outputs and completion event are
// created, donated arguments handed over, and the run goes on the caller's thread (an
// `inline_ok` run whose device is idle and whose arguments are ready) or into the device's
// queue.
void Launch(const PJRT_LoadedExecutable_Execute_Args& args, size_t d, PJRT_Device* device,
            const std::shared_ptr<Rendezvous>& rendezvous, bool inline_ok, int64_t first_replica) {
  const PJRT_LoadedExecutable& loaded = *args.executable;
  const size_t num_outputs = loaded.output_shapes.size();
  PJRT_Buffer* const* arguments = args.argument_lists == nullptr ? nullptr : args.argument_lists[d];
  PJRT_Buffer** outputs = args.output_lists[d];
  std::shared_ptr<EventState> complete = EventState::Create();
  std::shared_ptr<EventState> outputs_ready = EventState::Create();
  for (size_t o = 0; o < num_outputs; ++o) {
    outputs[o] = new PJRT_Buffer{loaded.output_shapes[o], NewBufferState(outputs_ready), device};
  }
  if (args.device_complete_events != nullptr) {
    args.device_complete_events[d] = new PJRT_Event{complete};
  }
  auto mark_donations = [&] {
    for (const ir::Alias& alias : loaded.executable->program().aliases) {
      MarkDonated(arguments[alias.parameter_index]);
    }
  };
  Worker& worker = *device->worker;
  if (inline_ok && MayRunInline(arguments, args.num_args)) {
    // The run borrows the call's handles. It runs now unless the device has picked up
    // other work since the check; then it queues behind that work like any run.
    auto input = [&](size_t i) -> BufferState& { return *arguments[i]->state; };
    auto output = [&](size_t o) -> BufferState& { return *outputs[o]->state; };
    const RunView view{.executable = *loaded.executable,
                       .replica = first_replica + static_cast<int64_t>(d),
                       .device_id = device->description.id,
                       .rendezvous = rendezvous.get(),
                       .memory = device->memory,
                       .num_inputs = args.num_args,
                       .num_outputs = num_outputs,
                       .input = input,
                       .output = output,
                       .complete = *complete,
                       .outputs_ready = *outputs_ready};
    if (worker.TryRunInline([&] { Perform(view); })) {
      testing::CountInlineRun();
      mark_donations();
      return;
    }
  }
  auto run = std::allocate_shared<Run>(base::PoolAllocator<Run>());
  run->executable = loaded.executable;
  run->replica = first_replica + static_cast<int64_t>(d);
  run->device_id = device->description.id;
  run->rendezvous = rendezvous;
  run->memory = device->memory;
  run->inputs.reserve(args.num_args);
  for (size_t i = 0; i < args.num_args; ++i) run->inputs.push_back(arguments[i]->state);
  run->outputs.reserve(num_outputs);
  for (size_t o = 0; o < num_outputs; ++o) run->outputs.push_back(outputs[o]->state);
  if (rendezvous == nullptr && loaded.client->inline_max_cost > 0) {
    // A thread that awaits this run's results before the device's thread has started it
    // runs it itself (Worker::help); a replica of a replicated launch stays on its thread.
    complete->SetHelper(worker.help());
    outputs_ready->SetHelper(worker.help());
  }
  run->complete = std::move(complete);
  run->outputs_ready = std::move(outputs_ready);
  mark_donations();
  worker.Enqueue([run] { Perform(*run); });
}

}  // namespace

PJRT_Error* LoadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* LoadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_GetExecutable, args->loaded_executable);
  const PJRT_LoadedExecutable& loaded = *args->loaded_executable;
  if (loaded.executable == nullptr) {
    return MakeError(absl::FailedPreconditionError(
        "PJRT_LoadedExecutable_GetExecutable: the executable was deleted"));
  }
  args->executable = new PJRT_Executable{loaded.executable, loaded.facts};
  return nullptr;
}

PJRT_Error* LoadedExecutableAddressableDevices(
    PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_AddressableDevices, args->executable);
  args->addressable_devices = args->executable->devices.data();
  args->num_addressable_devices = args->executable->devices.size();
  return nullptr;
}

PJRT_Error* LoadedExecutableDelete(PJRT_LoadedExecutable_Delete_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_Delete, args->executable);
  args->executable->executable.reset();  // runs in flight hold their own reference
  return nullptr;
}

PJRT_Error* LoadedExecutableIsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_IsDeleted, args->executable);
  args->is_deleted = args->executable->executable == nullptr;
  return nullptr;
}

PJRT_Error* ExecutableDestroy(PJRT_Executable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* LoadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_Execute, args->executable);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_Execute, args->output_lists);
  if (args->options != nullptr) SEAM_PLUGIN_CHECK_STRUCT(PJRT_ExecuteOptions, *args->options);
  const PJRT_LoadedExecutable& loaded = *args->executable;
  if (loaded.executable == nullptr) {
    return MakeError(
        absl::FailedPreconditionError("PJRT_LoadedExecutable_Execute: the executable was deleted"));
  }
  RunDevices run_devices;
  if (absl::Status s = CheckExecute(*args, run_devices); !s.ok()) return MakeError(s);

  std::shared_ptr<Rendezvous> rendezvous;
  int64_t first_replica = 0;
  const bool spans_processes = SpansProcesses(*args);
  if (spans_processes) {
    // This process runs global replicas first_replica .. first_replica + num_devices - 1.
    const auto local_replicas = static_cast<int64_t>(run_devices.size());
    first_replica = loaded.client->process_index * local_replicas;
    rendezvous =
        std::make_shared<Rendezvous>(ProcessSpan{.gloo = loaded.client->gloo.get(),
                                                 .process_index = loaded.client->process_index,
                                                 .local_replicas = local_replicas,
                                                 .all_reduces = loaded.executable->all_reduces()});
  } else if (run_devices.size() > 1) {
    rendezvous = std::make_shared<Rendezvous>();
  }
  // A single-device run may go on the caller's thread (see MayRunInline) when it is small,
  // or when it is this process's one replica of a launch across processes: that call then
  // returns once the run (and its collectives) finished. A hand-off to the device's thread
  // costs each cross-process collective about 1 ms on a 2-core VM (the woken threads wait
  // for a core that Gloo's event loops hold), more than the launch's asynchrony is worth
  // there (docs/cpu-plugin.md, "Multi-process collectives").
  const bool small = loaded.client->inline_max_cost > 0 &&
                     loaded.executable->cost() <= loaded.client->inline_max_cost;
  const bool inline_ok =
      run_devices.size() == 1 && (spans_processes ? loaded.client->inline_cross_process : small);
  // One launch's runs reach every worker's queue before another launch's, so replicas
  // waiting for each other at an all_reduce never wait behind a second launch. A
  // single-device launch puts one run in one queue: wherever it lands between another
  // launch's runs, it waits for nobody, so it needs no lock.
  std::unique_lock<std::mutex> launch_lock(loaded.client->launch_mu, std::defer_lock);
  if (run_devices.size() > 1) launch_lock.lock();
  for (size_t d = 0; d < run_devices.size(); ++d) {
    Launch(*args, d, run_devices[d], rendezvous, inline_ok, first_replica);
  }
  return nullptr;
}

}  // namespace seam::cpu
