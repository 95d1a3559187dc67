#include "src/runtime/pjrt/plugin_discovery.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "src/base/status_macros.h"

namespace seam::runtime {
namespace {

// A .json config larger than this is refused before it is read.
constexpr int64_t kMaxConfigBytes = int64_t{1} << 20;

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The names in `folder`, sorted (none when it cannot be read).
std::vector<std::string> ListFolder(const std::string& folder) {
  std::vector<std::string> names;
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// One create option of a .json config as a PJRT_NamedValue can carry it.
absl::StatusOr<PluginOptionValue> OptionValue(const std::string& file, const std::string& name,
                                              const nlohmann::json& value) {
  if (value.is_boolean()) return PluginOptionValue(value.get<bool>());
  if (value.is_number_integer()) return PluginOptionValue(value.get<int64_t>());
  if (value.is_number_float()) return PluginOptionValue(value.get<float>());
  if (value.is_string()) return PluginOptionValue(value.get<std::string>());
  if (value.is_array() && std::all_of(value.begin(), value.end(), [](const nlohmann::json& v) {
        return v.is_number_integer();
      })) {
    return PluginOptionValue(value.get<std::vector<int64_t>>());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      kPluginPathsVariable, ": ", file, ": create option '", name, "' is ", value.type_name(), " ",
      value.dump().substr(0, 80),
      "; a plugin option is a bool, an integer, a float, a string or a list of integers"));
}

// JAX's config file: {"library_path": "...", "create_options": {...}}.
absl::Status ReadConfig(const std::string& file, DiscoveredPlugin& plugin) {
  struct stat st {};
  if (stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(kPluginPathsVariable, ": plugin '", plugin.name,
                                                   "': config file ", file,
                                                   " is not a readable file"));
  }
  if (st.st_size > kMaxConfigBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(kPluginPathsVariable, ": ", file, " has ", st.st_size,
                     " bytes, more than a plugin config may have (", kMaxConfigBytes, ")"));
  }
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json config = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kPluginPathsVariable, ": ", file,
                     " is not a JSON object (JAX's plugin config: "
                     "{\"library_path\": ..., \"create_options\": {...}})"));
  }
  const auto path = config.find("library_path");
  if (path == config.end() || !path->is_string() || path->get<std::string>().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kPluginPathsVariable, ": ", file, " has no string \"library_path\""));
  }
  plugin.library_path = path->get<std::string>();
  if (plugin.library_path[0] != '/') {
    plugin.library_path = absl::StrCat(FolderOf(file), "/", plugin.library_path);
  }
  const auto options = config.find("create_options");
  if (options == config.end() || options->is_null()) return absl::OkStatus();
  if (!options->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(kPluginPathsVariable, ": ", file,
                                                   ": \"create_options\" must be an object, got ",
                                                   options->type_name()));
  }
  for (const auto& [name, value] : options->items()) {
    SEAM_ASSIGN_OR_RETURN(plugin.create_options[name], OptionValue(file, name, value));
  }
  return absl::OkStatus();
}

// The NVIDIA libraries JAX's CUDA plugin package loads before the plugin, in load order:
// the package folder under nvidia/ and the library's name up to its ".so".
constexpr std::pair<const char*, const char*> kNvidiaLibraries[] = {
    {"cuda_runtime", "libcudart"},  {"cublas", "libcublasLt"},  {"cublas", "libcublas"},
    {"cuda_nvrtc", "libnvrtc"},     {"cuda_cupti", "libcupti"}, {"cusparse", "libcusparse"},
    {"cusolver", "libcusolver"},    {"cufft", "libcufft"},      {"nccl", "libnccl"},
    {"nvshmem", "libnvshmem_host"}, {"cudnn", "libcudnn"},
};

std::vector<std::string> NvidiaLibraries(const std::string& site_packages) {
  std::vector<std::string> found;
  for (const auto& [package, library] : kNvidiaLibraries) {
    const std::string folder = absl::StrCat(site_packages, "/nvidia/", package, "/lib");
    const std::string prefix = absl::StrCat(library, ".so");
    for (const std::string& name : ListFolder(folder)) {
      // libcudart.so or libcudart.so.12: the library itself, not libcudart_static.a.
      if (name == prefix || absl::StartsWith(name, prefix + ".")) {
        found.push_back(absl::StrCat(folder, "/", name));
        break;
      }
    }
  }
  return found;
}

// Every python3* folder under `lib` joined with `leaf` ("site-packages"), existing ones.
void AddVersionedFolders(const std::string& lib, const std::string& leaf,
                         std::vector<std::string>& out) {
  for (const std::string& name : ListFolder(lib)) {
    if (!absl::StartsWith(name, "python3")) continue;
    const std::string folder = absl::StrCat(lib, "/", name, "/", leaf);
    if (IsDirectory(folder)) out.push_back(folder);
  }
}

// A plugin found here, as the registry asks it.
class FoundPlugin : public PjRtPlugin {
 public:
  FoundPlugin(DiscoveredPlugin plugin, bool multi_process)
      : plugin_(std::move(plugin)), multi_process_(multi_process) {}
  std::string library_path() const override { return plugin_.library_path; }
  PluginOptions client_create_options() const override { return plugin_.create_options; }
  bool requires_xla_coordinator() const override {
    return plugin_.coordinator_when_multi_process && multi_process_;
  }
  absl::Status PrepareToLoad() const override { return PreloadLibraries(plugin_); }

