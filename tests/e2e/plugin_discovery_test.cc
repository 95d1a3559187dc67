// Finding vendors' plugins as JAX does (src/runtime/pjrt/plugin_discovery.h):
// PJRT_NAMES_AND_LIBRARY_PATHS (plain and .json entries, every bad value an error naming
// it) and JAX's jax_plugins in a site-packages tree, with the NVIDIA libraries loaded first
// (RTLD_GLOBAL). The "vendor plugin" is seam's CPU plugin copied into a fake site-packages
// tree. Each TEST runs in a process of its own (plugin tables are per process).
#include "src/runtime/pjrt/plugin_discovery.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "seam/runtime.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

namespace fs = std::filesystem;

std::string MakeTempFolder() {
  std::string pattern = (fs::temp_directory_path() / "seam-discovery-XXXXXX").string();
  return mkdtemp(pattern.data());
}

class PluginDiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempFolder();
    for (const char* name : {"PJRT_NAMES_AND_LIBRARY_PATHS", "SEAM_PYTHON_SITE_PACKAGES",
                             "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "WORLD_SIZE"}) {
      unsetenv(name);
    }
    setenv("HOME", root_.c_str(), 1);  // no ~/.local of the machine's
  }
  void TearDown() override { fs::remove_all(root_); }

  // site-packages with jax_plugins/xla_cuda12/xla_cuda_plugin.so (the CPU plugin) and,
  // with `nvidia`, nvidia/cuda_runtime/lib/libcudart.so.12 (the fake library).
  std::string MakeSitePackages(bool nvidia, bool rocm = false) {
    const fs::path site = fs::path(root_) / "site-packages";
    fs::create_directories(site / "jax_plugins" / "xla_cuda12");
    fs::copy_file(SEAM_CPU_PLUGIN_PATH, site / "jax_plugins" / "xla_cuda12" / "xla_cuda_plugin.so");
    fs::create_directories(site / "jax_plugins" / "xla_cuda12_extra_files");  // no plugin
    if (rocm) {
      fs::create_directories(site / "jax_plugins" / "xla_rocm60");
      fs::copy_file(SEAM_CPU_PLUGIN_PATH,
                    site / "jax_plugins" / "xla_rocm60" / "xla_rocm_plugin.so");
    }
    if (nvidia) {
      fs::create_directories(site / "nvidia" / "cuda_runtime" / "lib");
      fs::copy_file(SEAM_FAKE_NVIDIA_LIBRARY,
                    site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12");
    }
    return site.string();
  }

  // PJRT_DEVICE=VENDOR, named in PJRT_NAMES_AND_LIBRARY_PATHS by a .json config for the CPU
  // plugin with these create options (a JSON object's text).
  void UseVendorConfig(const std::string& create_options) {
    const std::string config =
        WriteFile("cpu.json", absl::StrCat(R"({"library_path": ")", SEAM_CPU_PLUGIN_PATH,
                                           R"(", "create_options": )", create_options, "}"));
    setenv("PJRT_NAMES_AND_LIBRARY_PATHS", absl::StrCat("vendor:", config).c_str(), 1);
    setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
    setenv("PJRT_DEVICE", "VENDOR", 1);
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (fs::path(root_) / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::string root_;
};

TEST_F(PluginDiscoveryTest, PlainEntriesAreNamedUpperCased) {
  absl::StatusOr<std::vector<DiscoveredPlugin>> plugins =
      ParsePluginPaths("cuda:/opt/a/xla_cuda_plugin.so,Tpu:/opt/libtpu.so");
  ASSERT_TRUE(plugins.ok()) << plugins.status();
  ASSERT_EQ(plugins->size(), 2u);
  EXPECT_EQ((*plugins)[0].name, "CUDA");
  EXPECT_EQ((*plugins)[0].library_path, "/opt/a/xla_cuda_plugin.so");
  EXPECT_EQ((*plugins)[1].name, "TPU");
  EXPECT_EQ((*plugins)[1].library_path, "/opt/libtpu.so");
  EXPECT_FALSE((*plugins)[0].coordinator_when_multi_process);
  EXPECT_TRUE(ParsePluginPaths("")->empty());
}

TEST_F(PluginDiscoveryTest, EveryBadEntryIsAnErrorNamingIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"cuda:/a.so,", "has an empty entry"},
      {",cuda:/a.so", "has an empty entry"},
      {":/a.so", "entry ':/a.so' has an empty name"},
      {"cuda", "entry 'cuda' has no path"},
      {"cuda:", "entry 'cuda:' has no path"},
      {"cuda:/a.so,CUDA:/b.so", "the name 'CUDA' is given twice"},
      {"cuda:/no/such/config.json", "config file /no/such/config.json is not a readable file"},
  };
  for (const auto& [value, message] : cases) {
    absl::StatusOr<std::vector<DiscoveredPlugin>> plugins = ParsePluginPaths(value);
    ASSERT_FALSE(plugins.ok()) << value;
    EXPECT_EQ(plugins.status().code(), absl::StatusCode::kInvalidArgument) << value;
    EXPECT_NE(plugins.status().message().find("PJRT_NAMES_AND_LIBRARY_PATHS"), std::string::npos);
    EXPECT_NE(plugins.status().message().find(message), std::string::npos)
        << value << ": " << plugins.status().message();
  }
}

