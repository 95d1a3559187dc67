#include "src/runtime/pjrt/pjrt_api.h"

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "seam/c/pjrt_c_api_counters.h"
#include "seam/c/pjrt_c_api_profiler.h"
#include "src/base/env.h"
#include "src/base/logging.h"
#include "src/base/settings.h"
#include "src/base/status_macros.h"
#include "src/runtime/metrics.h"
#include "src/runtime/pjrt/plugin_file.h"

namespace seam::runtime {
namespace {

struct Entry {
  const PJRT_Api* api = nullptr;
  bool initialized = false;
};

struct Registry {
  std::mutex mu;
  std::map<std::string, Entry> entries;
};

Registry& GetRegistry() {
  static auto* registry = new Registry();  // leaked: plugins are never unloaded either
  return *registry;
}

std::string Canonical(const std::string& device_type) { return absl::AsciiStrToLower(device_type); }

absl::StatusOr<Entry> FindEntry(const std::string& device_type) {
  std::string type = Canonical(device_type);
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.entries.find(type);
  if (it == registry.entries.end()) {
    return absl::NotFoundError(absl::StrCat("PJRT_Api not found for device type ", type));
  }
  return it->second;
}

// The table's own size is read before anything else of it: it must hold the version
// field, and a table whose version the handshake would accept must reach the error
// functions, which every call needs (an error cannot even be freed without them). Any other
// slot is checked at the call that needs it (SEAM_PJRT_CALL).
constexpr size_t kVersionEnd = offsetof(PJRT_Api, pjrt_api_version) + PJRT_Api_Version_STRUCT_SIZE;
constexpr size_t kMinimumApiSize = PJRT_STRUCT_SIZE(PJRT_Api, PJRT_Error_GetCode);

std::string FrameworkVersionText() { return absl::StrCat(PJRT_API_MAJOR, ".", PJRT_API_MINOR); }

absl::Status TableSizeError(const std::string& path, size_t expected, const std::string& what,
                            size_t actual) {
  return absl::FailedPreconditionError(absl::StrCat(
      "Unexpected PJRT_Api size in ", path, ": expected at least ", expected, " bytes (", what,
      "), got ", actual, ". Check installed software versions. The framework PJRT API version is ",
      FrameworkVersionText(), "."));
}

absl::Status CheckTableSize(const PJRT_Api& api, const std::string& path) {
  if (api.struct_size < kVersionEnd) {
    return TableSizeError(path, kVersionEnd, "up to the version field", api.struct_size);
  }
  const PJRT_Api_Version& version = api.pjrt_api_version;
  if (version.struct_size < PJRT_Api_Version_STRUCT_SIZE) {
    return absl::FailedPreconditionError(
        absl::StrCat("Unexpected PJRT_Api_Version size in ", path, ": expected ",
                     PJRT_Api_Version_STRUCT_SIZE, ", got ", version.struct_size,
                     ". Check installed software versions. The framework PJRT "
                     "API version is ",
                     FrameworkVersionText(), "."));
  }
  if (version.major_version != PJRT_API_MAJOR || version.minor_version < kOldestLayoutMinor) {
    return absl::OkStatus();  // the handshake refuses it, before any slot is read
  }
  if (api.struct_size < kMinimumApiSize) {
    return TableSizeError(
        path, kMinimumApiSize,
        absl::StrCat("up to PJRT_Error_GetCode: the error functions every call needs; the plugin "
                     "reports ",
                     version.major_version, ".", version.minor_version),
        api.struct_size);
  }
  if (api.PJRT_Error_Destroy == nullptr || api.PJRT_Error_Message == nullptr ||
      api.PJRT_Error_GetCode == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "PJRT plugin ", path, " has a null error function (PJRT_Error_Destroy, PJRT_Error_Message ",
        "and PJRT_Error_GetCode are needed by every call); PJRT API version ",
        version.major_version, ".", version.minor_version));
  }
  return absl::OkStatus();
}

// The one symbol a plugin exports: const PJRT_Api* GetPjrtApi(void).
constexpr char kGetPjrtApiSymbol[] = "GetPjrtApi";

