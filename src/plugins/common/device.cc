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

PJRT_Error* DescriptionAttributes(PJRT_DeviceDescription_Attributes_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_Attributes, args->device_description);
  const Attributes& attributes = args->device_description->attributes;
  args->attributes = attributes.data();
  args->num_attributes = attributes.size();
  return nullptr;
}

PJRT_Error* DescriptionKind(PJRT_DeviceDescription_Kind_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_Kind, args->device_description);
  args->device_kind = args->device_description->kind.data();
  args->device_kind_size = args->device_description->kind.size();
  return nullptr;
}

PJRT_Error* DescriptionDebugString(PJRT_DeviceDescription_DebugString_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_DebugString, args->device_description);
  args->debug_string = args->device_description->debug_string.data();
  args->debug_string_size = args->device_description->debug_string.size();
  return nullptr;
}

PJRT_Error* DescriptionToString(PJRT_DeviceDescription_ToString_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_DeviceDescription_ToString, args->device_description);
  args->to_string = args->device_description->to_string.data();
  args->to_string_size = args->device_description->to_string.size();
  return nullptr;
}

PJRT_Error* MemoryId(PJRT_Memory_Id_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Memory_Id, args->memory);
  args->id = args->memory->id;
  return nullptr;
}

PJRT_Error* MemoryKind(PJRT_Memory_Kind_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Memory_Kind, args->memory);
  args->kind = args->memory->kind.data();
  args->kind_size = args->memory->kind.size();
  return nullptr;
}

PJRT_Error* MemoryKindId(PJRT_Memory_Kind_Id_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Memory_Kind_Id, args->memory);
  args->kind_id = args->memory->kind_id;
  return nullptr;
}

PJRT_Error* MemoryDebugString(PJRT_Memory_DebugString_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Memory_DebugString, args->memory);
  args->debug_string = args->memory->debug_string.data();
  args->debug_string_size = args->memory->debug_string.size();
  return nullptr;
}

PJRT_Error* MemoryToString(PJRT_Memory_ToString_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Memory_ToString, args->memory);
  args->to_string = args->memory->to_string.data();
  args->to_string_size = args->memory->to_string.size();
  return nullptr;
}

PJRT_Error* MemoryAddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Memory_AddressableByDevices, args->memory);
  args->devices = args->memory->devices.data();
  args->num_devices = args->memory->devices.size();
  return nullptr;
}

}  // namespace

void SetDeviceDescriptionFunctions(PJRT_Api& api) {
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Id, DescriptionId);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_ProcessIndex, DescriptionProcessIndex);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Attributes, DescriptionAttributes);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_Kind, DescriptionKind);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_DebugString, DescriptionDebugString);
  SEAM_PLUGIN_SET(api, PJRT_DeviceDescription_ToString, DescriptionToString);
}

void SetMemoryDescriptionFunctions(PJRT_Api& api) {
  SEAM_PLUGIN_SET(api, PJRT_Memory_Id, MemoryId);
  SEAM_PLUGIN_SET(api, PJRT_Memory_Kind, MemoryKind);
  SEAM_PLUGIN_SET(api, PJRT_Memory_Kind_Id, MemoryKindId);
  SEAM_PLUGIN_SET(api, PJRT_Memory_DebugString, MemoryDebugString);
  SEAM_PLUGIN_SET(api, PJRT_Memory_ToString, MemoryToString);
  SEAM_PLUGIN_SET(api, PJRT_Memory_AddressableByDevices, MemoryAddressableByDevices);
}

}  // namespace seam::plugin