TEST_F(PluginDiscoveryTest, JsonConfigGivesThePathAndTheCreateOptions) {
  const std::string config = WriteFile("cuda.json",
                                       R"({"library_path": "lib/xla_cuda_plugin.so",
          "create_options": {"n": 3, "name": "x", "flag": true, "f": 0.5, "list": [1, 2]}})");
  absl::StatusOr<std::vector<DiscoveredPlugin>> plugins =
      ParsePluginPaths(absl::StrCat("cuda:", config));
  ASSERT_TRUE(plugins.ok()) << plugins.status();
  const DiscoveredPlugin& plugin = plugins->front();
  EXPECT_EQ(plugin.library_path, root_ + "/lib/xla_cuda_plugin.so");  // relative to the file
  const PluginOptions& options = plugin.create_options;
  ASSERT_EQ(options.size(), 5u);
  EXPECT_EQ(std::get<int64_t>(options.at("n")), 3);
  EXPECT_EQ(std::get<std::string>(options.at("name")), "x");
  EXPECT_TRUE(std::get<bool>(options.at("flag")));
  EXPECT_EQ(std::get<float>(options.at("f")), 0.5f);
  EXPECT_EQ(std::get<std::vector<int64_t>>(options.at("list")), (std::vector<int64_t>{1, 2}));
}

TEST_F(PluginDiscoveryTest, BadJsonConfigsAreErrorsNamingTheFile) {
  const std::pair<const char*, const char*> cases[] = {
      {"{not json", "is not a JSON object"},
      {"[1, 2]", "is not a JSON object"},
      {R"({"create_options": {}})", "has no string \"library_path\""},
      {R"({"library_path": 7})", "has no string \"library_path\""},
      {R"({"library_path": "/a.so", "create_options": [1]})",
       "\"create_options\" must be an object"},
      {R"({"library_path": "/a.so", "create_options": {"o": {"x": 1}}})",
       "create option 'o' is object"},
  };
  int i = 0;
  for (const auto& [text, message] : cases) {
    const std::string file = WriteFile(absl::StrCat("bad", i++, ".json"), text);
    absl::StatusOr<std::vector<DiscoveredPlugin>> plugins =
        ParsePluginPaths(absl::StrCat("cuda:", file));
    ASSERT_FALSE(plugins.ok()) << text;
    EXPECT_NE(plugins.status().message().find(file), std::string::npos) << plugins.status();
    EXPECT_NE(plugins.status().message().find(message), std::string::npos)
        << text << ": " << plugins.status().message();
  }
}

TEST_F(PluginDiscoveryTest, JaxPluginsAreFoundWithTheirNvidiaLibraries) {
  const std::string site = MakeSitePackages(/*nvidia=*/true, /*rocm=*/true);
  std::vector<DiscoveredPlugin> plugins = FindJaxPlugins(site);
  ASSERT_EQ(plugins.size(), 2u);
  EXPECT_EQ(plugins[0].name, "CUDA");
  EXPECT_EQ(plugins[0].library_path, site + "/jax_plugins/xla_cuda12/xla_cuda_plugin.so");
  EXPECT_TRUE(plugins[0].coordinator_when_multi_process);
  EXPECT_EQ(plugins[0].preload,
            (std::vector<std::string>{site + "/nvidia/cuda_runtime/lib/libcudart.so.12"}));
  EXPECT_EQ(plugins[1].name, "ROCM");
  EXPECT_TRUE(plugins[1].preload.empty());
  setenv("PYTHONPATH", site.c_str(), 1);
  std::vector<std::string> folders = SitePackagesFolders(ProcessEnv());
  ASSERT_FALSE(folders.empty());
  EXPECT_EQ(folders.front(), site);
}

