// The CPU plugin's function table, called directly through the C ABI: the contract a
// framework relies on (struct sizes, errors, events, buffers, compile and execute).
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "proto/compile_options.pb.h"
#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/plugins/common/abi_functions.h"
#include "src/plugins/cpu/api/cpu_plugin.h"

namespace {

const PJRT_Api* Api() { return seam::cpu::GetCpuPjrtApi(); }

struct ErrorInfo {
  PJRT_Error_Code code;
  std::string message;
};

// Reads and frees an error; code 0 means "no error".
ErrorInfo Take(PJRT_Error* error) {
  if (error == nullptr) return {static_cast<PJRT_Error_Code>(0), ""};
  auto message = SEAM_ABI_ARGS(PJRT_Error_Message_Args);
  message.error = error;
  Api()->PJRT_Error_Message(&message);
  auto code = SEAM_ABI_ARGS(PJRT_Error_GetCode_Args);
  code.error = error;
  EXPECT_EQ(Api()->PJRT_Error_GetCode(&code), nullptr);
  ErrorInfo info{code.code, std::string(message.message, message.message_size)};
  auto destroy = SEAM_ABI_ARGS(PJRT_Error_Destroy_Args);
  destroy.error = error;
  Api()->PJRT_Error_Destroy(&destroy);
  return info;
}

#define EXPECT_OK(call) EXPECT_EQ(Take(call).message, "")

class CpuTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
    ASSERT_EQ(Take(Api()->PJRT_Client_Create(&args)).message, "");
    client_ = args.client;
    auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
    devices.client = client_;
    EXPECT_OK(Api()->PJRT_Client_AddressableDevices(&devices));
    ASSERT_EQ(devices.num_addressable_devices, 1u);
    device_ = devices.addressable_devices[0];
  }
  void TearDown() override {
    auto args = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
    args.client = client_;
    EXPECT_OK(Api()->PJRT_Client_Destroy(&args));
  }

  PJRT_Buffer* Upload(const void* data, PJRT_Buffer_Type type, std::vector<int64_t> dims) {
    auto args = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    args.client = client_;
    args.data = data;
    args.type = type;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = device_;
    EXPECT_OK(Api()->PJRT_Client_BufferFromHostBuffer(&args));
    auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = args.done_with_host_buffer;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
    return args.buffer;
  }

  void Download(PJRT_Buffer* buffer, void* dst, size_t size) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    args.src = buffer;
    args.dst = dst;
    args.dst_size = size;
    EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&args));
    auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
    await.event = args.event;
    EXPECT_OK(Api()->PJRT_Event_Await(&await));
    auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = args.event;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
  }

  void Destroy(PJRT_Buffer* buffer) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
    args.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_Destroy(&args));
  }

  PJRT_Client* client_ = nullptr;
  PJRT_Device* device_ = nullptr;
};

TEST_F(CpuTableTest, VersionAndEverySlotFilled) {
  EXPECT_EQ(Api()->struct_size, static_cast<size_t>(PJRT_Api_STRUCT_SIZE));
  EXPECT_EQ(Api()->pjrt_api_version.major_version, PJRT_API_MAJOR);
  EXPECT_EQ(Api()->pjrt_api_version.minor_version, PJRT_API_MINOR);
  const auto* slots = reinterpret_cast<void* const*>(reinterpret_cast<const char*>(Api()) +
                                                     offsetof(PJRT_Api, PJRT_Error_Destroy));
  size_t count = (PJRT_Api_STRUCT_SIZE - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void*);
  for (size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST_F(CpuTableTest, TooSmallStructIsRejectedWithTheExactMessage) {
  auto args = seam::abi::MakeArgs<PJRT_Client_PlatformName_Args>(
      PJRT_Client_PlatformName_Args_STRUCT_SIZE - 1);
  args.client = client_;
  ErrorInfo error = Take(Api()->PJRT_Client_PlatformName(&args));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "Unexpected PJRT_Client_PlatformName_Args size: expected " +
                std::to_string(PJRT_Client_PlatformName_Args_STRUCT_SIZE) + ", got " +
                std::to_string(PJRT_Client_PlatformName_Args_STRUCT_SIZE - 1) +
                ". Check installed software versions. The framework PJRT API version is " +
                std::to_string(PJRT_API_MAJOR) + "." + std::to_string(PJRT_API_MINOR) + ".");
}

TEST_F(CpuTableTest, LargerStructFromANewerCallerIsAccepted) {
  struct Bigger {
    PJRT_Client_PlatformName_Args args;
    int64_t field_from_the_future;
  } bigger{};
  bigger.args.struct_size = sizeof(Bigger);
  bigger.args.client = client_;
  EXPECT_OK(Api()->PJRT_Client_PlatformName(&bigger.args));
  EXPECT_EQ(std::string(bigger.args.platform_name, bigger.args.platform_name_size), "cpu");
}

TEST_F(CpuTableTest, DevicesAndLookup) {
  auto desc = SEAM_ABI_ARGS(PJRT_Device_GetDescription_Args);
  desc.device = device_;
  EXPECT_OK(Api()->PJRT_Device_GetDescription(&desc));
  auto kind = SEAM_ABI_ARGS(PJRT_DeviceDescription_Kind_Args);
  kind.device_description = desc.device_description;
  EXPECT_OK(Api()->PJRT_DeviceDescription_Kind(&kind));
  EXPECT_EQ(std::string(kind.device_kind, kind.device_kind_size), "cpu");

  auto lookup = SEAM_ABI_ARGS(PJRT_Client_LookupDevice_Args);
  lookup.client = client_;
  lookup.id = 0;
  EXPECT_OK(Api()->PJRT_Client_LookupDevice(&lookup));
  EXPECT_EQ(lookup.device, device_);
  for (int bad : {-1, 1, 1000}) {
    lookup.id = bad;
    ErrorInfo error = Take(Api()->PJRT_Client_LookupDevice(&lookup));
    EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
    EXPECT_EQ(error.message, "PJRT_Client_LookupDevice: no device has id " + std::to_string(bad) +
                                 " (ids are 0..0)");
  }
}

TEST_F(CpuTableTest, BufferRoundTripsForEveryShapeKind) {
  int32_t scalar = -7;
  PJRT_Buffer* s = Upload(&scalar, PJRT_Buffer_Type_S32, {});
  int32_t scalar_back = 0;
  Download(s, &scalar_back, sizeof(scalar_back));
  EXPECT_EQ(scalar_back, -7);

  auto dims = SEAM_ABI_ARGS(PJRT_Buffer_Dimensions_Args);
  dims.buffer = s;
  EXPECT_OK(Api()->PJRT_Buffer_Dimensions(&dims));
  EXPECT_EQ(dims.num_dims, 0u);
  Destroy(s);

  PJRT_Buffer* empty = Upload(nullptr, PJRT_Buffer_Type_F32, {3, 0});
  auto size_query = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  size_query.src = empty;
  EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&size_query));
  EXPECT_EQ(size_query.dst_size, 0u);
  Destroy(empty);

  float values[6] = {1.5f, -2, 3, 4, 5, 6};
  PJRT_Buffer* m = Upload(values, PJRT_Buffer_Type_F32, {2, 3});
  auto type = SEAM_ABI_ARGS(PJRT_Buffer_ElementType_Args);
  type.buffer = m;
  EXPECT_OK(Api()->PJRT_Buffer_ElementType(&type));
  EXPECT_EQ(type.type, PJRT_Buffer_Type_F32);
  float back[6] = {};
  Download(m, back, sizeof(back));
  EXPECT_EQ(std::memcmp(values, back, sizeof(values)), 0);

  float small[2];
  auto too_small = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  too_small.src = m;
  too_small.dst = small;
  too_small.dst_size = sizeof(small);
  ErrorInfo error = Take(Api()->PJRT_Buffer_ToHostBuffer(&too_small));
  EXPECT_EQ(error.message,
            "PJRT_Buffer_ToHostBuffer: dst_size is 8 bytes, the buffer f32[2,3] needs 24");
  Destroy(m);
}

