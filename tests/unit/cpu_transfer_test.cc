// Ranged reads and streamed uploads: the CPU plugin's PJRT_Buffer_CopyRawToHost and
// host-to-device transfer manager (upstream's semantics: the manager is made for a memory)
// through its function table (ranges, readiness, every refusal, nothing left allocated),
// then the PJRT client's TransferFromDeviceRange and StartUpload over that plugin and over
// the same plugin with those slots null (so the client must take its host-staged defaults).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"
#include "tests/unit/cpu_error_text.h"
#include "tests/unit/mapping_flags.h"

namespace {

using ::testing::HasSubstr;

using ::seam::testing::Api;
using ::seam::testing::Take;

// The bytes 0, 1, 2, ... (mod 251) of a buffer of `n` bytes.
std::vector<uint8_t> Pattern(size_t n, uint8_t start = 0) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>((start + i) % 251);
  return bytes;
}

// An event's outcome ("" for OK), awaited and destroyed.
std::string AwaitEvent(PJRT_Event* event) {
  auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
  await.event = event;
  std::string outcome = Take(Api()->PJRT_Event_Await(&await));
  auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
  destroy.event = event;
  EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
  return outcome;
}

class CpuTransferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto args = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
    ASSERT_EQ(Take(Api()->PJRT_Client_Create(&args)), "");
    client_ = args.client;
    auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
    devices.client = client_;
    EXPECT_OK(Api()->PJRT_Client_AddressableDevices(&devices));
    ASSERT_GE(devices.num_addressable_devices, 1u);
    device_ = devices.addressable_devices[0];
    auto memory = SEAM_ABI_ARGS(PJRT_Device_DefaultMemory_Args);
    memory.device = device_;
    EXPECT_OK(Api()->PJRT_Device_DefaultMemory(&memory));
    memory_ = memory.memory;
  }
  void TearDown() override {
    auto args = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
    args.client = client_;
    EXPECT_OK(Api()->PJRT_Client_Destroy(&args));
  }

  int64_t BytesInUse() {
    auto args = SEAM_ABI_ARGS(PJRT_Device_MemoryStats_Args);
    args.device = device_;
    EXPECT_OK(Api()->PJRT_Device_MemoryStats(&args));
    return args.bytes_in_use;
  }

  // A manager of f32[4] (16 bytes) and s32[2,3] (24 bytes); "" or the error.
  std::string Create(PJRT_AsyncHostToDeviceTransferManager** manager,
                     PJRT_Buffer_Type second_type = PJRT_Buffer_Type_S32) {
    static const int64_t kDims0[] = {4};
    static const int64_t kDims1[] = {2, 3};
    PJRT_ShapeSpec specs[2] = {SEAM_ABI_ARGS(PJRT_ShapeSpec), SEAM_ABI_ARGS(PJRT_ShapeSpec)};
    specs[0].dims = kDims0;
    specs[0].num_dims = 1;
    specs[0].element_type = PJRT_Buffer_Type_F32;
    specs[1].dims = kDims1;
    specs[1].num_dims = 2;
    specs[1].element_type = second_type;
    return CreateFor(specs, 2, manager);
  }

  // A manager of the `count` buffers `specs` describe; "" or the error.
  std::string CreateFor(PJRT_ShapeSpec* specs, size_t count,
                        PJRT_AsyncHostToDeviceTransferManager** manager) {
    auto args = SEAM_ABI_ARGS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args);
    args.client = client_;
    args.shape_specs = specs;
    args.num_shape_specs = count;
    args.memory = memory_;
    std::string error = Take(Api()->PJRT_Client_CreateBuffersForAsyncHostToDevice(&args));
    *manager = args.transfer_manager;
    return error;
  }

  std::string Transfer(PJRT_AsyncHostToDeviceTransferManager* manager, int index, const void* data,
                       int64_t offset, int64_t size, bool last) {
    auto args = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args);
    args.transfer_manager = manager;
    args.buffer_index = index;
    args.data = data;
    args.offset = offset;
    args.transfer_size = size;
    args.is_last_transfer = last;
    std::string error = Take(Api()->PJRT_AsyncHostToDeviceTransferManager_TransferData(&args));
    if (error.empty()) {
      EXPECT_EQ(AwaitEvent(args.done_with_h2d_transfer), "");
    }
    return error;
  }

  std::string Retrieve(PJRT_AsyncHostToDeviceTransferManager* manager, int index,
                       PJRT_Buffer** buffer) {
    auto args = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args);
    args.transfer_manager = manager;
    args.buffer_index = index;
    std::string error = Take(Api()->PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer(&args));
    *buffer = args.buffer_out;
    return error;
  }

  void DestroyManager(PJRT_AsyncHostToDeviceTransferManager* manager) {
    auto args = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args);
    args.transfer_manager = manager;
    EXPECT_OK(Api()->PJRT_AsyncHostToDeviceTransferManager_Destroy(&args));
  }

  void DestroyBuffer(PJRT_Buffer* buffer) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
    args.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_Destroy(&args));
  }

  bool IsReady(PJRT_Buffer* buffer) {
    auto ready = SEAM_ABI_ARGS(PJRT_Buffer_ReadyEvent_Args);
    ready.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_ReadyEvent(&ready));
    auto is_ready = SEAM_ABI_ARGS(PJRT_Event_IsReady_Args);
    is_ready.event = ready.event;
    EXPECT_OK(Api()->PJRT_Event_IsReady(&is_ready));
    auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = ready.event;
    EXPECT_OK(Api()->PJRT_Event_Destroy(&destroy));
    return is_ready.is_ready;
  }

  // Starts a copy of [offset, offset + size) into `dst`; "" or the call's error.
  std::string CopyRaw(PJRT_Buffer* buffer, void* dst, int64_t offset, int64_t size,
                      PJRT_Event** event) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_CopyRawToHost_Args);
    args.buffer = buffer;
    args.dst = dst;
    args.offset = offset;
    args.transfer_size = size;
    std::string error = Take(Api()->PJRT_Buffer_CopyRawToHost(&args));
    *event = args.event;
    return error;
  }

  // `bytes` (a multiple of 4) uploaded as f32[bytes.size() / 4] with
  // PJRT_Client_BufferFromHostBuffer; null (and a test failure) if the plugin refused.
  PJRT_Buffer* FromHost(const std::vector<uint8_t>& bytes) {
    const int64_t dims[] = {static_cast<int64_t>(bytes.size() / 4)};
    auto args = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    args.client = client_;
    args.data = bytes.data();
    args.type = PJRT_Buffer_Type_F32;
    args.dims = dims;
    args.num_dims = 1;
    args.device = device_;
    const std::string error = Take(Api()->PJRT_Client_BufferFromHostBuffer(&args));
    EXPECT_EQ(error, "");
    if (!error.empty()) return nullptr;
    EXPECT_EQ(AwaitEvent(args.done_with_host_buffer), "");
    return args.buffer;
  }

  PJRT_Client* client_ = nullptr;
  PJRT_Device* device_ = nullptr;
  PJRT_Memory* memory_ = nullptr;
};

