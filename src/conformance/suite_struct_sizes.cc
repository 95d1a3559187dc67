// Every function refuses a too-small Args struct with PyTorch/XLA's message (REFERENCE.md,
// "Per-call struct check"), and accepts a larger one.
#include <cctype>
#include <cstring>
#include <type_traits>

#include "src/conformance/suite_internal.h"

namespace seam::conformance {

// The version in the message is the one the plugin was built with, so only its form is
// checked.
absl::Status ExpectSizeMessage(const absl::Status& status, const std::string& struct_name,
                               size_t expected, size_t got) {
  if (status.ok()) {
    return absl::InternalError(
        absl::StrCat("accepted a ", got, "-byte ", struct_name, " (needs ", expected, ")"));
  }
  if (status.code() != absl::StatusCode::kInvalidArgument) {
    return absl::InternalError(absl::StrCat("code ", absl::StatusCodeToString(status.code()),
                                            ", expected INVALID_ARGUMENT: ", status.message()));
  }
  std::string prefix =
      absl::StrCat("Unexpected ", struct_name, " size: expected ", expected, ", got ", got,
                   ". Check installed software versions. The framework PJRT "
                   "API version is ");
  std::string message(status.message());
  bool ok =
      message.rfind(prefix, 0) == 0 && message.size() > prefix.size() && message.back() == '.';
  if (ok) {
    std::string version = message.substr(prefix.size(), message.size() - prefix.size() - 1);
    size_t dot = version.find('.');
    ok = dot != std::string::npos && dot > 0 && dot + 1 < version.size();
    for (size_t i = 0; ok && i < version.size(); ++i) {
      ok = i == dot || std::isdigit(static_cast<unsigned char>(version[i]));
    }
  }
  return Expect(ok,
                absl::StrCat("message '", message, "', expected '", prefix, "<major>.<minor>.'"));
}

namespace {

// The least struct_size a plugin must accept for an Args struct: its size in the minor
// that introduced it. Structs that grew later name their first size (docs/abi.md).
template <typename Args>
constexpr size_t MinArgsSize(size_t current) {
  if constexpr (std::is_same_v<Args, PJRT_Client_Create_Args>) {
    return PJRT_Client_Create_Args_STRUCT_SIZE_1_1;
  }
  return current;
}

// A zeroed Args buffer one byte too small for `Name`, passed to the function.
#define SEAM_SIZE_CHECK(Name)                                                             \
  suite.Check("struct size", #Name, [&] {                                                 \
    alignas(16) unsigned char buffer[512] = {};                                           \
    static_assert(Name##_Args_STRUCT_SIZE <= sizeof(buffer));                             \
    constexpr size_t kMin = MinArgsSize<Name##_Args>(Name##_Args_STRUCT_SIZE);            \
    size_t size = kMin - 1;                                                               \
    std::memcpy(buffer, &size, sizeof(size));                                             \
    absl::Status status = SEAM_CALL(suite, Name, reinterpret_cast<Name##_Args*>(buffer)); \
    return ExpectSizeMessage(status, #Name "_Args", kMin, size);                          \
  })

}  // namespace

void CheckStructSizes(Suite& suite) {
  SEAM_SIZE_CHECK(PJRT_Error_GetCode);
  SEAM_SIZE_CHECK(PJRT_Plugin_Initialize);
  SEAM_SIZE_CHECK(PJRT_Plugin_Attributes);
  SEAM_SIZE_CHECK(PJRT_Event_Destroy);
  SEAM_SIZE_CHECK(PJRT_Event_IsReady);
  SEAM_SIZE_CHECK(PJRT_Event_Error);
  SEAM_SIZE_CHECK(PJRT_Event_Await);
  SEAM_SIZE_CHECK(PJRT_Event_OnReady);
  SEAM_SIZE_CHECK(PJRT_Client_Create);
  SEAM_SIZE_CHECK(PJRT_Client_Destroy);
  SEAM_SIZE_CHECK(PJRT_Client_PlatformName);
  SEAM_SIZE_CHECK(PJRT_Client_ProcessIndex);
  SEAM_SIZE_CHECK(PJRT_Client_Devices);
  SEAM_SIZE_CHECK(PJRT_Client_AddressableDevices);
  SEAM_SIZE_CHECK(PJRT_Client_LookupDevice);
  SEAM_SIZE_CHECK(PJRT_Client_Compile);
  SEAM_SIZE_CHECK(PJRT_Client_BufferFromHostBuffer);
  SEAM_SIZE_CHECK(PJRT_DeviceDescription_Id);
  SEAM_SIZE_CHECK(PJRT_DeviceDescription_ProcessIndex);
  SEAM_SIZE_CHECK(PJRT_DeviceDescription_Kind);
  SEAM_SIZE_CHECK(PJRT_Device_GetDescription);
  SEAM_SIZE_CHECK(PJRT_Device_IsAddressable);
  SEAM_SIZE_CHECK(PJRT_Device_LocalHardwareId);
  SEAM_SIZE_CHECK(PJRT_LoadedExecutable_Destroy);
  SEAM_SIZE_CHECK(PJRT_LoadedExecutable_NumOutputs);
  SEAM_SIZE_CHECK(PJRT_LoadedExecutable_Execute);
  SEAM_SIZE_CHECK(PJRT_Buffer_Destroy);
  SEAM_SIZE_CHECK(PJRT_Buffer_ElementType);
  SEAM_SIZE_CHECK(PJRT_Buffer_Dimensions);
  SEAM_SIZE_CHECK(PJRT_Buffer_ToHostBuffer);
  SEAM_SIZE_CHECK(PJRT_Buffer_ReadyEvent);
  SEAM_SIZE_CHECK(PJRT_Buffer_Delete);
  SEAM_SIZE_CHECK(PJRT_Buffer_IsDeleted);
  SEAM_SIZE_CHECK(PJRT_Buffer_OnDeviceSizeInBytes);
  // 1.3: only where the plugin's version and table have it.
  if (HasMemoryQuery(suite).ok()) {
    SEAM_SIZE_CHECK(PJRT_Device_MemoryStats);
  }

  suite.Check("struct size", "a larger struct from a newer caller is accepted", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    struct Bigger {
      PJRT_Client_PlatformName_Args args;
      int64_t from_the_future[4];
    } bigger{};
    bigger.args.struct_size = sizeof(Bigger);
    bigger.args.client = suite.client();
    return SEAM_CALL(suite, PJRT_Client_PlatformName, &bigger.args);
  });
}

}  // namespace seam::conformance
