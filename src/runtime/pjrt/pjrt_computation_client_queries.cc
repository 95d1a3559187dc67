// The PJRT client's questions about its devices: which devices the plugin addresses (at
// creation), their names, the runs in flight on each, their memory figures, and a CPU
// buffer's address for sharing (DLPack).
#include <algorithm>
#include <cctype>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "seam/c/pjrt_c_api.h"
#include "src/base/status_macros.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"

namespace seam::runtime {

absl::Status PjrtComputationClient::DiscoverDevices() {
  auto name_args = SEAM_PJRT_ARGS(PJRT_Client_PlatformName_Args);
  name_args.client = client_;
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Client_PlatformName, &name_args));
  if (name_args.platform_name != nullptr) {
    platform_name_.assign(name_args.platform_name, name_args.platform_name_size);
  }
  std::string prefix = platform_name_;
  std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });

  // Every device of the job (all processes'); this process drives the addressable ones.
  if (SEAM_PJRT_HAS(api_, PJRT_Client_Devices)) {
    auto all_args = SEAM_PJRT_ARGS(PJRT_Client_Devices_Args);
    all_args.client = client_;
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Client_Devices, &all_args));
    num_global_devices_ = static_cast<int64_t>(all_args.num_devices);
  }
  auto devices_args = SEAM_PJRT_ARGS(PJRT_Client_AddressableDevices_Args);
  devices_args.client = client_;
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Client_AddressableDevices, &devices_args));
  if (devices_args.num_addressable_devices > 0 && devices_args.addressable_devices == nullptr) {
    return absl::InternalError(absl::StrCat("PJRT_Client_AddressableDevices reported ",
                                            devices_args.num_addressable_devices,
                                            " devices and no array"));
  }
  for (size_t i = 0; i < devices_args.num_addressable_devices; ++i) {
    PJRT_Device* device = devices_args.addressable_devices[i];
    auto desc_args = SEAM_PJRT_ARGS(PJRT_Device_GetDescription_Args);
    desc_args.device = device;
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Device_GetDescription, &desc_args));
    auto id_args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Id_Args);
    id_args.device_description = desc_args.device_description;
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_DeviceDescription_Id, &id_args));
    auto kind_args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args);
    kind_args.device_description = desc_args.device_description;
    SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_DeviceDescription_Kind, &kind_args));
    // The device's default memory, where streamed uploads allocate (null when the plugin
    // has no memories: uploads then take the host-staged default).
    PJRT_Memory* memory = nullptr;
    if (SEAM_PJRT_HAS(api_, PJRT_Device_DefaultMemory)) {
      auto memory_args = SEAM_PJRT_ARGS(PJRT_Device_DefaultMemory_Args);
      memory_args.device = device;
      if (SEAM_PJRT_CALL(api_, PJRT_Device_DefaultMemory, &memory_args).ok()) {
        memory = memory_args.memory;
      }
    }
    devices_.push_back(device);
    memories_.push_back(memory);
    device_names_.push_back(absl::StrCat(prefix, ":", id_args.id));
    activity_.push_back(DeviceActivity::For(device_names_.back()));
    device_infos_.push_back({device_names_.back(), id_args.id,
                             kind_args.device_kind == nullptr
                                 ? std::string()
                                 : std::string(kind_args.device_kind, kind_args.device_kind_size)});
  }
  if (devices_.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", platform_name_, "' reports no addressable devices"));
  }
  if (num_global_devices_ < static_cast<int64_t>(devices_.size())) {
    num_global_devices_ = static_cast<int64_t>(devices_.size());
  }
  return absl::OkStatus();
}