TEST_F(CpuTransferTest, PiecesInAnyOrderMakeTheBufferReadyAtTheLast) {
  const int64_t before = BytesInUse();
  PJRT_AsyncHostToDeviceTransferManager* manager = nullptr;
  ASSERT_EQ(Create(&manager), "");
  EXPECT_EQ(BytesInUse(), before + 16 + 24);  // allocated at create
  PJRT_Buffer* first = nullptr;
  PJRT_Buffer* second = nullptr;
  ASSERT_EQ(Retrieve(manager, 0, &first), "");  // usable before its bytes arrive
  const std::vector<uint8_t> a = Pattern(16, 7);
  const std::vector<uint8_t> b = Pattern(24, 100);
  EXPECT_EQ(Transfer(manager, 0, a.data() + 8, 8, 8, false), "");
  EXPECT_FALSE(IsReady(first));
  // A ranged read started now waits for the buffer.
  std::vector<uint8_t> early(6, 0);
  PJRT_Event* early_event = nullptr;
  ASSERT_EQ(CopyRaw(first, early.data(), 5, 6, &early_event), "");
  EXPECT_EQ(Transfer(manager, 1, b.data(), 0, 24, true), "");
  EXPECT_FALSE(IsReady(first));
  EXPECT_EQ(Transfer(manager, 0, a.data(), 0, 8, true), "");  // the last piece, not the last bytes
  EXPECT_TRUE(IsReady(first));
  EXPECT_EQ(AwaitEvent(early_event), "");
  EXPECT_EQ(early, std::vector<uint8_t>(a.begin() + 5, a.begin() + 11));
  ASSERT_EQ(Retrieve(manager, 1, &second), "");
  DestroyManager(manager);  // retrieved buffers stay valid

  std::vector<uint8_t> whole(24, 0);
  auto to_host = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
  to_host.src = second;
  to_host.dst = whole.data();
  to_host.dst_size = whole.size();
  EXPECT_OK(Api()->PJRT_Buffer_ToHostBuffer(&to_host));
  EXPECT_EQ(AwaitEvent(to_host.event), "");
  EXPECT_EQ(whole, b);
  // Every range of the first buffer, including empty ones at either end.
  for (int64_t offset = 0; offset <= 16; offset += 4) {
    for (int64_t size = 0; offset + size <= 16; size += 3) {
      std::vector<uint8_t> piece(static_cast<size_t>(size), 0);
      PJRT_Event* event = nullptr;
      ASSERT_EQ(CopyRaw(first, size == 0 ? nullptr : piece.data(), offset, size, &event), "");
      EXPECT_EQ(AwaitEvent(event), "");
      EXPECT_EQ(piece, std::vector<uint8_t>(a.begin() + offset, a.begin() + offset + size))
          << offset << "+" << size;
    }
  }
  DestroyBuffer(first);
  DestroyBuffer(second);
  EXPECT_EQ(BytesInUse(), before);
}