TEST_F(PluginDiscoveryTest, PjrtDeviceCudaRunsTheJaxPluginThroughTheDynamicBranch) {
  const std::string site = MakeSitePackages(/*nvidia=*/true);
  setenv("PYTHONPATH", site.c_str(), 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  setenv("PJRT_DEVICE", "CUDA", 1);
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "seam_fake_nvidia_library"), nullptr);
  ClientSelection selection;
  absl::StatusOr<std::unique_ptr<ComputationClient>> client =
      CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(selection.branch, "dynamic plugin");
  EXPECT_EQ(selection.library_path, site + "/jax_plugins/xla_cuda12/xla_cuda_plugin.so");
  ASSERT_EQ(selection.discovered.size(), 1u);
  EXPECT_EQ(selection.discovered[0].source, "jax_plugins in " + site);
  EXPECT_EQ((*client)->GetPlatformName(), "cpu");
  // Loaded before the plugin, globally: its symbol resolves from the whole process.
  EXPECT_NE(dlsym(RTLD_DEFAULT, "seam_fake_nvidia_library"), nullptr);
}

TEST_F(PluginDiscoveryTest, JsonCreateOptionsReachThePlugin) {
  UseVendorConfig(R"({"cpu_device_count": 3})");
  ClientSelection selection;
  absl::StatusOr<std::unique_ptr<ComputationClient>> client =
      CreateClientFromEnvironment(&selection);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetLocalDevices().size(), 3u);
}

TEST_F(PluginDiscoveryTest, AnUnknownCreateOptionIsRefusedByThePlugin) {
  // The plugin gets exactly the registration's options: one it does not know fails.
  UseVendorConfig(R"({"no_such_option": 1})");
  absl::StatusOr<std::unique_ptr<ComputationClient>> client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("no_such_option"), std::string::npos) << client.status();
}

TEST_F(PluginDiscoveryTest, WithDynamicPluginsOffTheChainIsUnchanged) {
  setenv("PYTHONPATH", MakeSitePackages(/*nvidia=*/false).c_str(), 1);
  setenv("PJRT_DEVICE", "CUDA", 1);
  ClientSelection selection;
  absl::StatusOr<std::unique_ptr<ComputationClient>> client =
      CreateClientFromEnvironment(&selection);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(), "Unknown PJRT_DEVICE: 'CUDA'");
  EXPECT_TRUE(selection.discovered.empty());
}

TEST_F(PluginDiscoveryTest, TheProgramsRegistrationAndTheVariableWinOverJaxPlugins) {
  const std::string site = MakeSitePackages(/*nvidia=*/false);
  setenv("PYTHONPATH", site.c_str(), 1);
  // PJRT_NAMES_AND_LIBRARY_PATHS names CUDA too: its entry wins over jax_plugins'.
  setenv("PJRT_NAMES_AND_LIBRARY_PATHS", absl::StrCat("cuda:", SEAM_CPU_PLUGIN_PATH).c_str(), 1);
  absl::StatusOr<std::vector<DiscoveredPlugin>> found = DiscoverPlugins(ProcessEnv());
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().source, "PJRT_NAMES_AND_LIBRARY_PATHS");
  // A plugin the program registered keeps its name.
  class Mine : public ::seam::PjRtPlugin {
   public:
    std::string library_path() const override { return "/the/programs/own.so"; }
  };
  ::seam::RegisterPjRtPlugin("CUDA", std::make_shared<Mine>());
  ASSERT_TRUE(RegisterDiscoveredPlugins(ProcessEnv()).ok());
  EXPECT_EQ(FindPlugin("CUDA")->library_path(), "/the/programs/own.so");
}

}  // namespace
}  // namespace seam::runtime
