// Errors, plugin-level calls and events.
#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/objects.h"

namespace seam::cpu {

PJRT_Error* MakeError(absl::Status status) {
  if (status.ok()) return nullptr;
  return new PJRT_Error{std::move(status)};
}

absl::Status CheckStructSize(const char* struct_name, size_t needed, size_t actual) {
  if (actual >= needed) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "Unexpected ", struct_name, " size: expected ", needed, ", got ", actual,
      ". Check installed software versions. The framework PJRT API version is ",
      PJRT_API_MAJOR, ".", PJRT_API_MINOR, "."));
}

PJRT_Buffer_Type ToPjrtType(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
      return PJRT_Buffer_Type_F32;
    case ir::DType::kS32:
      return PJRT_Buffer_Type_S32;
  }
  return PJRT_Buffer_Type_INVALID;
}

absl::StatusOr<ir::DType> FromPjrtType(PJRT_Buffer_Type type) {
  switch (type) {
    case PJRT_Buffer_Type_F32:
      return ir::DType::kF32;
    case PJRT_Buffer_Type_S32:
      return ir::DType::kS32;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "element type ", static_cast<int>(type), " is not supported by the cpu plugin "
          "(supported: F32 = ", PJRT_Buffer_Type_F32, ", S32 = ", PJRT_Buffer_Type_S32, ")"));
  }
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

PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  SEAM_CHECK_ARGS(PJRT_Plugin_Attributes_Args, args);
  static const PJRT_NamedValue* attributes = [] {
    static const char kName[] = "seam_plugin_name";
    static const char kValue[] = "cpu";
    static const char kIr[] = "program_formats";
    static const char kIrValue[] = "seam-ir";
    auto* values = new PJRT_NamedValue[2]();
    values[0].struct_size = PJRT_NamedValue_STRUCT_SIZE;
    values[0].name = kName;
    values[0].name_size = sizeof(kName) - 1;
    values[0].type = PJRT_NamedValue_kString;
    values[0].value.string_value = kValue;
    values[0].value_size = sizeof(kValue) - 1;
    values[1] = values[0];
    values[1].name = kIr;
    values[1].name_size = sizeof(kIr) - 1;
    values[1].value.string_value = kIrValue;
    values[1].value_size = sizeof(kIrValue) - 1;
    return values;
  }();
  args->attributes = attributes;
  args->num_attributes = 2;
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
