// Client, devices and compilation.
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "proto/compile_options.pb.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"
#include "src/plugins/common/options.h"
#include "src/plugins/common/profiler.h"
#include "src/plugins/cpu/api/api_functions.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/plugins/cpu/collectives/gloo_collectives.h"
#include "src/plugins/cpu/collectives/local_address.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/fusion_epilogue.h"
#include "src/plugins/cpu/compile/layout_plan.h"
#include "src/plugins/cpu/kernels/attention_causal.h"
#include "src/plugins/cpu/kernels/dot_onednn.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels_window.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "src/stablehlo/read.h"

namespace seam::cpu {
namespace {

constexpr absl::string_view kProgramFormat = "seam-ir";
// StableHLO text (src/stablehlo/read.h), compiled through the same path as seam's IR.
constexpr absl::string_view kStableHloFormat = "mlir";
constexpr int64_t kMaxDevices = 1024;
constexpr int64_t kMaxProcesses = 65536;
constexpr int64_t kMaxCollectiveTimeoutMs = int64_t{7} * 24 * 3600 * 1000;  // a week
// Every device of the job is listed (PJRT_Client_Devices): at most this many in all.
constexpr int64_t kMaxJobDevices = int64_t{1} << 20;

struct CreateOptions {
  int64_t device_count = 1;
  int64_t process_index = 0;
  int64_t process_count = 1;
  int64_t local_process_count = 1;  // not given: process_count
  std::optional<int64_t> collective_timeout_ms;
  CpuSettings settings;
};

absl::Status CheckRange(std::string_view name, int64_t value, int64_t low, int64_t high) {
  if (value >= low && value <= high) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: option '", std::string(name),
                                                 "' must be in [", low, ", ", high, "], got ",
                                                 value));
}

absl::StatusOr<CreateOptions> ParseCreateOptions(const PJRT_NamedValue* options, size_t count) {
  absl::StatusOr<plugin::Options> parsed =
      plugin::Options::Parse("PJRT_Client_Create", "client option", "cpu", options, count,
                             {{kDeviceCountOption, PJRT_NamedValue_kInt64},
                              {kProcessIndexOption, PJRT_NamedValue_kInt64},
                              {kProcessCountOption, PJRT_NamedValue_kInt64},
                              {kCollectiveTimeoutOption, PJRT_NamedValue_kInt64},
                              {kCollectiveSpinOption, PJRT_NamedValue_kInt64},
                              {kKernelSpinOption, PJRT_NamedValue_kInt64},
                              {kLocalProcessCountOption, PJRT_NamedValue_kInt64},
                              {kThreadsOption, PJRT_NamedValue_kInt64},
                              {kGemmOption, PJRT_NamedValue_kString},
                              {kConvOption, PJRT_NamedValue_kString},
                              {kEpiloguesOption, PJRT_NamedValue_kString},
                              {kLayoutsOption, PJRT_NamedValue_kString},
                              {kDumpToOption, PJRT_NamedValue_kString},
                              {kInlineMaxCostOption, PJRT_NamedValue_kInt64},
                              {kInlineCrossProcessOption, PJRT_NamedValue_kInt64},
                              {kMasterAddrOption, PJRT_NamedValue_kString},
                              {kAttentionOption, PJRT_NamedValue_kString},
                              {kJitOption, PJRT_NamedValue_kString},
                              {kStreamMinBytesOption, PJRT_NamedValue_kInt64}});
  if (!parsed.ok()) return parsed.status();
  CreateOptions out;
  out.device_count = parsed->Int64(kDeviceCountOption).value_or(1);
  SEAM_RETURN_IF_ERROR(CheckRange(kDeviceCountOption, out.device_count, 1, kMaxDevices));
  out.process_count = parsed->Int64(kProcessCountOption).value_or(1);
  SEAM_RETURN_IF_ERROR(CheckRange(kProcessCountOption, out.process_count, 1, kMaxProcesses));
  out.process_index = parsed->Int64(kProcessIndexOption).value_or(0);
  SEAM_RETURN_IF_ERROR(
      CheckRange(kProcessIndexOption, out.process_index, 0, out.process_count - 1));
  // Not given: every process of the job may share this host (the runtime passes the real
  // count), so the collectives do not poll on a host they would oversubscribe.
  out.local_process_count = parsed->Int64(kLocalProcessCountOption).value_or(out.process_count);
  SEAM_RETURN_IF_ERROR(
      CheckRange(kLocalProcessCountOption, out.local_process_count, 1, out.process_count));
  out.collective_timeout_ms = parsed->Int64(kCollectiveTimeoutOption);
  if (out.collective_timeout_ms.has_value()) {
    SEAM_RETURN_IF_ERROR(CheckRange(kCollectiveTimeoutOption, *out.collective_timeout_ms, 1,
                                    kMaxCollectiveTimeoutMs));
  }
  SEAM_ASSIGN_OR_RETURN(out.settings, ResolveCpuSettings(*parsed));
  SEAM_RETURN_IF_ERROR(CheckGemmLibraryBuilt(out.settings));
  return out;
}

