// The CPU plugin's implementation of the slots of PJRT_Api (cpu_plugin.cc puts each behind
// the kit's entry, which has checked the Args pointer and its size before these run).
// Errors, events, device lists, device descriptions and memories are the kit's
// (src/plugins/common); every slot not listed here or there is the kit's UNIMPLEMENTED stub.
#ifndef SEAM_PLUGINS_CPU_API_FUNCTIONS_H_
#define SEAM_PLUGINS_CPU_API_FUNCTIONS_H_

#include "seam/c/pjrt_c_api.h"

namespace seam::cpu {

// api_basics.cc
PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* args);
PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args);

// api_client.cc
PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args);
PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args);
PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args);
PJRT_Error* ClientDefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args);

// api_execute.cc
PJRT_Error* LoadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args);
PJRT_Error* LoadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args);
PJRT_Error* LoadedExecutableAddressableDevices(PJRT_LoadedExecutable_AddressableDevices_Args* args);
PJRT_Error* LoadedExecutableDelete(PJRT_LoadedExecutable_Delete_Args* args);
PJRT_Error* LoadedExecutableIsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args);
PJRT_Error* LoadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args);
PJRT_Error* ExecutableDestroy(PJRT_Executable_Destroy_Args* args);

// api_buffer.cc
PJRT_Error* ClientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);
PJRT_Error* BufferElementType(PJRT_Buffer_ElementType_Args* args);
PJRT_Error* BufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);
PJRT_Error* BufferMemory(PJRT_Buffer_Memory_Args* args);
PJRT_Error* BufferDelete(PJRT_Buffer_Delete_Args* args);
PJRT_Error* BufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args);
PJRT_Error* BufferCopyToDevice(PJRT_Buffer_CopyToDevice_Args* args);
PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);
PJRT_Error* BufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);
// Both wait for the buffer and refuse a block not in the dense row-major layout.
PJRT_Error* BufferUnsafePointer(PJRT_Buffer_UnsafePointer_Args* args);
PJRT_Error* BufferOpaqueDeviceMemoryDataPointer(
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args);
PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args);

// api_transfer.cc
PJRT_Error* BufferCopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args);
PJRT_Error* ClientCreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args);
PJRT_Error* TransferManagerTransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args);
PJRT_Error* TransferManagerRetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args);
PJRT_Error* TransferManagerDevice(PJRT_AsyncHostToDeviceTransferManager_Device_Args* args);
PJRT_Error* TransferManagerBufferCount(
    PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args* args);
PJRT_Error* TransferManagerBufferSize(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args* args);
PJRT_Error* TransferManagerSetBufferError(
    PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args* args);
PJRT_Error* TransferManagerDestroy(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_API_FUNCTIONS_H_