TEST_F(CpuTransferTest, RefusesBadPiecesNamingTheValues) {
  PJRT_AsyncHostToDeviceTransferManager* manager = nullptr;
  ASSERT_EQ(Create(&manager), "");
  const std::vector<uint8_t> a = Pattern(32);
  EXPECT_THAT(Transfer(manager, 2, a.data(), 0, 4, false),
              HasSubstr("buffer_index 2 is out of range: the manager has 2 buffer(s)"));
  EXPECT_THAT(Transfer(manager, -1, a.data(), 0, 4, false), HasSubstr("buffer_index -1"));
  EXPECT_THAT(Transfer(manager, 0, a.data(), 12, 8, false),
              HasSubstr("offset 12 + transfer_size 8 reaches past the end of buffer 0 f32[4] "
                        "(16 bytes)"));
  EXPECT_THAT(Transfer(manager, 0, a.data(), -4, 4, false),
              HasSubstr("offset -4 and transfer_size 4 must not be negative"));
  EXPECT_THAT(Transfer(manager, 0, a.data(), 0, -1, false), HasSubstr("must not be negative"));
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_THAT(Transfer(manager, 0, a.data(), 8, huge, false),
              HasSubstr("offset 8 + transfer_size " + std::to_string(huge)));
  EXPECT_THAT(Transfer(manager, 0, a.data(), huge, 16, false), HasSubstr("reaches past the end"));
  EXPECT_THAT(Transfer(manager, 0, nullptr, 0, 4, false), HasSubstr("data is null"));
  EXPECT_EQ(Transfer(manager, 0, nullptr, 16, 0, false), "");  // empty at the end: fine
  EXPECT_EQ(Transfer(manager, 0, a.data(), 0, 16, true), "");
  EXPECT_THAT(Transfer(manager, 0, a.data(), 0, 4, false),
              HasSubstr("buffer 0 f32[4] already had its last transfer"));
  EXPECT_THAT(Transfer(manager, 0, a.data(), 0, 4, true), HasSubstr("already had its last"));
  PJRT_Buffer* buffer = nullptr;
  ASSERT_EQ(Retrieve(manager, 0, &buffer), "");
  PJRT_Buffer* again = nullptr;
  EXPECT_THAT(Retrieve(manager, 0, &again), HasSubstr("buffer 0 f32[4] was already retrieved"));
  EXPECT_THAT(Retrieve(manager, 5, &again), HasSubstr("buffer_index 5 is out of range"));
  DestroyManager(manager);
  DestroyBuffer(buffer);

  // Shape specs: an unknown type, null dims, a too-small struct; nothing stays allocated.
  const int64_t before = BytesInUse();
  EXPECT_THAT(Create(&manager, static_cast<PJRT_Buffer_Type>(99)), HasSubstr("shape_specs[1]"));
  EXPECT_EQ(manager, nullptr);
  PJRT_ShapeSpec spec = SEAM_ABI_ARGS(PJRT_ShapeSpec);
  spec.num_dims = 2;
  spec.element_type = PJRT_Buffer_Type_F32;
  auto args = SEAM_ABI_ARGS(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args);
  args.client = client_;
  args.shape_specs = &spec;
  args.num_shape_specs = 1;
  args.memory = memory_;
  EXPECT_THAT(Take(Api()->PJRT_Client_CreateBuffersForAsyncHostToDevice(&args)),
              HasSubstr("shape_specs[0].dims is null with num_dims 2"));
  spec.struct_size = 8;
  EXPECT_THAT(Take(Api()->PJRT_Client_CreateBuffersForAsyncHostToDevice(&args)),
              HasSubstr("shape_specs[0].struct_size is 8"));
  args.memory = nullptr;
  EXPECT_THAT(Take(Api()->PJRT_Client_CreateBuffersForAsyncHostToDevice(&args)),
              HasSubstr("memory is null"));
  // Device layouts: only the dense one.
  const int64_t dims[2] = {2, 2};
  spec = SEAM_ABI_ARGS(PJRT_ShapeSpec);
  spec.dims = dims;
  spec.num_dims = 2;
  spec.element_type = PJRT_Buffer_Type_F32;
  const int64_t column_major[2] = {0, 1};
  PJRT_Buffer_MemoryLayout layout = SEAM_ABI_ARGS(PJRT_Buffer_MemoryLayout);
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled = SEAM_ABI_ARGS(PJRT_Buffer_MemoryLayout_Tiled);
  layout.tiled.minor_to_major = column_major;
  layout.tiled.minor_to_major_size = 2;
  PJRT_Buffer_MemoryLayout* layouts[1] = {&layout};
  args.memory = memory_;
  args.device_layouts = layouts;
  args.num_device_layouts = 1;
  EXPECT_THAT(Take(Api()->PJRT_Client_CreateBuffersForAsyncHostToDevice(&args)),
              HasSubstr("PJRT_Client_CreateBuffersForAsyncHostToDevice: device_layouts[0] has "
                        "minor_to_major [0,1]"));
  EXPECT_EQ(BytesInUse(), before);
}

