#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/cpu_plugin.h"

namespace seam::cpu {

const PJRT_Api* GetCpuPjrtApi() {
  static const PJRT_Api api = [] {
    PJRT_Api a{};
    a.struct_size = PJRT_Api_STRUCT_SIZE;
    a.extension_start = nullptr;
    a.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
    a.pjrt_api_version.major_version = PJRT_API_MAJOR;
    a.pjrt_api_version.minor_version = PJRT_API_MINOR;

    a.PJRT_Error_Destroy = ErrorDestroy;
    a.PJRT_Error_Message = ErrorMessage;
    a.PJRT_Error_GetCode = ErrorGetCode;
    a.PJRT_Plugin_Initialize = PluginInitialize;
    a.PJRT_Plugin_Attributes = PluginAttributes;

    a.PJRT_Event_Destroy = EventDestroy;
    a.PJRT_Event_IsReady = EventIsReady;
    a.PJRT_Event_Error = EventError;
    a.PJRT_Event_Await = EventAwait;
    a.PJRT_Event_OnReady = EventOnReady;

    a.PJRT_Client_Create = ClientCreate;
    a.PJRT_Client_Destroy = ClientDestroy;
    a.PJRT_Client_PlatformName = ClientPlatformName;
    a.PJRT_Client_ProcessIndex = ClientProcessIndex;
    a.PJRT_Client_Devices = ClientDevices;
    a.PJRT_Client_AddressableDevices = ClientAddressableDevices;
    a.PJRT_Client_LookupDevice = ClientLookupDevice;
    a.PJRT_Client_Compile = ClientCompile;
    a.PJRT_Client_BufferFromHostBuffer = ClientBufferFromHostBuffer;

    a.PJRT_DeviceDescription_Id = DeviceDescriptionId;
    a.PJRT_DeviceDescription_ProcessIndex = DeviceDescriptionProcessIndex;
    a.PJRT_DeviceDescription_Kind = DeviceDescriptionKind;
    a.PJRT_Device_GetDescription = DeviceGetDescription;
    a.PJRT_Device_IsAddressable = DeviceIsAddressable;
    a.PJRT_Device_LocalHardwareId = DeviceLocalHardwareId;

    a.PJRT_LoadedExecutable_Destroy = LoadedExecutableDestroy;
    a.PJRT_LoadedExecutable_NumOutputs = LoadedExecutableNumOutputs;
    a.PJRT_LoadedExecutable_Execute = LoadedExecutableExecute;

    a.PJRT_Buffer_Destroy = BufferDestroy;
    a.PJRT_Buffer_ElementType = BufferElementType;
    a.PJRT_Buffer_Dimensions = BufferDimensions;
    a.PJRT_Buffer_ToHostBuffer = BufferToHostBuffer;
    a.PJRT_Buffer_ReadyEvent = BufferReadyEvent;
    a.PJRT_Buffer_Delete = BufferDelete;
    a.PJRT_Buffer_IsDeleted = BufferIsDeleted;
    a.PJRT_Buffer_OnDeviceSizeInBytes = BufferOnDeviceSizeInBytes;
    return a;
  }();
  return &api;
}

}  // namespace seam::cpu
