// The reference plugin (libseam_pjrt_reference.so): a complete PJRT plugin that computes
// nothing itself. It runs every program through the IR's reference evaluator
// (src/ir/reference_evaluator.h) on host buffers, the way XLA's stablehlo_reference plugin
// runs StableHLO's interpreter. It is the second template after the null plugin
// (docs/plugins.md, "A reference plugin: the second template"): copy this folder to start a
// device that compiles and runs, and replace the evaluator by the device's compiler and
// runtime one function at a time, keeping `seam plugin check --ops` green.
//
// What it serves:
//   - programs as seam's IR (format "seam-ir", announced by the int64 attribute
//     seam_ir_version = 1) and as StableHLO text (format "mlir", read by
//     src/stablehlo/read.h, announced by stablehlo_current_version and
//     stablehlo_minimum_version); format "hlo" and any other are refused by name;
//   - the compile options' num_replicas (it must be the program's) and num_partitions (1),
//     read from the serialized CompileOptionsProto by compile_options.h;
//   - buffers of every dtype of the IR (PRED, S32, S64, F32, F64, BF16), from dense or
//     strided host data, read back whole (PJRT_Buffer_ToHostBuffer) or by byte ranges
//     (PJRT_Buffer_CopyRawToHost), copied between devices;
//   - runs of one or several replicas (one per device; the create option `device_count`,
//     int64 1..64, default 1), all replicas evaluated together so that all_reduce sees
//     each one's operand; donation (the program's aliases) deletes the donated argument;
//   - the kit's errors, events, device lists, descriptions and memories (one memory per
//     device, kind "device"), the devices' memory figures (bytes in use and its peak), and
//     the kit's profiler extension (a "read" compile event, an "evaluate" run per device).
// Everything else (the streamed-upload transfer manager, topologies, uninitialized
// buffers, ...) is the kit's stub: UNIMPLEMENTED "<PJRT_Name> is not implemented by the
// reference plugin"; a layout other than dense row-major is UNIMPLEMENTED naming the field.
//
// Every call finishes its work before it returns: an upload copies the host bytes, a run
// evaluates the program on the caller's thread, and every event handed out is ready. A run
// that fails returns its error from PJRT_LoadedExecutable_Execute and changes nothing.
// It is slow by design (an element at a time, in double precision for floats, so a
// signalling NaN comes back quiet even from a reshape); use it for tests and as a model,
// not for work.
//
// Files: reference_plugin.h (the objects), this file (plugin, client, compile, the table),
// reference_buffers.cc, reference_execute.cc, compile_options.{h,cc}. It uses the ABI
// header, the plugin kit (src/plugins/common), the IR (src/ir) and the StableHLO reader.
#include "src/plugins/reference/reference_plugin.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "src/abi/buffer_type.h"
#include "src/ir/text.h"
#include "src/plugins/common/options.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/common/table.h"
#include "src/plugins/reference/compile_options.h"
#include "src/stablehlo/read.h"

