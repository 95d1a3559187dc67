// Executing: the run, the executable's output queries, donation.
#include <algorithm>
#include <cstring>

#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

const float kInput[4] = {1, -2, 3.5f, 0};
const float kExpected[4] = {2, -4, 7, 0};

// Destroys a loaded executable with this object.
struct ExecutableHolder {
  Suite& suite;
  PJRT_LoadedExecutable* executable;
  ~ExecutableHolder() { DestroyExecutable(suite, executable); }
};

// The executable's PJRT_Executable, destroyed with this object.
class ExecutableView {
 public:
  ExecutableView(Suite& suite, PJRT_LoadedExecutable* loaded) : suite_(suite) {
    auto args = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
    args.loaded_executable = loaded;
    status_ = SEAM_CALL(suite, PJRT_LoadedExecutable_GetExecutable, &args);
    if (status_.ok() && args.executable == nullptr) {
      status_ = absl::InternalError("PJRT_LoadedExecutable_GetExecutable gave a null executable");
    }
    executable_ = args.executable;
  }
  ~ExecutableView() {
    if (executable_ == nullptr) return;
    auto args = SEAM_PJRT_ARGS(PJRT_Executable_Destroy_Args);
    args.executable = executable_;
    SEAM_CALL(suite_, PJRT_Executable_Destroy, &args).IgnoreError();
  }
  ExecutableView(const ExecutableView&) = delete;
  ExecutableView& operator=(const ExecutableView&) = delete;
  const absl::Status& status() const { return status_; }
  PJRT_Executable* get() const { return executable_; }

 private:
  Suite& suite_;
  PJRT_Executable* executable_ = nullptr;
  absl::Status status_;
};

absl::StatusOr<size_t> NumOutputs(Suite& suite, PJRT_LoadedExecutable* loaded) {
  ExecutableView view(suite, loaded);
  if (!view.status().ok()) return view.status();
  auto args = SEAM_PJRT_ARGS(PJRT_Executable_NumOutputs_Args);
  args.executable = view.get();
  absl::Status status = SEAM_CALL(suite, PJRT_Executable_NumOutputs, &args);
  if (!status.ok()) return status;
  return args.num_outputs;
}

// Runs `executable` once on one device with `argument` (borrowed) as its one argument, as
// the framework does: argument_lists[1][1], output_lists[1][NumOutputs], a completion
// event; returns the first output's bytes.
absl::StatusOr<std::vector<uint8_t>> RunOnce(Suite& suite, PJRT_LoadedExecutable* executable,
                                             PJRT_Buffer* argument) {
  absl::StatusOr<size_t> num_outputs = NumOutputs(suite, executable);
  if (!num_outputs.ok()) return num_outputs.status();
  if (*num_outputs != 1) return absl::InternalError(absl::StrCat("num_outputs is ", *num_outputs));
  PJRT_Buffer* const* arg_list = &argument;
  PJRT_Buffer* output = nullptr;
  PJRT_Buffer** out_list = &output;
  PJRT_Event* done = nullptr;
  auto execute = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = executable;
  execute.argument_lists = &arg_list;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = &out_list;
  execute.device_complete_events = &done;
  absl::Status status = SEAM_CALL(suite, PJRT_LoadedExecutable_Execute, &execute);
  if (!status.ok()) return status;
  if (output == nullptr) return absl::InternalError("the run stored no output buffer");
  Buffer result(suite, output);
  if (done == nullptr) return absl::InternalError("the run stored no completion event");
  status = AwaitAndDestroy(suite, done);
  if (!status.ok()) return status;
  std::vector<uint8_t> back;
  status = Download(suite, result.get(), back);
  if (!status.ok()) return status;
  return back;
}

absl::Status ExpectDoubled(const std::vector<uint8_t>& back) {
  float got[4] = {};
  if (back.size() == sizeof(got)) std::memcpy(got, back.data(), sizeof(got));
  return Expect(back.size() == sizeof(kExpected) && std::equal(got, got + 4, kExpected),
                "the result differs from 2 * input");
}

