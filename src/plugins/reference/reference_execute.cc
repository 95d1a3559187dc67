// Executables and runs. A run checks the whole call first (so a refused call changes
// nothing), evaluates every replica together with the reference evaluator on the caller's
// thread, then hands out the outputs and the completion events, all ready, and deletes the
// donated arguments.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/reference_evaluator.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/common/table.h"
#include "src/plugins/reference/reference_plugin.h"

namespace seam::reference {
namespace {

using plugin::EventState;
using plugin::MakeError;

constexpr const char* kExecute = "PJRT_LoadedExecutable_Execute";

// ---- Loaded executables

PJRT_Error* LoadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* LoadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_GetExecutable, args->loaded_executable);
  const PJRT_LoadedExecutable& loaded = *args->loaded_executable;
  if (loaded.compiled == nullptr) {
    return MakeError(absl::FailedPreconditionError(
        "PJRT_LoadedExecutable_GetExecutable: the executable was deleted"));
  }
  args->executable = new PJRT_Executable{loaded.compiled};
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
  args->executable->compiled.reset();
  return nullptr;
}

PJRT_Error* LoadedExecutableIsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_IsDeleted, args->executable);
  args->is_deleted = args->executable->compiled == nullptr;
  return nullptr;
}

// ---- Executables (what GetExecutable hands out)

PJRT_Error* ExecutableDestroy(PJRT_Executable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

// ---- Runs

// Argument `i` of replica `d` on `device`: present, alive, of the parameter's shape.
absl::Status CheckArgument(const PJRT_Buffer* buffer, size_t d, size_t i, const ir::Shape& expected,
                           const PJRT_Device* device) {
  if (buffer == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kExecute, ": argument ", i, " of device ", d, " is null"));
  }
  if (buffer->value == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(kExecute, ": argument ", i,
                     buffer->donated ? " was donated to an earlier execution" : " was deleted"));
  }
  if (buffer->shape != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat(kExecute, ": argument ", i, " has shape ", buffer->shape.ToString(),
                     ", the program's parameter ", i, " is ", expected.ToString()));
  }
  if (buffer->device != device) {
    return absl::InvalidArgumentError(
        absl::StrCat(kExecute, ": argument ", i, " is on device ", buffer->device->description.id,
                     ", the run is on device ", device->description.id));
  }
  return absl::OkStatus();
}

// A donated argument must not also be another argument of the same run, and a run may not
// take a donation back (upstream's non_donatable_input_indices).
absl::Status CheckDonations(const PJRT_LoadedExecutable_Execute_Args& args,
                            const ir::Program& program) {
  for (const ir::Alias& alias : program.aliases) {
    const auto p = static_cast<size_t>(alias.parameter_index);
    for (size_t d = 0; d < args.num_devices; ++d) {
      for (size_t i = 0; i < args.num_args; ++i) {
        if (i != p && args.argument_lists[d][i] == args.argument_lists[d][p]) {
          return absl::InvalidArgumentError(absl::StrCat(
              kExecute, ": argument ", p, " is donated (alias output ", alias.output_index,
              " = parameter ", p, ") but the same buffer is also argument ", i));
        }
      }
    }
    const PJRT_ExecuteOptions* options = args.options;
    for (size_t k = 0; options != nullptr && k < options->num_non_donatable_input_indices; ++k) {
      if (options->non_donatable_input_indices[k] == alias.parameter_index) {
        return absl::UnimplementedError(
            absl::StrCat(kExecute, ": options->non_donatable_input_indices lists argument ", p,
                         ", which the program donates (alias output ", alias.output_index,
                         " = parameter ", p, ")"));
      }
    }
  }
  return absl::OkStatus();
}

