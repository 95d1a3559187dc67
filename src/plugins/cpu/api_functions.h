// The CPU plugin's implementation of the slots of PJRT_Api (cpu_plugin.cc puts each behind
// the kit's entry, which has checked the Args pointer and its size before these run).
// Errors and events are the kit's (src/plugins/common).
#ifndef SEAM_PLUGINS_CPU_API_FUNCTIONS_H_
#define SEAM_PLUGINS_CPU_API_FUNCTIONS_H_

#include "seam/c/pjrt_c_api.h"

namespace seam::cpu {

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* args);
PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args);

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args);
PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args);
PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args);
PJRT_Error* ClientBufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args);

PJRT_Error* LoadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args);
PJRT_Error* LoadedExecutableNumOutputs(PJRT_LoadedExecutable_NumOutputs_Args* args);
PJRT_Error* LoadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args);

PJRT_Error* BufferDestroy(PJRT_Buffer_Destroy_Args* args);
PJRT_Error* BufferElementType(PJRT_Buffer_ElementType_Args* args);
PJRT_Error* BufferDimensions(PJRT_Buffer_Dimensions_Args* args);
PJRT_Error* BufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args);
PJRT_Error* BufferReadyEvent(PJRT_Buffer_ReadyEvent_Args* args);
PJRT_Error* BufferDelete(PJRT_Buffer_Delete_Args* args);
PJRT_Error* BufferIsDeleted(PJRT_Buffer_IsDeleted_Args* args);
PJRT_Error* BufferOnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args);

PJRT_Error* DeviceMemoryStats(PJRT_Device_MemoryStats_Args* args);

// 1.5, api_transfer.cc.
PJRT_Error* BufferCopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args);
PJRT_Error* ClientCreateBuffersForAsyncHostToDevice(
    PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args);
PJRT_Error* TransferManagerTransferData(
    PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args);
PJRT_Error* TransferManagerRetrieveBuffer(
    PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args);
PJRT_Error* TransferManagerDestroy(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_API_FUNCTIONS_H_
