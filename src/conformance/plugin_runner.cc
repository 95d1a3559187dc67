#include "src/conformance/plugin_runner.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/abi/args.h"
#include "src/abi/buffer_type.h"
#include "src/conformance/suite_internal.h"
#include "src/ir/text.h"
#include "src/stablehlo/emit.h"

namespace seam::conformance {

PluginRunner::PluginRunner(const PJRT_Api* api, CaseFormat format) : api_(api), format_(format) {
  auto create = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
  status_ = Take(api_->PJRT_Client_Create(&create));
  if (!status_.ok()) return;
  client_ = create.client;
  auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = client_;
  status_ = Take(api_->PJRT_Client_AddressableDevices(&devices));
  if (status_.ok() && devices.num_addressable_devices == 0) {
    status_ = absl::FailedPreconditionError("the plugin's client has no devices");
  }
  if (status_.ok()) device_ = devices.addressable_devices[0];
}

PluginRunner::~PluginRunner() {
  if (client_ == nullptr) return;
  auto destroy = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
  destroy.client = client_;
  Take(api_->PJRT_Client_Destroy(&destroy)).IgnoreError();
}

absl::Status PluginRunner::Take(PJRT_Error* error) const { return TakeError(api_, error); }

absl::Status PluginRunner::Await(PJRT_Event* event) const {
  if (event == nullptr) return absl::OkStatus();
  auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
  await.event = event;
  absl::Status status = Take(api_->PJRT_Event_Await(&await));
  auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  Take(api_->PJRT_Event_Destroy(&destroy)).IgnoreError();
  return status;
}

void PluginRunner::Destroy(PJRT_Buffer* buffer) const {
  if (buffer == nullptr) return;
  auto destroy = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
  destroy.buffer = buffer;
  Take(api_->PJRT_Buffer_Destroy(&destroy)).IgnoreError();
}

absl::StatusOr<PJRT_Buffer*> PluginRunner::Upload(const ir::Literal& value) const {
  auto upload = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  upload.client = client_;
  upload.data = value.bytes.data();
  upload.type = abi::ToPjrtBufferType(value.shape.dtype);
  upload.dims = value.shape.dims.data();
  upload.num_dims = value.shape.dims.size();
  upload.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  upload.device = device_;
  if (absl::Status s = Take(api_->PJRT_Client_BufferFromHostBuffer(&upload)); !s.ok()) return s;
  // ImmutableOnlyDuringCall: the bytes were copied during the call; an event that came back
  // is only destroyed.
  if (upload.done_with_host_buffer != nullptr) {
    auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = upload.done_with_host_buffer;
    Take(api_->PJRT_Event_Destroy(&destroy)).IgnoreError();
  }
  return upload.buffer;
}

// `value->shape` says what to expect; its bytes are filled in.
absl::Status PluginRunner::Download(PJRT_Buffer* buffer, ir::Literal* value) const {
  // As the framework reads: a dense host layout, the size asked first with dst = NULL.
  std::vector<int64_t> minor_to_major;
  for (size_t i = value->shape.dims.size(); i > 0; --i) {
    minor_to_major.push_back(static_cast<int64_t>(i - 1));
  }
  auto layout = SEAM_ABI_ARGS(PJRT_Buffer_MemoryLayout);
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled = SEAM_ABI_ARGS(PJRT_Buffer_MemoryLayout_Tiled);
  layout.tiled.minor_to_major = minor_to_major.data();
  layout.tiled.minor_to_major_size = minor_to_major.size();
  auto download = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  download.src = buffer;
  download.host_layout = &layout;
  if (absl::Status s = Take(api_->PJRT_Buffer_ToHostBuffer(&download)); !s.ok()) return s;
  if (download.dst_size != value->shape.byte_size()) {
    return absl::InternalError(absl::StrCat("the plugin asks ", download.dst_size, " bytes for ",
                                            value->shape.ToString(), ", expected ",
                                            value->shape.byte_size()));
  }
  value->bytes.resize(download.dst_size);
  // A null dst asks for the size only, so an empty value still gets a real address.
  uint8_t empty = 0;
  download.dst = value->bytes.empty() ? &empty : value->bytes.data();
  if (absl::Status s = Take(api_->PJRT_Buffer_ToHostBuffer(&download)); !s.ok()) return s;
  return Await(download.event);
}

absl::StatusOr<ir::Literal> PluginRunner::RoundTrip(const ir::Literal& value,
                                                    PJRT_Buffer_Type* element_type) {
  if (!status_.ok()) return status_;
  absl::StatusOr<PJRT_Buffer*> buffer = Upload(value);
  if (!buffer.ok()) return buffer.status();
  auto type = SEAM_ABI_ARGS(PJRT_Buffer_ElementType_Args);
  type.buffer = *buffer;
  absl::Status status = Take(api_->PJRT_Buffer_ElementType(&type));
  *element_type = type.type;
  ir::Literal back;
  back.shape = value.shape;
  if (status.ok()) status = Download(*buffer, &back);
  Destroy(*buffer);
  if (!status.ok()) return status;
  return back;
}

absl::StatusOr<std::vector<ir::Literal>> PluginRunner::Run(
    const ir::Program& program, const std::vector<ir::Literal>& arguments) {
  if (!status_.ok()) return status_;
  std::string code;
  if (format_ == CaseFormat::kStableHlo) {
    absl::StatusOr<std::string> emitted = stablehlo::EmitStableHlo(program);
    if (!emitted.ok()) return emitted.status();
    code = *std::move(emitted);
  } else {
    code = ir::PrintProgram(program);
  }
  const std::string_view format = format_ == CaseFormat::kStableHlo ? "mlir" : "seam-ir";
  auto pjrt_program = SEAM_ABI_ARGS(PJRT_Program);
  pjrt_program.code = code.data();
  pjrt_program.code_size = code.size();
  pjrt_program.format = format.data();
  pjrt_program.format_size = format.size();
  const std::string options = CompileOptionsBytes(program.replica_count);
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &pjrt_program;
  compile.compile_options = options.data();
  compile.compile_options_size = options.size();
  if (absl::Status s = Take(api_->PJRT_Client_Compile(&compile)); !s.ok()) return s;
  PJRT_LoadedExecutable* executable = compile.executable;

  std::vector<PJRT_Buffer*> inputs;
  std::vector<PJRT_Buffer*> outputs;
  absl::Status status;
  for (const ir::Literal& arg : arguments) {
    absl::StatusOr<PJRT_Buffer*> buffer = Upload(arg);
    status = buffer.status();
    if (!status.ok()) break;
    inputs.push_back(*buffer);
  }
  std::vector<ir::Literal> results;
  if (status.ok()) {
    auto get = SEAM_ABI_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
    get.loaded_executable = executable;
    status = Take(api_->PJRT_LoadedExecutable_GetExecutable(&get));
    if (status.ok()) {
      auto num_outputs = SEAM_ABI_ARGS(PJRT_Executable_NumOutputs_Args);
      num_outputs.executable = get.executable;
      status = Take(api_->PJRT_Executable_NumOutputs(&num_outputs));
      outputs.assign(status.ok() ? num_outputs.num_outputs : 0, nullptr);
      auto destroy = SEAM_ABI_ARGS(PJRT_Executable_Destroy_Args);
      destroy.executable = get.executable;
      Take(api_->PJRT_Executable_Destroy(&destroy)).IgnoreError();
    }
  }
  if (status.ok()) {
    PJRT_Buffer* const* argument_list = inputs.data();
    PJRT_Buffer** output_list = outputs.data();
    auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
    execute.executable = executable;
    execute.argument_lists = &argument_list;
    execute.num_devices = 1;
    execute.num_args = inputs.size();
    execute.output_lists = &output_list;
    PJRT_Event* done = nullptr;
    execute.device_complete_events = &done;
    status = Take(api_->PJRT_LoadedExecutable_Execute(&execute));
    if (status.ok()) status = Await(done);
  }
  if (status.ok() && outputs.size() != program.ResultShapes().size()) {
    status =
        absl::InternalError(absl::StrCat("the executable has ", outputs.size(),
                                         " outputs, the program ", program.ResultShapes().size()));
  }
  for (size_t i = 0; status.ok() && i < outputs.size(); ++i) {
    ir::Literal result;
    result.shape = program.ResultShapes()[i];
    status = Download(outputs[i], &result);
    results.push_back(std::move(result));
  }
  for (PJRT_Buffer* buffer : inputs) Destroy(buffer);
  for (PJRT_Buffer* buffer : outputs) Destroy(buffer);
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = executable;
  Take(api_->PJRT_LoadedExecutable_Destroy(&destroy)).IgnoreError();
  if (!status.ok()) return status;
  return results;
}

}  // namespace seam::conformance