void Unregister(const std::string& type) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.entries.erase(type);
}

}  // namespace

bool PjrtHasSlot(const PJRT_Api* api, size_t offset) {
  if (api == nullptr || api->struct_size < offset + sizeof(void*)) return false;
  void* slot = nullptr;
  std::memcpy(&slot, reinterpret_cast<const char*>(api) + offset, sizeof(slot));
  return slot != nullptr;
}

absl::Status PjrtMissingSlot(const PJRT_Api* api, std::string_view name) {
  const PluginVersion version = api == nullptr ? PluginVersion{} : GetPluginVersion(api);
  return absl::UnimplementedError(absl::StrCat(std::string(name),
                                               " is not provided by this plugin (PJRT API version ",
                                               version.major, ".", version.minor, ")"));
}

absl::Status TakePjrtError(const PJRT_Api* api, PJRT_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  // The loader checked these three slots; a table registered without it (the in-process
  // CPU plugin, a test's) is checked here rather than trusted.
  if (!SEAM_PJRT_HAS(api, PJRT_Error_Message) || !SEAM_PJRT_HAS(api, PJRT_Error_GetCode) ||
      !SEAM_PJRT_HAS(api, PJRT_Error_Destroy)) {
    return absl::UnknownError(
        "the plugin returned an error but lacks PJRT_Error_Message, PJRT_Error_GetCode or "
        "PJRT_Error_Destroy to describe and free it");
  }
  auto message_args = SEAM_PJRT_ARGS(PJRT_Error_Message_Args);
  message_args.error = error;
  api->PJRT_Error_Message(&message_args);
  auto code_args = SEAM_PJRT_ARGS(PJRT_Error_GetCode_Args);
  code_args.error = error;
  absl::StatusCode code = absl::StatusCode::kUnknown;
  PJRT_Error* code_error = api->PJRT_Error_GetCode(&code_args);
  if (code_error == nullptr) code = static_cast<absl::StatusCode>(code_args.code);
  absl::Status status(code,
                      message_args.message == nullptr
                          ? absl::string_view()
                          : absl::string_view(message_args.message, message_args.message_size));
  auto destroy_args = SEAM_PJRT_ARGS(PJRT_Error_Destroy_Args);
  destroy_args.error = code_error;
  if (code_error != nullptr) api->PJRT_Error_Destroy(&destroy_args);
  destroy_args.error = error;
  api->PJRT_Error_Destroy(&destroy_args);
  return status;
}

absl::Status SetPjrtApi(const std::string& device_type, const PJRT_Api* api) {
  std::string type = Canonical(device_type);
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  if (registry.entries.count(type)) {
    return absl::AlreadyExistsError(absl::StrCat("PJRT_Api already exists for device type ", type));
  }
  registry.entries[type] = Entry{api, false};
  return absl::OkStatus();
}

absl::StatusOr<const PJRT_Api*> PjrtApi(const std::string& device_type) {
  SEAM_ASSIGN_OR_RETURN(Entry entry, FindEntry(device_type));
  return entry.api;
}

absl::StatusOr<const PJRT_Api*> OpenPjrtPluginTable(const std::string& library_path) {
  // A file cut short would kill the process with SIGBUS inside dlopen.
  SEAM_RETURN_IF_ERROR(CheckPluginFile(library_path));
  void* library = dlopen(library_path.c_str(), RTLD_LAZY);
  if (library == nullptr) {
    const char* error = dlerror();
    return absl::InternalError(absl::StrCat("Failed to open ", library_path, ": ",
                                            error == nullptr ? "unknown error" : error));
  }
  void* symbol = dlsym(library, kGetPjrtApiSymbol);
  if (symbol == nullptr) {
    return absl::NotFoundError(absl::StrCat(kGetPjrtApiSymbol, " not found in ", library_path));
  }
  const PJRT_Api* api = reinterpret_cast<const PJRT_Api* (*)()>(symbol)();
  if (api == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(kGetPjrtApiSymbol, " returned null in ", library_path));
  }
  SEAM_RETURN_IF_ERROR(CheckTableSize(*api, library_path));
  return api;
}

