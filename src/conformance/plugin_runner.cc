#include "src/conformance/plugin_runner.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "src/abi/args.h"
#include "src/abi/buffer_type.h"
#include "src/ir/text.h"

namespace seam::conformance {

PluginRunner::PluginRunner(const PJRT_Api* api) : api_(api) {
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

absl::Status PluginRunner::Take(PJRT_Error* error) const {
  if (error == nullptr) return absl::OkStatus();
  auto message = SEAM_ABI_ARGS(PJRT_Error_Message_Args);
  message.error = error;
  api_->PJRT_Error_Message(&message);
  auto code = SEAM_ABI_ARGS(PJRT_Error_GetCode_Args);
  code.error = error;
  PJRT_Error* code_error = api_->PJRT_Error_GetCode(&code);
  absl::Status status(
      code_error == nullptr ? static_cast<absl::StatusCode>(code.code) : absl::StatusCode::kUnknown,
      std::string(message.message, message.message_size));
  for (PJRT_Error* e : {code_error, error}) {
    auto destroy = SEAM_ABI_ARGS(PJRT_Error_Destroy_Args);
    destroy.error = e;
    if (e != nullptr) api_->PJRT_Error_Destroy(&destroy);
  }
  return status;
}

absl::Status PluginRunner::Await(PJRT_Event* event) const {
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
  if (absl::Status s = Await(upload.done_with_host_buffer); !s.ok()) {
    Destroy(upload.buffer);
    return s;
  }
  return upload.buffer;
}

// `value->shape` says what to expect; its bytes are filled in.
absl::Status PluginRunner::Download(PJRT_Buffer* buffer, ir::Literal* value) const {
  value->bytes.resize(value->shape.byte_size());
  auto download = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  download.src = buffer;
  // A null dst asks for the size only, so an empty value still gets a real address.
  uint8_t empty = 0;
  download.dst = value->bytes.empty() ? &empty : value->bytes.data();
  download.dst_size = value->bytes.size();
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
  std::string code = ir::PrintProgram(program);
  auto pjrt_program = SEAM_ABI_ARGS(PJRT_Program);
  pjrt_program.code = code.data();
  pjrt_program.code_size = code.size();
  pjrt_program.format = "seam-ir";
  pjrt_program.format_size = 7;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &pjrt_program;
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
    auto num_outputs = SEAM_ABI_ARGS(PJRT_LoadedExecutable_NumOutputs_Args);
    num_outputs.executable = executable;
    status = Take(api_->PJRT_LoadedExecutable_NumOutputs(&num_outputs));
    outputs.assign(status.ok() ? num_outputs.num_outputs : 0, nullptr);
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
    status = Take(api_->PJRT_LoadedExecutable_Execute(&execute));
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