// Upstream's Device, BufferCount, BufferSize and SetBufferError; AddMetadata and
// TransferLiteral are not served.
TEST_F(CpuTransferTest, ManagerQueriesAndBufferErrors) {
  PJRT_AsyncHostToDeviceTransferManager* manager = nullptr;
  ASSERT_EQ(Create(&manager), "");
  auto device = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_Device_Args);
  device.transfer_manager = manager;
  EXPECT_OK(Api()->PJRT_AsyncHostToDeviceTransferManager_Device(&device));
  EXPECT_EQ(device.device_out, device_);
  auto count = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args);
  count.transfer_manager = manager;
  EXPECT_OK(Api()->PJRT_AsyncHostToDeviceTransferManager_BufferCount(&count));
  EXPECT_EQ(count.buffer_count, 2u);
  auto size = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args);
  size.transfer_manager = manager;
  size.buffer_index = 1;
  EXPECT_OK(Api()->PJRT_AsyncHostToDeviceTransferManager_BufferSize(&size));
  EXPECT_EQ(size.buffer_size, 24u);
  size.buffer_index = 2;
  EXPECT_THAT(Take(Api()->PJRT_AsyncHostToDeviceTransferManager_BufferSize(&size)),
              HasSubstr("buffer_index 2 is out of range: the manager has 2 buffer(s)"));

  PJRT_Buffer* buffer = nullptr;
  ASSERT_EQ(Retrieve(manager, 1, &buffer), "");
  auto set_error = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args);
  set_error.transfer_manager = manager;
  set_error.buffer_index = 1;
  set_error.error_code = PJRT_Error_Code_ABORTED;
  set_error.error_message = "the sender went away";
  set_error.error_message_size = 20;
  EXPECT_OK(Api()->PJRT_AsyncHostToDeviceTransferManager_SetBufferError(&set_error));
  EXPECT_TRUE(IsReady(buffer));
  std::vector<uint8_t> out(4);
  PJRT_Event* event = nullptr;
  ASSERT_EQ(CopyRaw(buffer, out.data(), 0, 4, &event), "");
  EXPECT_EQ(AwaitEvent(event), "the sender went away");
  EXPECT_THAT(Take(Api()->PJRT_AsyncHostToDeviceTransferManager_SetBufferError(&set_error)),
              HasSubstr("already had its last transfer (or its error)"));
  const std::vector<uint8_t> b = Pattern(24);
  EXPECT_THAT(Transfer(manager, 1, b.data(), 0, 24, true), HasSubstr("already had its last"));

  auto metadata = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args);
  metadata.transfer_manager = manager;
  EXPECT_EQ(Take(Api()->PJRT_AsyncHostToDeviceTransferManager_AddMetadata(&metadata)),
            "PJRT_AsyncHostToDeviceTransferManager_AddMetadata is not implemented by the cpu "
            "plugin");
  auto literal = SEAM_ABI_ARGS(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args);
  literal.transfer_manager = manager;
  EXPECT_EQ(Take(Api()->PJRT_AsyncHostToDeviceTransferManager_TransferLiteral(&literal)),
            "PJRT_AsyncHostToDeviceTransferManager_TransferLiteral is not implemented by the "
            "cpu plugin");
  DestroyManager(manager);
  DestroyBuffer(buffer);
}