absl::StatusOr<const PJRT_Api*> LoadPjrtPlugin(const std::string& device_type,
                                               const std::string& library_path) {
  SEAM_ASSIGN_OR_RETURN(const PJRT_Api* api, OpenPjrtPluginTable(library_path));
  SEAM_RETURN_IF_ERROR(SetPjrtApi(device_type, api));
  return api;
}

bool IsPjrtCompatibilityEnabled() {
  std::optional<std::string> value = base::ReadSetting(base::Setting::kEnablePjrtCompatibility);
  if (!value.has_value()) return true;
  bool enabled = false;
  if (!absl::SimpleAtob(*value, &enabled)) return false;
  return enabled;
}

PluginVersion FrameworkVersion() { return {PJRT_API_MAJOR, PJRT_API_MINOR}; }
int FrameworkMinimumMinor() { return PJRT_API_MIN_MINOR; }

PluginVersion GetPluginVersion(const PJRT_Api* api) {
  return {api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version};
}

absl::Status CheckPluginVersion(int plugin_major, int plugin_minor, bool compatibility) {
  if (compatibility) {
    if (plugin_major != PJRT_API_MAJOR) {
      return absl::FailedPreconditionError(
          absl::StrCat("Mismatched PJRT plugin PJRT API major version (", plugin_major,
                       ") and framework PJRT API major version ", PJRT_API_MAJOR, ")."));
    }
    if (plugin_minor < PJRT_API_MIN_MINOR) {
      return absl::FailedPreconditionError(
          absl::StrCat("Plugin PJRT API version ", plugin_major, ".", plugin_minor,
                       " is older than the minimum supported version ", PJRT_API_MAJOR, ".",
                       PJRT_API_MIN_MINOR));
    }
    return absl::OkStatus();
  }
  if (plugin_major != PJRT_API_MAJOR || plugin_minor != PJRT_API_MINOR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Mismatched PJRT plugin PJRT API version (", plugin_major, ".", plugin_minor,
        ") and framework PJRT API version ", PJRT_API_MAJOR, ".", PJRT_API_MINOR, ")."));
  }
  return absl::OkStatus();
}

absl::Status CheckPluginLayout(int plugin_major, int plugin_minor) {
  if (plugin_major == PJRT_API_MAJOR && plugin_minor < kOldestLayoutMinor) {
    return absl::FailedPreconditionError(
        absl::StrCat("PJRT plugin API version ", plugin_major, ".", plugin_minor,
                     " predates the layout seam reads (", PJRT_API_MAJOR, ".", kOldestLayoutMinor,
                     " and later)"));
  }
  return absl::OkStatus();
}

absl::Status CheckPjrtPluginVersion(const std::string& device_type) {
  std::string type = Canonical(device_type);
  SEAM_ASSIGN_OR_RETURN(const PJRT_Api* api, PjrtApi(type));
  PluginVersion version = GetPluginVersion(api);
  base::Log(base::LogSeverity::kInfo,
            absl::StrCat("The PJRT plugin has PJRT API version ", version.major, ".", version.minor,
                         ". The framework PJRT API version is ", PJRT_API_MAJOR, ".",
                         PJRT_API_MINOR, "."));
  absl::Status status =
      CheckPluginVersion(version.major, version.minor, IsPjrtCompatibilityEnabled());
  if (status.ok()) status = CheckPluginLayout(version.major, version.minor);
  if (!status.ok()) Unregister(type);
  return status;
}

absl::Status InitializePjrtPlugin(const std::string& device_type) {
  std::string type = Canonical(device_type);
  SEAM_ASSIGN_OR_RETURN(const PJRT_Api* api, PjrtApi(type));
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    if (registry.entries[type].initialized) {
      return absl::FailedPreconditionError(
          absl::StrCat("PJRT plugin for device type ", type, " is already initialized"));
    }
  }
  SEAM_RETURN_IF_ERROR(CheckPjrtPluginVersion(type));
  auto args = SEAM_PJRT_ARGS(PJRT_Plugin_Initialize_Args);
  if (absl::Status status = SEAM_PJRT_CALL(api, PJRT_Plugin_Initialize, &args); !status.ok()) {
    Unregister(type);
    return status;
  }
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  registry.entries[type].initialized = true;
  return absl::OkStatus();
}