TEST_F(CpuTableTest, UnsupportedElementTypeNamesIt) {
  uint16_t half = 0x3c00;
  auto args = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  args.client = client_;
  args.data = &half;
  args.type = PJRT_Buffer_Type_F16;
  args.device = device_;
  ErrorInfo error = Take(Api()->PJRT_Client_BufferFromHostBuffer(&args));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "PJRT_Client_BufferFromHostBuffer: element type 10 is not supported by the cpu plugin "
            "(supported: PRED = 1, S32 = 4, S64 = 5, F32 = 11, F64 = 12, BF16 = 13)");
}

// Issue 14, item 4: a size that overflows is INVALID_ARGUMENT, one that cannot be allocated
// RESOURCE_EXHAUSTED; both name the shape, and nothing is read from the (small) host data.
TEST_F(CpuTableTest, ImpossibleBufferSizesAreCleanErrors) {
  float value = 1.0f;
  auto create = [&](std::vector<int64_t> dims) {
    auto args = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    args.client = client_;
    args.data = &value;
    args.type = PJRT_Buffer_Type_F32;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.device = device_;
    ErrorInfo error = Take(Api()->PJRT_Client_BufferFromHostBuffer(&args));
    EXPECT_EQ(args.buffer, nullptr);
    return error;
  };
  ErrorInfo overflow = create({int64_t{1} << 40, int64_t{1} << 30});
  EXPECT_EQ(overflow.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(overflow.message.find("f32[1099511627776,1073741824]"), std::string::npos)
      << overflow.message;
  ErrorInfo too_big = create({int64_t{1} << 60});  // 2^62 bytes: no address space holds it
  EXPECT_EQ(too_big.code, PJRT_Error_Code_RESOURCE_EXHAUSTED);
  EXPECT_EQ(too_big.message,
            "PJRT_Client_BufferFromHostBuffer: cannot allocate 4611686018427387904 bytes of "
            "device memory for f32[1152921504606846976]");
}

// Format "mlir" is StableHLO text, read by src/stablehlo/read.h: a module compiles; a
// malformed one and MLIR bytecode are INVALID_ARGUMENT, named with line and column.
TEST_F(CpuTableTest, CompileReadsStableHloText) {
  auto compile_mlir = [&](const std::string& code, PJRT_LoadedExecutable** executable) {
    auto program = SEAM_ABI_ARGS(PJRT_Program);
    program.code = const_cast<char*>(code.data());
    program.code_size = code.size();
    program.format = "mlir";
    program.format_size = 4;
    auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
    compile.client = client_;
    compile.program = &program;
    ErrorInfo error = Take(Api()->PJRT_Client_Compile(&compile));
    *executable = compile.executable;
    return error;
  };
  PJRT_LoadedExecutable* executable = nullptr;
  ErrorInfo ok = compile_mlir(
      "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
      &executable);
  EXPECT_EQ(ok.message, "");
  ASSERT_NE(executable, nullptr);
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
  ErrorInfo bad = compile_mlir(
      "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.mul %arg0, %arg0 : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
      &executable);
  EXPECT_EQ(bad.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(bad.message, "line 2, column 8: unknown op 'stablehlo.mul'");
  ErrorInfo bytecode = compile_mlir(std::string("ML\xEFR\x01\x02", 6), &executable);
  EXPECT_EQ(bytecode.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(bytecode.message.find("MLIR bytecode"), std::string::npos) << bytecode.message;
}

TEST_F(CpuTableTest, CompileRejectsUnknownFormatsOptionsAndBadPrograms) {
  const char code[] = "program @p {\n  %0 = parameter(0) : f32[2]\n  return (%0)\n}\n";
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = const_cast<char*>(code);
  program.code_size = sizeof(code) - 1;
  program.format = "hlo";
  program.format_size = 3;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  ErrorInfo error = Take(Api()->PJRT_Client_Compile(&compile));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "program format 'hlo' (HloModuleProto) is not supported by this plugin; supported: "
            "mlir (StableHLO text), seam-ir");

  program.format = "seam-ir";
  program.format_size = 7;
  // Compile options are a serialized xla.CompileOptionsProto: bytes that do not parse are
  // refused with upstream's words.
  const char garbage[] = "\xff\xff\xff\xff not a proto";
  compile.compile_options = garbage;
  compile.compile_options_size = sizeof(garbage) - 1;
  error = Take(Api()->PJRT_Client_Compile(&compile));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message, "failed to deserialize CompileOptionsProto");
  // num_replicas, when set, must be the program's replica count.
  xla::CompileOptionsProto options;
  options.mutable_executable_build_options()->set_device_ordinal(-1);
  options.mutable_executable_build_options()->set_num_replicas(2);
  options.mutable_executable_build_options()->set_num_partitions(1);
  const std::string serialized = options.SerializeAsString();
  compile.compile_options = serialized.data();
  compile.compile_options_size = serialized.size();
  error = Take(Api()->PJRT_Client_Compile(&compile));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "PJRT_Client_Compile: the compile options ask for num_replicas=2, the program has "
            "replicas=1");
  // The framework's options for one replica compile.
  options.mutable_executable_build_options()->set_num_replicas(1);
  options.mutable_executable_build_options()->set_process_index(0);
  options.mutable_executable_build_options()->set_process_count(1);
  const std::string one = options.SerializeAsString();
  compile.compile_options = one.data();
  compile.compile_options_size = one.size();
  EXPECT_OK(Api()->PJRT_Client_Compile(&compile));
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = compile.executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));

  compile.compile_options = nullptr;
  compile.compile_options_size = 0;
  const char bad[] = "program @p {\n  %0 = mul(%1) : f32[2]\n}\n";
  program.code = const_cast<char*>(bad);
  program.code_size = sizeof(bad) - 1;
  error = Take(Api()->PJRT_Client_Compile(&compile));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message.rfind("line 2: ", 0), 0u) << error.message;
}

