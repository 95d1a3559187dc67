// Buffer donation on the CPU plugin: an input/output alias in the program makes the output
// live in the donated argument's memory, and the donated handle reports itself donated.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/testing_hooks.h"

namespace {

const PJRT_Api* Api() { return seam::cpu::GetCpuPjrtApi(); }

template <typename Args>
Args Make() {
  Args args{};
  args.struct_size = sizeof(Args);
  return args;
}

struct ErrorInfo {
  PJRT_Error_Code code = static_cast<PJRT_Error_Code>(0);
  std::string message;
};

ErrorInfo Take(PJRT_Error* error) {
  if (error == nullptr) return {};
  auto message = Make<PJRT_Error_Message_Args>();
  message.error = error;
  Api()->PJRT_Error_Message(&message);
  auto code = Make<PJRT_Error_GetCode_Args>();
  code.error = error;
  Api()->PJRT_Error_GetCode(&code);
  ErrorInfo info{code.code, std::string(message.message, message.message_size)};
  auto destroy = Make<PJRT_Error_Destroy_Args>();
  destroy.error = error;
  Api()->PJRT_Error_Destroy(&destroy);
  return info;
}

#define EXPECT_OK(call) EXPECT_EQ(Take(call).message, "")

// Records which event's callback ran, in order (callbacks run on the device's worker).
struct Order {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> seen;

  std::vector<int> WaitFor(size_t count) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, std::chrono::seconds(30), [&] { return seen.size() >= count; });
    return seen;
  }
};
struct Tag {
  Order* order;
  int id;
};
void Record(PJRT_Error* error, void* user_arg) {
  EXPECT_EQ(error, nullptr);
  auto* tag = static_cast<Tag*>(user_arg);
  std::lock_guard<std::mutex> lock(tag->order->mu);
  tag->order->seen.push_back(tag->id);
  tag->order->cv.notify_all();
}

// p0 + p1, written into p0's memory; the sum's reduction is a second, fresh output.
constexpr char kDonating[] =
    "program @step {\n"
    "  %0 = parameter(0) : f32[4]\n"
    "  %1 = parameter(1) : f32[4]\n"
    "  %2 = add(%0, %1) : f32[4]\n"
    "  %3 = reduce_sum(%2), axes={0} : f32[]\n"
    "  alias output 0 = parameter 0\n"
    "  return (%2, %3)\n"
    "}\n";

class CpuDonationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto args = Make<PJRT_Client_Create_Args>();
    ASSERT_EQ(Take(Api()->PJRT_Client_Create(&args)).message, "");
    client_ = args.client;
    auto devices = Make<PJRT_Client_AddressableDevices_Args>();
    devices.client = client_;
    EXPECT_OK(Api()->PJRT_Client_AddressableDevices(&devices));
    device_ = devices.addressable_devices[0];
    executable_ = Compile(kDonating);
    ASSERT_NE(executable_, nullptr);
  }
  void TearDown() override {
    DestroyExecutable(executable_);
    auto args = Make<PJRT_Client_Destroy_Args>();
    args.client = client_;
    EXPECT_OK(Api()->PJRT_Client_Destroy(&args));
  }

  PJRT_LoadedExecutable* Compile(const std::string& text) {
    auto program = Make<PJRT_Program>();
    program.code = const_cast<char*>(text.data());
    program.code_size = text.size();
    program.format = "seam-ir";
    program.format_size = 7;
    auto compile = Make<PJRT_Client_Compile_Args>();
    compile.client = client_;
    compile.program = &program;
    EXPECT_OK(Api()->PJRT_Client_Compile(&compile));
    return compile.executable;
  }

  void DestroyExecutable(PJRT_LoadedExecutable* executable) {
    auto destroy = Make<PJRT_LoadedExecutable_Destroy_Args>();
    destroy.executable = executable;
    EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
  }

  PJRT_Buffer* Upload(std::vector<float> values) {
    int64_t dims[1] = {static_cast<int64_t>(values.size())};
    auto args = Make<PJRT_Client_BufferFromHostBuffer_Args>();
    args.client = client_;
    args.data = values.data();
    args.type = PJRT_Buffer_Type_F32;
    args.dims = dims;
    args.num_dims = 1;
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = device_;
    EXPECT_OK(Api()->PJRT_Client_BufferFromHostBuffer(&args));
    auto destroy = Make<PJRT_Event_Destroy_Args>();
    destroy.event = args.done_with_host_buffer;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
    return args.buffer;
  }

  std::vector<float> Download(PJRT_Buffer* buffer, size_t count) {
    std::vector<float> out(count);
    auto args = Make<PJRT_Buffer_ToHostBuffer_Args>();
    args.src = buffer;
    args.dst = out.data();
    args.dst_size = count * sizeof(float);
    EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&args));
    auto await = Make<PJRT_Event_Await_Args>();
    await.event = args.event;
    EXPECT_OK(Api()->PJRT_Event_Await(&await));
    auto destroy = Make<PJRT_Event_Destroy_Args>();
    destroy.event = args.event;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
    return out;
  }

  ErrorInfo Execute(std::vector<PJRT_Buffer*> arguments, PJRT_Buffer** outputs,
                    PJRT_LoadedExecutable* executable = nullptr) {
    PJRT_Buffer* const* arg_list = arguments.data();
    auto execute = Make<PJRT_LoadedExecutable_Execute_Args>();
    execute.executable = executable != nullptr ? executable : executable_;
    execute.argument_lists = &arg_list;
    execute.num_devices = 1;
    execute.num_args = arguments.size();
    execute.output_lists = &outputs;
    return Take(Api()->PJRT_LoadedExecutable_Execute(&execute));
  }

  void Destroy(PJRT_Buffer* buffer) {
    auto args = Make<PJRT_Buffer_Destroy_Args>();
    args.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_Destroy(&args));
  }

  PJRT_Client* client_ = nullptr;
  PJRT_Device* device_ = nullptr;
  PJRT_LoadedExecutable* executable_ = nullptr;
};

