// Every function refuses an Args struct too small for it with upstream's message, and
// accepts a larger one from a newer caller.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_join.h"
#include "src/conformance/slots.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {

absl::Status ExpectSizeMessage(const absl::Status& status, const std::string& struct_name,
                               size_t header_size, size_t got, bool exact) {
  if (status.ok()) {
    return absl::InternalError(absl::StrCat("accepted a ", got, "-byte ", struct_name,
                                            " (this header's is ", header_size, ")"));
  }
  if (status.code() == absl::StatusCode::kUnimplemented) return status;
  const std::string message(status.message());
  const std::string form = absl::StrCat("Unexpected ", struct_name, " size: expected ",
                                        exact ? std::to_string(header_size) : "<E>", ", got ",
                                        got,
                                        ". Check installed software versions. The framework "
                                        "PJRT API version is <major>.<minor>.");
  if (status.code() != absl::StatusCode::kInvalidArgument) {
    return absl::InternalError(absl::StrCat("code ", absl::StatusCodeToString(status.code()),
                                            ", expected INVALID_ARGUMENT '", form, "': ",
                                            message));
  }
  // "Unexpected <S> size: expected <E>, got <got>. Check installed software versions. The
  // framework PJRT API version is <M>.<m>." (the version is the plugin's build's).
  const std::string head = absl::StrCat("Unexpected ", struct_name, " size: expected ");
  const std::string middle =
      absl::StrCat(", got ", got, ". Check installed software versions. The framework PJRT "
                                  "API version is ");
  bool ok = message.rfind(head, 0) == 0;
  size_t expected = 0;
  size_t pos = head.size();
  if (ok) {
    size_t digits = pos;
    while (digits < message.size() && std::isdigit(static_cast<unsigned char>(message[digits]))) {
      expected = expected * 10 + static_cast<size_t>(message[digits] - '0');
      ++digits;
    }
    ok = digits > pos && message.compare(digits, middle.size(), middle) == 0;
    pos = digits + middle.size();
  }
  if (ok) {
    std::string version = message.substr(pos);
    ok = version.size() >= 4 && version.back() == '.';
    if (ok) version.pop_back();
    size_t dot = version.find('.');
    ok = ok && dot != std::string::npos && dot > 0 && dot + 1 < version.size();
    for (size_t i = 0; ok && i < version.size(); ++i) {
      ok = i == dot || std::isdigit(static_cast<unsigned char>(version[i]));
    }
  }
  if (!ok) return absl::InternalError(absl::StrCat("message '", message, "', expected '", form, "'"));
  if (expected <= got || expected > header_size || (exact && expected != header_size)) {
    return absl::InternalError(absl::StrCat("message '", message, "': expected ",
                                            exact ? absl::StrCat(header_size)
                                                  : absl::StrCat("a size in ", got + 1, "..",
                                                                 header_size)));
  }
  return absl::OkStatus();
}

