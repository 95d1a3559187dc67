// Client, devices and compilation.
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/base/status_macros.h"
#include "src/plugins/common/options.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/cpu_plugin.h"
#include "src/plugins/cpu/dot_onednn.h"
#include "src/plugins/cpu/dump.h"
#include "src/plugins/cpu/fusion_epilogue.h"
#include "src/plugins/cpu/gemm.h"
#include "src/plugins/cpu/gloo_collectives.h"
#include "src/plugins/cpu/kernels_window.h"
#include "src/plugins/cpu/layout_plan.h"
#include "src/plugins/cpu/local_address.h"
#include "src/plugins/cpu/objects.h"
#include "src/plugins/cpu/thread_pool.h"

namespace seam::cpu {
namespace {

constexpr absl::string_view kProgramFormat = "seam-ir";
constexpr int64_t kMaxDevices = 1024;
constexpr int64_t kMaxProcesses = 65536;
constexpr int64_t kMaxCollectiveTimeoutMs = int64_t{7} * 24 * 3600 * 1000;  // a week

struct CreateOptions {
  int64_t device_count = 1;
  int64_t process_index = 0;
  int64_t process_count = 1;
  std::optional<int64_t> collective_timeout_ms;
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
                              {kCollectiveTimeoutOption, PJRT_NamedValue_kInt64}});
  if (!parsed.ok()) return parsed.status();
  CreateOptions out;
  out.device_count = parsed->Int64(kDeviceCountOption).value_or(1);
  SEAM_RETURN_IF_ERROR(CheckRange(kDeviceCountOption, out.device_count, 1, kMaxDevices));
  out.process_count = parsed->Int64(kProcessCountOption).value_or(1);
  SEAM_RETURN_IF_ERROR(CheckRange(kProcessCountOption, out.process_count, 1, kMaxProcesses));
  out.process_index = parsed->Int64(kProcessIndexOption).value_or(0);
  SEAM_RETURN_IF_ERROR(
      CheckRange(kProcessIndexOption, out.process_index, 0, out.process_count - 1));
  out.collective_timeout_ms = parsed->Int64(kCollectiveTimeoutOption);
  if (out.collective_timeout_ms.has_value()) {
    SEAM_RETURN_IF_ERROR(CheckRange(kCollectiveTimeoutOption, *out.collective_timeout_ms, 1,
                                    kMaxCollectiveTimeoutMs));
  }
  return out;
}

// An integer environment variable of at least `minimum`; `fallback` when unset or empty.
absl::StatusOr<int64_t> EnvInteger(const char* name, int64_t minimum, int64_t fallback,
                                   const char* what) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  long long value = std::strtoll(env, &end, 10);
  if (end == env || *end != '\0' || errno != 0 || value < minimum) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: environment variable ",
                                                   name, " must be a ", what, ", got '", env, "'"));
  }
  return static_cast<int64_t>(value);
}

// SEAM_CPU_INLINE_MAX_COST: the largest program cost (Executable::cost) run on the caller's
// thread when its device is idle; 0 turns inline runs off.
absl::StatusOr<int64_t> InlineMaxCost() {
  return EnvInteger(kInlineMaxCostVariable, 0, kDefaultInlineMaxCost, "non-negative integer");
}

// SEAM_CPU_INLINE_CROSS_PROCESS: 0 or 1 (default 1).
absl::StatusOr<bool> InlineCrossProcess() {
  SEAM_ASSIGN_OR_RETURN(int64_t value,
                        EnvInteger(kInlineCrossProcessVariable, 0, 1, "flag (0 or 1)"));
  if (value > 1) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: environment variable ",
                                                   kInlineCrossProcessVariable,
                                                   " must be a flag (0 or 1), got '", value, "'"));
  }
  return value == 1;
}

// SEAM_CPU_THREADS (thread_pool.h reads it for the kernel threads): checked here, so that a
// bad value is an error instead of being ignored.
absl::Status CheckKernelThreadsVariable() {
  return EnvInteger(kKernelThreadsVariable, 1, 1, "positive integer").status();
}

