// The table itself, the plugin's attributes and error objects.
#include <cstring>
#include <set>

#include "absl/strings/str_join.h"
#include "src/conformance/slots.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

// The first minor whose layout seam reads (the framework refuses 0.29 to 0.56).
constexpr int kFirstMinorRead = 57;

constexpr const char* kSlotNames[] = {
#define SEAM_SLOT_NAME(Name) #Name,
    SEAM_CONFORMANCE_SLOTS(SEAM_SLOT_NAME)
#undef SEAM_SLOT_NAME
};
static_assert(sizeof(kSlotNames) / sizeof(kSlotNames[0]) == 129);

absl::Status ReadAttributes(Suite& suite, std::vector<NamedValue>* out) {
  auto args = SEAM_PJRT_ARGS(PJRT_Plugin_Attributes_Args);
  absl::Status status = SEAM_CALL(suite, PJRT_Plugin_Attributes, &args);
  if (!status.ok()) return status;
  absl::StatusOr<std::vector<NamedValue>> values =
      ReadNamedValues(args.attributes, args.num_attributes, "attribute");
  if (!values.ok()) return values.status();
  *out = std::move(*values);
  return absl::OkStatus();
}

// A StableHLO version attribute, when present, is a list of three int64 (major, minor,
// patch), as upstream's plugins announce it.
absl::Status VersionTriple(const NamedValue* value) {
  if (value == nullptr) return absl::OkStatus();
  if (value->type != PJRT_NamedValue_kInt64List || value->int64_list.size() != 3) {
    return absl::InternalError(
        absl::StrCat("attribute '", value->name, "' is not a list of 3 int64 (type ",
                     static_cast<int>(value->type), ", ", value->int64_list.size(), " entries)"));
  }
  for (int64_t part : value->int64_list) {
    if (part < 0) {
      return absl::InternalError(absl::StrCat("attribute '", value->name, "' has a negative part"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void CheckTable(Suite& suite) {
  const PJRT_Api* api = suite.api();
  suite.Required("api", "version", [&] {
    const auto& v = api->pjrt_api_version;
    return Expect(v.major_version == PJRT_API_MAJOR && v.minor_version >= kFirstMinorRead,
                  absl::StrCat("version ", suite.PluginVersion(), "; the suite reads ",
                               PJRT_API_MAJOR, ".", kFirstMinorRead, " and later minors"));
  });
  suite.Required("api", "table size", [&] {
    const size_t first = offsetof(PJRT_Api, PJRT_Error_Destroy);
    if (api->struct_size < first || (api->struct_size - first) % sizeof(void*) != 0) {
      return absl::InternalError(
          absl::StrCat("PJRT_Api.struct_size ", api->struct_size, " does not end at a slot"));
    }
    if (api->pjrt_api_version.minor_version >= PJRT_API_MINOR) {
      return Expect(api->struct_size >= size_t{PJRT_Api_STRUCT_SIZE},
                    absl::StrCat("PJRT_Api is ", api->struct_size, " bytes, version ",
                                 suite.PluginVersion(), " has ", PJRT_Api_STRUCT_SIZE));
    }
    return absl::OkStatus();
  });
  suite.Required("api", "no null slots up to the table's struct_size", [&] {
    std::vector<std::string> null_slots;
    for (size_t i = 0; i < std::size(kSlotNames); ++i) {
      const size_t offset = offsetof(PJRT_Api, PJRT_Error_Destroy) + i * sizeof(void*);
      if (!suite.Provides(offset)) break;
      void* slot = nullptr;
      std::memcpy(&slot, reinterpret_cast<const char*>(api) + offset, sizeof(slot));
      if (slot == nullptr) null_slots.push_back(kSlotNames[i]);
    }
    return Expect(null_slots.empty(),
                  absl::StrCat("null: ", absl::StrJoin(null_slots, ", "),
                               " (a function a plugin does not serve returns UNIMPLEMENTED)"));
  });
  suite.Required("api", "attributes are well-formed named values with unique names", [&] {
    std::vector<NamedValue> values;
    if (absl::Status s = ReadAttributes(suite, &values); !s.ok()) return s;
    std::set<std::string> names;
    for (const NamedValue& value : values) {
      if (!names.insert(value.name).second) {
        return absl::InternalError(absl::StrCat("attribute '", value.name, "' repeats"));
      }
    }
    return absl::OkStatus();
  });
  suite.Required(
      "api",
      "stablehlo_current_version and stablehlo_minimum_version, when present, "
      "are 3 int64",
      [&] {
        std::vector<NamedValue> values;
        if (absl::Status s = ReadAttributes(suite, &values); !s.ok()) return s;
        const NamedValue* current = nullptr;
        const NamedValue* minimum = nullptr;
        for (const NamedValue& value : values) {
          if (value.name == "stablehlo_current_version") current = &value;
          if (value.name == "stablehlo_minimum_version") minimum = &value;
        }
        if (absl::Status s = VersionTriple(current); !s.ok()) return s;
        if (absl::Status s = VersionTriple(minimum); !s.ok()) return s;
        if ((current == nullptr) != (minimum == nullptr)) {
          return absl::InternalError("only one of the two StableHLO versions is announced");
        }
        if (current != nullptr && current->int64_list < minimum->int64_list) {
          return absl::InternalError("stablehlo_minimum_version is newer than the current one");
        }
        return absl::OkStatus();
      });
  suite.Required("errors", "an error has a canonical code and a message; Destroy takes NULL", [&] {
    if (absl::Status s = suite.NeedClient(); !s.ok()) return s;
    auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
    args.client = suite.client();
    args.id = -1;
    if (api->PJRT_Client_LookupDevice == nullptr) {
      return absl::InternalError("PJRT_Client_LookupDevice is a null slot");
    }
    PJRT_Error* error = api->PJRT_Client_LookupDevice(&args);
    if (error == nullptr) return absl::InternalError("looking up device id -1 succeeded");
    auto code = SEAM_PJRT_ARGS(PJRT_Error_GetCode_Args);
    code.error = error;
    absl::Status code_status = suite.Call(api->PJRT_Error_GetCode(&code));
    auto message = SEAM_PJRT_ARGS(PJRT_Error_Message_Args);
    message.error = error;
    api->PJRT_Error_Message(&message);
    std::string text(message.message == nullptr ? "" : message.message,
                     message.message == nullptr ? 0 : message.message_size);
    auto destroy = SEAM_PJRT_ARGS(PJRT_Error_Destroy_Args);
    destroy.error = error;
    api->PJRT_Error_Destroy(&destroy);
    destroy.error = nullptr;
    api->PJRT_Error_Destroy(&destroy);
    if (!code_status.ok()) return code_status;
    if (code.code < PJRT_Error_Code_CANCELLED || code.code > PJRT_Error_Code_UNAUTHENTICATED) {
      return absl::InternalError(
          absl::StrCat("error code ", static_cast<int>(code.code), " is not a canonical code"));
    }
    return Expect(!text.empty(), "the error's message is empty");
  });
}

void CheckSeamAttributes(Suite& suite) {
  suite.Required("api", "seam_ir_version is the int64 1", [&]() -> absl::Status {
    if (absl::Status s = suite.NeedSeamIr(); !s.ok()) return s;
    const NamedValue* value = suite.Attribute("seam_ir_version");
    return Expect(value->type == PJRT_NamedValue_kInt64 && value->int64_value == 1,
                  absl::StrCat("seam_ir_version has type ", static_cast<int>(value->type),
                               " and value ", value->int64_value, "; the suite writes version 1"));
  });
  suite.Required("api", "supported_element_types, when present, lists element types", [&] {
    const NamedValue* value = suite.Attribute("supported_element_types");
    if (value == nullptr) return absl::OkStatus();
    if (value->type != PJRT_NamedValue_kInt64List || value->int64_list.empty()) {
      return absl::InternalError("supported_element_types is not a non-empty int64 list");
    }
    for (int64_t type : value->int64_list) {
      if (type <= PJRT_Buffer_Type_INVALID || type > PJRT_Buffer_Type_U1) {
        return absl::InternalError(absl::StrCat("supported_element_types lists ", type));
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace seam::conformance
