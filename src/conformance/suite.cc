#include "src/conformance/suite.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "proto/compile_options.pb.h"
#include "src/conformance/suite_internal.h"

namespace seam::conformance {
namespace {

constexpr char kSkipPayload[] = "seam.conformance/skip";

}  // namespace

absl::Status Skip(const std::string& reason) {
  absl::Status status = absl::FailedPreconditionError(reason);
  status.SetPayload(kSkipPayload, absl::Cord("1"));
  return status;
}

bool IsSkip(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kSkipPayload).has_value();
}

absl::Status TakeError(const PJRT_Api* api, PJRT_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  if (api->PJRT_Error_Message == nullptr || api->PJRT_Error_GetCode == nullptr ||
      api->PJRT_Error_Destroy == nullptr) {
    return absl::InternalError(
        "an error came back, and a null error slot leaves it unread (and not freed)");
  }
  auto message = SEAM_PJRT_ARGS(PJRT_Error_Message_Args);
  message.error = error;
  api->PJRT_Error_Message(&message);
  auto code = SEAM_PJRT_ARGS(PJRT_Error_GetCode_Args);
  code.error = error;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&code);
  absl::StatusCode status_code = absl::StatusCode::kUnknown;
  if (code_error == nullptr && code.code > PJRT_Error_Code_OK &&
      code.code <= PJRT_Error_Code_UNAUTHENTICATED) {
    status_code = static_cast<absl::StatusCode>(code.code);
  }
  absl::Status status(status_code,
                      std::string(message.message == nullptr ? "" : message.message,
                                  message.message == nullptr ? 0 : message.message_size));
  for (PJRT_Error* e : {code_error, error}) {
    if (e == nullptr) continue;
    auto destroy = SEAM_PJRT_ARGS(PJRT_Error_Destroy_Args);
    destroy.error = e;
    api->PJRT_Error_Destroy(&destroy);
  }
  return status;
}

absl::StatusOr<std::vector<NamedValue>> ReadNamedValues(const PJRT_NamedValue* values, size_t n,
                                                        const std::string& what) {
  if (n > 0 && values == nullptr) {
    return absl::InternalError(absl::StrCat(what, ": ", n, " values and a null array"));
  }
  std::vector<NamedValue> out;
  for (size_t i = 0; i < n; ++i) {
    const PJRT_NamedValue& v = values[i];
    std::string which = absl::StrCat(what, " ", i);
    if (v.struct_size < PJRT_NamedValue_STRUCT_SIZE) {
      return absl::InternalError(absl::StrCat(which, " has struct_size ", v.struct_size,
                                              ", expected at least ", PJRT_NamedValue_STRUCT_SIZE));
    }
    if (v.name == nullptr || v.name_size == 0) {
      return absl::InternalError(absl::StrCat(which, " has an empty name"));
    }
    NamedValue value;
    value.name.assign(v.name, v.name_size);
    which = absl::StrCat(what, " '", value.name, "'");
    value.type = v.type;
    switch (v.type) {
      case PJRT_NamedValue_kString:
        if (v.value_size > 0 && v.string_value == nullptr) {
          return absl::InternalError(
              absl::StrCat(which, ": a null string of ", v.value_size, " bytes"));
        }
        if (v.value_size > 0) value.string_value.assign(v.string_value, v.value_size);
        break;
      case PJRT_NamedValue_kInt64List:
        if (v.value_size > 0 && v.int64_array_value == nullptr) {
          return absl::InternalError(
              absl::StrCat(which, ": a null list of ", v.value_size, " entries"));
        }
        if (v.value_size > 0) {
          value.int64_list.assign(v.int64_array_value, v.int64_array_value + v.value_size);
        }
        break;
      case PJRT_NamedValue_kInt64:
      case PJRT_NamedValue_kFloat:
      case PJRT_NamedValue_kBool:
        if (v.value_size != 1) {
          return absl::InternalError(
              absl::StrCat(which, ": value_size ", v.value_size, ", a scalar's is 1"));
        }
        if (v.type == PJRT_NamedValue_kInt64) value.int64_value = v.int64_value;
        if (v.type == PJRT_NamedValue_kFloat) value.float_value = v.float_value;
        if (v.type == PJRT_NamedValue_kBool) value.bool_value = v.bool_value;
        break;
      default:
        return absl::InternalError(
            absl::StrCat(which, ": unknown type ", static_cast<int>(v.type)));
    }
    out.push_back(std::move(value));
  }
  return out;
}