TEST_F(CpuTransferTest, ADestroyedManagerFailsUnfinishedBuffersAndFreesThem) {
  const int64_t before = BytesInUse();
  PJRT_AsyncHostToDeviceTransferManager* manager = nullptr;
  ASSERT_EQ(Create(&manager), "");
  PJRT_Buffer* buffer = nullptr;
  ASSERT_EQ(Retrieve(manager, 0, &buffer), "");
  const std::vector<uint8_t> a = Pattern(8);
  EXPECT_EQ(Transfer(manager, 0, a.data(), 0, 8, false), "");
  std::vector<uint8_t> out(4, 0);
  PJRT_Event* waiting = nullptr;
  ASSERT_EQ(CopyRaw(buffer, out.data(), 0, 4, &waiting), "");
  DestroyManager(manager);  // buffer 1 was never retrieved: freed here
  EXPECT_EQ(BytesInUse(), before + 16);
  EXPECT_THAT(AwaitEvent(waiting),
              HasSubstr("buffer 0 f32[4] never had its last transfer (8 of 16 bytes arrived)"));
  EXPECT_TRUE(IsReady(buffer));
  DestroyBuffer(buffer);
  EXPECT_EQ(BytesInUse(), before);

  // A buffer destroyed before its data is complete: the manager still fills it, then frees it.
  ASSERT_EQ(Create(&manager), "");
  ASSERT_EQ(Retrieve(manager, 1, &buffer), "");
  DestroyBuffer(buffer);
  const std::vector<uint8_t> b = Pattern(24);
  EXPECT_EQ(Transfer(manager, 1, b.data(), 0, 24, true), "");
  DestroyManager(manager);
  EXPECT_EQ(BytesInUse(), before);
}

