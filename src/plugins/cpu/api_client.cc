// Client, devices and compilation.
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "src/plugins/common/options.h"
#include "src/plugins/cpu/api_functions.h"
#include "src/plugins/cpu/cpu_plugin.h"
#include "src/plugins/cpu/dump.h"
#include "src/plugins/cpu/gemm.h"
#include "src/plugins/cpu/objects.h"
#include "src/plugins/cpu/thread_pool.h"

namespace seam::cpu {
namespace {

constexpr absl::string_view kProgramFormat = "seam-ir";
constexpr int64_t kMaxDevices = 1024;

absl::StatusOr<int64_t> ParseCreateOptions(const PJRT_NamedValue* options, size_t count) {
  absl::StatusOr<plugin::Options> parsed =
      plugin::Options::Parse("PJRT_Client_Create", "client option", "cpu", options, count,
                             {{kDeviceCountOption, PJRT_NamedValue_kInt64}});
  if (!parsed.ok()) return parsed.status();
  int64_t device_count = parsed->Int64(kDeviceCountOption).value_or(1);
  if (device_count < 1 || device_count > kMaxDevices) {
    return absl::InvalidArgumentError(absl::StrCat("PJRT_Client_Create: option '",
                                                   kDeviceCountOption, "' must be in [1, ",
                                                   kMaxDevices, "], got ", device_count));
  }
  return device_count;
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

// SEAM_CPU_THREADS (thread_pool.h reads it for the kernel threads): checked here, so that a
// bad value is an error instead of being ignored.
absl::Status CheckKernelThreadsVariable() {
  return EnvInteger(kKernelThreadsVariable, 1, 1, "positive integer").status();
}

}  // namespace

PJRT_Error* ClientCreate(PJRT_Client_Create_Args* args) {
  if (args->num_options > 0) SEAM_PLUGIN_CHECK_NOT_NULL(PJRT_Client_Create, args->create_options);
  absl::StatusOr<int64_t> device_count =
      ParseCreateOptions(args->create_options, args->num_options);
  if (!device_count.ok()) return MakeError(device_count.status());
  absl::StatusOr<int64_t> inline_max_cost = InlineMaxCost();
  if (!inline_max_cost.ok()) return MakeError(inline_max_cost.status());
  if (absl::Status threads = CheckKernelThreadsVariable(); !threads.ok()) {
    return MakeError(threads);
  }
  absl::StatusOr<GemmLibrary> gemm = GemmLibraryFromEnvironment();
  if (!gemm.ok()) return MakeError(gemm.status());
  SetGemmLibrary(*gemm);  // process-wide, like the kernel threads and the block pool
  LogBlasCoreOnce();      // OpenBLAS on generic kernels: say so, and how to fix it
  absl::StatusOr<std::optional<plugin::KvStore>> kv_store = plugin::KvStore::FromCreateArgs(*args);
  if (!kv_store.ok()) return MakeError(kv_store.status());
  auto client = std::make_unique<PJRT_Client>();
  client->inline_max_cost = *inline_max_cost;
  client->kv_store = *std::move(kv_store);
  for (int64_t i = 0; i < *device_count; ++i) {
    auto device = std::make_unique<PJRT_Device>();
    device->description.id = static_cast<int>(i);
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
