#include "src/plugins/cpu/api/cpu_plugin.h"

#include "seam/c/pjrt_c_api_counters.h"
#include "src/plugins/common/buffer.h"
#include "src/plugins/common/device.h"
#include "src/plugins/common/error.h"
#include "src/plugins/common/event.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/common/table.h"
#include "src/plugins/cpu/api/api_functions.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/collectives/collectives.h"
#include "src/plugins/cpu/collectives/gloo_collectives.h"

namespace seam::cpu {
namespace {

// The counters extension (pjrt_c_api_counters.h): what only the plugin can count.
PJRT_Error* ReadCounters(SEAM_Counters_Read_Args* args) noexcept {
  if (args == nullptr) return plugin::NullArgsError("SEAM_Counters_Read_Args");
  if (args->struct_size < SEAM_Counters_Read_Args_STRUCT_SIZE) {
    return plugin::StructSizeError("SEAM_Counters_Read_Args", SEAM_Counters_Read_Args_STRUCT_SIZE,
                                   args->struct_size);
  }
  static const char* const kNames[] = {"CollectiveBytesSent", "CollectiveExposedNanos"};
  thread_local int64_t values[2];
  values[0] = GlooBytesSent();
  values[1] = CollectiveExposedNanos();
  args->names = kNames;
  args->values = values;
  args->num_counters = 2;
  return nullptr;
}

PJRT_Extension_Base* CountersExtension() {
  static SEAM_Counters_Extension extension = [] {
    SEAM_Counters_Extension e{};
    e.base.struct_size = SEAM_Counters_Extension_STRUCT_SIZE;
    SEAM_SetExtensionType(&e.base, SEAM_Extension_Type_Counters);
    e.base.next = plugin::profiler::Extension();  // compile passes, runs, kernels
    e.read = ReadCounters;
    return e;
  }();
  return &extension.base;
}

}  // namespace

const PJRT_Api* GetCpuPjrtApi() {
  // Every slot goes through the kit's entry (Args check, exception firewall); the slots not
  // set here answer UNIMPLEMENTED "<PJRT_Name> is not implemented by the cpu plugin".
  static const PJRT_Api api = [] {
    PJRT_Api a = plugin::NewApi<kCpuPluginName>();
    a.extension_start = CountersExtension();  // then the profiler's
    SEAM_PLUGIN_SET(a, PJRT_Plugin_Initialize, PluginInitialize);
    SEAM_PLUGIN_SET(a, PJRT_Plugin_Attributes, PluginAttributes);
    plugin::SetEventFunctions(a);  // Destroy, IsReady, Error, Await, OnReady, Create, Set

    SEAM_PLUGIN_SET(a, PJRT_Client_Create, ClientCreate);
    SEAM_PLUGIN_SET(a, PJRT_Client_Destroy, ClientDestroy);
    // Platform name and version, process index, device lists and lookups, descriptions.
    plugin::SetDeviceFunctions<PJRT_Client, PJRT_Device>(a);
    // One memory (kind "device") per addressable device.
    plugin::SetMemoryFunctions<PJRT_Client, PJRT_Device>(a);
    SEAM_PLUGIN_SET(a, PJRT_Client_Compile, ClientCompile);
    SEAM_PLUGIN_SET(a, PJRT_Client_DefaultDeviceAssignment, ClientDefaultDeviceAssignment);
    SEAM_PLUGIN_SET(a, PJRT_Client_BufferFromHostBuffer, ClientBufferFromHostBuffer);
    SEAM_PLUGIN_SET(a, PJRT_Device_MemoryStats, DeviceMemoryStats);

    SEAM_PLUGIN_SET(a, PJRT_Executable_Destroy, ExecutableDestroy);
    // Name, replicas, outputs' types, dimensions and memory kinds, fingerprint.
    plugin::SetExecutableFunctions<PJRT_Executable>(a);

    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_Destroy, LoadedExecutableDestroy);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_GetExecutable, LoadedExecutableGetExecutable);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_AddressableDevices,
                    LoadedExecutableAddressableDevices);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_Delete, LoadedExecutableDelete);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_IsDeleted, LoadedExecutableIsDeleted);
    SEAM_PLUGIN_SET(a, PJRT_LoadedExecutable_Execute, LoadedExecutableExecute);

    // Destroy, dimensions, layout (dense row-major), device, on the CPU.
    plugin::SetBufferQueryFunctions<PJRT_Buffer>(a);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_ElementType, BufferElementType);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_OnDeviceSizeInBytes, BufferOnDeviceSizeInBytes);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_Memory, BufferMemory);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_Delete, BufferDelete);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_IsDeleted, BufferIsDeleted);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_CopyToDevice, BufferCopyToDevice);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_ToHostBuffer, BufferToHostBuffer);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_ReadyEvent, BufferReadyEvent);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_UnsafePointer, BufferUnsafePointer);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_OpaqueDeviceMemoryDataPointer,
                    BufferOpaqueDeviceMemoryDataPointer);
    SEAM_PLUGIN_SET(a, PJRT_Buffer_CopyRawToHost, BufferCopyRawToHost);

    SEAM_PLUGIN_SET(a, PJRT_Client_CreateBuffersForAsyncHostToDevice,
                    ClientCreateBuffersForAsyncHostToDevice);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_TransferData,
                    TransferManagerTransferData);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer,
                    TransferManagerRetrieveBuffer);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_Device, TransferManagerDevice);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_BufferCount,
                    TransferManagerBufferCount);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_BufferSize, TransferManagerBufferSize);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_SetBufferError,
                    TransferManagerSetBufferError);
    SEAM_PLUGIN_SET(a, PJRT_AsyncHostToDeviceTransferManager_Destroy, TransferManagerDestroy);
    return a;
  }();
  return &api;
}

}  // namespace seam::cpu
