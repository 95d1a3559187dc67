// Every function of the plugin ABI (include/seam/c/pjrt_c_api.h, upstream's PJRT C API
// 0.94), as X-macro lists in PJRT_Api's order, and per Args struct the function's name and
// the struct's size. The kit builds its entry points (entry.h) and its UNIMPLEMENTED stubs
// (table.h) from these lists.
#ifndef SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_
#define SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_

#include <cstddef>

#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"

// The two functions that return nothing (they cannot report an error).
#define SEAM_PLUGIN_VOID_FUNCTIONS(X) \
  X(PJRT_Error_Destroy)               \
  X(PJRT_Error_Message)

// Every function that returns PJRT_Error*, in table order (PJRT_Api's slots, the two
// above excepted: they are slots 0 and 1). A function appended to the ABI is appended here
// too (the static_assert in table.cc counts the slots and checks each one's place).
#define SEAM_PLUGIN_FUNCTIONS(X)                           \
  X(PJRT_Error_GetCode)                                    \
  X(PJRT_Plugin_Initialize)                                \
  X(PJRT_Plugin_Attributes)                                \
  X(PJRT_Event_Destroy)                                    \
  X(PJRT_Event_IsReady)                                    \
  X(PJRT_Event_Error)                                      \
  X(PJRT_Event_Await)                                      \
  X(PJRT_Event_OnReady)                                    \
  X(PJRT_Client_Create)                                    \
  X(PJRT_Client_Destroy)                                   \
  X(PJRT_Client_PlatformName)                              \
  X(PJRT_Client_ProcessIndex)                              \
  X(PJRT_Client_PlatformVersion)                           \
  X(PJRT_Client_Devices)                                   \
  X(PJRT_Client_AddressableDevices)                        \
  X(PJRT_Client_LookupDevice)                              \
  X(PJRT_Client_LookupAddressableDevice)                   \
  X(PJRT_Client_AddressableMemories)                       \
  X(PJRT_Client_Compile)                                   \
  X(PJRT_Client_DefaultDeviceAssignment)                   \
  X(PJRT_Client_BufferFromHostBuffer)                      \
  X(PJRT_DeviceDescription_Id)                             \
  X(PJRT_DeviceDescription_ProcessIndex)                   \
  X(PJRT_DeviceDescription_Attributes)                     \
  X(PJRT_DeviceDescription_Kind)                           \
  X(PJRT_DeviceDescription_DebugString)                    \
  X(PJRT_DeviceDescription_ToString)                       \
  X(PJRT_Device_GetDescription)                            \
  X(PJRT_Device_IsAddressable)                             \
  X(PJRT_Device_LocalHardwareId)                           \
  X(PJRT_Device_AddressableMemories)                       \
  X(PJRT_Device_DefaultMemory)                             \
  X(PJRT_Device_MemoryStats)                               \
  X(PJRT_Memory_Id)                                        \
  X(PJRT_Memory_Kind)                                      \
  X(PJRT_Memory_DebugString)                               \
  X(PJRT_Memory_ToString)                                  \
  X(PJRT_Memory_AddressableByDevices)                      \
  X(PJRT_Executable_Destroy)                               \
  X(PJRT_Executable_Name)                                  \
  X(PJRT_Executable_NumReplicas)                           \
  X(PJRT_Executable_NumPartitions)                         \
  X(PJRT_Executable_NumOutputs)                            \
  X(PJRT_Executable_SizeOfGeneratedCodeInBytes)            \
  X(PJRT_Executable_GetCostAnalysis)                       \
  X(PJRT_Executable_OutputMemoryKinds)                     \
  X(PJRT_Executable_OptimizedProgram)                      \
  X(PJRT_Executable_Serialize)                             \
  X(PJRT_LoadedExecutable_Destroy)                         \
  X(PJRT_LoadedExecutable_GetExecutable)                   \
  X(PJRT_LoadedExecutable_AddressableDevices)              \
  X(PJRT_LoadedExecutable_Delete)                          \
  X(PJRT_LoadedExecutable_IsDeleted)                       \
  X(PJRT_LoadedExecutable_Execute)                         \
  X(PJRT_Executable_DeserializeAndLoad)                    \
  X(PJRT_LoadedExecutable_Fingerprint)                     \
  X(PJRT_Buffer_Destroy)                                   \
  X(PJRT_Buffer_ElementType)                               \
  X(PJRT_Buffer_Dimensions)                                \
  X(PJRT_Buffer_UnpaddedDimensions)                        \
  X(PJRT_Buffer_DynamicDimensionIndices)                   \
  X(PJRT_Buffer_GetMemoryLayout)                           \
  X(PJRT_Buffer_OnDeviceSizeInBytes)                       \
  X(PJRT_Buffer_Device)                                    \
  X(PJRT_Buffer_Memory)                                    \
  X(PJRT_Buffer_Delete)                                    \
  X(PJRT_Buffer_IsDeleted)                                 \
  X(PJRT_Buffer_CopyToDevice)                              \
  X(PJRT_Buffer_ToHostBuffer)                              \
  X(PJRT_Buffer_IsOnCpu)                                   \
  X(PJRT_Buffer_ReadyEvent)                                \
  X(PJRT_Buffer_UnsafePointer)                             \
  X(PJRT_Buffer_IncreaseExternalReferenceCount)            \
  X(PJRT_Buffer_DecreaseExternalReferenceCount)            \
  X(PJRT_Buffer_OpaqueDeviceMemoryDataPointer)             \
  X(PJRT_CopyToDeviceStream_Destroy)                       \
  X(PJRT_CopyToDeviceStream_AddChunk)                      \
  X(PJRT_CopyToDeviceStream_TotalBytes)                    \
  X(PJRT_CopyToDeviceStream_GranuleSize)                   \
  X(PJRT_CopyToDeviceStream_CurrentBytes)                  \
  X(PJRT_TopologyDescription_Create)                       \
  X(PJRT_TopologyDescription_Destroy)                      \
  X(PJRT_TopologyDescription_PlatformName)                 \
  X(PJRT_TopologyDescription_PlatformVersion)              \
  X(PJRT_TopologyDescription_GetDeviceDescriptions)        \
  X(PJRT_TopologyDescription_Serialize)                    \
  X(PJRT_TopologyDescription_Attributes)                   \
  X(PJRT_Compile)                                          \
  X(PJRT_Executable_OutputElementTypes)                    \
  X(PJRT_Executable_OutputDimensions)                      \
  X(PJRT_Buffer_CopyToMemory)                              \
  X(PJRT_Client_CreateViewOfDeviceBuffer)                  \
  X(PJRT_Executable_Fingerprint)                           \
  X(PJRT_Client_TopologyDescription)                       \
  X(PJRT_Executable_GetCompiledMemoryStats)                \
  X(PJRT_Memory_Kind_Id)                                   \
  X(PJRT_ExecuteContext_Create)                            \
  X(PJRT_ExecuteContext_Destroy)                           \
  X(PJRT_Buffer_CopyRawToHost)                             \
  X(PJRT_AsyncHostToDeviceTransferManager_Destroy)         \
  X(PJRT_AsyncHostToDeviceTransferManager_TransferData)    \
  X(PJRT_Client_CreateBuffersForAsyncHostToDevice)         \
  X(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer)  \
  X(PJRT_AsyncHostToDeviceTransferManager_Device)          \
  X(PJRT_AsyncHostToDeviceTransferManager_BufferCount)     \
  X(PJRT_AsyncHostToDeviceTransferManager_BufferSize)      \
  X(PJRT_AsyncHostToDeviceTransferManager_SetBufferError)  \
  X(PJRT_AsyncHostToDeviceTransferManager_AddMetadata)     \
  X(PJRT_Client_DmaMap)                                    \
  X(PJRT_Client_DmaUnmap)                                  \
  X(PJRT_Client_CreateUninitializedBuffer)                 \
  X(PJRT_Client_UpdateGlobalProcessInfo)                   \
  X(PJRT_TopologyDescription_Deserialize)                  \
  X(PJRT_Client_CreateAliasBuffer)                         \
  X(PJRT_Client_FulfillAliasBuffer)                        \
  X(PJRT_LoadedExecutable_GetDeviceAssignment)             \
  X(PJRT_Client_CreateErrorBuffer)                         \
  X(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral) \
  X(PJRT_Buffer_CopyRawToHostFuture)                       \
  X(PJRT_Device_PoisonExecution)                           \
  X(PJRT_Device_CreateAsyncTrackingEvent)                  \
  X(PJRT_AsyncTrackingEvent_Destroy)                       \
  X(PJRT_Executable_GetCompileOptions)                     \
  X(PJRT_Buffer_DonateWithControlDependency)               \
  X(PJRT_Event_Create)                                     \
  X(PJRT_Event_Set)                                        \
  X(PJRT_Device_GetAttributes)

