// stablehlo_add_one PLUGIN.so: one compile and one run of a fixed, hand-written StableHLO
// module (add one to an f32[4]) through the PJRT C API and nothing of seam's framework, so
// that the device check (scripts/device-check.sh) shows a vendor's plugin (JAX's CUDA
// plugin) compiling and running a program from seam's side of the ABI. Prints each step and
// its time; exit status 0 when the result is {2, 3, 4, 5}, 1 on any error (its code and
// message printed), 2 on bad usage.
#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "seam/c/pjrt_c_api.h"

namespace {

// The module, as JAX and other frameworks send it: StableHLO text, format "mlir".
constexpr char kModule[] =
    R"(module @add_one attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
)";

// xla.CompileOptionsProto { executable_build_options (3) { device_ordinal (1) = -1,
// num_replicas (4) = 1, num_partitions (5) = 1 } }, encoded by hand (protobuf's wire
// format: field 3 length-delimited; fields 1, 4, 5 varints; -1 as a 10-byte varint), so
// this program needs no protobuf library on the device machine.
std::string CompileOptions() {
  std::string build;
  build += '\x08';  // field 1, varint
  for (int i = 0; i < 9; ++i) build += '\xff';
  build += '\x01';
  build += "\x20\x01";  // field 4 = 1
  build += "\x28\x01";  // field 5 = 1
  std::string options;
  options += '\x1a';  // field 3, length-delimited
  options += static_cast<char>(build.size());
  options += build;
  return options;
}

template <typename T>
T Args(size_t size) {
  T args{};
  args.struct_size = size;
  return args;
}
#define ARGS(type) Args<type>(type##_STRUCT_SIZE)

const PJRT_Api* api = nullptr;
auto start = std::chrono::steady_clock::now();

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Prints the error (code and message), frees it and says whether there was one.
bool Failed(PJRT_Error* error, const char* what) {
  if (error == nullptr) {
    std::printf("[%7.3f s] %s: ok\n", Seconds(), what);
    return false;
  }
  auto message = ARGS(PJRT_Error_Message_Args);
  message.error = error;
  api->PJRT_Error_Message(&message);
  auto code = ARGS(PJRT_Error_GetCode_Args);
  code.error = error;
  const bool got_code = api->PJRT_Error_GetCode(&code) == nullptr;
  std::printf("[%7.3f s] %s: error (code %d): %.*s\n", Seconds(), what,
              got_code ? static_cast<int>(code.code) : -1, static_cast<int>(message.message_size),
              message.message);
  auto destroy = ARGS(PJRT_Error_Destroy_Args);
  destroy.error = error;
  api->PJRT_Error_Destroy(&destroy);
  return true;
}

bool Await(PJRT_Event* event, const char* what) {
  if (event == nullptr) return true;
  auto await = ARGS(PJRT_Event_Await_Args);
  await.event = event;
  const bool ok = !Failed(api->PJRT_Event_Await(&await), what);
  auto destroy = ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  api->PJRT_Event_Destroy(&destroy);
  return ok;
}