// An integer environment variable of at least `minimum`; `fallback` when unset or empty.
absl::StatusOr<int64_t> EnvInteger(base::Setting setting, int64_t minimum, int64_t fallback,
                                   const char* what) {
  const char* name = base::SettingName(setting);
  const std::optional<std::string> text = base::ReadSetting(setting);
  if (!text.has_value() || text->empty()) return fallback;
  const char* env = text->c_str();
  char* end = nullptr;
  errno = 0;
  long long value = std::strtoll(env, &end, 10);
  if (end == env || *end != '\0' || errno != 0 || value < minimum) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: environment variable ",
                                                   name, " must be a ", what, ", got '", env, "'"));
  }
  return static_cast<int64_t>(value);
}

// The CPUs this process may run on (its affinity mask), at least 1.
// Whether a thread awaiting a queued run may run it (Worker::help): not while a test holds
// runs back (testing_hooks.h), which the device's thread honours too.
bool MayRunWhileWaiting() { return !testing::ExecutionHeld(); }

int64_t UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// A job of several processes: the collectives' settings, checked now so that a bad one
// fails the client's creation rather than its first collective. Creates no socket.
absl::StatusOr<std::unique_ptr<GlooCollectives>> MakeGlooCollectives(
    const CreateOptions& options, const std::optional<plugin::KvStore>& kv_store) {
  if (!kv_store.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_Create: option '", kProcessCountOption, "' is ", options.process_count,
        " but no key-value store was given (kv_get_callback, kv_put_callback, "
        "kv_try_get_callback): the processes of a "
        "job find each other through it"));
  }
  // The collectives use the interface that routes to the coordinator's host; unset, that
  // host is localhost, as for the coordinator itself (distributed_config.h).
  std::string master = options.settings.master_addr.has_value()
                           ? *options.settings.master_addr
                           : base::ReadSetting(base::Setting::kMasterAddr).value_or("");
  if (master.empty()) master = "localhost";
  auto failed = [](const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat("PJRT_Client_Create: ", status.message()));
  };
  absl::StatusOr<SocketAddress> master_address = MasterAddress(master);
  if (!master_address.ok()) return failed(master_address.status());
  absl::StatusOr<SocketAddress> local = LocalAddressTowards(*master_address);
  if (!local.ok()) return failed(local.status());
  int64_t timeout_ms = kDefaultCollectiveTimeoutMs;
  if (options.collective_timeout_ms.has_value()) {
    timeout_ms = *options.collective_timeout_ms;
  } else {
    SEAM_ASSIGN_OR_RETURN(timeout_ms, EnvInteger(base::Setting::kSeamCpuCollectiveTimeoutMs, 1,
                                                 kDefaultCollectiveTimeoutMs, "positive integer"));
  }
  return std::make_unique<GlooCollectives>(
      GlooConfig{.store = *kv_store,
                 .process_index = options.process_index,
                 .process_count = options.process_count,
                 .local_devices = options.device_count,
                 .local_address = *local,
                 .timeout = std::chrono::milliseconds(timeout_ms),
                 .finish_spin = std::chrono::microseconds(
                     CollectiveSpin(options.settings, options.local_process_count, UsableCpus()))});
}

}  // namespace

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  if (args->num_options > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Create, args->create_options);
  absl::StatusOr<CreateOptions> options =
      ParseCreateOptions(args->create_options, args->num_options);
  if (!options.ok()) return MakeError(options.status());
  options->settings.kernel_spin_us =
      KernelSpin(options->settings, options->local_process_count, UsableCpus());
  auto settings = std::make_shared<const CpuSettings>(options->settings);
  {
    const ScopedCpuSettings scope(settings.get());
    // The plugin's attributes (PJRT_Plugin_Attributes has no client) report the latest
    // client's choice; each client's compiles and runs use its own.
    SetGemmLibrary(settings->gemm);
    LogBlasCoreOnce();              // OpenBLAS on generic kernels: say so, and how to fix it
    InitializeGemmLibrariesOnce();  // before the first Worker registers its exit handler
    InitializeConvolutionsOnce();   // likewise for oneDNN's convolutions
    InitializeBf16MatmulOnce();     // and its bf16 products
  }
  absl::StatusOr<std::optional<plugin::KvStore>> kv_store = plugin::KvStore::FromCreateArgs(*args);
  if (!kv_store.ok()) return MakeError(kv_store.status());
  if (options->process_count * options->device_count > kMaxJobDevices) {
    return MakeError(absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_Create: ", options->process_count, " processes of ", options->device_count,
        " device(s) make ", options->process_count * options->device_count,
        " devices, more than the cpu plugin lists (", kMaxJobDevices, ")")));
  }
  auto client = std::make_unique<PJRT_Client>();
  if (options->process_count > 1) {
    absl::StatusOr<std::unique_ptr<GlooCollectives>> gloo =
        MakeGlooCollectives(*options, *kv_store);
    if (!gloo.ok()) return MakeError(gloo.status());
    client->gloo = *std::move(gloo);
  }
  client->process_index = options->process_index;
  client->process_count = options->process_count;
  client->inline_max_cost = settings->inline_max_cost;
  client->inline_cross_process = settings->inline_cross_process;
  client->settings = settings;
  client->kv_store = *std::move(kv_store);
  // Every device of the job, in global id order: process p's device i has id
  // p * device_count + i. This process drives its own; the others are only described.
  for (int64_t p = 0; p < options->process_count; ++p) {
    for (int64_t i = 0; i < options->device_count; ++i) {
      const int id = static_cast<int>(p * options->device_count + i);
      auto device = std::make_unique<PJRT_Device>();
      PJRT_DeviceDescription& description = device->description;
      description.id = id;
      description.process_index = static_cast<int>(p);
      description.kind = "cpu";
      description.debug_string = absl::StrCat("cpu:", id);
      description.to_string = absl::StrCat("CpuDevice(id=", id, ", process_index=", p, ")");
      description.attributes.Int64("local_device_index", i);
      device->client = client.get();
      device->addressable = p == options->process_index;
      client->devices.push_back(device.get());
      if (device->addressable) {
        device->local_hardware_id = static_cast<int>(i);
        device->worker = std::make_unique<Worker>(&MayRunWhileWaiting);
        auto memory = std::make_unique<PJRT_Memory>();
        memory->id = id;
        memory->kind = "device";
        memory->kind_id = 0;
        memory->debug_string = absl::StrCat("cpu:", id, ":device");
        memory->to_string = absl::StrCat("CpuMemory(kind=device, device=", id, ")");
        memory->devices.push_back(device.get());
        device->memories.push_back(memory.get());
        client->addressable_memories.push_back(memory.get());
        device->memory_space = std::move(memory);
        client->addressable_devices.push_back(device.get());
      }
      client->owned_devices.push_back(std::move(device));
    }
  }
  args->client = client.release();
  return nullptr;
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;  // joins each device's worker after its queued work
  return nullptr;
}