void CountCallback(PJRT_Error* error, void* user_arg) {
  EXPECT_EQ(error, nullptr);
  ++*static_cast<int*>(user_arg);
}

TEST_F(CpuTableTest, ExecuteIsAsynchronousWithEventsAndReadyBuffers) {
  const char code[] =
      "program @p {\n  %0 = parameter(0) : f32[3]\n  %1 = add(%0, %0) : f32[3]\n"
      "  return (%1, %0)\n}\n";
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = const_cast<char*>(code);
  program.code_size = sizeof(code) - 1;
  program.format = "seam-ir";
  program.format_size = 7;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  EXPECT_OK(Api()->PJRT_Client_Compile(&compile));
  // The outputs, as the framework learns them: through the executable.
  auto get = SEAM_ABI_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
  get.loaded_executable = compile.executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_GetExecutable(&get));
  auto num_outputs = SEAM_ABI_ARGS(PJRT_Executable_NumOutputs_Args);
  num_outputs.executable = get.executable;
  EXPECT_OK(Api()->PJRT_Executable_NumOutputs(&num_outputs));
  ASSERT_EQ(num_outputs.num_outputs, 2u);
  auto destroy_executable = SEAM_ABI_ARGS(PJRT_Executable_Destroy_Args);
  destroy_executable.executable = get.executable;
  EXPECT_OK(Api()->PJRT_Executable_Destroy(&destroy_executable));

  float in[3] = {1, 2, 3};
  PJRT_Buffer* arg = Upload(in, PJRT_Buffer_Type_F32, {3});
  PJRT_Buffer* outputs[2] = {};
  PJRT_Buffer* const* arg_list = &arg;
  PJRT_Buffer** out_list = outputs;
  PJRT_Event* done = nullptr;
  auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = compile.executable;
  execute.argument_lists = &arg_list;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = &out_list;
  execute.device_complete_events = &done;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Execute(&execute));
  Destroy(arg);  // the run keeps what it needs alive

  int calls = 0;
  auto on_ready = SEAM_ABI_ARGS(PJRT_Event_OnReady_Args);
  on_ready.event = done;
  on_ready.callback = CountCallback;
  on_ready.user_arg = &calls;
  EXPECT_OK(Api()->PJRT_Event_OnReady(&on_ready));

  auto ready = SEAM_ABI_ARGS(PJRT_Buffer_ReadyEvent_Args);
  ready.buffer = outputs[0];
  EXPECT_OK(Api()->PJRT_Buffer_ReadyEvent(&ready));
  auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
  await.event = ready.event;
  EXPECT_OK(Api()->PJRT_Event_Await(&await));
  auto is_ready = SEAM_ABI_ARGS(PJRT_Event_IsReady_Args);
  is_ready.event = ready.event;
  EXPECT_OK(Api()->PJRT_Event_IsReady(&is_ready));
  EXPECT_TRUE(is_ready.is_ready);
  EXPECT_EQ(calls, 1);  // the completion event fires before the outputs are ready
  auto event_error = SEAM_ABI_ARGS(PJRT_Event_Error_Args);
  event_error.event = done;
  EXPECT_OK(Api()->PJRT_Event_Error(&event_error));

  float sum[3], copy[3];
  Download(outputs[0], sum, sizeof(sum));
  Download(outputs[1], copy, sizeof(copy));
  EXPECT_EQ(std::vector<float>(sum, sum + 3), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(std::vector<float>(copy, copy + 3), (std::vector<float>{1, 2, 3}));

  for (PJRT_Event* event : {ready.event, done}) {
    auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = event;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
  }
  Destroy(outputs[0]);
  Destroy(outputs[1]);
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = compile.executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
}

TEST_F(CpuTableTest, ExecuteRejectsWrongArgumentsByName) {
  const char code[] = "program @p {\n  %0 = parameter(0) : f32[3]\n  return (%0)\n}\n";
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = const_cast<char*>(code);
  program.code_size = sizeof(code) - 1;
  program.format = "seam-ir";
  program.format_size = 7;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  EXPECT_OK(Api()->PJRT_Client_Compile(&compile));
  int32_t in[2] = {1, 2};
  PJRT_Buffer* arg = Upload(in, PJRT_Buffer_Type_S32, {2});
  PJRT_Buffer* output = nullptr;
  PJRT_Buffer* const* arg_list = &arg;
  PJRT_Buffer** out_list = &output;
  auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = compile.executable;
  execute.argument_lists = &arg_list;
  execute.num_devices = 1;
  execute.num_args = 1;
  execute.output_lists = &out_list;
  ErrorInfo error = Take(Api()->PJRT_LoadedExecutable_Execute(&execute));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "PJRT_LoadedExecutable_Execute: argument 0 has shape s32[2], the program's parameter 0 "
            "is f32[3]");
  execute.num_args = 0;
  error = Take(Api()->PJRT_LoadedExecutable_Execute(&execute));
  EXPECT_EQ(error.message,
            "PJRT_LoadedExecutable_Execute: num_args is 0, the program has 1 parameter(s)");
  EXPECT_EQ(output, nullptr);
  Destroy(arg);
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = compile.executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
}

