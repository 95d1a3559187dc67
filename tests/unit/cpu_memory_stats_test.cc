// The CPU plugin's memory figures (PJRT_Device_MemoryStats, upstream's fields), through its
// function table: bytes in use is the sum of the on-device sizes of the device's live
// blocks, per device, with its peak; pool_bytes is that plus the block pool's cache; memory
// a run still reads counts until the run lets it go.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "tests/unit/cpu_error_text.h"

namespace {

using ::seam::testing::Api;
using ::seam::testing::Take;

// Dense bytes of a shape, computed here from the dimensions and the element size.
int64_t DenseBytes(const std::vector<int64_t>& dims, int64_t element_size) {
  int64_t bytes = element_size;
  for (int64_t d : dims) bytes *= d;
  return bytes;
}

class CpuMemoryStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = seam::cpu::kDeviceCountOption;
    option.name_size = std::strlen(seam::cpu::kDeviceCountOption);
    option.type = PJRT_NamedValue_kInt64;
    option.int64_value = 2;
    option.value_size = 1;
    auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
    args.create_options = &option;
    args.num_options = 1;
    ASSERT_EQ(Take(Api()->PJRT_Client_Create(&args)), "");
    client_ = args.client;
    auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
    devices.client = client_;
    EXPECT_OK(Api()->PJRT_Client_AddressableDevices(&devices));
    ASSERT_EQ(devices.num_addressable_devices, 2u);
    devices_.assign(devices.addressable_devices, devices.addressable_devices + 2);
  }
  void TearDown() override {
    auto args = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
    args.client = client_;
    EXPECT_OK(Api()->PJRT_Client_Destroy(&args));
  }

  PJRT_Device_MemoryStats_Args Stats(int device = 0) {
    auto args = SEAM_ABI_ARGS(PJRT_Device_MemoryStats_Args);
    args.device = devices_[device];
    EXPECT_OK(Api()->PJRT_Device_MemoryStats(&args));
    return args;
  }

  PJRT_Buffer* Upload(PJRT_Buffer_Type type, int64_t element_size, std::vector<int64_t> dims,
                      int device = 0) {
    std::vector<uint8_t> data(static_cast<size_t>(DenseBytes(dims, element_size)), 1);
    auto args = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    args.client = client_;
    args.data = data.data();
    args.type = type;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = devices_[device];
    EXPECT_OK(Api()->PJRT_Client_BufferFromHostBuffer(&args));
    DestroyEvent(args.done_with_host_buffer);
    return args.buffer;
  }

  int64_t OnDeviceSize(PJRT_Buffer* buffer) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_OnDeviceSizeInBytes_Args);
    args.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_OnDeviceSizeInBytes(&args));
    return static_cast<int64_t>(args.on_device_size_in_bytes);
  }

  void Destroy(PJRT_Buffer* buffer) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
    args.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_Destroy(&args));
  }

  void DestroyEvent(PJRT_Event* event) {
    auto args = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    args.event = event;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&args));
  }

  void AwaitAndDestroy(PJRT_Event* event) {
    auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
    await.event = event;
    EXPECT_OK(Api()->PJRT_Event_Await(&await));
    DestroyEvent(event);
  }

  PJRT_LoadedExecutable* Compile(const std::string& code) {
    auto program = SEAM_ABI_ARGS(PJRT_Program);
    program.code = const_cast<char*>(code.data());
    program.code_size = code.size();
    program.format = "seam-ir";
    program.format_size = 7;
    auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
    compile.client = client_;
    compile.program = &program;
    EXPECT_OK(Api()->PJRT_Client_Compile(&compile));
    return compile.executable;
  }

  void DestroyExecutable(PJRT_LoadedExecutable* executable) {
    auto args = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
    args.executable = executable;
    EXPECT_OK(Api()->PJRT_LoadedExecutable_Destroy(&args));
  }

  // Runs `executable` on device 0 with one argument; returns its one output and sets `done`
  // to the run's completion event.
  PJRT_Buffer* Execute(PJRT_LoadedExecutable* executable, PJRT_Buffer* arg, PJRT_Event** done) {
    PJRT_Buffer* output = nullptr;
    PJRT_Buffer* const* arg_list = &arg;
    PJRT_Buffer** out_list = &output;
    auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
    execute.executable = executable;
    execute.argument_lists = &arg_list;
    execute.num_devices = 1;
    execute.num_args = 1;
    execute.output_lists = &out_list;
    execute.device_complete_events = done;
    EXPECT_OK(Api()->PJRT_LoadedExecutable_Execute(&execute));
    return output;
  }

  PJRT_Client* client_ = nullptr;
  std::vector<PJRT_Device*> devices_;
};

