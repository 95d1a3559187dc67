#include "src/plugins/cpu/cpu_plugin.h"

#include "src/plugins/common/device.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/table.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/objects.h"

namespace seam::cpu {

const PJRT_Api* GetCpuPjrtApi() {
  // Every slot goes through the kit's entry (Args check, exception firewall).
  static const PJRT_Api api = [] {
    PJRT_Api a = plugin::NewApi();
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
    return a;
  }();
  return &api;
}

}  // namespace seam::cpu
