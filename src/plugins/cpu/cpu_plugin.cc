#include "src/plugins/cpu/cpu_plugin.h"

#include "src/plugins/common/device.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/common/table.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/objects.h"

namespace seam::cpu {

const PJRT_Api* GetCpuPjrtApi() {
  // Every slot goes through the kit's entry (Args check, exception firewall).
  static const PJRT_Api api = [] {
    PJRT_Api a = plugin::NewApi();
    a.extension_start = plugin::profiler::Extension();  // 1.4: compile passes, runs, kernels
    SEAM_PLUGIN_SET(a, PJRT_Plugin_Initialize, PluginInitialize);
    SEAM_PLUGIN_SET(a, PJRT_Plugin_Attributes, PluginAttributes);
    plugin::SetEventFunctions(a);

    SEAM_PLUGIN_SET(a, PJRT_Client_Create, ClientCreate);
    SEAM_PLUGIN_SET(a, PJRT_Client_Destroy, ClientDestroy);
    plugin::SetDeviceFunctions<PJRT_Client, PJRT_Device>(a);
    SEAM_PLUGIN_SET(a, PJRT_Client_Compile, ClientCompile);
    SEAM_PLUGIN_SET(a, PJRT_Client_BufferFromHostBuffer, ClientBufferFromHostBuffer);

    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_Destroy, LoadedExecutableDestroy);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_NumOutputs, LoadedExecutableNumOutputs);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_Execute, LoadedExecutableExecute);

    SEAM_PLUGIN_SET(a, PJRT_Buffer_Destroy, BufferDestroy);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_ElementType, BufferElementType);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_Dimensions, BufferDimensions);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_ToHostBuffer, BufferToHostBuffer);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_ReadyEvent, BufferReadyEvent);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_Delete, BufferDelete);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_IsDeleted, BufferIsDeleted);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_OnDeviceSizeInBytes, BufferOnDeviceSizeInBytes);
    SEAM_PLUGIN_SET(a, PJRT_Device_MemoryStats, DeviceMemoryStats);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_CopyRawToHost, BufferCopyRawToHost);  // 1.5
    SEAM_PLUGIN_SET(a, PJRT_Client_CreateBuffersForAsyncHostToDevice,
                    ClientCreateBuffersForAsyncHostToDevice);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_TransferData,
                    TransferManagerTransferData);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer,
                    TransferManagerRetrieveBuffer);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_Destroy, TransferManagerDestroy);
    return a;
  }();
  return &api;
}

}  // namespace seam::cpu