TEST_F(CpuTableTest, NullArgsAreErrorsNotCrashes) {
  ErrorInfo error = Take(Api()->PJRT_Client_Compile(nullptr));
  EXPECT_EQ(error.message, "PJRT_Client_Compile_Args pointer is null");
  auto args = SEAM_ABI_ARGS(PJRT_Client_Devices_Args);
  error = Take(Api()->PJRT_Client_Devices(&args));
  EXPECT_EQ(error.message, "PJRT_Client_Devices: args->client is null");
}

}  // namespace

// A program without parameters needs no argument lists: null is fine (it was read before).
TEST_F(CpuTableTest, AProgramWithoutParametersRunsWithNoArgumentLists) {
  const char code[] =
      "program @p {\n  %0 = constant(2.5) : f32[]\n  %1 = broadcast_in_dim(%0), dims={} : "
      "f32[3]\n  return (%1)\n}\n";
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = const_cast<char*>(code);
  program.code_size = sizeof(code) - 1;
  program.format = "seam-ir";
  program.format_size = 7;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  ASSERT_EQ(Take(Api()->PJRT_Client_Compile(&compile)).message, "");
  PJRT_Buffer* output = nullptr;
  PJRT_Buffer** output_list = &output;
  auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = compile.executable;
  execute.argument_lists = nullptr;
  execute.num_devices = 1;
  execute.num_args = 0;
  execute.output_lists = &output_list;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Execute(&execute));
  ASSERT_NE(output, nullptr);
  float values[3] = {};
  Download(output, values, sizeof(values));
  EXPECT_EQ(values[0], 2.5f);
  EXPECT_EQ(values[2], 2.5f);
  Destroy(output);
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = compile.executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
}

