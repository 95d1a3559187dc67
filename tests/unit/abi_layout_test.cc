// The plugin ABI's memory layout against the golden list in abi_layout.golden: the byte
// offset of every PJRT_Api field and the size constant of every struct. Reordering the
// table, or changing a struct without meaning to, fails here. A deliberate change updates
// the golden file and docs/abi.md in the same commit.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"

extern "C" int seam_abi_c99_check(void);  // abi_c99_check.c, compiled as C99

namespace {

std::map<std::string, size_t> ActualLayout() {
  std::map<std::string, size_t> layout;
#define FIELD(name) layout["PJRT_Api." #name] = offsetof(PJRT_Api, name)
  FIELD(struct_size);
  FIELD(extension_start);
  FIELD(pjrt_api_version);
  FIELD(PJRT_Error_Destroy);
  FIELD(PJRT_Error_Message);
  FIELD(PJRT_Error_GetCode);
  FIELD(PJRT_Plugin_Initialize);
  FIELD(PJRT_Plugin_Attributes);
  FIELD(PJRT_Event_Destroy);
  FIELD(PJRT_Event_IsReady);
  FIELD(PJRT_Event_Error);
  FIELD(PJRT_Event_Await);
  FIELD(PJRT_Event_OnReady);
  FIELD(PJRT_Client_Create);
  FIELD(PJRT_Client_Destroy);
  FIELD(PJRT_Client_PlatformName);
  FIELD(PJRT_Client_ProcessIndex);
  FIELD(PJRT_Client_Devices);
  FIELD(PJRT_Client_AddressableDevices);
  FIELD(PJRT_Client_LookupDevice);
  FIELD(PJRT_Client_Compile);
  FIELD(PJRT_Client_BufferFromHostBuffer);
  FIELD(PJRT_DeviceDescription_Id);
  FIELD(PJRT_DeviceDescription_ProcessIndex);
  FIELD(PJRT_DeviceDescription_Kind);
  FIELD(PJRT_Device_GetDescription);
  FIELD(PJRT_Device_IsAddressable);
  FIELD(PJRT_Device_LocalHardwareId);
  FIELD(PJRT_LoadedExecutable_Destroy);
  FIELD(PJRT_LoadedExecutable_NumOutputs);
  FIELD(PJRT_LoadedExecutable_Execute);
  FIELD(PJRT_Buffer_Destroy);
  FIELD(PJRT_Buffer_ElementType);
  FIELD(PJRT_Buffer_Dimensions);
  FIELD(PJRT_Buffer_ToHostBuffer);
  FIELD(PJRT_Buffer_ReadyEvent);
  FIELD(PJRT_Buffer_Delete);
  FIELD(PJRT_Buffer_IsDeleted);
  FIELD(PJRT_Buffer_OnDeviceSizeInBytes);
  FIELD(PJRT_Device_MemoryStats);
  FIELD(PJRT_Buffer_CopyRawToHost);
  FIELD(PJRT_Client_CreateBuffersForAsyncHostToDevice);
  FIELD(PJRT_AsyncHostToDeviceTransferManager_TransferData);
  FIELD(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer);
  FIELD(PJRT_AsyncHostToDeviceTransferManager_Destroy);
#undef FIELD
  // The prefix minor 1 defined must not move: a 1.1 caller passes exactly this many bytes.
  static_assert(PJRT_Client_Create_Args_STRUCT_SIZE_1_1 == 40,
                "PJRT_Client_Create_Args up to `client` is the 1.1 layout");
  // A 1.1 or 1.2 table ends after PJRT_Buffer_OnDeviceSizeInBytes.
  static_assert(PJRT_Api_STRUCT_SIZE_1_2 ==
                    offsetof(PJRT_Api, PJRT_Buffer_OnDeviceSizeInBytes) + sizeof(void*),
                "PJRT_Api_STRUCT_SIZE_1_2 is the 1.2 table");
  // A 1.3 or 1.4 table ends after PJRT_Device_MemoryStats.
  static_assert(
      PJRT_Api_STRUCT_SIZE_1_4 == offsetof(PJRT_Api, PJRT_Device_MemoryStats) + sizeof(void*),
      "PJRT_Api_STRUCT_SIZE_1_4 is the 1.4 table");
#define SIZE(s) layout[#s "_STRUCT_SIZE"] = s##_STRUCT_SIZE
  SIZE(PJRT_Api);
  SIZE(PJRT_Api_Version);
  SIZE(PJRT_Extension_Base);
  SIZE(PJRT_NamedValue);
  SIZE(PJRT_KeyValueGetCallback_Args);
  SIZE(PJRT_KeyValueTryGetCallback_Args);
  SIZE(PJRT_KeyValuePutCallback_Args);
  SIZE(PJRT_Program);
  SIZE(PJRT_ExecuteOptions);
  SIZE(PJRT_Error_Destroy_Args);
  SIZE(PJRT_Error_Message_Args);
  SIZE(PJRT_Error_GetCode_Args);
  SIZE(PJRT_Plugin_Initialize_Args);
  SIZE(PJRT_Plugin_Attributes_Args);
  SIZE(PJRT_Event_Destroy_Args);
  SIZE(PJRT_Event_IsReady_Args);
  SIZE(PJRT_Event_Error_Args);
  SIZE(PJRT_Event_Await_Args);
  SIZE(PJRT_Event_OnReady_Args);
  SIZE(PJRT_Client_Create_Args);
  SIZE(PJRT_Client_Destroy_Args);
  SIZE(PJRT_Client_PlatformName_Args);
  SIZE(PJRT_Client_ProcessIndex_Args);
  SIZE(PJRT_Client_Devices_Args);
  SIZE(PJRT_Client_AddressableDevices_Args);
  SIZE(PJRT_Client_LookupDevice_Args);
  SIZE(PJRT_Client_Compile_Args);
  SIZE(PJRT_Client_BufferFromHostBuffer_Args);
  SIZE(PJRT_DeviceDescription_Id_Args);
  SIZE(PJRT_DeviceDescription_ProcessIndex_Args);
  SIZE(PJRT_DeviceDescription_Kind_Args);
  SIZE(PJRT_Device_GetDescription_Args);
  SIZE(PJRT_Device_IsAddressable_Args);
  SIZE(PJRT_Device_LocalHardwareId_Args);
  SIZE(PJRT_LoadedExecutable_Destroy_Args);
  SIZE(PJRT_LoadedExecutable_NumOutputs_Args);
  SIZE(PJRT_LoadedExecutable_Execute_Args);
  SIZE(PJRT_Buffer_Destroy_Args);
  SIZE(PJRT_Buffer_ElementType_Args);
  SIZE(PJRT_Buffer_Dimensions_Args);
  SIZE(PJRT_Buffer_ToHostBuffer_Args);
  SIZE(PJRT_Buffer_ReadyEvent_Args);
  SIZE(PJRT_Buffer_Delete_Args);
  SIZE(PJRT_Buffer_IsDeleted_Args);
  SIZE(PJRT_Buffer_OnDeviceSizeInBytes_Args);
  SIZE(PJRT_Device_MemoryStats_Args);
  // 1.4: the profiler extension.
  SIZE(PJRT_Profiler_Event);
  SIZE(PJRT_Profiler_Start_Args);
  SIZE(PJRT_Profiler_Stop_Args);
  SIZE(PJRT_Profiler_Collect_Args);
  SIZE(PJRT_Profiler_Extension);
  // 1.5: ranged reads and streamed uploads.
  SIZE(PJRT_Buffer_CopyRawToHost_Args);
  SIZE(PJRT_ShapeSpec);
  SIZE(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args);
  SIZE(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args);
  SIZE(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args);
  SIZE(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args);
#undef SIZE
  return layout;
}

std::map<std::string, size_t> GoldenLayout() {
  std::map<std::string, size_t> layout;
  std::ifstream in(SEAM_ABI_GOLDEN);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    size_t value = 0;
    fields >> name >> value;
    layout[name] = value;
  }
  return layout;
}