int Run(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::printf("cannot open %s: %s\n", path, dlerror());
    return 1;
  }
  auto get_api = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(library, "GetPjrtApi"));
  if (get_api == nullptr || (api = get_api()) == nullptr) {
    std::printf("%s has no usable GetPjrtApi\n", path);
    return 1;
  }
  std::printf(
      "plugin %s: PJRT API %d.%d, PJRT_Api.struct_size %zu (this program's header: "
      "%d.%d, %zu)\n",
      path, api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version,
      api->struct_size, PJRT_API_MAJOR, PJRT_API_MINOR, static_cast<size_t>(PJRT_Api_STRUCT_SIZE));
  if (api->pjrt_api_version.major_version != PJRT_API_MAJOR ||
      api->pjrt_api_version.minor_version < PJRT_API_MIN_MINOR) {
    std::printf("refused: not a PJRT %d.x plugin of minor >= %d\n", PJRT_API_MAJOR,
                PJRT_API_MIN_MINOR);
    return 1;
  }
  auto init = ARGS(PJRT_Plugin_Initialize_Args);
  if (Failed(api->PJRT_Plugin_Initialize(&init), "PJRT_Plugin_Initialize")) return 1;
  auto create = ARGS(PJRT_Client_Create_Args);
  if (Failed(api->PJRT_Client_Create(&create), "PJRT_Client_Create")) return 1;
  PJRT_Client* client = create.client;
  auto platform = ARGS(PJRT_Client_PlatformName_Args);
  platform.client = client;
  if (!Failed(api->PJRT_Client_PlatformName(&platform), "PJRT_Client_PlatformName")) {
    std::printf("platform %.*s\n", static_cast<int>(platform.platform_name_size),
                platform.platform_name);
  }
  auto devices = ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = client;
  if (Failed(api->PJRT_Client_AddressableDevices(&devices), "PJRT_Client_AddressableDevices")) {
    return 1;
  }
  std::printf("addressable devices %zu\n", devices.num_addressable_devices);
  if (devices.num_addressable_devices == 0) return 1;
  PJRT_Device* device = devices.addressable_devices[0];

  std::string code = kModule;
  const std::string options = CompileOptions();
  auto program = ARGS(PJRT_Program);
  program.code = code.data();
  program.code_size = code.size();
  program.format = "mlir";
  program.format_size = 4;
  auto compile = ARGS(PJRT_Client_Compile_Args);
  compile.client = client;
  compile.program = &program;
  compile.compile_options = options.data();
  compile.compile_options_size = options.size();
  if (Failed(api->PJRT_Client_Compile(&compile), "PJRT_Client_Compile (StableHLO text)")) return 1;

  const float input[4] = {1, 2, 3, 4};
  const int64_t dims[1] = {4};
  auto upload = ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  upload.client = client;
  upload.data = input;
  upload.type = PJRT_Buffer_Type_F32;
  upload.dims = dims;
  upload.num_dims = 1;
  upload.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  upload.device = device;
  if (Failed(api->PJRT_Client_BufferFromHostBuffer(&upload), "PJRT_Client_BufferFromHostBuffer")) {
    return 1;
  }
  if (!Await(upload.done_with_host_buffer, "done_with_host_buffer")) return 1;

  PJRT_Buffer* argument = upload.buffer;
  PJRT_Buffer* const arguments[1] = {argument};
  PJRT_Buffer* const* argument_lists[1] = {arguments};
  PJRT_Buffer* outputs[1] = {nullptr};
  PJRT_Buffer** output_lists[1] = {outputs};
  PJRT_Event* complete[1] = {nullptr};
  auto execute_options = ARGS(PJRT_ExecuteOptions);
  auto execute = ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = compile.executable;
  execute.options = &execute_options;
  execute.argument_lists = argument_lists;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = output_lists;
  execute.device_complete_events = complete;
  if (Failed(api->PJRT_LoadedExecutable_Execute(&execute), "PJRT_LoadedExecutable_Execute")) {
    return 1;
  }
  if (!Await(complete[0], "device_complete_event")) return 1;

  float result[4] = {0, 0, 0, 0};
  auto read = ARGS(PJRT_Buffer_ToHostBuffer_Args);
  read.src = outputs[0];
  read.dst = result;
  read.dst_size = sizeof result;
  if (Failed(api->PJRT_Buffer_ToHostBuffer(&read), "PJRT_Buffer_ToHostBuffer")) return 1;
  if (!Await(read.event, "the read's event")) return 1;
  std::printf("result {%g, %g, %g, %g}\n", result[0], result[1], result[2], result[3]);
  const bool right = result[0] == 2 && result[1] == 3 && result[2] == 4 && result[3] == 5;
  std::printf("%s\n", right ? "add one: right" : "add one: WRONG (expected {2, 3, 4, 5})");

  for (PJRT_Buffer* buffer : {argument, outputs[0]}) {
    auto destroy = ARGS(PJRT_Buffer_Destroy_Args);
    destroy.buffer = buffer;
    Failed(api->PJRT_Buffer_Destroy(&destroy), "PJRT_Buffer_Destroy");
  }
  auto destroy_executable = ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy_executable.executable = compile.executable;
  Failed(api->PJRT_LoadedExecutable_Destroy(&destroy_executable), "PJRT_LoadedExecutable_Destroy");
  auto destroy_client = ARGS(PJRT_Client_Destroy_Args);
  destroy_client.client = client;
  Failed(api->PJRT_Client_Destroy(&destroy_client), "PJRT_Client_Destroy");
  return right ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: stablehlo_add_one PLUGIN.so\n");
    return 2;
  }
  return Run(argv[1]);
}