namespace {

// The Args size a caller sends that no plugin of any minor may accept: the header alone
// (struct_size and extension_start), or one byte less than a struct that is only that.
constexpr size_t kHeaderOnly = PJRT_STRUCT_SIZE(PJRT_Plugin_Initialize_Args, extension_start);

// Calls the function in `slot` (at `offset` of the table) with a zeroed Args buffer of a
// too-small struct_size and checks the refusal. A function that returns nothing (the error
// functions) is not called.
template <typename R, typename Args>
absl::Status TooSmall(Suite& suite, R (*PJRT_Api::*slot)(Args*), size_t offset, const char* name,
                      size_t header_size, bool exact) {
  if constexpr (std::is_void_v<R>) {
    return absl::OkStatus();
  } else {
    if (!suite.Provides(offset)) return suite.NotProvided(name);
    R (*fn)(Args*) = suite.api()->*slot;
    if (fn == nullptr) return absl::InternalError(absl::StrCat(name, " is a null slot"));
    alignas(16) unsigned char buffer[1024] = {};
    static_assert(sizeof(Args) <= sizeof(buffer));
    const size_t size = std::min(kHeaderOnly, header_size - 1);
    std::memcpy(buffer, &size, sizeof(size));
    absl::Status status = suite.Call(fn(reinterpret_cast<Args*>(buffer)));
    return ExpectSizeMessage(status, absl::StrCat(name, "_Args"), header_size, size, exact);
  }
}

// Whether the message of a plugin at the suite's own minor must name this header's size.
// PJRT_Client_Create_Args may be accepted without its try-get fields (which came later), so
// its least size is not pinned.
bool Exact(const Suite& suite, std::string_view name) {
  return suite.api()->pjrt_api_version.minor_version == PJRT_API_MINOR &&
         name != "PJRT_Client_Create";
}

#define SEAM_SIZE_ROW(kind, Name)                                                          \
  suite.kind("struct size", #Name, [&] {                                                   \
    return TooSmall(suite, &PJRT_Api::Name, offsetof(PJRT_Api, Name), #Name,               \
                    size_t{Name##_Args_STRUCT_SIZE}, Exact(suite, #Name));                 \
  });                                                                                      \
  rows.insert(#Name);

}  // namespace

void CheckStructSizes(Suite& suite) {
  std::set<std::string> rows;
  // What every plugin serves.
  SEAM_SIZE_ROW(Required, PJRT_Error_GetCode);
  SEAM_SIZE_ROW(Required, PJRT_Plugin_Initialize);
  SEAM_SIZE_ROW(Required, PJRT_Plugin_Attributes);
  SEAM_SIZE_ROW(Required, PJRT_Event_Destroy);
  SEAM_SIZE_ROW(Required, PJRT_Event_IsReady);
  SEAM_SIZE_ROW(Required, PJRT_Event_Error);
  SEAM_SIZE_ROW(Required, PJRT_Event_Await);
  SEAM_SIZE_ROW(Required, PJRT_Event_OnReady);
  SEAM_SIZE_ROW(Required, PJRT_Client_Create);
  SEAM_SIZE_ROW(Required, PJRT_Client_Destroy);
  SEAM_SIZE_ROW(Required, PJRT_Client_PlatformName);
  SEAM_SIZE_ROW(Required, PJRT_Client_ProcessIndex);
  SEAM_SIZE_ROW(Required, PJRT_Client_PlatformVersion);
  SEAM_SIZE_ROW(Required, PJRT_Client_Devices);
  SEAM_SIZE_ROW(Required, PJRT_Client_AddressableDevices);
  SEAM_SIZE_ROW(Required, PJRT_Client_LookupDevice);
  SEAM_SIZE_ROW(Required, PJRT_Client_Compile);
  SEAM_SIZE_ROW(Required, PJRT_Client_BufferFromHostBuffer);
  SEAM_SIZE_ROW(Required, PJRT_DeviceDescription_Id);
  SEAM_SIZE_ROW(Required, PJRT_DeviceDescription_ProcessIndex);
  SEAM_SIZE_ROW(Required, PJRT_DeviceDescription_Attributes);
  SEAM_SIZE_ROW(Required, PJRT_DeviceDescription_Kind);
  SEAM_SIZE_ROW(Required, PJRT_DeviceDescription_DebugString);
  SEAM_SIZE_ROW(Required, PJRT_DeviceDescription_ToString);
  SEAM_SIZE_ROW(Required, PJRT_Device_GetDescription);
  SEAM_SIZE_ROW(Required, PJRT_Device_IsAddressable);
  SEAM_SIZE_ROW(Required, PJRT_Device_LocalHardwareId);
  SEAM_SIZE_ROW(Required, PJRT_Executable_Destroy);
  SEAM_SIZE_ROW(Required, PJRT_Executable_NumOutputs);
  SEAM_SIZE_ROW(Required, PJRT_Executable_OutputElementTypes);
  SEAM_SIZE_ROW(Required, PJRT_Executable_OutputDimensions);
  SEAM_SIZE_ROW(Required, PJRT_LoadedExecutable_Destroy);
  SEAM_SIZE_ROW(Required, PJRT_LoadedExecutable_GetExecutable);
  SEAM_SIZE_ROW(Required, PJRT_LoadedExecutable_Execute);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_Destroy);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_ElementType);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_Dimensions);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_ToHostBuffer);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_ReadyEvent);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_Delete);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_IsDeleted);
  SEAM_SIZE_ROW(Required, PJRT_Buffer_OnDeviceSizeInBytes);
  // What the framework calls where a plugin serves it.
  SEAM_SIZE_ROW(Optional, PJRT_Client_AddressableMemories);
  SEAM_SIZE_ROW(Optional, PJRT_Device_AddressableMemories);
  SEAM_SIZE_ROW(Optional, PJRT_Device_DefaultMemory);
  SEAM_SIZE_ROW(Optional, PJRT_Device_MemoryStats);
  SEAM_SIZE_ROW(Optional, PJRT_Memory_Id);
  SEAM_SIZE_ROW(Optional, PJRT_Memory_Kind);
  SEAM_SIZE_ROW(Optional, PJRT_Memory_Kind_Id);
  SEAM_SIZE_ROW(Optional, PJRT_Memory_DebugString);
  SEAM_SIZE_ROW(Optional, PJRT_Memory_ToString);
  SEAM_SIZE_ROW(Optional, PJRT_Memory_AddressableByDevices);
  SEAM_SIZE_ROW(Optional, PJRT_Buffer_CopyRawToHost);
  SEAM_SIZE_ROW(Optional, PJRT_Client_CreateBuffersForAsyncHostToDevice);
  SEAM_SIZE_ROW(Optional, PJRT_AsyncHostToDeviceTransferManager_Destroy);
  SEAM_SIZE_ROW(Optional, PJRT_AsyncHostToDeviceTransferManager_TransferData);
  SEAM_SIZE_ROW(Optional, PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer);
  // Every other function of the plugin's table: refused with the message, or UNIMPLEMENTED
  // (a vendor's function that it does not serve may answer before looking at the size).
  suite.Required("struct size", "every other function of the table", [&]() -> absl::Status {
    std::vector<std::string> wrong;
    int checked = 0;
#define SEAM_SIZE_OTHER(Name)                                                           \
  if (rows.count(#Name) == 0 && suite.Provides(offsetof(PJRT_Api, Name))) {             \
    absl::Status s = TooSmall(suite, &PJRT_Api::Name, offsetof(PJRT_Api, Name), #Name,  \
                              size_t{Name##_Args_STRUCT_SIZE}, Exact(suite, #Name));    \
    ++checked;                                                                          \
    if (!s.ok() && s.code() != absl::StatusCode::kUnimplemented) {                      \
      wrong.push_back(absl::StrCat(#Name, ": ", s.message()));                          \
    }                                                                                   \
  }
    SEAM_CONFORMANCE_SLOTS(SEAM_SIZE_OTHER)
#undef SEAM_SIZE_OTHER
    return Expect(wrong.empty(), absl::StrCat(wrong.size(), " of ", checked, " wrong: ",
                                              absl::StrJoin(wrong, "; ")));
  });

  suite.Required("struct size", "a larger struct from a newer caller is accepted", [&] {
    if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
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
