// Client and device queries.
#include <algorithm>
#include <climits>
#include <set>

#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

absl::StatusOr<PJRT_DeviceDescription*> Description(Suite& suite, PJRT_Device* device) {
  auto args = SEAM_PJRT_ARGS(PJRT_Device_GetDescription_Args);
  args.device = device;
  absl::Status status = SEAM_CALL(suite, PJRT_Device_GetDescription, &args);
  if (!status.ok()) return status;
  return args.device_description;
}

absl::StatusOr<int> DeviceId(Suite& suite, PJRT_Device* device) {
  absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
  if (!description.ok()) return description.status();
  auto args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Id_Args);
  args.device_description = *description;
  absl::Status status = SEAM_CALL(suite, PJRT_DeviceDescription_Id, &args);
  if (!status.ok()) return status;
  return args.id;
}

// Runs `fn` for each addressable device, stopping at the first failure.
absl::Status ForEachDevice(Suite& suite, const std::function<absl::Status(PJRT_Device*)>& fn) {
  if (suite.client() == nullptr) return suite.client_status();
  for (PJRT_Device* device : suite.devices()) {
    absl::Status status = fn(device);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace

void CheckClient(Suite& suite) {
  suite.Check("client", "platform name", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_PlatformName_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_PlatformName, &args);
    if (!status.ok()) return status;
    return Expect(args.platform_name != nullptr && args.platform_name_size > 0,
                  "the platform name is empty");
  });
  suite.Check("client", "process index", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_ProcessIndex_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_ProcessIndex, &args);
    if (!status.ok()) return status;
    return Expect(args.process_index >= 0,
                  absl::StrCat("process index is ", args.process_index, ", expected >= 0"));
  });
  suite.Check("client", "addressable devices are a non-empty subset of the devices", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Devices_Args);
    args.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_Devices, &args);
    if (!status.ok()) return status;
    if (suite.devices().empty()) return absl::InternalError("no addressable devices");
    for (PJRT_Device* device : suite.devices()) {
      if (std::find(args.devices, args.devices + args.num_devices, device) ==
          args.devices + args.num_devices) {
        return absl::InternalError("an addressable device is missing from PJRT_Client_Devices");
      }
    }
    return absl::OkStatus();
  });
  suite.Check("client", "lookup by id finds each device", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
      args.client = suite.client();
      args.id = *id;
      absl::Status status = SEAM_CALL(suite, PJRT_Client_LookupDevice, &args);
      if (!status.ok()) return status;
      return Expect(args.device == device, absl::StrCat("id ", *id, " found another device"));
    });
  });
  suite.Check("client", "lookup of negative and out-of-range ids fails", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    int max_id = 0;
    for (PJRT_Device* device : suite.devices()) {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      max_id = std::max(max_id, *id);
    }
    for (int bad : {-1, INT_MIN, max_id + 1, INT_MAX}) {
      auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
      args.client = suite.client();
      args.id = bad;
      absl::Status status =
          ExpectError(SEAM_CALL(suite, PJRT_Client_LookupDevice, &args),
                      absl::StatusCode::kInvalidArgument, absl::StrCat("looking up id ", bad));
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  });
  suite.Check("client", "an unknown create option is refused by name", [&] {
    static const char kName[] = "no_such_option_for_conformance";
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = kName;
    option.name_size = sizeof(kName) - 1;
    option.type = PJRT_NamedValue_kInt64;
    option.value.int64_value = 1;
    option.value_size = 1;
    auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
    args.create_options = &option;
    args.num_options = 1;
    absl::Status status = SEAM_CALL(suite, PJRT_Client_Create, &args);
    if (status.ok()) {
      auto destroy = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
      destroy.client = args.client;
      SEAM_CALL(suite, PJRT_Client_Destroy, &destroy).IgnoreError();
      return absl::InternalError(absl::StrCat("option '", kName, "' was accepted"));
    }
    return Expect(
        status.code() == absl::StatusCode::kInvalidArgument &&
            std::string(status.message()).find(kName) != std::string::npos,
        absl::StrCat("expected INVALID_ARGUMENT naming the option, got: ", status.ToString()));
  });
}

void CheckDevices(Suite& suite) {
  suite.Check("devices", "ids are unique", [&] {
    std::set<int> ids;
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<int> id = DeviceId(suite, device);
      if (!id.ok()) return id.status();
      return Expect(ids.insert(*id).second, absl::StrCat("id ", *id, " repeats"));
    });
  });
  suite.Check("devices", "kind", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
      if (!description.ok()) return description.status();
      auto args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_Kind_Args);
      args.device_description = *description;
      absl::Status status = SEAM_CALL(suite, PJRT_DeviceDescription_Kind, &args);
      if (!status.ok()) return status;
      return Expect(args.device_kind_size > 0, "a device kind is empty");
    });
  });
  suite.Check("devices", "addressable devices say so and have a local hardware id", [&] {
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      auto addressable = SEAM_PJRT_ARGS(PJRT_Device_IsAddressable_Args);
      addressable.device = device;
      absl::Status status = SEAM_CALL(suite, PJRT_Device_IsAddressable, &addressable);
      if (!status.ok()) return status;
      if (!addressable.is_addressable) return absl::InternalError("reports not addressable");
      auto hardware = SEAM_PJRT_ARGS(PJRT_Device_LocalHardwareId_Args);
      hardware.device = device;
      status = SEAM_CALL(suite, PJRT_Device_LocalHardwareId, &hardware);
      if (!status.ok()) return status;
      return Expect(hardware.local_hardware_id >= 0,
                    absl::StrCat("local hardware id ", hardware.local_hardware_id));
    });
  });
  suite.Check("devices", "process index matches the client's", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto client = SEAM_PJRT_ARGS(PJRT_Client_ProcessIndex_Args);
    client.client = suite.client();
    absl::Status status = SEAM_CALL(suite, PJRT_Client_ProcessIndex, &client);
    if (!status.ok()) return status;
    return ForEachDevice(suite, [&](PJRT_Device* device) -> absl::Status {
      absl::StatusOr<PJRT_DeviceDescription*> description = Description(suite, device);
      if (!description.ok()) return description.status();
      auto args = SEAM_PJRT_ARGS(PJRT_DeviceDescription_ProcessIndex_Args);
      args.device_description = *description;
      absl::Status s = SEAM_CALL(suite, PJRT_DeviceDescription_ProcessIndex, &args);
      if (!s.ok()) return s;
      return Expect(args.process_index == client.process_index,
                    absl::StrCat("device process index ", args.process_index, ", client's ",
                                 client.process_index));
    });
  });
}

}  // namespace seam::conformance
