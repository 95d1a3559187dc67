// The framework's registry of plugin function tables, the plugin loader and the version
// handshake. With pjrt_computation_client, the only framework code that touches the ABI.
#ifndef SEAM_RUNTIME_PJRT_PJRT_API_H_
#define SEAM_RUNTIME_PJRT_PJRT_API_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "src/abi/args.h"
#include "src/runtime/pjrt/plugin.h"
#include "src/runtime/trace.h"

struct PJRT_Api;
struct PJRT_Error;
struct SEAM_Profiler_Extension;

namespace seam::runtime {

// ---- Helpers for the two files that call the ABI.

// Takes ownership of `error` (null = success) and returns a Status with its code and
// message.
absl::Status TakePjrtError(const PJRT_Api* api, PJRT_Error* error);

// An Args struct with its header filled in: SEAM_PJRT_ARGS(PJRT_Client_Create_Args).
// Every field but the header is zero, so an out-field that a plugin of an older minor does
// not know (and so never writes) reads as zero/null/false: callers treat those as "not
// reported", never as an answer.
#define SEAM_PJRT_ARGS(type) SEAM_ABI_ARGS(type)

// ---- Slots. The framework never calls a slot that is null or lies past the plugin's
// PJRT_Api.struct_size (a plugin of an older minor has a shorter table).

// True when the table reaches the function pointer at `offset` and it is not null.
bool PjrtHasSlot(const PJRT_Api* api, size_t offset);
// Unimplemented "<name> is not provided by this plugin (PJRT API version 0.<m>)".
absl::Status PjrtMissingSlot(const PJRT_Api* api, std::string_view name);

// In the files that include the ABI header: whether `api` has the function `fn`, and a call
// of it that returns its error as a Status (PjrtMissingSlot's when the slot is missing).
#define SEAM_PJRT_HAS(api, fn) ::seam::runtime::PjrtHasSlot((api), offsetof(PJRT_Api, fn))
#define SEAM_PJRT_CALL(api, fn, args)                                              \
  (SEAM_PJRT_HAS(api, fn) ? ::seam::runtime::TakePjrtError((api), (api)->fn(args)) \
                          : ::seam::runtime::PjrtMissingSlot((api), #fn))

// ---- The registry: device type (lowercased) -> {table, initialized}. Write-once.

// AlreadyExists "PJRT_Api already exists for device type <type>" when the type has one.
absl::Status SetPjrtApi(const std::string& device_type, const PJRT_Api* api);
// NotFound "PJRT_Api not found for device type <type>".
absl::StatusOr<const PJRT_Api*> PjrtApi(const std::string& device_type);

// CheckPluginFile (plugin_file.h), dlopen(path, RTLD_LAZY), dlsym("GetPjrtApi"), call it,
// and register the table under `device_type`. The library is never closed: the table lives
// inside it. Errors: "Failed to open <path>: <file>: <problem>" (not an ELF shared object
// of this machine, or cut short), "Failed to open <path>: <dlerror>", NotFound "GetPjrtApi not
// found in <path>", "GetPjrtApi returned null in <path>", "Unexpected PJRT_Api size in <path>: ..."
// (the table's struct_size, checked before any other field is read, cannot hold the version field,
// or, for a table the handshake would accept, the error functions every call needs), and
// SetPjrtApi's.
absl::StatusOr<const PJRT_Api*> LoadPjrtPlugin(const std::string& device_type,
                                               const std::string& library_path);
// The same without registering the table (the library stays open, as every loaded
// plugin's does): for tools that look at a plugin without using it (`seam info`).
absl::StatusOr<const PJRT_Api*> OpenPjrtPluginTable(const std::string& library_path);

// The handshake without the plugin's initialize: logs the two versions (always), applies
// the version rule, then refuses a minor below the oldest layout seam reads
// (CheckPluginLayout) for the table registered under `device_type`; on failure the type is
// unregistered again. Calls none of the plugin's functions. Every branch that builds a
// client from a loaded table runs it (InitializePjrtPlugin does, and the XPU and NEURON
// branches, which skip the plugin's initialize, call it directly).
absl::Status CheckPjrtPluginVersion(const std::string& device_type);

// CheckPjrtPluginVersion, then the plugin's PJRT_Plugin_Initialize. A second initialization of the
// same type is FailedPrecondition. When the rule or the plugin's initialize fails, the type is
// unregistered again, so that a retry (load + initialize) reports the same error instead of
// "already exists".
absl::Status InitializePjrtPlugin(const std::string& device_type);
absl::StatusOr<bool> IsPjrtPluginInitialized(const std::string& device_type);

// ---- The version rule.

// ENABLE_PJRT_COMPATIBILITY: unset -> true; true/t/yes/y/1 -> true and false/f/no/n/0 ->
// false, case-insensitively; anything else cannot be parsed and counts as false.
bool IsPjrtCompatibilityEnabled();

// With compatibility: major equal and minor >= the framework's minimum; without: both
// equal. Returns PyTorch/XLA's exact messages (InitializePjrtPlugin's).
absl::Status CheckPluginVersion(int plugin_major, int plugin_minor, bool compatibility);

// The first minor whose layout the framework reads: a plugin of major 0 reporting a minor
// from PJRT_API_MIN_MINOR to kOldestLayoutMinor - 1 passes the version rule and is then
// refused with FailedPrecondition "PJRT plugin API version 0.<m> predates the layout seam
// reads (0.57 and later)".
inline constexpr int kOldestLayoutMinor = 57;
absl::Status CheckPluginLayout(int plugin_major, int plugin_minor);

// The plugin's {major, minor}, read without calling any of its functions.
struct PluginVersion {
  int major = 0;
  int minor = 0;
};
PluginVersion GetPluginVersion(const PJRT_Api* api);

// The framework's own numbers (from the ABI header).
PluginVersion FrameworkVersion();
int FrameworkMinimumMinor();

// The plugin's attributes (PJRT_Plugin_Attributes), as named values.
absl::StatusOr<PluginOptions> GetPluginAttributes(const PJRT_Api* api);

// ---- Tables that need no library.

// The plugin's profiler extension (SEAM_Extension_Type_Profiler on PJRT_Api's extension
// chain), or null: none for a plugin of another major or of a minor older than the layout
// seam reads (its chain is not read), nor for one whose chain lacks the type or whose
// extension struct is smaller than this header's. Links of other types are skipped; the
// chain is followed for at most 64 links.
const SEAM_Profiler_Extension* FindProfilerExtension(const PJRT_Api* api);

// Adds what the plugin's counters extension (seam/c/pjrt_c_api_counters.h) reports beyond
// what was added before to the metrics counters of the same names; nothing for a plugin
// without it. Called after each run.
void SyncPluginCounters(const PJRT_Api* api);

// The plugin's profiler extension as a trace source named `name` (the platform), or null
// when the plugin has none.
std::unique_ptr<trace::Source> MakeProfilerSource(const PJRT_Api* api, std::string name);

// The CPU plugin linked into this program, if any: the library that links it (target
// `seam`, src/in_process/) registers its table getter before main. Null in a program
// linked with `seam_core` only (PJRT_DEVICE=CPU then fails with a message saying so).
void SetInProcessCpuPjrtApi(const PJRT_Api* (*get_api)());
const PJRT_Api* GetInProcessCpuPjrtApi();

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PJRT_API_H_