namespace {

// Every slot the cpu plugin does not serve is the kit's stub: UNIMPLEMENTED naming the
// function and the plugin (and the served ones are not).
TEST_F(CpuTableTest, UnservedSlotsAnswerUnimplementedNamingThemAndThePlugin) {
  const std::set<std::string> served = {
      "PJRT_Error_GetCode",
      "PJRT_Plugin_Initialize",
      "PJRT_Plugin_Attributes",
      "PJRT_Event_Destroy",
      "PJRT_Event_IsReady",
      "PJRT_Event_Error",
      "PJRT_Event_Await",
      "PJRT_Event_OnReady",
      "PJRT_Event_Create",
      "PJRT_Event_Set",
      "PJRT_Client_Create",
      "PJRT_Client_Destroy",
      "PJRT_Client_PlatformName",
      "PJRT_Client_ProcessIndex",
      "PJRT_Client_PlatformVersion",
      "PJRT_Client_Devices",
      "PJRT_Client_AddressableDevices",
      "PJRT_Client_LookupDevice",
      "PJRT_Client_LookupAddressableDevice",
      "PJRT_Client_AddressableMemories",
      "PJRT_Client_Compile",
      "PJRT_Client_DefaultDeviceAssignment",
      "PJRT_Client_BufferFromHostBuffer",
      "PJRT_DeviceDescription_Id",
      "PJRT_DeviceDescription_ProcessIndex",
      "PJRT_DeviceDescription_Attributes",
      "PJRT_DeviceDescription_Kind",
      "PJRT_DeviceDescription_DebugString",
      "PJRT_DeviceDescription_ToString",
      "PJRT_Device_GetDescription",
      "PJRT_Device_IsAddressable",
      "PJRT_Device_LocalHardwareId",
      "PJRT_Device_AddressableMemories",
      "PJRT_Device_DefaultMemory",
      "PJRT_Device_MemoryStats",
      "PJRT_Memory_Id",
      "PJRT_Memory_Kind",
      "PJRT_Memory_Kind_Id",
      "PJRT_Memory_DebugString",
      "PJRT_Memory_ToString",
      "PJRT_Memory_AddressableByDevices",
      "PJRT_Executable_Destroy",
      "PJRT_Executable_Name",
      "PJRT_Executable_NumReplicas",
      "PJRT_Executable_NumPartitions",
      "PJRT_Executable_NumOutputs",
      "PJRT_Executable_SizeOfGeneratedCodeInBytes",
      "PJRT_Executable_OutputMemoryKinds",
      "PJRT_Executable_OutputElementTypes",
      "PJRT_Executable_OutputDimensions",
      "PJRT_Executable_Fingerprint",
      "PJRT_LoadedExecutable_Destroy",
      "PJRT_LoadedExecutable_GetExecutable",
      "PJRT_LoadedExecutable_AddressableDevices",
      "PJRT_LoadedExecutable_Delete",
      "PJRT_LoadedExecutable_IsDeleted",
      "PJRT_LoadedExecutable_Execute",
      "PJRT_Buffer_Destroy",
      "PJRT_Buffer_ElementType",
      "PJRT_Buffer_Dimensions",
      "PJRT_Buffer_UnpaddedDimensions",
      "PJRT_Buffer_DynamicDimensionIndices",
      "PJRT_Buffer_GetMemoryLayout",
      "PJRT_Buffer_OnDeviceSizeInBytes",
      "PJRT_Buffer_Device",
      "PJRT_Buffer_Memory",
      "PJRT_Buffer_Delete",
      "PJRT_Buffer_IsDeleted",
      "PJRT_Buffer_CopyToDevice",
      "PJRT_Buffer_ToHostBuffer",
      "PJRT_Buffer_IsOnCpu",
      "PJRT_Buffer_ReadyEvent",
      "PJRT_Buffer_UnsafePointer",
      "PJRT_Buffer_OpaqueDeviceMemoryDataPointer",
      "PJRT_Buffer_CopyRawToHost",
      "PJRT_Client_CreateBuffersForAsyncHostToDevice",
      "PJRT_AsyncHostToDeviceTransferManager_TransferData",
      "PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer",
      "PJRT_AsyncHostToDeviceTransferManager_Device",
      "PJRT_AsyncHostToDeviceTransferManager_BufferCount",
      "PJRT_AsyncHostToDeviceTransferManager_BufferSize",
      "PJRT_AsyncHostToDeviceTransferManager_SetBufferError",
      "PJRT_AsyncHostToDeviceTransferManager_Destroy",
  };
  int unserved = 0;
  std::set<std::string> listed;
#define SEAM_EXPECT_UNSERVED(Name)                                                    \
  listed.insert(#Name);                                                               \
  if (served.count(#Name) == 0) {                                                     \
    ++unserved;                                                                       \
    alignas(16) unsigned char buffer[512] = {};                                       \
    size_t size = Name##_Args_STRUCT_SIZE;                                            \
    std::memcpy(buffer, &size, sizeof(size));                                         \
    ErrorInfo error = Take(Api()->Name(reinterpret_cast<Name##_Args*>(buffer)));      \
    EXPECT_EQ(error.code, PJRT_Error_Code_UNIMPLEMENTED) << #Name;                    \
    EXPECT_EQ(error.message, #Name " is not implemented by the cpu plugin") << #Name; \
  }
  SEAM_PLUGIN_FUNCTIONS(SEAM_EXPECT_UNSERVED)
#undef SEAM_EXPECT_UNSERVED
  for (const std::string& name : served) EXPECT_EQ(listed.count(name), 1u) << name;
  EXPECT_EQ(unserved, 127 - static_cast<int>(served.size()));
  EXPECT_EQ(unserved, 44);
}

TEST_F(CpuTableTest, AttributesAnnounceTheSeamIrVersion) {
  auto args = SEAM_ABI_ARGS(PJRT_Plugin_Attributes_Args);
  EXPECT_OK(Api()->PJRT_Plugin_Attributes(&args));
  bool found = false;
  int stablehlo_versions = 0;
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& value = args.attributes[i];
    EXPECT_EQ(value.struct_size, PJRT_NamedValue_STRUCT_SIZE);
    const std::string name(value.name, value.name_size);
    EXPECT_NE(name, "xla_version");
    // The StableHLO reader's subset (src/stablehlo/read.h): current 1.20.0, minimum 0.9.0.
    if (name == "stablehlo_current_version" || name == "stablehlo_minimum_version") {
      ++stablehlo_versions;
      ASSERT_EQ(value.type, PJRT_NamedValue_kInt64List);
      ASSERT_EQ(value.value_size, 3u);
      const std::vector<int64_t> version(value.int64_array_value, value.int64_array_value + 3);
      const std::vector<int64_t> want = name == "stablehlo_current_version"
                                            ? std::vector<int64_t>{1, 20, 0}
                                            : std::vector<int64_t>{0, 9, 0};
      EXPECT_EQ(version, want) << name;
    }
    if (name != "seam_ir_version") continue;
    found = true;
    EXPECT_EQ(value.type, PJRT_NamedValue_kInt64);
    EXPECT_EQ(value.int64_value, 1);
    EXPECT_EQ(value.value_size, 1u);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(stablehlo_versions, 2);
}

PJRT_NamedValue Int64Option(const char* name, int64_t value) {
  PJRT_NamedValue option{};
  option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  option.name = name;
  option.name_size = std::strlen(name);
  option.type = PJRT_NamedValue_kInt64;
  option.int64_value = value;
  option.value_size = 1;
  return option;
}

// A client of two devices, made with a create option in upstream's NamedValue layout.
class CpuTwoDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PJRT_NamedValue options[1] = {Int64Option("cpu_device_count", 2)};
    auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
    args.create_options = options;
    args.num_options = 1;
    ASSERT_EQ(Take(Api()->PJRT_Client_Create(&args)).message, "");
    client_ = args.client;
    auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
    devices.client = client_;
    EXPECT_OK(Api()->PJRT_Client_AddressableDevices(&devices));
    ASSERT_EQ(devices.num_addressable_devices, 2u);
    devices_.assign(devices.addressable_devices,
                    devices.addressable_devices + devices.num_addressable_devices);
  }
  void TearDown() override {
    auto args = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
    args.client = client_;
    EXPECT_OK(Api()->PJRT_Client_Destroy(&args));
  }

  PJRT_DeviceDescription* Description(PJRT_Device* device) {
    auto desc = SEAM_ABI_ARGS(PJRT_Device_GetDescription_Args);
    desc.device = device;
    EXPECT_OK(Api()->PJRT_Device_GetDescription(&desc));
    return desc.device_description;
  }

  PJRT_Memory* DefaultMemory(PJRT_Device* device) {
    auto args = SEAM_ABI_ARGS(PJRT_Device_DefaultMemory_Args);
    args.device = device;
    EXPECT_OK(Api()->PJRT_Device_DefaultMemory(&args));
    return args.memory;
  }

  PJRT_Client* client_ = nullptr;
  std::vector<PJRT_Device*> devices_;
};

TEST_F(CpuTwoDeviceTest, CreateOptionsAreNamedValuesCheckedByNameAndType) {
  PJRT_NamedValue wrong_type = Int64Option("cpu_device_count", 0);
  wrong_type.type = PJRT_NamedValue_kString;
  wrong_type.string_value = "2";
  wrong_type.value_size = 1;
  auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
  args.create_options = &wrong_type;
  args.num_options = 1;
  ErrorInfo error = Take(Api()->PJRT_Client_Create(&args));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message, "PJRT_Client_Create: option 'cpu_device_count' must be an int64 value");
  PJRT_NamedValue unknown = Int64Option("gpu_count", 1);
  args.create_options = &unknown;
  error = Take(Api()->PJRT_Client_Create(&args));
  EXPECT_EQ(error.message.rfind("PJRT_Client_Create: unknown client option 'gpu_count' (the cpu "
                                "plugin accepts: cpu_device_count",
                                0),
            0u)
      << error.message;
  EXPECT_EQ(args.client, nullptr);
}

TEST_F(CpuTwoDeviceTest, DevicesDescriptionsAndMemories) {
  auto all = SEAM_ABI_ARGS(PJRT_Client_Devices_Args);
  all.client = client_;
  EXPECT_OK(Api()->PJRT_Client_Devices(&all));
  ASSERT_EQ(all.num_devices, 2u);  // one process: every device is addressable
  auto memories = SEAM_ABI_ARGS(PJRT_Client_AddressableMemories_Args);
  memories.client = client_;
  EXPECT_OK(Api()->PJRT_Client_AddressableMemories(&memories));
  ASSERT_EQ(memories.num_addressable_memories, 2u);
  for (int i = 0; i < 2; ++i) {
    PJRT_Device* device = devices_[static_cast<size_t>(i)];
    EXPECT_EQ(all.devices[i], device);
    PJRT_DeviceDescription* description = Description(device);
    auto id = SEAM_ABI_ARGS(PJRT_DeviceDescription_Id_Args);
    id.device_description = description;
    EXPECT_OK(Api()->PJRT_DeviceDescription_Id(&id));
    EXPECT_EQ(id.id, i);
    auto process = SEAM_ABI_ARGS(PJRT_DeviceDescription_ProcessIndex_Args);
    process.device_description = description;
    EXPECT_OK(Api()->PJRT_DeviceDescription_ProcessIndex(&process));
    EXPECT_EQ(process.process_index, 0);
    auto debug = SEAM_ABI_ARGS(PJRT_DeviceDescription_DebugString_Args);
    debug.device_description = description;
    EXPECT_OK(Api()->PJRT_DeviceDescription_DebugString(&debug));
    EXPECT_EQ(std::string(debug.debug_string, debug.debug_string_size), "cpu:" + std::to_string(i));
    auto to_string = SEAM_ABI_ARGS(PJRT_DeviceDescription_ToString_Args);
    to_string.device_description = description;
    EXPECT_OK(Api()->PJRT_DeviceDescription_ToString(&to_string));
    EXPECT_EQ(std::string(to_string.to_string, to_string.to_string_size),
              "CpuDevice(id=" + std::to_string(i) + ", process_index=0)");
    auto attributes = SEAM_ABI_ARGS(PJRT_DeviceDescription_Attributes_Args);
    attributes.device_description = description;
    EXPECT_OK(Api()->PJRT_DeviceDescription_Attributes(&attributes));
    ASSERT_EQ(attributes.num_attributes, 1u);
    EXPECT_EQ(std::string(attributes.attributes[0].name, attributes.attributes[0].name_size),
              "local_device_index");
    EXPECT_EQ(attributes.attributes[0].int64_value, i);

    auto addressable = SEAM_ABI_ARGS(PJRT_Device_IsAddressable_Args);
    addressable.device = device;
    EXPECT_OK(Api()->PJRT_Device_IsAddressable(&addressable));
    EXPECT_TRUE(addressable.is_addressable);
    auto hardware = SEAM_ABI_ARGS(PJRT_Device_LocalHardwareId_Args);
    hardware.device = device;
    EXPECT_OK(Api()->PJRT_Device_LocalHardwareId(&hardware));
    EXPECT_EQ(hardware.local_hardware_id, i);
    auto lookup = SEAM_ABI_ARGS(PJRT_Client_LookupAddressableDevice_Args);
    lookup.client = client_;
    lookup.local_hardware_id = i;
    EXPECT_OK(Api()->PJRT_Client_LookupAddressableDevice(&lookup));
    EXPECT_EQ(lookup.addressable_device, device);

    // One memory per device, kind "device".
    PJRT_Memory* memory = DefaultMemory(device);
    ASSERT_NE(memory, nullptr);
    EXPECT_EQ(memories.addressable_memories[i], memory);
    auto device_memories = SEAM_ABI_ARGS(PJRT_Device_AddressableMemories_Args);
    device_memories.device = device;
    EXPECT_OK(Api()->PJRT_Device_AddressableMemories(&device_memories));
    ASSERT_EQ(device_memories.num_memories, 1u);
    EXPECT_EQ(device_memories.memories[0], memory);
    auto kind = SEAM_ABI_ARGS(PJRT_Memory_Kind_Args);
    kind.memory = memory;
    EXPECT_OK(Api()->PJRT_Memory_Kind(&kind));
    EXPECT_EQ(std::string(kind.kind, kind.kind_size), "device");
    auto kind_id = SEAM_ABI_ARGS(PJRT_Memory_Kind_Id_Args);
    kind_id.memory = memory;
    EXPECT_OK(Api()->PJRT_Memory_Kind_Id(&kind_id));
    EXPECT_EQ(kind_id.kind_id, 0);
    auto memory_id = SEAM_ABI_ARGS(PJRT_Memory_Id_Args);
    memory_id.memory = memory;
    EXPECT_OK(Api()->PJRT_Memory_Id(&memory_id));
    EXPECT_EQ(memory_id.id, i);
    auto memory_debug = SEAM_ABI_ARGS(PJRT_Memory_DebugString_Args);
    memory_debug.memory = memory;
    EXPECT_OK(Api()->PJRT_Memory_DebugString(&memory_debug));
    EXPECT_GT(memory_debug.debug_string_size, 0u);
    auto memory_string = SEAM_ABI_ARGS(PJRT_Memory_ToString_Args);
    memory_string.memory = memory;
    EXPECT_OK(Api()->PJRT_Memory_ToString(&memory_string));
    EXPECT_GT(memory_string.to_string_size, 0u);
    auto by = SEAM_ABI_ARGS(PJRT_Memory_AddressableByDevices_Args);
    by.memory = memory;
    EXPECT_OK(Api()->PJRT_Memory_AddressableByDevices(&by));
    ASSERT_EQ(by.num_devices, 1u);
    EXPECT_EQ(by.devices[0], device);
  }
  auto lookup = SEAM_ABI_ARGS(PJRT_Client_LookupAddressableDevice_Args);
  lookup.client = client_;
  lookup.local_hardware_id = 2;
  ErrorInfo error = Take(Api()->PJRT_Client_LookupAddressableDevice(&lookup));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "PJRT_Client_LookupAddressableDevice: no addressable device has local hardware id 2 "
            "(this process has 2 device(s))");
  auto version = SEAM_ABI_ARGS(PJRT_Client_PlatformVersion_Args);
  version.client = client_;
  EXPECT_OK(Api()->PJRT_Client_PlatformVersion(&version));
  EXPECT_EQ(std::string(version.platform_version, version.platform_version_size),
            "seam cpu plugin");

  int assignment[2] = {-1, -1};
  auto default_assignment = SEAM_ABI_ARGS(PJRT_Client_DefaultDeviceAssignment_Args);
  default_assignment.client = client_;
  default_assignment.num_replicas = 2;
  default_assignment.num_partitions = 1;
  default_assignment.default_assignment_size = 2;
  default_assignment.default_assignment = assignment;
  EXPECT_OK(Api()->PJRT_Client_DefaultDeviceAssignment(&default_assignment));
  EXPECT_EQ(assignment[0], 0);
  EXPECT_EQ(assignment[1], 1);
}

// Host buffers: a memory instead of a device, dense byte strides and layouts only, the
// size query with dst = NULL, the dense tiled layout, and a copy to the other device.
TEST_F(CpuTwoDeviceTest, HostBuffersLayoutsAndCopies) {
  float values[6] = {1, 2, 3, 4, 5, 6};
  int64_t dims[2] = {2, 3};
  PJRT_Memory* second_memory = DefaultMemory(devices_[1]);
  auto upload = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
  upload.client = client_;
  upload.data = values;
  upload.type = PJRT_Buffer_Type_F32;
  upload.dims = dims;
  upload.num_dims = 2;
  upload.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
  upload.memory = second_memory;  // instead of a device
  const int64_t dense_strides[2] = {12, 4};
  upload.byte_strides = dense_strides;
  upload.num_byte_strides = 2;
  const int64_t dense_order[2] = {1, 0};
  PJRT_Buffer_MemoryLayout dense = SEAM_ABI_ARGS(PJRT_Buffer_MemoryLayout);
  dense.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  dense.tiled = SEAM_ABI_ARGS(PJRT_Buffer_MemoryLayout_Tiled);
  dense.tiled.minor_to_major = dense_order;
  dense.tiled.minor_to_major_size = 2;
  upload.device_layout = &dense;
  EXPECT_OK(Api()->PJRT_Client_BufferFromHostBuffer(&upload));
  ASSERT_NE(upload.buffer, nullptr);
  ASSERT_NE(upload.done_with_host_buffer, nullptr);
  auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
  await.event = upload.done_with_host_buffer;
  EXPECT_OK(Api()->PJRT_Event_Await(&await));
  auto destroy_event = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
  destroy_event.event = upload.done_with_host_buffer;
  EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy_event));
  PJRT_Buffer* buffer = upload.buffer;