void Suite::Run(const std::string& area, const std::string& name, const CheckFn& fn,
                bool required) {
  CheckResult result{area, name, Outcome::kPass, "", group_, required};
  absl::Status status = fn();
  if (IsSkip(status)) {
    result.outcome = Outcome::kSkipped;
  } else if (status.code() == absl::StatusCode::kUnimplemented && !required) {
    result.outcome = Outcome::kUnimplemented;
  } else if (!status.ok()) {
    result.outcome = Outcome::kFail;
  }
  result.message = std::string(status.message());
  results_.push_back(std::move(result));
}

absl::Status Suite::NotProvided(const char* name) const {
  return absl::UnimplementedError(absl::StrCat(
      name, " is not provided by this plugin (PJRT API version ", PluginVersion(), ")"));
}

void Suite::CreateClient() {
  if (api_->PJRT_Error_Message == nullptr || api_->PJRT_Error_GetCode == nullptr ||
      api_->PJRT_Error_Destroy == nullptr) {
    client_status_ = absl::InternalError("the table lacks the error functions");
    return;
  }
  auto attributes = SEAM_PJRT_ARGS(PJRT_Plugin_Attributes_Args);
  if (SEAM_CALL(*this, PJRT_Plugin_Attributes, &attributes).ok()) {
    absl::StatusOr<std::vector<NamedValue>> read =
        ReadNamedValues(attributes.attributes, attributes.num_attributes, "attribute");
    if (read.ok()) attributes_ = std::move(*read);
  }
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Create_Args);
  client_status_ = SEAM_CALL(*this, PJRT_Client_Create, &args);
  if (!client_status_.ok()) return;
  client_ = args.client;
  if (client_ == nullptr) {
    client_status_ = absl::InternalError("PJRT_Client_Create succeeded with a null client");
    return;
  }
  auto devices = SEAM_PJRT_ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = client_;
  client_status_ = SEAM_CALL(*this, PJRT_Client_AddressableDevices, &devices);
  if (!client_status_.ok()) return;
  if (devices.num_addressable_devices == 0 || devices.addressable_devices == nullptr) {
    client_status_ = absl::InternalError("the client has no addressable devices");
    return;
  }
  devices_.assign(devices.addressable_devices,
                  devices.addressable_devices + devices.num_addressable_devices);
}

void Suite::DestroyClient() {
  if (client_ == nullptr) return;
  auto args = SEAM_PJRT_ARGS(PJRT_Client_Destroy_Args);
  args.client = client_;
  SEAM_CALL(*this, PJRT_Client_Destroy, &args).IgnoreError();
  client_ = nullptr;
}

const NamedValue* Suite::Attribute(const std::string& name) const {
  for (const NamedValue& value : attributes_) {
    if (value.name == name) return &value;
  }
  return nullptr;
}

absl::Status Suite::NeedSeamIr() const {
  if (Attribute("seam_ir_version") != nullptr) return absl::OkStatus();
  return Skip(
      "the plugin does not announce seam_ir_version (attribute), so it is not asked to "
      "compile seam IR");
}

absl::StatusOr<ProbeProgram> Suite::DoubleProgram(bool donate) const {
  if (Attribute("seam_ir_version") != nullptr) {
    return ProbeProgram{"seam-ir", absl::StrCat("program @conformance {\n"
                                                "  %0 = parameter(0) : f32[4]\n"
                                                "  %1 = add(%0, %0) : f32[4]\n",
                                                donate ? "  alias output 0 = parameter 0\n" : "",
                                                "  return (%1)\n}\n")};
  }
  if (Attribute("stablehlo_current_version") != nullptr) {
    return ProbeProgram{"mlir", absl::StrCat("module @conformance {\n"
                                             "  func.func public @main(%arg0: tensor<4xf32>",
                                             donate ? " {tf.aliasing_output = 0 : i32}" : "",
                                             ") -> tensor<4xf32> {\n"
                                             "    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"
                                             "    return %0 : tensor<4xf32>\n"
                                             "  }\n"
                                             "}\n")};
  }
  return Skip(
      "the plugin announces neither seam_ir_version nor stablehlo_current_version, so the "
      "suite has no program format it can compile");
}