absl::StatusOr<bool> IsPjrtPluginInitialized(const std::string& device_type) {
  SEAM_ASSIGN_OR_RETURN(Entry entry, FindEntry(device_type));
  return entry.initialized;
}

absl::StatusOr<PluginOptions> GetPluginAttributes(const PJRT_Api* api) {
  auto args = SEAM_PJRT_ARGS(PJRT_Plugin_Attributes_Args);
  SEAM_RETURN_IF_ERROR(SEAM_PJRT_CALL(api, PJRT_Plugin_Attributes, &args));
  PluginOptions attributes;
  if (args.num_attributes > 0 && args.attributes == nullptr) {
    return absl::InternalError(absl::StrCat("PJRT_Plugin_Attributes reported ", args.num_attributes,
                                            " attributes and no array"));
  }
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& v = args.attributes[i];
    std::string name = v.name == nullptr ? std::string() : std::string(v.name, v.name_size);
    switch (v.type) {
      case PJRT_NamedValue_kString:
        attributes[name] = std::string(v.string_value == nullptr ? "" : v.string_value,
                                       v.string_value == nullptr ? 0 : v.value_size);
        break;
      case PJRT_NamedValue_kInt64:
        attributes[name] = v.int64_value;
        break;
      case PJRT_NamedValue_kInt64List:
        attributes[name] =
            v.int64_array_value == nullptr
                ? std::vector<int64_t>()
                : std::vector<int64_t>(v.int64_array_value, v.int64_array_value + v.value_size);
        break;
      case PJRT_NamedValue_kFloat:
        attributes[name] = v.float_value;
        break;
      case PJRT_NamedValue_kBool:
        attributes[name] = v.bool_value;
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "plugin attribute '", name, "' has unknown type ", static_cast<int>(v.type)));
    }
  }
  return attributes;
}

const SEAM_Profiler_Extension* FindProfilerExtension(const PJRT_Api* api) {
  constexpr int kMaxLinks = 64;  // a chain that loops is not followed forever
  if (api == nullptr || api->struct_size < kVersionEnd ||
      GetPluginVersion(api).major != PJRT_API_MAJOR ||
      GetPluginVersion(api).minor < kOldestLayoutMinor) {
    return nullptr;
  }
  const PJRT_Extension_Base* link = api->extension_start;
  for (int i = 0; link != nullptr && i < kMaxLinks; ++i, link = link->next) {
    // The type is read as an int (seam's id lies outside PJRT_Extension_Type's values).
    if (SEAM_ExtensionTypeOf(link) == SEAM_Extension_Type_Profiler &&
        link->struct_size >= SEAM_Profiler_Extension_STRUCT_SIZE) {
      const auto* extension = reinterpret_cast<const SEAM_Profiler_Extension*>(link);
      if (extension->start == nullptr || extension->stop == nullptr ||
          extension->collect == nullptr) {
        return nullptr;  // a broken extension is no extension
      }
      return extension;
    }
  }
  return nullptr;
}

void SyncPluginCounters(const PJRT_Api* api) {
  constexpr int kMaxLinks = 64;
  if (api == nullptr || api->struct_size < kVersionEnd ||
      GetPluginVersion(api).major != PJRT_API_MAJOR ||
      GetPluginVersion(api).minor < kOldestLayoutMinor) {
    return;
  }
  const SEAM_Counters_Extension* extension = nullptr;
  const PJRT_Extension_Base* link = api->extension_start;
  for (int i = 0; link != nullptr && i < kMaxLinks && extension == nullptr;
       ++i, link = link->next) {
    if (SEAM_ExtensionTypeOf(link) == SEAM_Extension_Type_Counters &&
        link->struct_size >= SEAM_Counters_Extension_STRUCT_SIZE) {
      extension = reinterpret_cast<const SEAM_Counters_Extension*>(link);
    }
  }
  if (extension == nullptr || extension->read == nullptr) return;
  // The plugin's totals are process-wide: each reaches the counter of its name once.
  static std::mutex mu;
  static auto* seen = new std::map<std::string, int64_t>();
  const std::lock_guard<std::mutex> lock(mu);
  SEAM_Counters_Read_Args args{};
  args.struct_size = SEAM_Counters_Read_Args_STRUCT_SIZE;
  if (PJRT_Error* error = extension->read(&args); error != nullptr) {
    TakePjrtError(api, error).IgnoreError();
    return;
  }
  for (size_t k = 0; k < args.num_counters && args.names != nullptr && args.values != nullptr;
       ++k) {
    int64_t& last = (*seen)[args.names[k]];
    if (args.values[k] > last) {
      metrics::GetOrCreateCounter(args.names[k])->Add(args.values[k] - last);
      last = args.values[k];
    }
  }
}