  auto device = SEAM_ABI_ARGS(PJRT_Buffer_Device_Args);
  device.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_Device(&device));
  EXPECT_EQ(device.device, devices_[1]);
  auto memory = SEAM_ABI_ARGS(PJRT_Buffer_Memory_Args);
  memory.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_Memory(&memory));
  EXPECT_EQ(memory.memory, second_memory);
  auto on_cpu = SEAM_ABI_ARGS(PJRT_Buffer_IsOnCpu_Args);
  on_cpu.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_IsOnCpu(&on_cpu));
  EXPECT_TRUE(on_cpu.is_on_cpu);
  auto pointer = SEAM_ABI_ARGS(PJRT_Buffer_UnsafePointer_Args);
  pointer.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_UnsafePointer(&pointer));
  ASSERT_NE(pointer.buffer_pointer, 0u);
  EXPECT_EQ(
      std::memcmp(reinterpret_cast<const void*>(pointer.buffer_pointer), values, sizeof(values)),
      0);
  auto opaque = SEAM_ABI_ARGS(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args);
  opaque.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&opaque));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(opaque.device_memory_ptr), pointer.buffer_pointer);
  auto unpadded = SEAM_ABI_ARGS(PJRT_Buffer_UnpaddedDimensions_Args);
  unpadded.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_UnpaddedDimensions(&unpadded));
  ASSERT_EQ(unpadded.num_dims, 2u);
  EXPECT_EQ(unpadded.unpadded_dims[1], 3);
  auto dynamic = SEAM_ABI_ARGS(PJRT_Buffer_DynamicDimensionIndices_Args);
  dynamic.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_DynamicDimensionIndices(&dynamic));
  EXPECT_EQ(dynamic.num_dynamic_dims, 0u);
  auto layout = SEAM_ABI_ARGS(PJRT_Buffer_GetMemoryLayout_Args);
  layout.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_GetMemoryLayout(&layout));
  EXPECT_EQ(layout.layout.type, PJRT_Buffer_MemoryLayout_Type_Tiled);
  ASSERT_EQ(layout.layout.tiled.minor_to_major_size, 2u);
  EXPECT_EQ(layout.layout.tiled.minor_to_major[0], 1);
  EXPECT_EQ(layout.layout.tiled.minor_to_major[1], 0);
  EXPECT_EQ(layout.layout.tiled.num_tiles, 0u);

  // The size query: dst = NULL answers dst_size and no event.
  auto query = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  query.src = buffer;
  query.host_layout = &dense;
  query.dst_size = 12345;
  EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&query));
  EXPECT_EQ(query.dst_size, 24u);
  EXPECT_EQ(query.event, nullptr);
  // A read with the dense host layout.
  float back[6] = {};
  auto read = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  read.src = buffer;
  read.host_layout = &dense;
  read.dst = back;
  read.dst_size = sizeof(back);
  EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&read));
  await.event = read.event;
  EXPECT_OK(Api()->PJRT_Event_Await(&await));
  destroy_event.event = read.event;
  EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy_event));
  EXPECT_EQ(std::memcmp(back, values, sizeof(values)), 0);
  // A column-major host layout is not served.
  const int64_t transposed_order[2] = {0, 1};
  PJRT_Buffer_MemoryLayout transposed = dense;
  transposed.tiled.minor_to_major = transposed_order;
  read.host_layout = &transposed;
  read.event = nullptr;
  ErrorInfo error = Take(Api()->PJRT_Buffer_ToHostBuffer(&read));
  EXPECT_EQ(error.code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(error.message,
            "PJRT_Buffer_ToHostBuffer: host_layout has minor_to_major [0,1] and 0 tile(s); the "
            "cpu plugin takes only the dense row-major layout of rank 2 (minor_to_major "
            "rank-1..0, no tiles)");

  // Copied to the first device: same values there.
  auto copy = SEAM_ABI_ARGS(PJRT_Buffer_CopyToDevice_Args);
  copy.buffer = buffer;
  copy.dst_device = devices_[0];
  EXPECT_OK(Api()->PJRT_Buffer_CopyToDevice(&copy));
  ASSERT_NE(copy.dst_buffer, nullptr);
  device.buffer = copy.dst_buffer;
  EXPECT_OK(Api()->PJRT_Buffer_Device(&device));
  EXPECT_EQ(device.device, devices_[0]);
  float copied[6] = {};
  read.src = copy.dst_buffer;
  read.host_layout = nullptr;
  read.dst = copied;
  EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&read));
  await.event = read.event;
  EXPECT_OK(Api()->PJRT_Event_Await(&await));
  destroy_event.event = read.event;
  EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy_event));
  EXPECT_EQ(std::memcmp(copied, values, sizeof(values)), 0);

  // Strides that are not dense row-major, and a layout that is not dense, are refused.
  const int64_t column_strides[2] = {4, 8};
  upload.byte_strides = column_strides;
  upload.buffer = nullptr;
  error = Take(Api()->PJRT_Client_BufferFromHostBuffer(&upload));
  EXPECT_EQ(error.code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(error.message,
            "PJRT_Client_BufferFromHostBuffer: byte_strides [4,8] are not the dense row-major "
            "strides of f32[2,3] (the cpu plugin takes only dense row-major host data)");
  upload.byte_strides = nullptr;
  upload.num_byte_strides = 0;
  upload.device_layout = &transposed;
  error = Take(Api()->PJRT_Client_BufferFromHostBuffer(&upload));
  EXPECT_EQ(error.code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_EQ(error.message.rfind("PJRT_Client_BufferFromHostBuffer: device_layout has "
                                "minor_to_major [0,1]",
                                0),
            0u)
      << error.message;
  EXPECT_EQ(upload.buffer, nullptr);

  for (PJRT_Buffer* b : {buffer, copy.dst_buffer}) {
    auto destroy = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
    destroy.buffer = b;
    EXPECT_OK(Api()->PJRT_Buffer_Destroy(&destroy));
  }
}

// What PJRT_Executable tells, and a loaded executable's devices and deletion.
TEST_F(CpuTwoDeviceTest, ExecutableQueriesAndDeletion) {
  const char code[] =
      "program @pair {\n  %0 = parameter(0) : f32[2,3]\n  %1 = add(%0, %0) : f32[2,3]\n"
      "  %2 = convert(%1) : s32[2,3]\n  return (%1, %2)\n}\n";
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = const_cast<char*>(code);
  program.code_size = sizeof(code) - 1;
  program.format = "seam-ir";
  program.format_size = 7;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  ASSERT_EQ(Take(Api()->PJRT_Client_Compile(&compile)).message, "");
  PJRT_LoadedExecutable* loaded = compile.executable;

  auto devices = SEAM_ABI_ARGS(PJRT_LoadedExecutable_AddressableDevices_Args);
  devices.executable = loaded;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_AddressableDevices(&devices));
  ASSERT_EQ(devices.num_addressable_devices, 1u);  // one replica
  EXPECT_EQ(devices.addressable_devices[0], devices_[0]);

  auto get = SEAM_ABI_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
  get.loaded_executable = loaded;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_GetExecutable(&get));
  PJRT_Executable* executable = get.executable;
  auto name = SEAM_ABI_ARGS(PJRT_Executable_Name_Args);
  name.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_Name(&name));
  EXPECT_EQ(std::string(name.executable_name, name.executable_name_size), "pair");
  auto replicas = SEAM_ABI_ARGS(PJRT_Executable_NumReplicas_Args);
  replicas.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_NumReplicas(&replicas));
  EXPECT_EQ(replicas.num_replicas, 1u);
  auto partitions = SEAM_ABI_ARGS(PJRT_Executable_NumPartitions_Args);
  partitions.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_NumPartitions(&partitions));
  EXPECT_EQ(partitions.num_partitions, 1u);
  auto types = SEAM_ABI_ARGS(PJRT_Executable_OutputElementTypes_Args);
  types.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_OutputElementTypes(&types));
  ASSERT_EQ(types.num_output_types, 2u);
  EXPECT_EQ(types.output_types[0], PJRT_Buffer_Type_F32);
  EXPECT_EQ(types.output_types[1], PJRT_Buffer_Type_S32);
  auto dims = SEAM_ABI_ARGS(PJRT_Executable_OutputDimensions_Args);
  dims.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_OutputDimensions(&dims));
  ASSERT_EQ(dims.num_outputs, 2u);
  EXPECT_EQ(dims.dim_sizes[0], 2u);
  EXPECT_EQ(dims.dim_sizes[1], 2u);
  EXPECT_EQ(std::vector<int64_t>(dims.dims, dims.dims + 4), (std::vector<int64_t>{2, 3, 2, 3}));
  auto kinds = SEAM_ABI_ARGS(PJRT_Executable_OutputMemoryKinds_Args);
  kinds.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_OutputMemoryKinds(&kinds));
  ASSERT_EQ(kinds.num_outputs, 2u);
  EXPECT_EQ(std::string(kinds.memory_kinds[1], kinds.memory_kind_sizes[1]), "device");
  auto fingerprint = SEAM_ABI_ARGS(PJRT_Executable_Fingerprint_Args);
  fingerprint.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_Fingerprint(&fingerprint));
  EXPECT_EQ(fingerprint.executable_fingerprint_size, 16u);
  auto code_size = SEAM_ABI_ARGS(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args);
  code_size.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_SizeOfGeneratedCodeInBytes(&code_size));
  EXPECT_EQ(code_size.size_in_bytes, 0);

  auto is_deleted = SEAM_ABI_ARGS(PJRT_LoadedExecutable_IsDeleted_Args);
  is_deleted.executable = loaded;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_IsDeleted(&is_deleted));
  EXPECT_FALSE(is_deleted.is_deleted);
  auto del = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Delete_Args);
  del.executable = loaded;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Delete(&del));
  EXPECT_OK(Api()->PJRT_LoadedExecutable_IsDeleted(&is_deleted));
  EXPECT_TRUE(is_deleted.is_deleted);
  // The executable handed out before stays usable.
  EXPECT_OK(Api()->PJRT_Executable_OutputDimensions(&dims));
  PJRT_Buffer* outputs[2] = {};
  PJRT_Buffer** output_list = outputs;
  auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = loaded;
  execute.num_devices = 1;
  execute.output_lists = &output_list;
  ErrorInfo error = Take(Api()->PJRT_LoadedExecutable_Execute(&execute));
  EXPECT_EQ(error.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(error.message, "PJRT_LoadedExecutable_Execute: the executable was deleted");
  error = Take(Api()->PJRT_LoadedExecutable_GetExecutable(&get));
  EXPECT_EQ(error.message, "PJRT_LoadedExecutable_GetExecutable: the executable was deleted");

  auto destroy_executable = SEAM_ABI_ARGS(PJRT_Executable_Destroy_Args);
  destroy_executable.executable = executable;
  EXPECT_OK(Api()->PJRT_Executable_Destroy(&destroy_executable));
  auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  destroy.executable = loaded;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
}

}  // namespace