TEST_F(CpuMemoryStatsTest, BytesInUseIsTheSumOfTheLiveBuffersSizes) {
  const PJRT_Device_MemoryStats_Args before = Stats();
  EXPECT_TRUE(before.peak_bytes_in_use_is_set);
  EXPECT_FALSE(before.bytes_limit_is_set);  // no limit of its own (docs/plugins.md)
  EXPECT_TRUE(before.pool_bytes_is_set);    // in use + the pool's cache
  EXPECT_GE(before.pool_bytes, before.bytes_in_use);
  EXPECT_FALSE(before.num_allocs_is_set);  // upstream's other figures: not tracked
  EXPECT_FALSE(before.bytes_reserved_is_set);
  EXPECT_FALSE(before.peak_pool_bytes_is_set);

  struct Spec {
    PJRT_Buffer_Type type;
    int64_t element_size;
    std::vector<int64_t> dims;
  };
  // Sizes off the pool's 64-byte and 4 KiB roundings on purpose: the figure counts the
  // buffers' own sizes, not the blocks' capacities.
  const std::vector<Spec> specs = {{PJRT_Buffer_Type_F32, 4, {3, 5}},
                                   {PJRT_Buffer_Type_PRED, 1, {1001}},
                                   {PJRT_Buffer_Type_F64, 8, {65, 64}},
                                   {PJRT_Buffer_Type_BF16, 2, {0, 7}}};
  struct Made {
    PJRT_Buffer* buffer;
    int64_t bytes;
  };
  std::vector<Made> made;
  int64_t expected = before.bytes_in_use;
  for (const Spec& spec : specs) {
    made.push_back({Upload(spec.type, spec.element_size, spec.dims),
                    DenseBytes(spec.dims, spec.element_size)});
    EXPECT_EQ(OnDeviceSize(made.back().buffer), made.back().bytes);
    expected += made.back().bytes;
    const PJRT_Device_MemoryStats_Args now = Stats();
    EXPECT_EQ(now.bytes_in_use, expected);
    EXPECT_GE(now.peak_bytes_in_use, now.bytes_in_use);
  }
  EXPECT_EQ(expected - before.bytes_in_use, 60 + 1001 + 33280 + 0);
  const int64_t peak = Stats().peak_bytes_in_use;
  EXPECT_EQ(Stats(1).bytes_in_use, 0);  // the other device holds none of them

  for (const Made& m : made) {
    Destroy(m.buffer);
    expected -= m.bytes;
    EXPECT_EQ(Stats().bytes_in_use, expected);
  }
  EXPECT_EQ(Stats().bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(Stats().peak_bytes_in_use, peak);  // the peak stays
}

TEST_F(CpuMemoryStatsTest, EachDeviceCountsItsOwnBuffers) {
  PJRT_Buffer* on_one = Upload(PJRT_Buffer_Type_S32, 4, {100}, 1);
  EXPECT_EQ(Stats(1).bytes_in_use, 400);
  EXPECT_EQ(Stats(1).peak_bytes_in_use, 400);
  EXPECT_EQ(Stats(0).bytes_in_use, 0);
  EXPECT_EQ(Stats(0).peak_bytes_in_use, 0);
  Destroy(on_one);
  EXPECT_EQ(Stats(1).bytes_in_use, 0);
}

// Upstream has no figure for the pool's cache alone: pool_bytes is the bytes in use plus
// the cached blocks (decision 12 of the PJRT migration), so the cache is the difference.
TEST_F(CpuMemoryStatsTest, PoolFigureIsInUsePlusTheBlockCacheOfFreedLargeBlocks) {
  auto cached_now = [this] {
    const PJRT_Device_MemoryStats_Args now = Stats();
    EXPECT_TRUE(now.pool_bytes_is_set);
    return now.pool_bytes - now.bytes_in_use;
  };
  // 32 KiB: a pooled block (16 KiB and more) whose size is already whole 4 KiB pages.
  constexpr int64_t kBytes = 32 * 1024;
  PJRT_Buffer* buffer = Upload(PJRT_Buffer_Type_PRED, 1, {kBytes});
  const int64_t cached = cached_now();
  const int64_t pool = Stats().pool_bytes;
  Destroy(buffer);
  EXPECT_EQ(cached_now(), cached + kBytes);  // kept for reuse, not in use
  EXPECT_EQ(Stats().pool_bytes, pool);       // moved from in use to the cache
  buffer = Upload(PJRT_Buffer_Type_PRED, 1, {kBytes});
  EXPECT_EQ(cached_now(), cached);  // reused
  Destroy(buffer);
}

TEST_F(CpuMemoryStatsTest, RunOutputsCountAndADestroyedArgumentCountsUntilTheRunEnds) {
  PJRT_LoadedExecutable* executable = Compile(
      "program @p {\n  %0 = parameter(0) : f32[1024]\n  %1 = add(%0, %0) : f32[1024]\n"
      "  return (%1)\n}\n");
  const int64_t base = Stats().bytes_in_use;
  constexpr int64_t kBytes = 1024 * 4;
  PJRT_Buffer* arg = Upload(PJRT_Buffer_Type_F32, 4, {1024});
  PJRT_Event* done = nullptr;
  PJRT_Buffer* output = nullptr;
  {
    seam::cpu::testing::ExecutionHold hold;  // the run waits on the device's worker
    output = Execute(executable, arg, &done);
    Destroy(arg);
    EXPECT_EQ(Stats().bytes_in_use, base + kBytes);  // the held run still reads it
  }
  AwaitAndDestroy(done);
  // The worker drops the run's hold on the argument just after the completion event: wait
  // (bounded) for that.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (Stats().bytes_in_use != base + kBytes && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(Stats().bytes_in_use, base + kBytes);           // the output only
  EXPECT_GE(Stats().peak_bytes_in_use, base + 2 * kBytes);  // argument and output at once
  Destroy(output);
  EXPECT_EQ(Stats().bytes_in_use, base);
  DestroyExecutable(executable);
}

// Threads making and freeing buffers while another reads the figures (also run under
// ThreadSanitizer): every figure read is one that really occurred, and the counts end exact.
TEST_F(CpuMemoryStatsTest, FiguresStayExactUnderConcurrentUploadsAndQueries) {
  constexpr int kThreads = 4;
  constexpr int64_t kBytes = 256 * 4;
  ASSERT_EQ(Stats().bytes_in_use, 0);  // a new client
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this] {
      for (int i = 0; i < 200; ++i) Destroy(Upload(PJRT_Buffer_Type_F32, 4, {256}));
    });
  }
  for (int i = 0; i < 200; ++i) {
    const PJRT_Device_MemoryStats_Args now = Stats();
    EXPECT_GE(now.bytes_in_use, 0);
    EXPECT_LE(now.bytes_in_use, kThreads * kBytes);  // one buffer per thread at most
    EXPECT_EQ(now.bytes_in_use % kBytes, 0);
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(Stats().bytes_in_use, 0);
  EXPECT_GE(Stats().peak_bytes_in_use, kBytes);
  EXPECT_LE(Stats().peak_bytes_in_use, kThreads * kBytes);
}

TEST_F(CpuMemoryStatsTest, BadArgumentsAreRefusedByName) {
  auto args = SEAM_ABI_ARGS(PJRT_Device_MemoryStats_Args);
  args.device = nullptr;
  EXPECT_EQ(Take(Api()->PJRT_Device_MemoryStats(&args)),
            "PJRT_Device_MemoryStats: args->device is null");
  args.device = devices_[0];
  args.struct_size = PJRT_STRUCT_SIZE(PJRT_Device_MemoryStats_Args, bytes_in_use);
  EXPECT_EQ(Take(Api()->PJRT_Device_MemoryStats(&args)),
            absl::StrCat("Unexpected PJRT_Device_MemoryStats_Args size: expected ",
                         PJRT_Device_MemoryStats_Args_STRUCT_SIZE, ", got ", args.struct_size,
                         ". Check installed software versions. The framework PJRT API version "
                         "is ",
                         PJRT_API_MAJOR, ".", PJRT_API_MINOR, "."));
}

}  // namespace
