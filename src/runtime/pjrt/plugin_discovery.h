// Plugins found outside the program, as JAX finds them: named in PJRT_NAMES_AND_LIBRARY_PATHS,
// or installed with JAX in a Python site-packages folder (jax_plugins/xla_cuda*/
// xla_cuda_plugin.so, jax_plugins/xla_rocm*/xla_rocm_plugin.so). With PJRT_DYNAMIC_PLUGINS
// on, client selection registers them as dynamic plugins under their names upper-cased, so
// PJRT_DEVICE=CUDA runs through the reference's first branch (pjrt_registry.h); with it off
// nothing here is read. docs/plugins.md ("Finding a vendor's plugin") says where seam looks
// and where it is stricter than JAX.
#ifndef SEAM_RUNTIME_PJRT_PLUGIN_DISCOVERY_H_
#define SEAM_RUNTIME_PJRT_PLUGIN_DISCOVERY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/runtime/distributed/distributed_config.h"
#include "src/runtime/pjrt/plugin.h"

namespace seam::runtime {

inline constexpr char kPluginPathsVariable[] = "PJRT_NAMES_AND_LIBRARY_PATHS";
// Extra site-packages folders to search, ':'-separated, before the usual places.
inline constexpr char kSitePackagesVariable[] = "SEAM_PYTHON_SITE_PACKAGES";

struct DiscoveredPlugin {
  std::string name;              // as PJRT_DEVICE names it: upper-cased ("CUDA")
  std::string library_path;      // the plugin's shared library
  PluginOptions create_options;  // a .json entry's "create_options"; else none
  // Where it was found: "PJRT_NAMES_AND_LIBRARY_PATHS" or "jax_plugins in <site-packages>".
  std::string source;
  // The NVIDIA libraries JAX's CUDA plugin package loads before the plugin (found in the
  // same site-packages: nvidia/*/lib), loaded RTLD_GLOBAL by PreloadLibraries.
  std::vector<std::string> preload;
  // JAX's CUDA and ROCm plugins need the job's key-value store only in a job of several
  // processes; a plugin named in PJRT_NAMES_AND_LIBRARY_PATHS never asks for it.
  bool coordinator_when_multi_process = false;
};

// Parses PJRT_NAMES_AND_LIBRARY_PATHS: `name:path` entries separated by ',' (JAX's form);
// a path ending in ".json" is JAX's config file, {"library_path": "...", "create_options":
// {...}} (a relative library_path is relative to the file's folder). Unlike JAX, which
// skips a malformed entry with a warning, every bad entry is an InvalidArgument naming it:
// an empty entry, an empty name, a missing path, a name given twice, a file that cannot be
// read, JSON that does not parse or lacks a string "library_path", an option of a type a
// PJRT_NamedValue cannot carry. An unset or empty variable gives no plugin.
absl::StatusOr<std::vector<DiscoveredPlugin>> ParsePluginPaths(const std::string& value);

// The site-packages folders searched for jax_plugins, in order, each once: those in
// SEAM_PYTHON_SITE_PACKAGES, then PYTHONPATH's entries, then $VIRTUAL_ENV's and
// $CONDA_PREFIX's lib/python3*/site-packages, then ~/.local/lib/python3*/site-packages,
// /usr/local/lib/python3*/dist-packages and site-packages, /usr/lib/python3/dist-packages.
// Only folders that exist are listed.
std::vector<std::string> SitePackagesFolders(const EnvGetter& env);

// JAX's CUDA and ROCm plugins installed in `site_packages` (jax_plugins/xla_cuda*/
// xla_cuda_plugin.so as "CUDA", jax_plugins/xla_rocm*/xla_rocm_plugin.so as "ROCM"; the
// first match of each, in name order), each with the NVIDIA libraries found beside them.
std::vector<DiscoveredPlugin> FindJaxPlugins(const std::string& site_packages);

// Every plugin found: PJRT_NAMES_AND_LIBRARY_PATHS's first (it names them on purpose),
// then the jax_plugins of each site-packages folder for names not found yet.
absl::StatusOr<std::vector<DiscoveredPlugin>> DiscoverPlugins(const EnvGetter& env);

// Loads each library of plugin.preload with RTLD_GLOBAL, as JAX's plugin package does
// before loading the plugin; a library that fails to load is FailedPrecondition naming it
// and dlerror's text.
absl::Status PreloadLibraries(const DiscoveredPlugin& plugin);

// `plugin` as the registry asks a plugin (pjrt_registry.h's RegisterDiscoveredPlugins):
// its PrepareToLoad loads the NVIDIA libraries; it asks for the coordinator when it wants
// one in a job of several processes and `multi_process` says the job is one.
std::shared_ptr<const PjRtPlugin> AsPjRtPlugin(const DiscoveredPlugin& plugin, bool multi_process);

}  // namespace seam::runtime

#endif  // SEAM_RUNTIME_PJRT_PLUGIN_DISCOVERY_H_
