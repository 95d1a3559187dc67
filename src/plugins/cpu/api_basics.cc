// Errors, plugin-level calls and events.
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/abi/buffer_type.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/objects.h"

namespace seam::cpu {

PJRT_Error* MakeError(absl::Status status) {
  if (status.ok()) return nullptr;
  return new PJRT_Error{std::move(status)};
}

absl::Status CheckStructSize(const char* struct_name, size_t needed, size_t actual) {
  if (actual >= needed) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Unexpected ", struct_name, " size: expected ", needed, ", got ", actual,
                   ". Check installed software versions. The framework PJRT API version is ",
                   PJRT_API_MAJOR, ".", PJRT_API_MINOR, "."));
}

PJRT_Buffer_Type ToPjrtType(ir::DType dtype) { return abi::ToPjrtBufferType(dtype); }

absl::StatusOr<ir::DType> FromPjrtType(PJRT_Buffer_Type type) {
  if (std::optional<ir::DType> dtype = abi::FromPjrtBufferType(type)) return *dtype;
  return absl::InvalidArgumentError(
      absl::StrCat("element type ", static_cast<int>(type),
                   " is not supported by the cpu plugin "
                   "(supported: PRED = ",
                   PJRT_Buffer_Type_PRED, ", S32 = ", PJRT_Buffer_Type_S32,
                   ", S64 = ", PJRT_Buffer_Type_S64, ", F32 = ", PJRT_Buffer_Type_F32,
                   ", F64 = ", PJRT_Buffer_Type_F64, ", BF16 = ", PJRT_Buffer_Type_BF16, ")"));
}

void ErrorDestroy(PJRT_Error_Destroy_Args* args) {
  // This function cannot report an error: a bad Args struct is ignored rather than read.
  if (args == nullptr || args->struct_size < PJRT_Error_Destroy_Args_STRUCT_SIZE) return;
  delete args->error;
}

void ErrorMessage(PJRT_Error_Message_Args* args) {
  if (args == nullptr || args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE) return;
  if (args->error == nullptr) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  absl::string_view message = args->error->status.message();
  args->message = message.data();
  args->message_size = message.size();
}

PJRT_Error* ErrorGetCode(PJRT_Error_GetCode_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Error_GetCode_Args, args);
  SEAM_CHECK_NOT_NULL(PJRT_Error_GetCode, args->error);
  args->code = static_cast<PJRT_Error_Code>(args->error->status.code());
  return nullptr;
}

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Plugin_Initialize_Args, args);
  return nullptr;
}

namespace {

PJRT_NamedValue StringAttribute(const char* name, const char* value) {
  PJRT_NamedValue v{};
  v.struct_size = PJRT_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kString;
  v.value.string_value = value;
  v.value_size = std::strlen(value);
  return v;
}

// The element types this plugin accepts, found by asking the conversion itself so that
// the list cannot drift from what BufferFromHostBuffer takes.
const std::vector<int64_t>& SupportedElementTypes() {
  static const auto* types = [] {
    auto* list = new std::vector<int64_t>();
    for (int t = PJRT_Buffer_Type_PRED; t <= PJRT_Buffer_Type_BF16; ++t) {
      if (FromPjrtType(static_cast<PJRT_Buffer_Type>(t)).ok()) list->push_back(t);
    }
    return list;
  }();
  return *types;
}

}  // namespace

PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Plugin_Attributes_Args, args);
  static const std::vector<PJRT_NamedValue>* attributes = [] {
    auto* list = new std::vector<PJRT_NamedValue>();
    list->push_back(StringAttribute("seam_plugin_name", "cpu"));
    list->push_back(StringAttribute("program_formats", "seam-ir"));
    PJRT_NamedValue types{};
    types.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    types.name = "supported_element_types";
    types.name_size = std::strlen(types.name);
    types.type = PJRT_NamedValue_kInt64List;
    types.value.int64_array_value = SupportedElementTypes().data();
    types.value_size = SupportedElementTypes().size();
    list->push_back(types);
    return list;
  }();
  args->attributes = attributes->data();
  args->num_attributes = attributes->size();
  return nullptr;
}

PJRT_Error* EventDestroy(PJRT_Event_Destroy_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Event_Destroy_Args, args);
  delete args->event;
  return nullptr;
}

PJRT_Error* EventIsReady(PJRT_Event_IsReady_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Event_IsReady_Args, args);
  SEAM_CHECK_NOT_NULL(PJRT_Event_IsReady, args->event);
  args->is_ready = args->event->state->IsReady();
  return nullptr;
}

PJRT_Error* EventError(PJRT_Event_Error_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Event_Error_Args, args);
  SEAM_CHECK_NOT_NULL(PJRT_Event_Error, args->event);
  if (!args->event->state->IsReady()) {
    return MakeError(absl::FailedPreconditionError(
        "PJRT_Event_Error: the event is not ready yet (await it first)"));
  }
  return MakeError(args->event->state->status());
}

PJRT_Error* EventAwait(PJRT_Event_Await_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Event_Await_Args, args);
  SEAM_CHECK_NOT_NULL(PJRT_Event_Await, args->event);
  return MakeError(args->event->state->Await());
}

PJRT_Error* EventOnReady(PJRT_Event_OnReady_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Event_OnReady_Args, args);
  SEAM_CHECK_NOT_NULL(PJRT_Event_OnReady, args->event);
  SEAM_CHECK_NOT_NULL(PJRT_Event_OnReady, args->callback);
  PJRT_Event_OnReadyCallback callback = args->callback;
  void* user_arg = args->user_arg;
  args->event->state->OnReady(
      [callback, user_arg](const absl::Status& status) { callback(MakeError(status), user_arg); });
  return nullptr;
}

}  // namespace seam::cpu