// Pieces from several threads at once (the manager takes them under its lock; the tsan
// label runs this under ThreadSanitizer): each thread writes every fourth 2-byte piece of
// both buffers; the last pieces come after the threads join.
TEST_F(CpuTransferTest, PiecesFromSeveralThreadsAtOnce) {
  PJRT_AsyncHostToDeviceTransferManager* manager = nullptr;
  ASSERT_EQ(Create(&manager), "");
  const std::vector<uint8_t> a = Pattern(16, 9);
  const std::vector<uint8_t> b = Pattern(24, 77);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int64_t at = 2 * t; at < 14; at += 8) Transfer(manager, 0, a.data() + at, at, 2, false);
      for (int64_t at = 2 * t; at < 22; at += 8) Transfer(manager, 1, b.data() + at, at, 2, false);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(Transfer(manager, 0, a.data() + 14, 14, 2, true), "");
  EXPECT_EQ(Transfer(manager, 1, b.data() + 22, 22, 2, true), "");
  for (int index = 0; index < 2; ++index) {
    PJRT_Buffer* buffer = nullptr;
    ASSERT_EQ(Retrieve(manager, index, &buffer), "");
    const std::vector<uint8_t>& expected = index == 0 ? a : b;
    std::vector<uint8_t> out(expected.size(), 0);
    PJRT_Event* event = nullptr;
    ASSERT_EQ(CopyRaw(buffer, out.data(), 0, static_cast<int64_t>(out.size()), &event), "");
    EXPECT_EQ(AwaitEvent(event), "");
    EXPECT_EQ(out, expected) << "buffer " << index;
    DestroyBuffer(buffer);
  }
  DestroyManager(manager);
}

TEST_F(CpuTransferTest, CopyRawToHostRefusesRangesOutsideTheBuffer) {
  const std::vector<uint8_t> a = Pattern(16);
  PJRT_Buffer* buffer = FromHost(a);
  ASSERT_NE(buffer, nullptr);
  std::vector<uint8_t> out(16);
  PJRT_Event* event = nullptr;
  EXPECT_THAT(CopyRaw(buffer, out.data(), 10, 7, &event),
              HasSubstr("offset 10 + transfer_size 7 reaches past the end of the buffer f32[4] "
                        "(16 bytes)"));
  EXPECT_THAT(CopyRaw(buffer, out.data(), -1, 2, &event), HasSubstr("offset -1"));
  EXPECT_THAT(CopyRaw(buffer, out.data(), 17, 0, &event), HasSubstr("offset 17"));
  EXPECT_THAT(CopyRaw(buffer, nullptr, 0, 2, &event), HasSubstr("dst is null"));
  ASSERT_EQ(CopyRaw(buffer, out.data(), 12, 4, &event), "");
  EXPECT_EQ(AwaitEvent(event), "");
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + 4),
            std::vector<uint8_t>(a.begin() + 12, a.end()));
  auto del = SEAM_ABI_ARGS(PJRT_Buffer_Delete_Args);
  del.buffer = buffer;
  EXPECT_OK(Api()->PJRT_Buffer_Delete(&del));
  EXPECT_THAT(CopyRaw(buffer, out.data(), 0, 4, &event),
              HasSubstr("PJRT_Buffer_CopyRawToHost: the buffer was deleted"));
  DestroyBuffer(buffer);
}

