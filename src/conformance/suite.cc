#include "src/conformance/suite.h"

#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_join.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {

void Suite::Check(const std::string& area, const std::string& name, const CheckFn& fn) {
  CheckResult result{area, name, Outcome::kPass, "", section_};
  absl::Status status = fn();
  if (status.code() == absl::StatusCode::kUnimplemented && section_ == Section::kCapability) {
    result.outcome = Outcome::kUnimplemented;
    result.message = std::string(status.message());
  } else if (!status.ok()) {
    result.outcome = Outcome::kFail;
    result.message = std::string(status.message());
  }
  results_.push_back(std::move(result));
}

void Suite::CreateClient() {
  if (api_->PJRT_Client_Create == nullptr || api_->PJRT_Client_AddressableDevices == nullptr ||
      api_->PJRT_Error_Message == nullptr || api_->PJRT_Error_GetCode == nullptr ||
      api_->PJRT_Error_Destroy == nullptr) {
    client_status_ = absl::InternalError("the table lacks the functions to create a client");
    return;
  }
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
  client_status_ = Call(api_->PJRT_Client_Create(&args));
  if (!client_status_.ok()) return;
  client_ = args.client;
  auto devices = SEAM_PJRT_ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = client_;
  client_status_ = Call(api_->PJRT_Client_AddressableDevices(&devices));
  if (!client_status_.ok()) return;
  devices_.assign(devices.addressable_devices,
                  devices.addressable_devices + devices.num_addressable_devices);
}

void Suite::DestroyClient() {
  if (client_ == nullptr || api_->PJRT_Client_Destroy == nullptr) return;
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
  args.client = client_;
  Call(api_->PJRT_Client_Destroy(&args)).IgnoreError();
  client_ = nullptr;
}

absl::Status Expect(bool condition, const std::string& what) {
  return condition ? absl::OkStatus() : absl::InternalError(what);
}

absl::Status ExpectError(const absl::Status& status, absl::StatusCode code,
                         const std::string& call) {
  if (status.ok()) return absl::InternalError(absl::StrCat(call, " succeeded; expected an error"));
  // The function is not there at all: a capability check lists it as not implemented (a
  // contract check fails on it all the same).
  if (status.code() == absl::StatusCode::kUnimplemented) return status;
  if (status.code() != code) {
    return absl::InternalError(
        absl::StrCat(call, " failed with code ", absl::StatusCodeToString(status.code()),
                     ", expected ", absl::StatusCodeToString(code), ": ", status.message()));
  }
  return absl::OkStatus();
}