// A job of several processes: the collectives' settings, checked now so that a bad one
// fails the client's creation rather than its first collective. Creates no socket.
absl::StatusOr<std::unique_ptr<GlooCollectives>> MakeGlooCollectives(
    const CreateOptions& options, const std::optional<plugin::KvStore>& kv_store) {
  if (!kv_store.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PJRT_Client_Create: option '", kProcessCountOption, "' is ", options.process_count,
        " but no key-value store was given (kv_get, kv_try_get, kv_put): the processes of a "
        "job find each other through it"));
  }
  // The collectives use the interface that routes to the coordinator's host; unset, that
  // host is localhost, as for the coordinator itself (distributed_config.h).
  const char* master = std::getenv(kMasterAddressVariable);
  if (master == nullptr || *master == '\0') master = "localhost";
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
    SEAM_ASSIGN_OR_RETURN(timeout_ms, EnvInteger(kCollectiveTimeoutVariable, 1,
                                                 kDefaultCollectiveTimeoutMs, "positive integer"));
  }
  return std::make_unique<GlooCollectives>(
      GlooConfig{.store = *kv_store,
                 .process_index = options.process_index,
                 .process_count = options.process_count,
                 .local_devices = options.device_count,
                 .local_address = *local,
                 .timeout = std::chrono::milliseconds(timeout_ms)});
}

}  // namespace

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  if (args->num_options > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Create, args->create_options);
  absl::StatusOr<CreateOptions> options =
      ParseCreateOptions(args->create_options, args->num_options);
  if (!options.ok()) return MakeError(options.status());
  absl::StatusOr<int64_t> inline_max_cost = InlineMaxCost();
  if (!inline_max_cost.ok()) return MakeError(inline_max_cost.status());
  absl::StatusOr<bool> inline_cross_process = InlineCrossProcess();
  if (!inline_cross_process.ok()) return MakeError(inline_cross_process.status());
  if (absl::Status threads = CheckKernelThreadsVariable(); !threads.ok()) {
    return MakeError(threads);
  }
  if (absl::Status conv = CheckConvolutionVariable(); !conv.ok()) return MakeError(conv);
  if (absl::Status epilogues = CheckEpilogueVariable(); !epilogues.ok()) {
    return MakeError(epilogues);
  }
  if (absl::Status layouts = CheckLayoutVariable(); !layouts.ok()) return MakeError(layouts);
  absl::StatusOr<GemmLibrary> gemm = GemmLibraryFromEnvironment();
  if (!gemm.ok()) return MakeError(gemm.status());
  SetGemmLibrary(*gemm);          // process-wide, like the kernel threads and the block pool
  LogBlasCoreOnce();              // OpenBLAS on generic kernels: say so, and how to fix it
  InitializeGemmLibrariesOnce();  // before the first Worker registers its exit handler
  InitializeConvolutionsOnce();   // likewise for oneDNN's convolutions
  InitializeBf16MatmulOnce();     // and its bf16 products
  absl::StatusOr<std::optional<plugin::KvStore>> kv_store = plugin::KvStore::FromCreateArgs(*args);
  if (!kv_store.ok()) return MakeError(kv_store.status());
  auto client = std::make_unique<PJRT_Client>();
  if (options->process_count > 1) {
    absl::StatusOr<std::unique_ptr<GlooCollectives>> gloo =
        MakeGlooCollectives(*options, *kv_store);
    if (!gloo.ok()) return MakeError(gloo.status());
    client->gloo = *std::move(gloo);
  }
  client->process_index = options->process_index;
  client->process_count = options->process_count;
  client->inline_max_cost = *inline_max_cost;
  client->inline_cross_process = *inline_cross_process;
  client->kv_store = *std::move(kv_store);
  for (int64_t i = 0; i < options->device_count; ++i) {
    auto device = std::make_unique<PJRT_Device>();
    device->description.id = static_cast<int>(i);
    device->description.process_index = static_cast<int>(options->process_index);
    device->description.kind = "cpu";
    device->client = client.get();
    device->worker = std::make_unique<Worker>();
    client->devices.push_back(device.get());
    client->owned_devices.push_back(std::move(device));
  }
  args->client = client.release();
  return nullptr;
}

PJRT_Error* ClientDestroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;  // joins each device's worker after its queued work
  return nullptr;
}

PJRT_Error* ClientCompile(PJRT_Client_Compile_Args* args) {
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->client);
  SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->program);
  const PJRT_Program& program = *args->program;
  SEAM_PLUGIN_CHECK_STRUCT(PJRT_Program, program);
  absl::string_view format = program.format == nullptr
                                 ? absl::string_view()
                                 : absl::string_view(program.format, program.format_size);
  if (format != kProgramFormat) {
    return MakeError(
        absl::InvalidArgumentError(absl::StrCat("Unknown program format '", format, "'.")));
  }
  if (args->num_compile_options > 0) {
    SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Compile, args->compile_options);
  }
  // The cpu plugin has no compile option: any one given is refused by name.
  absl::StatusOr<plugin::Options> options =
      plugin::Options::Parse("PJRT_Client_Compile", "compile option", "cpu", args->compile_options,
                             args->num_compile_options, {});
  if (!options.ok()) return MakeError(options.status());
  if (program.code == nullptr && program.code_size > 0) {
    return MakeError(absl::InvalidArgumentError("PJRT_Client_Compile: program code is null"));
  }
  absl::string_view code = program.code == nullptr
                               ? absl::string_view()
                               : absl::string_view(program.code, program.code_size);
  absl::StatusOr<std::shared_ptr<const Executable>> executable =
      Executable::Compile(std::string_view(code.data(), code.size()));
  if (!executable.ok()) return MakeError(executable.status());
  MaybeDumpCompile(std::string_view(code.data(), code.size()), **executable);
  args->executable = new PJRT_LoadedExecutable{*std::move(executable), args->client};
  return nullptr;
}

}  // namespace seam::cpu