TEST(AbiLayoutTest, MatchesTheGoldenList) {
  std::map<std::string, size_t> golden = GoldenLayout();
  ASSERT_FALSE(golden.empty()) << "cannot read " << SEAM_ABI_GOLDEN;
  std::map<std::string, size_t> actual = ActualLayout();
  for (const auto& [name, value] : golden) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      ADD_FAILURE() << name << " is in the golden list but not checked by this test";
    } else {
      EXPECT_EQ(it->second, value) << name;
    }
  }
  for (const auto& [name, value] : actual) {
    EXPECT_TRUE(golden.count(name)) << name << " = " << value << " is missing from the golden list";
  }
}

TEST(AbiLayoutTest, TableIsFunctionPointersAppendedAfterTheVersion) {
  EXPECT_EQ(offsetof(PJRT_Api, PJRT_Error_Destroy),
            offsetof(PJRT_Api, pjrt_api_version) + sizeof(PJRT_Api_Version));
  EXPECT_EQ(PJRT_Api_STRUCT_SIZE, sizeof(PJRT_Api));
}

TEST(AbiLayoutTest, HeaderCompilesAsPlainC99) {
  // The C file is built with -std=c99 -pedantic-errors; here it reports what C sees.
  EXPECT_EQ(seam_abi_c99_check(), static_cast<int>(PJRT_Api_STRUCT_SIZE));
}

}  // namespace
