// Every function of the plugin ABI (include/seam/c/pjrt_c_api.h), as X-macro lists, and
// per Args struct the function's name and the struct's size. The kit builds its entry
// points (entry.h) and its UNIMPLEMENTED stubs (table.h) from these lists.
#ifndef SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_
#define SEAM_PLUGINS_COMMON_ABI_FUNCTIONS_H_

#include <cstddef>

#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_profiler.h"

// The two functions that return nothing (they cannot report an error).
#define SEAM_PLUGIN_VOID_FUNCTIONS(X) \
  X(PJRT_Error_Destroy)               \
  X(PJRT_Error_Message)

// Every function that returns PJRT_Error*, in table order. A function appended to the ABI
// is appended here too (the static_assert in table.cc counts the slots).
#define SEAM_PLUGIN_FUNCTIONS(X)                          \
  X(PJRT_Error_GetCode)                                   \
  X(PJRT_Plugin_Initialize)                               \
  X(PJRT_Plugin_Attributes)                               \
  X(PJRT_Event_Destroy)                                   \
  X(PJRT_Event_IsReady)                                   \
  X(PJRT_Event_Error)                                     \
  X(PJRT_Event_Await)                                     \
  X(PJRT_Event_OnReady)                                   \
  X(PJRT_Client_Create)                                   \
  X(PJRT_Client_Destroy)                                  \
  X(PJRT_Client_PlatformName)                             \
  X(PJRT_Client_ProcessIndex)                             \
  X(PJRT_Client_Devices)                                  \
  X(PJRT_Client_AddressableDevices)                       \
  X(PJRT_Client_LookupDevice)                             \
  X(PJRT_Client_Compile)                                  \
  X(PJRT_Client_BufferFromHostBuffer)                     \
  X(PJRT_DeviceDescription_Id)                            \
  X(PJRT_DeviceDescription_ProcessIndex)                  \
  X(PJRT_DeviceDescription_Kind)                          \
  X(PJRT_Device_GetDescription)                           \
  X(PJRT_Device_IsAddressable)                            \
  X(PJRT_Device_LocalHardwareId)                          \
  X(PJRT_LoadedExecutable_Destroy)                        \
  X(PJRT_LoadedExecutable_NumOutputs)                     \
  X(PJRT_LoadedExecutable_Execute)                        \
  X(PJRT_Buffer_Destroy)                                  \
  X(PJRT_Buffer_ElementType)                              \
  X(PJRT_Buffer_Dimensions)                               \
  X(PJRT_Buffer_ToHostBuffer)                             \
  X(PJRT_Buffer_ReadyEvent)                               \
  X(PJRT_Buffer_Delete)                                   \
  X(PJRT_Buffer_IsDeleted)                                \
  X(PJRT_Buffer_OnDeviceSizeInBytes)                      \
  X(PJRT_Device_MemoryStats)                              \
  X(PJRT_Buffer_CopyRawToHost)                            \
  X(PJRT_Client_CreateBuffersForAsyncHostToDevice)        \
  X(PJRT_AsyncHostToDeviceTransferManager_TransferData)   \
  X(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer) \
  X(PJRT_AsyncHostToDeviceTransferManager_Destroy)

// The functions of the profiler extension (1.4): not slots of the table, but entered the
// same way (entry.h).
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

// Args structs that grew: the least a caller must pass is the size of the minor that
// introduced the struct; the later fields are read only when struct_size covers them.
template <typename Args>
inline constexpr size_t kMinArgsSize = AbiFunction<Args>::kArgsSize;
template <>
inline constexpr size_t kMinArgsSize<PJRT_Client_Create_Args> =
    PJRT_Client_Create_Args_STRUCT_SIZE_1_1;

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