 private:
  DiscoveredPlugin plugin_;
  bool multi_process_;
};

}  // namespace

absl::StatusOr<std::vector<DiscoveredPlugin>> ParsePluginPaths(const std::string& value) {
  std::vector<DiscoveredPlugin> plugins;
  if (value.empty()) return plugins;
  std::set<std::string> names;
  for (absl::string_view entry : absl::StrSplit(value, ',')) {
    const std::string quoted = absl::StrCat("'", entry.substr(0, 200), "'");
    if (entry.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kPluginPathsVariable, " has an empty entry in '", value.substr(0, 200),
                       "' (entries are name:path, separated by ',')"));
    }
    const size_t colon = entry.find(':');
    if (colon == absl::string_view::npos || colon + 1 == entry.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kPluginPathsVariable, ": entry ", quoted, " has no path (name:path)"));
    }
    DiscoveredPlugin plugin;
    plugin.name = absl::AsciiStrToUpper(entry.substr(0, colon));
    if (plugin.name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kPluginPathsVariable, ": entry ", quoted, " has an empty name (name:path)"));
    }
    if (!names.insert(plugin.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(kPluginPathsVariable, ": the name '", plugin.name, "' is given twice"));
    }
    plugin.source = kPluginPathsVariable;
    const std::string path(entry.substr(colon + 1));
    if (absl::EndsWith(path, ".json")) {
      SEAM_RETURN_IF_ERROR(ReadConfig(path, plugin));
    } else {
      plugin.library_path = path;
    }
    plugins.push_back(std::move(plugin));
  }
  return plugins;
}

std::vector<std::string> SitePackagesFolders(const EnvGetter& env) {
  std::vector<std::string> candidates;
  auto from_list = [&](const char* variable) {
    for (absl::string_view folder : absl::StrSplit(env(variable).value_or(""), ':')) {
      if (!folder.empty() && IsDirectory(std::string(folder))) candidates.emplace_back(folder);
    }
  };
  from_list(kSitePackagesVariable);
  from_list("PYTHONPATH");
  for (const char* prefix : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    const std::string root = env(prefix).value_or("");
    if (!root.empty()) AddVersionedFolders(root + "/lib", "site-packages", candidates);
  }
  const std::string home = env("HOME").value_or("");
  if (!home.empty()) AddVersionedFolders(home + "/.local/lib", "site-packages", candidates);
  AddVersionedFolders("/usr/local/lib", "dist-packages", candidates);
  AddVersionedFolders("/usr/local/lib", "site-packages", candidates);
  if (IsDirectory("/usr/lib/python3/dist-packages")) {
    candidates.emplace_back("/usr/lib/python3/dist-packages");
  }
  std::vector<std::string> folders;
  std::set<std::string> seen;
  for (std::string& folder : candidates) {
    if (seen.insert(folder).second) folders.push_back(std::move(folder));
  }
  return folders;
}

std::vector<DiscoveredPlugin> FindJaxPlugins(const std::string& site_packages) {
  std::vector<DiscoveredPlugin> plugins;
  const std::string root = site_packages + "/jax_plugins";
  for (const auto& [prefix, name] : {std::pair<std::string, std::string>{"xla_cuda", "CUDA"},
                                     std::pair<std::string, std::string>{"xla_rocm", "ROCM"}}) {
    for (const std::string& folder : ListFolder(root)) {
      if (!absl::StartsWith(folder, prefix)) continue;
      const std::string library = absl::StrCat(root, "/", folder, "/", prefix, "_plugin.so");
      if (!IsFile(library)) continue;
      DiscoveredPlugin plugin;
      plugin.name = name;
      plugin.library_path = library;
      plugin.source = absl::StrCat("jax_plugins in ", site_packages);
      plugin.coordinator_when_multi_process = true;
      if (name == "CUDA") plugin.preload = NvidiaLibraries(site_packages);
      plugins.push_back(std::move(plugin));
      break;
    }
  }
  return plugins;
}

absl::StatusOr<std::vector<DiscoveredPlugin>> DiscoverPlugins(const EnvGetter& env) {
  SEAM_ASSIGN_OR_RETURN(std::vector<DiscoveredPlugin> plugins,
                        ParsePluginPaths(env(kPluginPathsVariable).value_or("")));
  std::set<std::string> names;
  for (const DiscoveredPlugin& plugin : plugins) names.insert(plugin.name);
  for (const std::string& folder : SitePackagesFolders(env)) {
    for (DiscoveredPlugin& plugin : FindJaxPlugins(folder)) {
      if (names.insert(plugin.name).second) plugins.push_back(std::move(plugin));
    }
  }
  return plugins;
}

absl::Status PreloadLibraries(const DiscoveredPlugin& plugin) {
  for (const std::string& library : plugin.preload) {
    if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* error = dlerror();
      return absl::FailedPreconditionError(
          absl::StrCat("plugin '", plugin.name, "': cannot load ", library,
                       " (one of the NVIDIA libraries JAX loads before its CUDA plugin): ",
                       error == nullptr ? "unknown error" : error));
    }
  }
  return absl::OkStatus();
}

std::shared_ptr<const PjRtPlugin> AsPjRtPlugin(const DiscoveredPlugin& plugin, bool multi_process) {
  return std::make_shared<FoundPlugin>(plugin, multi_process);
}

}  // namespace seam::runtime