namespace seam::reference {

using plugin::MakeError;

std::optional<ir::DType> DTypeOf(int type) {
  for (ir::DType dtype : ir::kAllDTypeList) {
    if (static_cast<int>(abi::ToPjrtBufferType(dtype)) == type) return dtype;
  }
  return std::nullopt;
}

namespace {

constexpr char kDeviceCountOption[] = "device_count";
constexpr int64_t kMaxDevices = 64;
constexpr absl::string_view kSeamIrFormat = "seam-ir";
constexpr absl::string_view kStableHloFormat = "mlir";

}  // namespace

// ---- Plugin

PJRT_Error* PluginInitialize(PJRT_Plugin_Initialize_Args* /*args*/) { return nullptr; }

PJRT_Error* PluginAttributes(PJRT_Plugin_Attributes_Args* args) {
  // Built once and kept for the process's life: the caller may hold the pointers.
  static const plugin::Attributes* const attributes = [] {
    std::vector<int64_t> element_types;
    for (ir::DType dtype : ir::kAllDTypeList) {
      element_types.push_back(abi::ToPjrtBufferType(dtype));
    }
    auto* built = new plugin::Attributes();
    built->Int64("seam_ir_version", 1)
        .String("seam_plugin_name", kPluginName)
        .String("program_formats", "seam-ir,mlir")
        .Int64List("stablehlo_current_version",
                   std::vector<int64_t>(std::begin(stablehlo::kReaderCurrentVersion),
                                        std::end(stablehlo::kReaderCurrentVersion)))
        .Int64List("stablehlo_minimum_version",
                   std::vector<int64_t>(std::begin(stablehlo::kReaderMinimumVersion),
                                        std::end(stablehlo::kReaderMinimumVersion)))
        .Int64List("supported_element_types", std::move(element_types));
    return built;
  }();
  args->attributes = attributes->data();
  args->num_attributes = attributes->size();
  return nullptr;
}

// ---- Client

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  if (args->num_options > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Create, args->create_options);
  // The key-value callbacks, when given, are not used: the plugin runs in one process.
  absl::StatusOr<plugin::Options> options = plugin::Options::Parse(
      "PJRT_Client_Create", "client option", kPluginName, args->create_options, args->num_options,
      {{kDeviceCountOption, PJRT_NamedValue_kInt64}});
  if (!options.ok()) return MakeError(options.status());
  const int64_t count = options->Int64(kDeviceCountOption).value_or(1);
  if (count < 1 || count > kMaxDevices) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_Create: option '", kDeviceCountOption, "' must be in [1, ",
                     kMaxDevices, "], got ", count)));
  }
  auto client = std::make_unique<PJRT_Client>();
  for (int id = 0; id < count; ++id) {
    auto device = std::make_unique<PJRT_Device>();
    device->client = client.get();
    device->description.id = id;
    device->description.kind = kPluginName;
    device->description.debug_string = absl::StrCat("reference:", id);
    device->description.to_string = absl::StrCat("ReferenceDevice(id=", id, ")");
    PJRT_Memory& memory = device->memory;
    memory.id = id;
    memory.debug_string = absl::StrCat("reference:", id, ":device");
    memory.to_string = absl::StrCat("ReferenceMemory(kind=device, device=", id, ")");
    memory.devices.push_back(device.get());
    device->memories.push_back(&memory);
    client->addressable_memories.push_back(&memory);
    client->devices.push_back(device.get());
    client->owned_devices.push_back(std::move(device));
  }
  args->client = client.release();
  return nullptr;
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;
  return nullptr;
}

PJRT_Error* ClientDefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_DefaultDeviceAssignment, args->client);
  const size_t devices = args->client->devices.size();
  if (args->num_partitions != 1) {
    return MakeError(absl::UnimplementedError(
        absl::StrCat("PJRT_Client_DefaultDeviceAssignment: num_partitions is ",
                     args->num_partitions, "; the reference plugin runs one partition")));
  }
  if (args->num_replicas < 1 || static_cast<size_t>(args->num_replicas) > devices) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_DefaultDeviceAssignment: num_replicas is ", args->num_replicas,
                     ", the client has ", devices, " device(s)")));
  }
  const auto needed = static_cast<size_t>(args->num_replicas);
  if (args->default_assignment == nullptr || args->default_assignment_size < needed) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_DefaultDeviceAssignment: default_assignment has room for ",
                     args->default_assignment == nullptr ? 0 : args->default_assignment_size,
                     " entries, ", needed, " are needed")));
  }
  for (size_t r = 0; r < needed; ++r) args->default_assignment[r] = static_cast<int>(r);
  return nullptr;
}

// ---- Compile

namespace {

// FNV-1a, 64 bits, as hex: stable across processes and builds.
std::string Fingerprint(absl::string_view code) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : code) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", hash);
}

