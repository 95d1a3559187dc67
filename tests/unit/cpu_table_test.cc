// The CPU plugin's function table, called directly through the C ABI: the contract a
// framework relies on (struct sizes, errors, events, buffers, compile and execute).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/plugins/cpu/cpu_plugin.h"

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

TEST_F(CpuTableTest, CompileRejectsUnknownFormatsOptionsAndBadPrograms) {
  const char code[] = "program @p {\n  %0 = parameter(0) : f32[2]\n  return (%0)\n}\n";
  auto program = SEAM_ABI_ARGS(PJRT_Program);
  program.code = code;
  program.code_size = sizeof(code) - 1;
  program.format = "hlo";
  program.format_size = 3;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  ErrorInfo error = Take(Api()->PJRT_Client_Compile(&compile));
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message, "Unknown program format 'hlo'.");

  program.format = "seam-ir";
  program.format_size = 7;
  PJRT_NamedValue option{};
  option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  option.name = "opt_level";
  option.name_size = 9;
  option.type = PJRT_NamedValue_kInt64;
  compile.compile_options = &option;
  compile.num_compile_options = 1;
  error = Take(Api()->PJRT_Client_Compile(&compile));
  EXPECT_EQ(
      error.message,
      "PJRT_Client_Compile: unknown compile option 'opt_level' (the cpu plugin accepts none)");

  compile.compile_options = nullptr;
  compile.num_compile_options = 0;
  const char bad[] = "program @p {\n  %0 = mul(%1) : f32[2]\n}\n";
  program.code = bad;
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
  program.code = code;
  program.code_size = sizeof(code) - 1;
  program.format = "seam-ir";
  program.format_size = 7;
  auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
  compile.client = client_;
  compile.program = &program;
  EXPECT_OK(Api()->PJRT_Client_Compile(&compile));
  auto num_outputs = SEAM_ABI_ARGS(PJRT_LoadedExecutable_NumOutputs_Args);
  num_outputs.executable = compile.executable;
  EXPECT_OK(Api()->PJRT_LoadedExecutable_NumOutputs(&num_outputs));
  ASSERT_EQ(num_outputs.num_outputs, 2u);

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
  program.code = code;
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
  program.code = code;
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