namespace {

// The parts of the serialized xla.CompileOptionsProto the cpu plugin reads (decision 3 of
// the migration): the replica count, when set, must be the program's.
absl::StatusOr<xla::CompileOptionsProto> ParseCompileOptions(const PJRT_Client_Compile_Args& args) {
  if (args.compile_options == nullptr && args.compile_options_size > 0) {
    return absl::InvalidArgumentError(
        "PJRT_Client_Compile: args->compile_options is null with compile_options_size > 0");
  }
  xla::CompileOptionsProto options;
  if (args.compile_options_size > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !options.ParseFromArray(args.compile_options, static_cast<int>(args.compile_options_size))) {
    return absl::InvalidArgumentError("failed to deserialize CompileOptionsProto");
  }
  return options;
}

absl::Status CheckCompileOptions(const xla::CompileOptionsProto& options,
                                 const ir::Program& program) {
  if (!options.has_executable_build_options()) return absl::OkStatus();
  const xla::ExecutableBuildOptionsProto& build = options.executable_build_options();
  if (build.num_replicas() != 0 && build.num_replicas() != program.replica_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_Compile: the compile options ask for num_replicas=", build.num_replicas(),
        ", the program has replicas=", program.replica_count));
  }
  if (build.num_partitions() > 1) {
    return absl::UnimplementedError(absl::StrCat(
        "PJRT_Client_Compile: the compile options ask for num_partitions=", build.num_partitions(),
        "; the cpu plugin runs one partition"));
  }
  return absl::OkStatus();
}

// A hex digest of what decides the compiled program: its text.
std::string Fingerprint(absl::string_view code) {
  // FNV-1a, 64 bits: stable across processes and builds, unlike std::hash.
  uint64_t hash = 14695981039346656037ull;
  for (char c : code) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", hash);
}

std::shared_ptr<const ExecutableFacts> MakeFacts(const Executable& executable,
                                                 absl::string_view code) {
  auto facts = std::make_shared<ExecutableFacts>();
  facts->name = executable.program().name;
  facts->fingerprint = Fingerprint(code);
  facts->replicas = executable.program().replica_count;
  for (const ir::Shape& shape : executable.result_shapes()) {
    facts->AddOutput(ToPjrtType(shape.dtype), shape.dims);
  }
  return facts;
}

