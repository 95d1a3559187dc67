#include "src/plugins/common/device.h"

namespace seam::plugin {
namespace {

PJRT_Error* DescriptionId(PJRT_DeviceDescription_Id_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_Id, args->device_description);
  args->id = args->device_description->id;
  return nullptr;
}

PJRT_Error* DescriptionProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_ProcessIndex, args->device_description);
  args->process_index = args->device_description->process_index;
  return nullptr;
}

PJRT_Error* DescriptionKind(PJRT_DeviceDescription_Kind_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_Kind, args->device_description);
  args->device_kind = args->device_description->kind.data();
  args->device_kind_size = args->device_description->kind.size();
  return nullptr;
}

}  // namespace

void SetDeviceDescriptionFunctions(PJRT_Api& api) {
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Id, DescriptionId);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_ProcessIndex, DescriptionProcessIndex);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Kind, DescriptionKind);
}

}  // namespace seam::plugin