absl::StatusOr<PJRT_LoadedExecutable*> CompileDouble(Suite& suite, bool donate) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  absl::StatusOr<ProbeProgram> program = suite.DoubleProgram(donate);
  if (!program.ok()) return program.status();
  return Compile(suite, *program);
}

}  // namespace

namespace {

absl::Status RunsAndReadsBack(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, false);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  absl::StatusOr<PJRT_Buffer*> input = Upload(suite, kInput, PJRT_Buffer_Type_F32, {4});
  if (!input.ok()) return input.status();
  Buffer argument(suite, *input);
  absl::StatusOr<std::vector<uint8_t>> back = RunOnce(suite, *executable, argument.get());
  if (!back.ok()) return back.status();
  return ExpectDoubled(*back);
}

absl::Status OutputQueries(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, false);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  ExecutableView view(suite, *executable);
  if (!view.status().ok()) return view.status();
  auto outputs = SEAM_PJRT_ARGS(PJRT_Executable_NumOutputs_Args);
  outputs.executable = view.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Executable_NumOutputs, &outputs); !s.ok()) {
    return s;
  }
  if (outputs.num_outputs != 1) {
    return absl::InternalError(absl::StrCat("NumOutputs is ", outputs.num_outputs, ", expected 1"));
  }
  auto types = SEAM_PJRT_ARGS(PJRT_Executable_OutputElementTypes_Args);
  types.executable = view.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Executable_OutputElementTypes, &types); !s.ok()) {
    return s;
  }
  if (types.num_output_types != 1 || types.output_types == nullptr ||
      types.output_types[0] != PJRT_Buffer_Type_F32) {
    return absl::InternalError(
        absl::StrCat("OutputElementTypes: ", types.num_output_types, " types, the first ",
                     types.output_types == nullptr ? -1 : static_cast<int>(types.output_types[0]),
                     "; expected one, F32"));
  }
  auto dims = SEAM_PJRT_ARGS(PJRT_Executable_OutputDimensions_Args);
  dims.executable = view.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Executable_OutputDimensions, &dims); !s.ok()) {
    return s;
  }
  return Expect(
      dims.num_outputs == 1 && dims.dim_sizes != nullptr && dims.dim_sizes[0] == 1 &&
          dims.dims != nullptr && dims.dims[0] == 4,
      absl::StrCat("OutputDimensions: ", dims.num_outputs, " outputs; expected one of [4]"));
}

absl::Status NameReplicasPartitionsDevices(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, false);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  ExecutableView view(suite, *executable);
  if (!view.status().ok()) return view.status();
  auto name = SEAM_PJRT_ARGS(PJRT_Executable_Name_Args);
  name.executable = view.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Executable_Name, &name); !s.ok()) {
    return s;
  }
  auto replicas = SEAM_PJRT_ARGS(PJRT_Executable_NumReplicas_Args);
  replicas.executable = view.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Executable_NumReplicas, &replicas); !s.ok()) {
    return s;
  }
  auto partitions = SEAM_PJRT_ARGS(PJRT_Executable_NumPartitions_Args);
  partitions.executable = view.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Executable_NumPartitions, &partitions); !s.ok()) {
    return s;
  }
  if (replicas.num_replicas != 1 || partitions.num_partitions != 1) {
    return absl::InternalError(absl::StrCat(replicas.num_replicas, " replicas and ",
                                            partitions.num_partitions,
                                            " partitions, expected 1 and 1"));
  }
  auto devices = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args);
  devices.executable = *executable;
  if (absl::Status s = SEAM_CALL(suite, PJRT_LoadedExecutable_AddressableDevices, &devices);
      !s.ok()) {
    return s;
  }
  if (devices.num_addressable_devices != 1 || devices.addressable_devices == nullptr) {
    return absl::InternalError(absl::StrCat("a one-replica executable lists ",
                                            devices.num_addressable_devices,
                                            " addressable devices"));
  }
  return Expect(std::find(suite.devices().begin(), suite.devices().end(),
                          devices.addressable_devices[0]) != suite.devices().end(),
                "the executable's device is not an addressable device");
}

