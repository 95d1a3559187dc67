#include "src/testing/pjrt_client.h"

#include "src/abi/args.h"

namespace seam::testing {

absl::Status PjrtClient::Take(PJRT_Error* error) const {
  if (error == nullptr) return absl::OkStatus();
  auto message = SEAM_ABI_ARGS(PJRT_Error_Message_Args);
  message.error = error;
  api_->PJRT_Error_Message(&message);
  auto code = SEAM_ABI_ARGS(PJRT_Error_GetCode_Args);
  code.error = error;
  PJRT_Error* code_error = api_->PJRT_Error_GetCode(&code);
  absl::Status status(static_cast<absl::StatusCode>(code.code),
                      std::string(message.message, message.message_size));
  auto destroy = SEAM_ABI_ARGS(PJRT_Error_Destroy_Args);
  destroy.error = error;
  api_->PJRT_Error_Destroy(&destroy);
  if (code_error != nullptr) {
    destroy.error = code_error;
    api_->PJRT_Error_Destroy(&destroy);
  }
  return status;
}

absl::StatusOr<std::unique_ptr<PjrtClient>> PjrtClient::Create(
    const PJRT_Api* api, const std::vector<IntOption>& options, FileKvStore* store) {
  std::vector<PJRT_NamedValue> values;
  for (const IntOption& option : options) {
    PJRT_NamedValue value{};
    value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    value.name = option.name.c_str();
    value.name_size = option.name.size();
    value.type = PJRT_NamedValue_kInt64;
    value.int64_value = option.value;
    value.value_size = 1;
    values.push_back(value);
  }
  return CreateWithValues(api, values, store);
}

absl::StatusOr<std::unique_ptr<PjrtClient>> PjrtClient::CreateWithValues(
    const PJRT_Api* api, const std::vector<PJRT_NamedValue>& values, FileKvStore* store) {
  auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
  args.create_options = values.data();
  args.num_options = values.size();
  if (store != nullptr) store->Attach(args);
  std::unique_ptr<PjrtClient> client(new PjrtClient(api, nullptr));
  absl::Status created = client->Take(api->PJRT_Client_Create(&args));
  if (!created.ok()) return created;
  client->client_ = args.client;
  auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = args.client;
  absl::Status listed = client->Take(api->PJRT_Client_AddressableDevices(&devices));
  if (!listed.ok()) return listed;
  client->devices_.assign(devices.addressable_devices,
                          devices.addressable_devices + devices.num_addressable_devices);
  return client;
}

PjrtClient::~PjrtClient() {
  if (client_ == nullptr) return;
  auto args = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
  args.client = client_;
  Take(api_->PJRT_Client_Destroy(&args)).IgnoreError();
}

absl::StatusOr<int> PjrtClient::ProcessIndex() const {
  auto args = SEAM_ABI_ARGS(PJRT_Client_ProcessIndex_Args);
  args.client = client_;
  absl::Status status = Take(api_->PJRT_Client_ProcessIndex(&args));
  if (!status.ok()) return status;
  return args.process_index;
}

absl::StatusOr<int> PjrtClient::DeviceProcessIndex(size_t device) const {
  auto description = SEAM_ABI_ARGS(PJRT_Device_GetDescription_Args);
  description.device = devices_.at(device);
  absl::Status status = Take(api_->PJRT_Device_GetDescription(&description));
  if (!status.ok()) return status;
  auto args = SEAM_ABI_ARGS(PJRT_DeviceDescription_ProcessIndex_Args);
  args.device_description = description.device_description;
  status = Take(api_->PJRT_DeviceDescription_ProcessIndex(&args));
  if (!status.ok()) return status;
  return args.process_index;
}

absl::StatusOr<PJRT_LoadedExecutable*> PjrtClient::Compile(const std::string& program_text) {
  std::string code = program_text;  // PJRT_Program.code is not const (an in/out field)
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = code.data();
  program.code_size = program_text.size();
  program.format = "seam-ir";
  program.format_size = 7;
  auto args = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  args.client = client_;
  args.program = &program;
  // An empty xla.CompileOptionsProto (every field unset): the plugin takes the program's
  // own replica count.
  static constexpr char kNoOptions[] = "";
  args.compile_options = kNoOptions;
  args.compile_options_size = 0;
  absl::Status status = Take(api_->PJRT_Client_Compile(&args));
  if (!status.ok()) return status;
  return args.executable;
}

absl::StatusOr<PJRT_Buffer*> PjrtClient::Upload(const void* data, PJRT_Buffer_Type type,
                                                const std::vector<int64_t>& dims, size_t device) {
  auto args = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  args.client = client_;
  args.data = data;
  args.type = type;
  args.dims = dims.data();
  args.num_dims = dims.size();
  args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  args.device = devices_.at(device);
  absl::Status status = Take(api_->PJRT_Client_BufferFromHostBuffer(&args));
  if (!status.ok()) return status;
  Destroy(args.done_with_host_buffer);
  return args.buffer;
}

absl::StatusOr<PjrtClient::Launch> PjrtClient::Execute(PJRT_LoadedExecutable* executable,
                                                       const std::vector<PJRT_Buffer*>& arguments) {
  const size_t n = arguments.size();
  Launch launch;
  launch.outputs.assign(n, nullptr);
  launch.done.assign(n, nullptr);
  std::vector<PJRT_Buffer* const*> argument_lists(n);
  std::vector<PJRT_Buffer**> output_lists(n);
  for (size_t d = 0; d < n; ++d) {
    argument_lists[d] = &arguments[d];
    output_lists[d] = &launch.outputs[d];
  }
  auto args = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
  args.executable = executable;
  args.argument_lists = argument_lists.data();
  args.num_devices = n;
  args.num_args = 1;
  args.output_lists = output_lists.data();
  args.device_complete_events = launch.done.data();
  absl::Status status = Take(api_->PJRT_LoadedExecutable_Execute(&args));
  if (!status.ok()) return status;
  return launch;
}

absl::Status PjrtClient::Await(PJRT_Event* event) const {
  auto args = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
  args.event = event;
  return Take(api_->PJRT_Event_Await(&args));
}

absl::Status PjrtClient::ReadyStatus(PJRT_Buffer* buffer) const {
  auto args = SEAM_ABI_ARGS(PJRT_Buffer_ReadyEvent_Args);
  args.buffer = buffer;
  absl::Status status = Take(api_->PJRT_Buffer_ReadyEvent(&args));
  if (!status.ok()) return status;
  status = Await(args.event);
  Destroy(args.event);
  return status;
}

absl::Status PjrtClient::Download(PJRT_Buffer* buffer, void* destination, size_t bytes) const {
  auto args = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  args.src = buffer;
  args.dst = destination;
  args.dst_size = bytes;
  absl::Status status = Take(api_->PJRT_Buffer_ToHostBuffer(&args));
  if (!status.ok()) return status;
  status = Await(args.event);
  Destroy(args.event);
  return status;
}

void PjrtClient::Destroy(PJRT_Buffer* buffer) const {
  if (buffer == nullptr) return;
  auto args = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
  args.buffer = buffer;
  Take(api_->PJRT_Buffer_Destroy(&args)).IgnoreError();
}

void PjrtClient::Destroy(PJRT_Event* event) const {
  if (event == nullptr) return;
  auto args = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
  args.event = event;
  Take(api_->PJRT_Event_Destroy(&args)).IgnoreError();
}

void PjrtClient::Destroy(PJRT_LoadedExecutable* executable) const {
  if (executable == nullptr) return;
  auto args = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  args.executable = executable;
  Take(api_->PJRT_LoadedExecutable_Destroy(&args)).IgnoreError();
}

void PjrtClient::Destroy(const Launch& launch) const {
  for (PJRT_Buffer* buffer : launch.outputs) Destroy(buffer);
  for (PJRT_Event* event : launch.done) Destroy(event);
}

}  // namespace seam::testing