void CheckTable(Suite& suite) {
  const PJRT_Api* api = suite.api();
  suite.Check("api", "version", [&] {
    const auto& v = api->pjrt_api_version;
    return Expect(v.major_version == PJRT_API_MAJOR && v.minor_version >= PJRT_API_MIN_MINOR,
                  absl::StrCat("version ", suite.PluginVersion(), ", the suite needs ",
                               PJRT_API_MAJOR, ".", PJRT_API_MIN_MINOR, " or a newer minor"));
  });
  suite.Check("api", "table size", [&] {
    // The table holds every function of the minor the plugin reports: 1.1 and 1.2 end at
    // PJRT_Buffer_OnDeviceSizeInBytes, 1.3 and 1.4 at PJRT_Device_MemoryStats, 1.5 at
    // PJRT_AsyncHostToDeviceTransferManager_Destroy.
    const int minor = api->pjrt_api_version.minor_version;
    const size_t needed = minor >= 5   ? size_t{PJRT_Api_STRUCT_SIZE}
                          : minor >= 3 ? size_t{PJRT_Api_STRUCT_SIZE_1_4}
                                       : size_t{PJRT_Api_STRUCT_SIZE_1_2};
    return Expect(api->struct_size >= needed,
                  absl::StrCat("PJRT_Api is ", api->struct_size, " bytes, version ",
                               suite.PluginVersion(), " needs ", needed));
  });
  suite.Check("api", "no null slots", [&] {
    size_t first = offsetof(PJRT_Api, PJRT_Error_Destroy);
    size_t end = std::min<size_t>(api->struct_size, PJRT_Api_STRUCT_SIZE);
    std::vector<std::string> null_slots;
    for (size_t offset = first; offset + sizeof(void*) <= end; offset += sizeof(void*)) {
      void* slot = nullptr;
      std::memcpy(&slot, reinterpret_cast<const char*>(api) + offset, sizeof(slot));
      if (slot == nullptr) null_slots.push_back(absl::StrCat("slot at byte ", offset));
    }
    return Expect(null_slots.empty(),
                  absl::StrCat("null: ", absl::StrJoin(null_slots, ", "),
                               " (unsupported functions must return UNIMPLEMENTED)"));
  });
  suite.Check("api", "attributes have unique names", [&] {
    auto args = SEAM_PJRT_ARGS(PJRT_Plugin_Attributes_Args);
    absl::Status status = SEAM_CALL(suite, PJRT_Plugin_Attributes, &args);
    if (!status.ok()) return status;
    std::vector<std::string> names;
    for (size_t i = 0; i < args.num_attributes; ++i) {
      std::string name(args.attributes[i].name, args.attributes[i].name_size);
      for (const std::string& seen : names) {
        if (seen == name)
          return absl::InternalError(absl::StrCat("attribute '", name, "' repeats"));
      }
      names.push_back(name);
    }
    return absl::OkStatus();
  });
  suite.Check("errors", "code and message", [&] {
    if (suite.client() == nullptr) return suite.client_status();
    auto args = SEAM_PJRT_ARGS(PJRT_Client_LookupDevice_Args);
    args.client = suite.client();
    args.id = -1;
    PJRT_Error* error = api->PJRT_Client_LookupDevice(&args);
    if (error == nullptr) return absl::InternalError("looking up device id -1 succeeded");
    auto code = SEAM_PJRT_ARGS(PJRT_Error_GetCode_Args);
    code.error = error;
    absl::Status code_status = SEAM_CALL(suite, PJRT_Error_GetCode, &code);
    auto message = SEAM_PJRT_ARGS(PJRT_Error_Message_Args);
    message.error = error;
    api->PJRT_Error_Message(&message);
    std::string text(message.message, message.message_size);
    auto destroy = SEAM_PJRT_ARGS(PJRT_Error_Destroy_Args);
    destroy.error = error;
    api->PJRT_Error_Destroy(&destroy);
    if (!code_status.ok()) return code_status;
    if (code.code < PJRT_Error_Code_CANCELLED || code.code > PJRT_Error_Code_UNAUTHENTICATED) {
      return absl::InternalError(
          absl::StrCat("error code ", static_cast<int>(code.code), " is not a canonical code"));
    }
    return Expect(!text.empty(), "the error's message is empty");
  });
}

std::vector<CheckResult> RunSuite(const PJRT_Api* api, const SuiteOptions& options) {
  Suite suite(api);
  suite.CreateClient();
  suite.Check("client", "create with no options", [&] { return suite.client_status(); });
  CheckTable(suite);
  CheckStructSizes(suite);
  CheckClient(suite);
  CheckDevices(suite);
  suite.StartCapabilities();
  CheckBuffersAndEvents(suite);
  CheckCompile(suite);
  CheckExecute(suite);
  CheckMemory(suite);
  CheckProfiler(suite);
  CheckTransfers(suite);
  if (options.ops) CheckOps(suite, options.seed);
  suite.DestroyClient();
  return std::move(suite.results());
}

bool AllRequiredPassed(const std::vector<CheckResult>& results) {
  for (const CheckResult& r : results) {
    if (r.outcome == Outcome::kFail) return false;
  }
  return true;
}

std::string FormatResults(const std::vector<CheckResult>& results) {
  std::string out;
  int passed = 0, failed = 0, unimplemented = 0;
  std::optional<Section> section;
  for (const CheckResult& r : results) {
    if (section != r.section) {
      section = r.section;
      absl::StrAppend(&out, r.section == Section::kContract
                                ? "contract checks (every plugin must pass these)\n"
                                : "capability checks (UNIMPLEMENTED is listed as not "
                                  "implemented; a wrong answer fails)\n");
    }
    const char* label = "PASS";
    if (r.outcome == Outcome::kFail) {
      label = "FAIL";
      ++failed;
    } else if (r.outcome == Outcome::kUnimplemented) {
      label = "NOT IMPLEMENTED";
      ++unimplemented;
    } else {
      ++passed;
    }
    absl::StrAppend(&out, label, "  ", r.area, ": ", r.name);
    if (!r.message.empty()) absl::StrAppend(&out, ": ", r.message);
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "checks: ", passed, " pass, ", failed, " fail, ", unimplemented,
                  " unimplemented (optional)\n");
  return out;
}

}  // namespace seam::conformance