// The functions of seam's profiler extension (SEAM_Profiler_*): not slots of the table,
// but entered the same way (entry.h).
#define SEAM_PLUGIN_EXTENSION_FUNCTIONS(X) \
  X(SEAM_Profiler_Start)                   \
  X(SEAM_Profiler_Stop)                    \
  X(SEAM_Profiler_Collect)

namespace seam::plugin {

// AbiFunction<PJRT_Client_Create_Args>::kName is "PJRT_Client_Create", kArgsName
// "PJRT_Client_Create_Args", kArgsSize PJRT_Client_Create_Args_STRUCT_SIZE.
template <typename Args>
struct AbiFunction;

#define SEAM_PLUGIN_ABI_FUNCTION_TRAITS(Name)                    \
  template <>                                                    \
  struct AbiFunction<Name##_Args> {                              \
    static constexpr const char* kName = #Name;                  \
    static constexpr const char* kArgsName = #Name "_Args";      \
    static constexpr size_t kArgsSize = Name##_Args_STRUCT_SIZE; \
  };
SEAM_PLUGIN_VOID_FUNCTIONS(SEAM_PLUGIN_ABI_FUNCTION_TRAITS)
SEAM_PLUGIN_FUNCTIONS(SEAM_PLUGIN_ABI_FUNCTION_TRAITS)
SEAM_PLUGIN_EXTENSION_FUNCTIONS(SEAM_PLUGIN_ABI_FUNCTION_TRAITS)
#undef SEAM_PLUGIN_ABI_FUNCTION_TRAITS

// The least struct_size the kit's entry accepts for an Args struct: its whole size at
// 0.94, except where the plugin reads the later fields only when struct_size covers them.
template <typename Args>
inline constexpr size_t kMinArgsSize = AbiFunction<Args>::kArgsSize;
// PJRT_Client_Create_Args: kv_try_get_callback and kv_try_get_user_arg came later
// (decision 7 of the migration: they exist only when struct_size covers them).
template <>
inline constexpr size_t kMinArgsSize<PJRT_Client_Create_Args> =
    PJRT_STRUCT_SIZE(PJRT_Client_Create_Args, client);

// The Args type of a table function's pointer type.
template <typename Fn>
struct ArgsOfFunction;
template <typename Args>
struct ArgsOfFunction<PJRT_Error* (*)(Args*)> {
  using type = Args;
};
template <auto Impl>
using ArgsOf = typename ArgsOfFunction<decltype(Impl)>::type;

}  // namespace seam::plugin

#endif  // SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_