absl::Status DonatedInputIsDeleted(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, true);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  absl::StatusOr<PJRT_Buffer*> input = Upload(suite, kInput, PJRT_Buffer_Type_F32, {4});
  if (!input.ok()) return input.status();
  Buffer argument(suite, *input);
  absl::StatusOr<std::vector<uint8_t>> back = RunOnce(suite, *executable, argument.get());
  if (!back.ok()) return back.status();
  if (absl::Status s = ExpectDoubled(*back); !s.ok()) return s;
  auto deleted = SEAM_PJRT_ARGS(PJRT_Buffer_IsDeleted_Args);
  deleted.buffer = argument.get();
  if (absl::Status s = SEAM_CALL(suite, PJRT_Buffer_IsDeleted, &deleted); !s.ok()) return s;
  return Expect(deleted.is_deleted, "the donated argument reports IsDeleted false after the run");
}

absl::Status WrongArgumentCountIsRefused(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, false);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  PJRT_Buffer* output = nullptr;
  PJRT_Buffer** out_list = &output;
  PJRT_Buffer* const* no_args = nullptr;
  auto execute = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = *executable;
  execute.argument_lists = &no_args;
  execute.num_devices = 1;
  execute.num_args = 0;
  execute.output_lists = &out_list;
  absl::Status status = SEAM_CALL(suite, PJRT_LoadedExecutable_Execute, &execute);
  if (status.ok() && output != nullptr) Buffer cleanup(suite, output);
  return ExpectError(status, absl::StatusCode::kInvalidArgument, "running with no arguments");
}

absl::Status DeletedExecutableSaysSo(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, false);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  auto deleted = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_IsDeleted_Args);
  deleted.executable = *executable;
  if (absl::Status s = SEAM_CALL(suite, PJRT_LoadedExecutable_IsDeleted, &deleted); !s.ok()) {
    return s;
  }
  if (deleted.is_deleted) return absl::InternalError("a new executable reports deleted");
  auto del = SEAM_PJRT_ARGS(PJRT_LoadedExecutable_Delete_Args);
  del.executable = *executable;
  if (absl::Status s = SEAM_CALL(suite, PJRT_LoadedExecutable_Delete, &del); !s.ok()) return s;
  if (absl::Status s = SEAM_CALL(suite, PJRT_LoadedExecutable_IsDeleted, &deleted); !s.ok()) {
    return s;
  }
  return Expect(deleted.is_deleted, "a deleted executable reports not deleted");
}

}  // namespace

void CheckExecute(Suite& suite) {
  suite.Optional("execute", "compile, run and read back", [&] { return RunsAndReadsBack(suite); });
  suite.Optional("execute", "GetExecutable: NumOutputs, OutputElementTypes and OutputDimensions",
                 [&] { return OutputQueries(suite); });
  suite.Optional("execute", "name, one replica, one partition, addressable devices",
                 [&] { return NameReplicasPartitionsDevices(suite); });
  suite.Optional("execute", "a donated input is deleted after the run",
                 [&] { return DonatedInputIsDeleted(suite); });
  suite.Optional("execute", "a wrong argument count is refused",
                 [&] { return WrongArgumentCountIsRefused(suite); });
  suite.Optional("execute", "a deleted executable says so",
                 [&] { return DeletedExecutableSaysSo(suite); });
}

absl::Status CompileRunAndReadBack(Suite& suite) {
  absl::StatusOr<PJRT_LoadedExecutable*> executable = CompileDouble(suite, false);
  if (!executable.ok()) return executable.status();
  ExecutableHolder holder{suite, *executable};
  absl::StatusOr<PJRT_Buffer*> input = Upload(suite, kInput, PJRT_Buffer_Type_F32, {4});
  if (!input.ok()) return input.status();
  Buffer argument(suite, *input);
  return RunOnce(suite, *executable, argument.get()).status();
}

}  // namespace seam::conformance