// Everything about the call that can be wrong; fills `devices` with the run's devices.
absl::Status CheckExecute(const PJRT_LoadedExecutable_Execute_Args& args,
                          std::vector<PJRT_Device*>& devices) {
  const PJRT_LoadedExecutable& loaded = *args.executable;
  const Compiled& compiled = *loaded.compiled;
  const int64_t replicas = compiled.program.replica_count;
  if (args.execute_device != nullptr && args.num_devices != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kExecute, ": execute_device is set, so num_devices must be 1, got ", args.num_devices));
  }
  if (static_cast<int64_t>(args.num_devices) != replicas) {
    return absl::InvalidArgumentError(
        absl::StrCat(kExecute, ": the program has replicas=", replicas, ", the call runs on ",
                     args.num_devices, " device(s) (num_devices must equal the replica count)"));
  }
  if (args.num_devices > loaded.client->devices.size()) {
    return absl::InvalidArgumentError(absl::StrCat(kExecute, ": num_devices is ", args.num_devices,
                                                   ", the client has ",
                                                   loaded.client->devices.size(), " device(s)"));
  }
  if (args.num_args != compiled.parameter_shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kExecute, ": num_args is ", args.num_args, ", the program has ",
                     compiled.parameter_shapes.size(), " parameter(s)"));
  }
  if (args.num_args > 0 && args.argument_lists == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(kExecute, ": args->argument_lists is null"));
  }
  if (args.options != nullptr && args.options->num_non_donatable_input_indices > 0 &&
      args.options->non_donatable_input_indices == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(kExecute, ": options->non_donatable_input_indices is null with a count"));
  }
  for (size_t d = 0; d < args.num_devices; ++d) {
    PJRT_Device* device =
        args.execute_device != nullptr ? args.execute_device : loaded.client->devices[d];
    if (device->client != loaded.client) {
      return absl::InvalidArgumentError(
          absl::StrCat(kExecute, ": execute_device belongs to another client"));
    }
    if (args.output_lists[d] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(kExecute, ": output_lists[", d, "] is null"));
    }
    if (args.num_args > 0 && args.argument_lists[d] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(kExecute, ": argument_lists[", d, "] is null"));
    }
    for (size_t i = 0; i < args.num_args; ++i) {
      SEAM_RETURN_IF_ERROR(
          CheckArgument(args.argument_lists[d][i], d, i, compiled.parameter_shapes[i], device));
    }
    devices.push_back(device);
  }
  return CheckDonations(args, compiled.program);
}

PJRT_Error* LoadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_Execute, args->executable);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_LoadedExecutable_Execute, args->output_lists);
  if (args->options != nullptr) SEAM_PLUGIN_CHECK_STRUCT(PJRT_ExecuteOptions, *args->options);
  // Held for the call: a concurrent PJRT_LoadedExecutable_Delete does not take it away.
  std::shared_ptr<const Compiled> compiled = args->executable->compiled;
  if (compiled == nullptr) {
    return MakeError(
        absl::FailedPreconditionError(absl::StrCat(kExecute, ": the executable was deleted")));
  }
  std::vector<PJRT_Device*> devices;
  if (absl::Status s = CheckExecute(*args, devices); !s.ok()) return MakeError(s);

  // arguments[d][i]: the evaluator takes values, so each argument is copied once.
  std::vector<std::vector<ir::Literal>> arguments(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    for (size_t i = 0; i < args->num_args; ++i) {
      arguments[d].push_back(*args->argument_lists[d][i]->value);
    }
  }
  // On the profiler's timeline (docs/tracing.md): one "evaluate" run per device.
  const int64_t begin_ns = plugin::profiler::On() ? plugin::profiler::NowNs() : -1;
  absl::StatusOr<std::vector<std::vector<ir::Literal>>> results =
      ir::EvaluateReplicated(compiled->program, arguments);
  if (begin_ns >= 0) {
    const int64_t end_ns = plugin::profiler::NowNs();
    for (const PJRT_Device* device : devices) {
      plugin::profiler::Record("evaluate", -1, "run", device->description.id, begin_ns, end_ns);
    }
  }
  if (!results.ok()) {
    return MakeError(absl::Status(results.status().code(),
                                  absl::StrCat(kExecute, ": ", results.status().message())));
  }

  for (size_t d = 0; d < devices.size(); ++d) {
    std::vector<ir::Literal>& outputs = (*results)[d];
    for (size_t o = 0; o < outputs.size(); ++o) {
      ir::Shape shape = outputs[o].shape;
      args->output_lists[d][o] =
          new PJRT_Buffer{std::move(shape), HoldOn(*devices[d], std::move(outputs[o])), devices[d]};
    }
    if (args->device_complete_events != nullptr) {
      args->device_complete_events[d] = new PJRT_Event{EventState::Ready()};
    }
    for (const ir::Alias& alias : compiled->program.aliases) {
      PJRT_Buffer* donated = args->argument_lists[d][alias.parameter_index];
      donated->value.reset();
      donated->donated = true;
    }
  }
  return nullptr;
}

}  // namespace

void SetExecuteFunctions(PJRT_Api& api) {
  SEAM_PLUGIN_SET(api, PJRT_LoadedExecutable_Destroy, LoadedExecutableDestroy);
  SEAM_PLUGIN_SET(api, PJRT_LoadedExecutable_GetExecutable, LoadedExecutableGetExecutable);
  SEAM_PLUGIN_SET(api, PJRT_LoadedExecutable_AddressableDevices,
                  LoadedExecutableAddressableDevices);
  SEAM_PLUGIN_SET(api, PJRT_LoadedExecutable_Delete, LoadedExecutableDelete);
  SEAM_PLUGIN_SET(api, PJRT_LoadedExecutable_IsDeleted, LoadedExecutableIsDeleted);
  SEAM_PLUGIN_SET(api, PJRT_LoadedExecutable_Execute, LoadedExecutableExecute);
  SEAM_PLUGIN_SET(api, PJRT_Executable_Destroy, ExecutableDestroy);
  plugin::SetExecutableFunctions<PJRT_Executable>(api);
}

}  // namespace seam::reference
