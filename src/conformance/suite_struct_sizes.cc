// Every function refuses an Args struct too small for it with upstream's message, and
// accepts a larger one from a newer caller.
#include <algorithm>
#include <cctype>
#include <cstdlib>
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
                                        exact ? std::to_string(header_size) : "<E>", ", got ", got,
                                        ". Check installed software versions. The framework "
                                        "PJRT API version is <major>.<minor>.");
  if (status.code() != absl::StatusCode::kInvalidArgument) {
    return absl::InternalError(absl::StrCat("code ", absl::StatusCodeToString(status.code()),
                                            ", expected INVALID_ARGUMENT '", form, "': ", message));
  }
  // "Unexpected <S> size: expected <E>, got <got>. Check installed software versions. The
  // framework PJRT API version is <M>.<m>." (the version is the plugin's build's).
  const std::string head = absl::StrCat("Unexpected ", struct_name, " size: expected ");
  const std::string middle = absl::StrCat(", got ", got,
                                          ". Check installed software versions. The framework PJRT "
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
  if (!ok)
    return absl::InternalError(absl::StrCat("message '", message, "', expected '", form, "'"));
  if (expected <= got || expected > header_size || (exact && expected != header_size)) {
    return absl::InternalError(
        absl::StrCat("message '", message, "': expected ",
                     exact ? absl::StrCat(header_size)
                           : absl::StrCat("a size in ", got + 1, "..", header_size)));
  }
  return absl::OkStatus();
}

namespace {

// The Args size a caller sends that no plugin of any minor may accept: the header alone
// (struct_size and extension_start), or one byte less than a struct that is only that.
constexpr size_t kHeaderOnly = PJRT_Plugin_Initialize_Args_STRUCT_SIZE;

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

// One too-small call per slot of the table.
struct SlotCheck {
  const char* name;
  size_t offset;
  absl::Status (*run)(Suite& suite);
};

#define SEAM_SLOT_CHECK(Name)                                                          \
  SlotCheck{#Name, offsetof(PJRT_Api, Name), [](Suite& suite) {                        \
              return TooSmall(suite, &PJRT_Api::Name, offsetof(PJRT_Api, Name), #Name, \
                              size_t{Name##_Args_STRUCT_SIZE}, Exact(suite, #Name));   \
            }},
const SlotCheck kSlotChecks[] = {SEAM_CONFORMANCE_SLOTS(SEAM_SLOT_CHECK)};
#undef SEAM_SLOT_CHECK

const SlotCheck& SlotNamed(std::string_view name) {
  for (const SlotCheck& check : kSlotChecks) {
    if (name == check.name) return check;
  }
  std::abort();  // a name below that is not a slot: a bug of this file
}

// What every plugin serves: a row each, required.
constexpr const char* kRequiredRows[] = {
    "PJRT_Error_GetCode",
    "PJRT_Plugin_Initialize",
    "PJRT_Plugin_Attributes",
    "PJRT_Event_Destroy",
    "PJRT_Event_IsReady",
    "PJRT_Event_Error",
    "PJRT_Event_Await",
    "PJRT_Event_OnReady",
    "PJRT_Client_Create",
    "PJRT_Client_Destroy",
    "PJRT_Client_PlatformName",
    "PJRT_Client_ProcessIndex",
    "PJRT_Client_PlatformVersion",
    "PJRT_Client_Devices",
    "PJRT_Client_AddressableDevices",
    "PJRT_Client_LookupDevice",
    "PJRT_Client_Compile",
    "PJRT_Client_BufferFromHostBuffer",
    "PJRT_DeviceDescription_Id",
    "PJRT_DeviceDescription_ProcessIndex",
    "PJRT_DeviceDescription_Attributes",
    "PJRT_DeviceDescription_Kind",
    "PJRT_DeviceDescription_DebugString",
    "PJRT_DeviceDescription_ToString",
    "PJRT_Device_GetDescription",
    "PJRT_Device_IsAddressable",
    "PJRT_Device_LocalHardwareId",
    "PJRT_Executable_Destroy",
    "PJRT_Executable_NumOutputs",
    "PJRT_Executable_OutputElementTypes",
    "PJRT_Executable_OutputDimensions",
    "PJRT_LoadedExecutable_Destroy",
    "PJRT_LoadedExecutable_GetExecutable",
    "PJRT_LoadedExecutable_Execute",
    "PJRT_Buffer_Destroy",
    "PJRT_Buffer_ElementType",
    "PJRT_Buffer_Dimensions",
    "PJRT_Buffer_ToHostBuffer",
    "PJRT_Buffer_ReadyEvent",
    "PJRT_Buffer_Delete",
    "PJRT_Buffer_IsDeleted",
    "PJRT_Buffer_OnDeviceSizeInBytes",
};

// What the framework calls where a plugin serves it: a row each, optional.
constexpr const char* kOptionalRows[] = {
    "PJRT_Client_AddressableMemories",
    "PJRT_Device_AddressableMemories",
    "PJRT_Device_DefaultMemory",
    "PJRT_Device_MemoryStats",
    "PJRT_Memory_Id",
    "PJRT_Memory_Kind",
    "PJRT_Memory_Kind_Id",
    "PJRT_Memory_DebugString",
    "PJRT_Memory_ToString",
    "PJRT_Memory_AddressableByDevices",
    "PJRT_Buffer_CopyRawToHost",
    "PJRT_Client_CreateBuffersForAsyncHostToDevice",
    "PJRT_AsyncHostToDeviceTransferManager_Destroy",
    "PJRT_AsyncHostToDeviceTransferManager_TransferData",
    "PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer",
};

// Every other function of the plugin's table: refused with the message, or UNIMPLEMENTED (a
// vendor's function that it does not serve may answer before looking at the size).
absl::Status EveryOtherSlot(Suite& suite, const std::set<std::string_view>& rows) {
  std::vector<std::string> wrong;
  int checked = 0;
  for (const SlotCheck& check : kSlotChecks) {
    if (rows.count(check.name) > 0 || !suite.Provides(check.offset)) continue;
    ++checked;
    absl::Status status = check.run(suite);
    if (!status.ok() && status.code() != absl::StatusCode::kUnimplemented) {
      wrong.push_back(absl::StrCat(check.name, ": ", status.message()));
    }
  }
  return Expect(wrong.empty(), absl::StrCat(wrong.size(), " of ", checked,
                                            " wrong: ", absl::StrJoin(wrong, "; ")));
}

absl::Status LargerStructAccepted(Suite& suite) {
  if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
  struct Bigger {
    PJRT_Client_PlatformName_Args args;
    int64_t from_the_future[4];
  } bigger{};
  bigger.args.struct_size = sizeof(Bigger);
  bigger.args.client = suite.client();
  return SEAM_CALL(suite, PJRT_Client_PlatformName, &bigger.args);
}

}  // namespace

void CheckStructSizes(Suite& suite) {
  std::set<std::string_view> rows;
  for (const char* name : kRequiredRows) {
    rows.insert(name);
    suite.Required("struct size", name, [&suite, name] { return SlotNamed(name).run(suite); });
  }
  for (const char* name : kOptionalRows) {
    rows.insert(name);
    suite.Optional("struct size", name, [&suite, name] { return SlotNamed(name).run(suite); });
  }
  suite.Required("struct size", "every other function of the table",
                 [&] { return EveryOtherSlot(suite, rows); });
  suite.Required("struct size", "a larger struct from a newer caller is accepted",
                 [&] { return LargerStructAccepted(suite); });
}

}  // namespace seam::conformance