// Uploads of 2 MiB and more land in blocks of 4 KiB pages paged in before the copy, not
// advised for huge pages (docs/cpu-plugin.md, "Huge pages"), by either upload path; a copy
// made on the device is a program-side block and keeps the advice. The sizes (f32[1572865],
// f32[1605633]) are used by no other test, so the blocks are fresh mappings.
TEST_F(CpuTransferTest, LargeUploadsAreNotAdvisedForHugePages) {
  if (!seam::testing::TransparentHugePagesExist()) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  auto flags_of = [](PJRT_Buffer* buffer) {
    auto args = SEAM_ABI_ARGS(PJRT_Buffer_UnsafePointer_Args);
    args.buffer = buffer;
    EXPECT_OK(Api()->PJRT_Buffer_UnsafePointer(&args));
    return seam::testing::VmFlagsAt(reinterpret_cast<const void*>(args.buffer_pointer));
  };
  PJRT_Buffer* uploaded = FromHost(Pattern((size_t{6} << 20) + 4));
  ASSERT_NE(uploaded, nullptr);
  std::string flags = flags_of(uploaded);
  EXPECT_THAT(flags, ::testing::StartsWith("VmFlags:"));
  EXPECT_THAT(flags, ::testing::Not(HasSubstr(" hg"))) << "BufferFromHostBuffer";

  auto copy = SEAM_ABI_ARGS(PJRT_Buffer_CopyToDevice_Args);
  copy.buffer = uploaded;
  copy.dst_device = device_;
  ASSERT_EQ(Take(Api()->PJRT_Buffer_CopyToDevice(&copy)), "");
  auto ready = SEAM_ABI_ARGS(PJRT_Buffer_ReadyEvent_Args);
  ready.buffer = copy.dst_buffer;
  EXPECT_OK(Api()->PJRT_Buffer_ReadyEvent(&ready));
  EXPECT_EQ(AwaitEvent(ready.event), "");
  EXPECT_THAT(flags_of(copy.dst_buffer), HasSubstr(" hg")) << "a copy on the device";

  const int64_t streamed_dims[] = {(int64_t{49} << 15) + 1};
  PJRT_ShapeSpec spec = SEAM_ABI_ARGS(PJRT_ShapeSpec);
  spec.dims = streamed_dims;
  spec.num_dims = 1;
  spec.element_type = PJRT_Buffer_Type_F32;
  PJRT_AsyncHostToDeviceTransferManager* manager = nullptr;
  ASSERT_EQ(CreateFor(&spec, 1, &manager), "");
  PJRT_Buffer* streamed = nullptr;
  ASSERT_EQ(Retrieve(manager, 0, &streamed), "");
  const std::vector<uint8_t> streamed_bytes = Pattern(static_cast<size_t>(streamed_dims[0]) * 4);
  ASSERT_EQ(Transfer(manager, 0, streamed_bytes.data(), 0,
                     static_cast<int64_t>(streamed_bytes.size()), true),
            "");
  EXPECT_THAT(flags_of(streamed), ::testing::Not(HasSubstr(" hg"))) << "a streamed upload";
  DestroyManager(manager);
  for (PJRT_Buffer* buffer : {uploaded, copy.dst_buffer, streamed}) DestroyBuffer(buffer);
}

// ---- The client over the plugin, with the transfer slots and without them.

using seam::runtime::ComputationClient;
using seam::runtime::PjrtComputationClient;

// The CPU plugin's table with the ranged-read and transfer-manager slots null, as a plugin
// that lacks them (the framework never calls a null slot; one that did would crash).
const PJRT_Api* WithoutTransferSlotsApi() {
  static const PJRT_Api api = [] {
    PJRT_Api copy = *Api();
    copy.PJRT_Buffer_CopyRawToHost = nullptr;
    copy.PJRT_Client_CreateBuffersForAsyncHostToDevice = nullptr;
    copy.PJRT_AsyncHostToDeviceTransferManager_TransferData = nullptr;
    copy.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer = nullptr;
    copy.PJRT_AsyncHostToDeviceTransferManager_Destroy = nullptr;
    return copy;
  }();
  return &api;
}

class ClientTransferTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    auto client = PjrtComputationClient::Create(GetParam() ? Api() : WithoutTransferSlotsApi());
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }
  std::unique_ptr<PjrtComputationClient> client_;
};