// The program in `format`, parsed and verified; its compile options checked against it.
absl::StatusOr<ir::Program> ReadProgram(absl::string_view format, absl::string_view code,
                                        absl::string_view compile_options) {
  if (format == "hlo") return absl::InvalidArgumentError(stablehlo::kHloFormatMessage);
  if (format != kSeamIrFormat && format != kStableHloFormat) {
    return absl::InvalidArgumentError(absl::StrCat("Unknown program format '", format, "'."));
  }
  absl::StatusOr<BuildOptions> build = ReadBuildOptions(compile_options);
  if (!build.ok()) return build.status();
  const std::string_view text(code.data(), code.size());
  const plugin::profiler::Scope span("read", "compile");  // the profiler's timeline
  absl::StatusOr<ir::Program> program =
      format == kSeamIrFormat ? ir::ParseProgram(text) : stablehlo::ReadStableHlo(text);
  if (!program.ok()) return program.status();
  if (build->num_replicas != 0 && build->num_replicas != program->replica_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_Compile: the compile options ask for num_replicas=", build->num_replicas,
        ", the program has replicas=", program->replica_count));
  }
  if (build->num_partitions > 1) {
    return absl::UnimplementedError(absl::StrCat(
        "PJRT_Client_Compile: the compile options ask for num_partitions=", build->num_partitions,
        "; the reference plugin runs one partition"));
  }
  return program;
}

}  // namespace

PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->client);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->program);
  const PJRT_Program& source = *args->program;
  SEAM_PLUGIN_CHECK_STRUCT(PJRT_Program, source);
  if ((source.code == nullptr && source.code_size > 0) ||
      (source.format == nullptr && source.format_size > 0) ||
      (args->compile_options == nullptr && args->compile_options_size > 0)) {
    return MakeError(absl::InvalidArgumentError(
        "PJRT_Client_Compile: program code, format or compile options is null with a size"));
  }
  auto view = [](const char* data, size_t size) {
    return data == nullptr ? absl::string_view() : absl::string_view(data, size);
  };
  const absl::string_view code = view(source.code, source.code_size);
  absl::StatusOr<ir::Program> program =
      ReadProgram(view(source.format, source.format_size), code,
                  view(args->compile_options, args->compile_options_size));
  if (!program.ok()) return MakeError(program.status());
  const PJRT_Client& client = *args->client;

  auto compiled = std::make_shared<Compiled>();
  compiled->parameter_shapes = program->ParameterShapes();
  compiled->result_shapes = program->ResultShapes();
  compiled->facts.name = program->name;
  compiled->facts.fingerprint = Fingerprint(code);
  compiled->facts.replicas = program->replica_count;
  for (const ir::Shape& shape : compiled->result_shapes) {
    compiled->facts.AddOutput(abi::ToPjrtBufferType(shape.dtype), shape.dims);
  }
  // Its devices: the first replica_count ones (a program of more replicas than the client
  // has devices compiles, and each run of it is refused naming both counts).
  const auto replicas = static_cast<ptrdiff_t>(
      std::min(static_cast<size_t>(program->replica_count), client.devices.size()));
  compiled->program = *std::move(program);
  args->executable = new PJRT_LoadedExecutable{
      std::move(compiled), args->client,
      std::vector<PJRT_Device*>(client.devices.begin(), client.devices.begin() + replicas)};
  return nullptr;
}

// ---- The table

namespace {

PJRT_Api MakeApi() {
  // Every slot starts as the kit's UNIMPLEMENTED stub; the error functions are the kit's.
  PJRT_Api api = plugin::NewApi<kPluginName>();
  api.extension_start = plugin::profiler::Extension();  // the compile and run events
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Initialize, PluginInitialize);
  SEAM_PLUGIN_SET(api, PJRT_Plugin_Attributes, PluginAttributes);
  plugin::SetEventFunctions(api);

  SEAM_PLUGIN_SET(api, PJRT_Client_Create, ClientCreate);
  SEAM_PLUGIN_SET(api, PJRT_Client_Destroy, ClientDestroy);
  SEAM_PLUGIN_SET(api, PJRT_Client_Compile, ClientCompile);
  SEAM_PLUGIN_SET(api, PJRT_Client_DefaultDeviceAssignment, ClientDefaultDeviceAssignment);
  plugin::SetDeviceFunctions<PJRT_Client, PJRT_Device>(api);
  plugin::SetMemoryFunctions<PJRT_Client, PJRT_Device>(api);

  SetBufferFunctions(api);
  SetExecuteFunctions(api);
  return api;
}

}  // namespace
}  // namespace seam::reference

// The one exported symbol (seam_add_plugin's export map keeps every other one local).
extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi(void) {
  static const PJRT_Api api = seam::reference::MakeApi();
  return &api;
}