// Format "mlir": the StableHLO reader's program, then the same compile as seam's IR.
absl::StatusOr<std::shared_ptr<const Executable>> CompileStableHlo(
    std::string_view text, bool overlap_collectives, std::shared_ptr<const CpuSettings> settings) {
  absl::StatusOr<ir::Program> program = [&] {
    const plugin::profiler::Scope pass("parse", "compile");
    return stablehlo::ReadStableHlo(text);
  }();
  if (!program.ok()) return program.status();
  return Executable::Compile(*std::move(program), /*fuse=*/true, overlap_collectives,
                             std::move(settings));
}

// The devices a program of `replicas` replicas runs on, as this process sees them: the
// first `replicas` devices, or all of this process's devices for a program over every
// process of the job.
std::vector<PJRT_Device*> RunDevicesOf(const PJRT_Client& client, int64_t replicas) {
  const std::vector<PJRT_Device*>& local = client.addressable_devices;
  if (replicas >= static_cast<int64_t>(local.size())) return local;
  return std::vector<PJRT_Device*>(local.begin(), local.begin() + replicas);
}

}  // namespace

PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->client);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->program);
  const PJRT_Program& program = *args->program;
  SEAM_PLUGIN_CHECK_STRUCT(PJRT_Program, program);
  absl::string_view format = program.format == nullptr
                                 ? absl::string_view()
                                 : absl::string_view(program.format, program.format_size);
  if (format == "hlo") return MakeError(absl::InvalidArgumentError(stablehlo::kHloFormatMessage));
  if (format != kProgramFormat && format != kStableHloFormat) {
    return MakeError(
        absl::InvalidArgumentError(absl::StrCat("Unknown program format '", format, "'.")));
  }
  if (program.code == nullptr && program.code_size > 0) {
    return MakeError(absl::InvalidArgumentError("PJRT_Client_Compile: program code is null"));
  }
  absl::string_view code = program.code == nullptr
                               ? absl::string_view()
                               : absl::string_view(program.code, program.code_size);
  absl::StatusOr<xla::CompileOptionsProto> options = ParseCompileOptions(*args);
  if (!options.ok()) return MakeError(options.status());
  // In a job of several processes, all_reduces overlap the kernels that do not need them.
  const bool overlap = args->client->gloo != nullptr;
  const std::string_view text(code.data(), code.size());
  std::shared_ptr<const CpuSettings> settings = CompileSettings(*args->client->settings);
  absl::StatusOr<std::shared_ptr<const Executable>> executable =
      format == kStableHloFormat ? CompileStableHlo(text, overlap, settings)
                                 : Executable::Compile(text, /*fuse=*/true, overlap, settings);
  if (!executable.ok()) return MakeError(executable.status());
  if (absl::Status s = CheckCompileOptions(*options, (*executable)->program()); !s.ok()) {
    return MakeError(s);
  }
  MaybeDumpCompile(std::string_view(code.data(), code.size()), **executable, *settings);
  std::shared_ptr<const ExecutableFacts> facts = MakeFacts(**executable, code);
  std::vector<PJRT_Device*> devices =
      RunDevicesOf(*args->client, (*executable)->program().replica_count);
  args->executable = new PJRT_LoadedExecutable{*std::move(executable), args->client,
                                               std::move(facts), std::move(devices)};
  return nullptr;
}

PJRT_Error* ClientDefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_DefaultDeviceAssignment, args->client);
  const PJRT_Client& client = *args->client;
  if (args->num_partitions != 1) {
    return MakeError(absl::UnimplementedError(
        absl::StrCat("PJRT_Client_DefaultDeviceAssignment: num_partitions is ",
                     args->num_partitions, "; the cpu plugin runs one partition")));
  }
  if (args->num_replicas < 1 || static_cast<size_t>(args->num_replicas) > client.devices.size()) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_DefaultDeviceAssignment: num_replicas is ", args->num_replicas,
                     ", the job has ", client.devices.size(), " device(s)")));
  }
  const auto needed = static_cast<size_t>(args->num_replicas);
  if (args->default_assignment_size < needed || args->default_assignment == nullptr) {
    return MakeError(absl::InvalidArgumentError(
        absl::StrCat("PJRT_Client_DefaultDeviceAssignment: default_assignment has room for ",
                     args->default_assignment == nullptr ? 0 : args->default_assignment_size,
                     " entries, ", needed, " are needed")));
  }
  for (size_t r = 0; r < needed; ++r)
    args->default_assignment[r] = client.devices[r]->description.id;
  return nullptr;
}

}  // namespace seam::cpu