int PjrtComputationClient::FindDevice(const std::string& name) const {
  for (size_t i = 0; i < device_names_.size(); ++i) {
    if (device_names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<int> PjrtComputationClient::DeviceIndex(const std::string& name) const {
  if (int index = FindDevice(name); index >= 0) return index;
  return absl::InvalidArgumentError(absl::StrCat(
      "Unknown device '", name, "' (devices: ", absl::StrJoin(device_names_, ", "), ")"));
}

absl::Status PjrtComputationClient::AwaitRunsInFlightBelow(const std::string& device,
                                                           int64_t limit) {
  SEAM_ASSIGN_OR_RETURN(int index, DeviceIndex(device));
  activity_[static_cast<size_t>(index)]->AwaitInFlightBelow(limit);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> PjrtComputationClient::RunsInFlight(const std::string& device) const {
  SEAM_ASSIGN_OR_RETURN(int index, DeviceIndex(device));
  return activity_[static_cast<size_t>(index)]->InFlight();
}

absl::StatusOr<ComputationClient::MemoryStats> PjrtComputationClient::GetMemoryStats(
    const std::string& device) const {
  SEAM_ASSIGN_OR_RETURN(int index, DeviceIndex(device));
  if (!SEAM_PJRT_HAS(api_, PJRT_Device_MemoryStats)) {
    return absl::UnimplementedError(
        absl::StrCat("memory figures of ", device, ": ",
                     PjrtMissingSlot(api_, "PJRT_Device_MemoryStats").message()));
  }
  auto args = SEAM_PJRT_ARGS(PJRT_Device_MemoryStats_Args);
  args.device = devices_[static_cast<size_t>(index)];
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Device_MemoryStats, &args));
  // Upstream's figures: peak and limit map one to one; seam's "cached" is what the
  // allocator holds beyond what is in use (pool_bytes = in use + cached).
  MemoryStats stats;
  stats.bytes_in_use = args.bytes_in_use;
  if (args.peak_bytes_in_use_is_set) stats.peak_bytes_in_use = args.peak_bytes_in_use;
  if (args.bytes_limit_is_set) stats.bytes_limit = args.bytes_limit;
  if (args.pool_bytes_is_set) {
    stats.pool_cached_bytes = std::max<int64_t>(args.pool_bytes - args.bytes_in_use, 0);
  }
  return stats;
}

absl::StatusOr<ComputationClient::SharedHostMemory> PjrtComputationClient::ShareHostMemory(
    const DataPtr& handle) {
  auto* buffer = static_cast<PJRT_Buffer*>(const_cast<void*>(handle->native_handle()));
  std::string platform = platform_name_;
  std::transform(platform.begin(), platform.end(), platform.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (platform != "cpu" || buffer == nullptr) return ComputationClient::ShareHostMemory(handle);
  if (!SEAM_PJRT_HAS(api_, PJRT_Buffer_UnsafePointer)) {
    return PjrtMissingSlot(api_, "PJRT_Buffer_UnsafePointer");
  }
  SEAM_RETURN_IF_ERROR(handle->AwaitReady());
  auto increase = SEAM_PJRT_ARGS(PJRT_Buffer_IncreaseExternalReferenceCount_Args);
  increase.buffer = buffer;
  absl::Status counted =
      SEAM_PJRT_CALL(api_, PJRT_Buffer_IncreaseExternalReferenceCount, &increase);
  if (!counted.ok() && !absl::IsUnimplemented(counted)) return counted;
  const PJRT_Api* api = api_;
  // Holds the handle (so the buffer is neither destroyed nor donated: seam donates only a
  // value nothing else holds) and the external reference, both dropped with the last copy.
  std::shared_ptr<void> owner(new DataPtr(handle), [api, counted = counted.ok()](void* p) {
    auto* held = static_cast<DataPtr*>(p);
    if (counted) {
      auto decrease = SEAM_PJRT_ARGS(PJRT_Buffer_DecreaseExternalReferenceCount_Args);
      decrease.buffer = static_cast<PJRT_Buffer*>(const_cast<void*>((*held)->native_handle()));
      SEAM_PJRT_CALL(api, PJRT_Buffer_DecreaseExternalReferenceCount, &decrease).IgnoreError();
    }
    delete held;
  });
  auto pointer = SEAM_PJRT_ARGS(PJRT_Buffer_UnsafePointer_Args);
  pointer.buffer = buffer;
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api_, PJRT_Buffer_UnsafePointer, &pointer));
  SharedHostMemory shared;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the ABI hands the address over as an integer
  shared.data = reinterpret_cast<void*>(pointer.buffer_pointer);
  shared.owner = std::move(owner);
  return shared;
}

}  // namespace seam::runtime
