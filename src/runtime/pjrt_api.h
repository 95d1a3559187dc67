// The framework's registry of plugin function tables, the plugin loader and the version
// handshake. With pjrt_computation_client, the only framework code that touches the ABI.
#ifndef SEAM_RUNTIME_PJRT_API_H_
#define SEAM_RUNTIME_PJRT_API_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "src/abi/args.h"
#include "src/runtime/plugin.h"
#include "src/runtime/trace.h"

struct PJRT_Api;
struct PJRT_Error;
struct PJRT_Profiler_Extension;

namespace seam::runtime {

// ---- Helpers for the two files that call the ABI.

// Takes ownership of `error` (null = success) and returns a Status with its code and
// message.
absl::Status TakePjrtError(const PJRT_Api* api, PJRT_Error* error);

// An Args struct with its header filled in: SEAM_PJRT_ARGS(PJRT_Client_Create_Args).
#define SEAM_PJRT_ARGS(type) SEAM_ABI_ARGS(type)

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
// or the functions of the oldest accepted minor), and SetPjrtApi's.
absl::StatusOr<const PJRT_Api*> LoadPjrtPlugin(const std::string& device_type,
                                               const std::string& library_path);
// The same without registering the table (the library stays open, as every loaded
// plugin's does): for tools that look at a plugin without using it (`seam info`).
absl::StatusOr<const PJRT_Api*> OpenPjrtPluginTable(const std::string& library_path);

// The handshake without the plugin's initialize: logs the two versions (always) and applies
// the version rule to the table registered under `device_type`; on failure the type is
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

// The CPU plugin linked into this program, if any: the library that links it (target
// `seam`, src/in_process/) registers its table getter before main. Null in a program
// linked with `seam_core` only (PJRT_DEVICE=CPU then fails with a message saying so).
// The plugin's profiler extension (ABI 1.3), or null: a plugin reporting a minor below 3
// has none (its chain is not read), nor has one whose chain lacks the type or whose
// extension struct is smaller than this header's. The chain is followed for at most 64
// links.
const PJRT_Profiler_Extension* FindProfilerExtension(const PJRT_Api* api);

// The plugin's profiler extension as a trace source named `name` (the platform), or null
// when the plugin has none.
std::unique_ptr<trace::Source> MakeProfilerSource(const PJRT_Api* api, std::string name);

void SetInProcessCpuPjrtApi(const PJRT_Api* (*get_api)());
const PJRT_Api* GetInProcessCpuPjrtApi();

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_API_H_