TEST_F(CpuDonationTest, OutputTakesTheDonatedMemory) {
  PJRT_Buffer* a = Upload({1, 2, 3, 4});
  PJRT_Buffer* b = Upload({10, 20, 30, 40});
  const void* a_memory = seam::cpu::testing::BufferDataAddress(a);
  ASSERT_NE(a_memory, nullptr);
  PJRT_Buffer* outputs[2] = {};
  ASSERT_EQ(Execute({a, b}, outputs).message, "");
  EXPECT_EQ(Download(outputs[0], 4), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(Download(outputs[1], 1), (std::vector<float>{110}));
  EXPECT_EQ(seam::cpu::testing::BufferDataAddress(outputs[0]), a_memory);
  EXPECT_NE(seam::cpu::testing::BufferDataAddress(outputs[1]), a_memory);
  // The undonated argument is untouched and still readable.
  EXPECT_EQ(Download(b, 4), (std::vector<float>{10, 20, 30, 40}));
  for (PJRT_Buffer* buffer : {a, b, outputs[0], outputs[1]}) Destroy(buffer);
}

TEST_F(CpuDonationTest, DonatedBufferReportsDonated) {
  PJRT_Buffer* a = Upload({1, 2, 3, 4});
  PJRT_Buffer* b = Upload({1, 1, 1, 1});
  PJRT_Buffer* outputs[2] = {};
  ASSERT_EQ(Execute({a, b}, outputs).message, "");

  auto is_deleted = Make<PJRT_Buffer_IsDeleted_Args>();
  is_deleted.buffer = a;
  EXPECT_OK(Api()->PJRT_Buffer_IsDeleted(&is_deleted));
  EXPECT_TRUE(is_deleted.is_deleted);

  float host[4];
  auto to_host = Make<PJRT_Buffer_ToHostBuffer_Args>();
  to_host.src = a;
  to_host.dst = host;
  to_host.dst_size = sizeof(host);
  ErrorInfo error = Take(Api()->PJRT_Buffer_ToHostBuffer(&to_host));
  EXPECT_EQ(error.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(error.message, "PJRT_Buffer_ToHostBuffer: the buffer was donated to an execution");

  // As upstream: the ready event of a donated buffer is ready at once, with the error.
  auto ready = Make<PJRT_Buffer_ReadyEvent_Args>();
  ready.buffer = a;
  EXPECT_OK(Api()->PJRT_Buffer_ReadyEvent(&ready));
  ASSERT_NE(ready.event, nullptr);
  auto await_ready = Make<PJRT_Event_Await_Args>();
  await_ready.event = ready.event;
  error = Take(Api()->PJRT_Event_Await(&await_ready));
  EXPECT_EQ(error.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(error.message, "PJRT_Buffer_ReadyEvent: the buffer was donated to an execution");
  auto destroy_ready = Make<PJRT_Event_Destroy_Args>();
  destroy_ready.event = ready.event;
  EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy_ready));

  PJRT_Buffer* again[2] = {};
  error = Execute({a, b}, again);
  EXPECT_EQ(error.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(error.message,
            "PJRT_LoadedExecutable_Execute: argument 0: the buffer was donated to an earlier "
            "execution");

  // The output can be donated in turn: a training step's weights, updated in place.
  EXPECT_EQ(Download(outputs[0], 4), (std::vector<float>{2, 3, 4, 5}));
  const void* memory = seam::cpu::testing::BufferDataAddress(outputs[0]);
  PJRT_Buffer* next[2] = {};
  ASSERT_EQ(Execute({outputs[0], b}, next).message, "");
  EXPECT_EQ(Download(next[0], 4), (std::vector<float>{3, 4, 5, 6}));
  EXPECT_EQ(seam::cpu::testing::BufferDataAddress(next[0]), memory);
  for (PJRT_Buffer* buffer : {a, b, outputs[0], outputs[1], next[0], next[1]}) Destroy(buffer);
}

// A handle without memory (donated, or deleted) still answers for its shape; the outputs of
// two runs each report theirs (they share the executable's result shapes).
TEST_F(CpuDonationTest, HandlesWithoutMemoryKeepTheirShape) {
  PJRT_Buffer* a = Upload({1, 2, 3, 4});
  PJRT_Buffer* b = Upload({1, 1, 1, 1});
  PJRT_Buffer* outputs[2] = {};
  ASSERT_EQ(Execute({a, b}, outputs).message, "");
  auto delete_args = Make<PJRT_Buffer_Delete_Args>();
  delete_args.buffer = b;
  EXPECT_OK(Api()->PJRT_Buffer_Delete(&delete_args));
  for (PJRT_Buffer* buffer : {a, b, outputs[0]}) {
    auto dims = Make<PJRT_Buffer_Dimensions_Args>();
    dims.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_Dimensions(&dims));
    ASSERT_EQ(dims.num_dims, 1u);
    EXPECT_EQ(dims.dims[0], 4);
    auto type = Make<PJRT_Buffer_ElementType_Args>();
    type.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_ElementType(&type));
    EXPECT_EQ(type.type, PJRT_Buffer_Type_F32);
  }
  auto dims = Make<PJRT_Buffer_Dimensions_Args>();
  dims.buffer = outputs[1];
  EXPECT_OK(Api()->PJRT_Buffer_Dimensions(&dims));
  EXPECT_EQ(dims.num_dims, 0u);
  auto size = Make<PJRT_Buffer_OnDeviceSizeInBytes_Args>();
  size.buffer = b;
  ErrorInfo error = Take(Api()->PJRT_Buffer_OnDeviceSizeInBytes(&size));
  EXPECT_EQ(error.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(error.message, "PJRT_Buffer_OnDeviceSizeInBytes: the buffer was deleted");
  PJRT_Buffer* again[2] = {};
  error = Execute({outputs[0], b}, again);
  EXPECT_EQ(error.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_EQ(error.message, "PJRT_LoadedExecutable_Execute: argument 1 was deleted");
  for (PJRT_Buffer* buffer : {a, b, outputs[0], outputs[1]}) Destroy(buffer);
}

TEST_F(CpuDonationTest, RefusesTheDonatedBufferAsAnotherArgument) {
  PJRT_Buffer* a = Upload({1, 2, 3, 4});
  PJRT_Buffer* outputs[2] = {};
  ErrorInfo error = Execute({a, a}, outputs);
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "PJRT_LoadedExecutable_Execute: argument 0 is donated (alias output 0 = parameter "
            "0) but the same buffer is also argument 1");
  // A refused call donates nothing.
  EXPECT_EQ(Download(a, 4), (std::vector<float>{1, 2, 3, 4}));
  Destroy(a);
}

// A queued run sets its completion event first (its callbacks run then), and its outputs
// become ready after that, together.
TEST_F(CpuDonationTest, AQueuedRunsOutputsBecomeReadyAfterItsCompletion) {
  PJRT_Buffer* a = Upload({1, 2, 3, 4});
  PJRT_Buffer* b = Upload({1, 1, 1, 1});
  PJRT_Buffer* outputs[2] = {};
  PJRT_Event* done = nullptr;
  PJRT_Event* ready[2] = {};
  Order order;
  Tag tags[3] = {{&order, 0}, {&order, 1}, {&order, 2}};
  {
    seam::cpu::testing::ExecutionHold hold;
    PJRT_Buffer* arguments[2] = {a, b};
    PJRT_Buffer* const* arg_list = arguments;
    PJRT_Buffer** out_list = outputs;
    auto execute = Make<PJRT_LoadedExecutable_Execute_Args>();
    execute.executable = executable_;
    execute.argument_lists = &arg_list;
    execute.num_devices = 1;
    execute.num_args = 2;
    execute.output_lists = &out_list;
    execute.device_complete_events = &done;
    EXPECT_OK(Api()->PJRT_LoadedExecutable_Execute(&execute));
    // The donated input is deleted once the launch returns, though its run has not started
    // (as XLA's plugins do: a framework that reads it again fails at once).
    auto donated = Make<PJRT_Buffer_IsDeleted_Args>();
    donated.buffer = a;
    EXPECT_OK(Api()->PJRT_Buffer_IsDeleted(&donated));
    EXPECT_TRUE(donated.is_deleted);
    auto kept = Make<PJRT_Buffer_IsDeleted_Args>();
    kept.buffer = b;
    EXPECT_OK(Api()->PJRT_Buffer_IsDeleted(&kept));
    EXPECT_FALSE(kept.is_deleted);
    for (int o = 0; o < 2; ++o) {
      auto event = Make<PJRT_Buffer_ReadyEvent_Args>();
      event.buffer = outputs[o];
      EXPECT_OK(Api()->PJRT_Buffer_ReadyEvent(&event));
      ready[o] = event.event;
    }
    PJRT_Event* events[3] = {done, ready[0], ready[1]};
    for (int k = 0; k < 3; ++k) {
      auto on_ready = Make<PJRT_Event_OnReady_Args>();
      on_ready.event = events[k];
      on_ready.callback = Record;
      on_ready.user_arg = &tags[k];
      EXPECT_OK(Api()->PJRT_Event_OnReady(&on_ready));
    }
    auto is_ready = Make<PJRT_Event_IsReady_Args>();
    is_ready.event = ready[1];
    EXPECT_OK(Api()->PJRT_Event_IsReady(&is_ready));
    EXPECT_FALSE(is_ready.is_ready) << "held: the run has not started";
    EXPECT_TRUE(order.WaitFor(0).empty());
  }
  auto await = Make<PJRT_Event_Await_Args>();
  await.event = ready[1];
  EXPECT_OK(Api()->PJRT_Event_Await(&await));
  EXPECT_EQ(order.WaitFor(3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Download(outputs[0], 4), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(Download(outputs[1], 1), (std::vector<float>{14}));
  for (PJRT_Event* event : {done, ready[0], ready[1]}) {
    auto destroy = Make<PJRT_Event_Destroy_Args>();
    destroy.event = event;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
  }
  for (PJRT_Buffer* buffer : {a, b, outputs[0], outputs[1]}) Destroy(buffer);
}

// Only a donated buffer is refused as a second argument: an undonated one may be passed
// twice, and the refusal names the first repeat of the donated one.
TEST_F(CpuDonationTest, AnUndonatedBufferMayBePassedTwice) {
  PJRT_LoadedExecutable* three = Compile(
      "program @three {\n"
      "  %0 = parameter(0) : f32[4]\n"
      "  %1 = parameter(1) : f32[4]\n"
      "  %2 = parameter(2) : f32[4]\n"
      "  %3 = add(%0, %1) : f32[4]\n"
      "  %4 = multiply(%3, %2) : f32[4]\n"
      "  alias output 0 = parameter 0\n"
      "  return (%4)\n"
      "}\n");
  ASSERT_NE(three, nullptr);
  PJRT_Buffer* a = Upload({1, 2, 3, 4});
  PJRT_Buffer* b = Upload({2, 2, 2, 2});
  PJRT_Buffer* c = Upload({1, 1, 1, 1});
  PJRT_Buffer* refused[1] = {};
  ErrorInfo error = Execute({a, c, a}, refused, three);
  EXPECT_EQ(error.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(error.message,
            "PJRT_LoadedExecutable_Execute: argument 0 is donated (alias output 0 = parameter "
            "0) but the same buffer is also argument 2");
  PJRT_Buffer* outputs[1] = {};
  ASSERT_EQ(Execute({a, b, b}, outputs, three).message, "");
  EXPECT_EQ(Download(outputs[0], 4), (std::vector<float>{6, 8, 10, 12}));
  for (PJRT_Buffer* buffer : {a, b, c, outputs[0]}) Destroy(buffer);
  DestroyExecutable(three);
}

}  // namespace