absl::Status Expect(bool condition, const std::string& what) {
  return condition ? absl::OkStatus() : absl::InternalError(what);
}

absl::Status ExpectError(const absl::Status& status, absl::StatusCode code,
                         const std::string& call) {
  if (status.ok()) return absl::InternalError(absl::StrCat(call, " succeeded; expected an error"));
  // The function is not there at all: an optional check lists it as not implemented (a
  // required check fails on it all the same).
  if (status.code() == absl::StatusCode::kUnimplemented) return status;
  if (status.code() != code) {
    return absl::InternalError(
        absl::StrCat(call, " failed with code ", absl::StatusCodeToString(status.code()),
                     ", expected ", absl::StatusCodeToString(code), ": ", status.message()));
  }
  return absl::OkStatus();
}

absl::Status ExpectSomeError(const absl::Status& status, const std::string& call) {
  if (status.ok()) return absl::InternalError(absl::StrCat(call, " succeeded; expected an error"));
  if (status.code() == absl::StatusCode::kUnimplemented) return status;
  return absl::OkStatus();
}

std::string CompileOptionsBytes(int64_t num_replicas) {
  xla::CompileOptionsProto options;
  xla::ExecutableBuildOptionsProto* build = options.mutable_executable_build_options();
  build->set_device_ordinal(-1);
  build->set_num_replicas(num_replicas);
  build->set_num_partitions(1);
  build->set_process_index(0);
  build->set_process_count(1);
  if (num_replicas > 1) {
    xla::DeviceAssignmentProto* assignment = build->mutable_device_assignment();
    assignment->set_replica_count(static_cast<int32_t>(num_replicas));
    assignment->set_computation_count(1);
    auto* devices = assignment->add_computation_devices();
    for (int64_t r = 0; r < num_replicas; ++r) devices->add_replica_device_ids(r);
  }
  return options.SerializeAsString();
}

std::vector<CheckResult> RunSuite(const PJRT_Api* api, const SuiteOptions& options) {
  Suite suite(api);
  suite.CreateClient();
  suite.StartGroup(Group::kUpstream);
  CheckTable(suite);
  suite.Required("client", "create with no options", [&] { return suite.client_status(); });
  CheckStructSizes(suite);
  CheckClient(suite);
  CheckDevices(suite);
  CheckMemories(suite);
  CheckBuffersAndEvents(suite);
  CheckCompile(suite);
  CheckExecute(suite);
  suite.StartGroup(Group::kSeam);
  CheckSeamAttributes(suite);
  CheckSeamBuffers(suite);
  CheckSeamCompile(suite);
  CheckMemoryStats(suite);
  CheckProfiler(suite);
  CheckTransfers(suite);
  if (options.ops) CheckOps(suite, options);
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
  int passed = 0, failed = 0, unimplemented = 0, skipped = 0;
  std::optional<Group> group;
  for (const CheckResult& r : results) {
    if (group != r.group) {
      group = r.group;
      absl::StrAppend(&out, r.group == Group::kUpstream ? kUpstreamHeading : kSeamHeading, "\n");
    }
    const char* label = "PASS";
    switch (r.outcome) {
      case Outcome::kPass:
        ++passed;
        break;
      case Outcome::kFail:
        label = "FAIL";
        ++failed;
        break;
      case Outcome::kUnimplemented:
        label = "NOT IMPLEMENTED";
        ++unimplemented;
        break;
      case Outcome::kSkipped:
        label = "SKIP";
        ++skipped;
        break;
    }
    absl::StrAppend(&out, label, "  ", r.area, ": ", r.name);
    if (!r.message.empty()) absl::StrAppend(&out, ": ", r.message);
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "checks: ", passed, " pass, ", failed, " fail, ", unimplemented,
                  " unimplemented (optional), ", skipped, " skipped\n");
  return out;
}

}  // namespace seam::conformance