TEST_P(ClientTransferTest, StreamedUploadAndRangedReadsMatchTheBytes) {
  const seam::ir::Shape big{seam::ir::DType::kF32, {3, 5}};  // 60 bytes
  const seam::ir::Shape empty{seam::ir::DType::kS32, {0}};   // 0 bytes
  const seam::ir::Shape small{seam::ir::DType::kPred, {7}};  // 7 bytes
  const std::vector<uint8_t> a = Pattern(60, 3);
  const std::vector<uint8_t> c = Pattern(7, 200);
  auto before = client_->GetMemoryStats("CPU:0");
  ASSERT_TRUE(before.ok()) << before.status();
  auto upload = client_->StartUpload({{big, "CPU:0"}, {empty, "CPU:0"}, {small, "CPU:0"}});
  ASSERT_TRUE(upload.ok()) << upload.status();
  // Through the slots the device buffers exist from the start; the default stages in host
  // memory and allocates none until Finish.
  auto started = client_->GetMemoryStats("CPU:0");
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_EQ(started->bytes_in_use - before->bytes_in_use, GetParam() ? 60 + 0 + 7 : 0);
  ComputationClient::Upload& u = **upload;
  for (size_t at = 0; at < 60; at += 13) {  // pieces of 13 bytes, the last one shorter
    const size_t n = std::min<size_t>(13, 60 - at);
    ASSERT_TRUE(u.Write(0, at, absl::MakeConstSpan(a.data() + at, n)).ok());
  }
  ASSERT_TRUE(u.Write(2, 0, absl::MakeConstSpan(c)).ok());
  auto handles = u.Finish();
  ASSERT_TRUE(handles.ok()) << handles.status();
  ASSERT_EQ(handles->size(), 3u);
  EXPECT_EQ((*handles)[0]->shape(), big);
  EXPECT_EQ((*handles)[1]->shape(), empty);
  auto literals = client_->TransferFromDevice(*handles);
  ASSERT_TRUE(literals.ok()) << literals.status();
  EXPECT_EQ((*literals)[0].bytes, a);
  EXPECT_TRUE((*literals)[1].bytes.empty());
  EXPECT_EQ((*literals)[2].bytes, c);
  for (size_t offset = 0; offset <= 60; offset += 7) {
    for (size_t size = 0; offset + size <= 60; size += 11) {
      std::vector<uint8_t> piece(size, 0xEE);
      ASSERT_TRUE(
          client_->TransferFromDeviceRange((*handles)[0], offset, absl::MakeSpan(piece)).ok());
      EXPECT_EQ(piece, std::vector<uint8_t>(a.begin() + offset, a.begin() + offset + size));
    }
  }
  std::vector<uint8_t> past(8);
  absl::Status refused = client_->TransferFromDeviceRange((*handles)[2], 3, absl::MakeSpan(past));
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("8 bytes at offset 3 reach past pred[7] (7 bytes)"));
}

TEST_P(ClientTransferTest, UploadRefusesPiecesOutOfOrderAndUnfinishedTensors) {
  const seam::ir::Shape shape{seam::ir::DType::kF32, {4}};
  const std::vector<uint8_t> a = Pattern(16);
  auto bad_device = client_->StartUpload({{shape, "CPU:9"}});
  ASSERT_FALSE(bad_device.ok());
  EXPECT_THAT(bad_device.status().message(), HasSubstr("device 'CPU:9' is not a local device"));
  auto upload = client_->StartUpload({{shape, "CPU:0"}, {shape, "CPU:0"}});
  ASSERT_TRUE(upload.ok()) << upload.status();
  ASSERT_TRUE((*upload)->Write(0, 0, absl::MakeConstSpan(a.data(), 8)).ok());
  auto incomplete = (*upload)->Finish();
  ASSERT_FALSE(incomplete.ok());
  EXPECT_THAT(incomplete.status().message(), HasSubstr("tensor 0 has 8 of its 16 bytes"));

  upload = client_->StartUpload({{shape, "CPU:0"}, {shape, "CPU:0"}});
  ASSERT_TRUE(upload.ok());
  EXPECT_THAT((*upload)->Write(2, 0, absl::MakeConstSpan(a)).message(),
              HasSubstr("tensor index 2 is out of range: the upload has 2 tensor(s)"));
  upload = client_->StartUpload({{shape, "CPU:0"}});
  ASSERT_TRUE(upload.ok());
  EXPECT_THAT((*upload)->Write(0, 4, absl::MakeConstSpan(a.data(), 4)).message(),
              HasSubstr("a piece at offset 4, but its next piece starts at 0"));
  EXPECT_THAT((*upload)->Finish().status().message(), HasSubstr("a piece at offset 4"));
  upload = client_->StartUpload({{shape, "CPU:0"}});
  ASSERT_TRUE(upload.ok());
  EXPECT_TRUE((*upload)->Write(0, 0, absl::MakeConstSpan(a)).ok());
  std::vector<uint8_t> more(2);
  EXPECT_THAT((*upload)->Write(0, 16, absl::MakeConstSpan(more)).message(),
              HasSubstr("2 bytes at offset 16 reach past its end (16 bytes)"));
}

INSTANTIATE_TEST_SUITE_P(WithAndWithoutTheSlots, ClientTransferTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("WithSlots")
                                             : std::string("WithoutSlots");
                         });

}  // namespace