namespace {

class ProfilerSource final : public trace::Source {
 public:
  ProfilerSource(const PJRT_Api* api, const SEAM_Profiler_Extension* extension, std::string name)
      : api_(api), extension_(extension), name_(std::move(name)) {}

  std::string name() const override { return name_; }

  absl::Status Start() override {
    auto args = SEAM_PJRT_ARGS(SEAM_Profiler_Start_Args);
    args.max_events = 0;  // the plugin's default
    return TakePjrtError(api_, extension_->start(&args));
  }

  absl::Status StopAndCollect(std::vector<trace::PluginEvent>& events, uint64_t& dropped) override {
    auto stop = SEAM_PJRT_ARGS(SEAM_Profiler_Stop_Args);
    SEAM_RETURN_IF_ERROR(TakePjrtError(api_, extension_->stop(&stop)));
    auto collect = SEAM_PJRT_ARGS(SEAM_Profiler_Collect_Args);
    SEAM_RETURN_IF_ERROR(TakePjrtError(api_, extension_->collect(&collect)));
    dropped += collect.num_dropped;
    if (collect.num_events > 0 && collect.events == nullptr) {
      return absl::InternalError(absl::StrCat("SEAM_Profiler_Collect reported ", collect.num_events,
                                              " events and no array"));
    }
    events.reserve(events.size() + collect.num_events);
    for (size_t i = 0; i < collect.num_events; ++i) {
      const SEAM_Profiler_Event* e = collect.events[i];
      if (e == nullptr || e->struct_size < SEAM_Profiler_Event_STRUCT_SIZE) {
        return absl::InternalError(
            absl::StrCat("SEAM_Profiler_Collect: event ", i, " is ",
                         e == nullptr ? std::string("null")
                                      : absl::StrCat(e->struct_size, " bytes, expected at least ",
                                                     SEAM_Profiler_Event_STRUCT_SIZE)));
      }
      trace::PluginEvent event;
      event.name = e->name == nullptr ? "" : e->name;
      event.category = e->category == nullptr ? "" : e->category;
      event.device_id = e->device_id;
      event.thread_id = e->thread_id;
      event.begin_ns = e->begin_ns;
      event.end_ns = e->end_ns;
      events.push_back(std::move(event));
    }
    return absl::OkStatus();
  }

 private:
  const PJRT_Api* api_;
  const SEAM_Profiler_Extension* extension_;
  std::string name_;
};

}  // namespace

std::unique_ptr<trace::Source> MakeProfilerSource(const PJRT_Api* api, std::string name) {
  const SEAM_Profiler_Extension* extension = FindProfilerExtension(api);
  if (extension == nullptr) return nullptr;
  return std::make_unique<ProfilerSource>(api, extension, std::move(name));
}

namespace {
// Constant-initialized: set by a static initializer of another file, read at any time.
std::atomic<const PJRT_Api* (*)()> g_in_process_cpu{nullptr};
}  // namespace

void SetInProcessCpuPjrtApi(const PJRT_Api* (*get_api)()) { g_in_process_cpu.store(get_api); }

const PJRT_Api* GetInProcessCpuPjrtApi() {
  const PJRT_Api* (*get_api)() = g_in_process_cpu.load();
  return get_api == nullptr ? nullptr : get_api();
}

}  // namespace seam::runtime
