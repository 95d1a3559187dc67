// Hostile plugin files and tables (issue 14, items 5 and 6): a file cut short, files for
// another machine, a directory, and tables of a foreign major version on every branch of
// client selection. Each case runs in a process of its own (plugin tables are per process).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

namespace fs = std::filesystem;

#if defined(__x86_64__)
constexpr int kThisMachine = 62;  // EM_X86_64
#else
constexpr int kThisMachine = 183;  // EM_AARCH64
#endif

const std::string kForeignMajor = absl::StrCat(
    "Mismatched PJRT plugin PJRT API major version (77) and framework PJRT API major version ",
    FrameworkVersion().major, ").");

std::vector<char> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// This process's temporary folder, removed when the process exits.
const fs::path& TempDir() {
  struct Dir {
    fs::path path = fs::temp_directory_path() / absl::StrCat("seam_plugin_file_test_", ::getpid());
    ~Dir() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  };
  static Dir dir;
  return dir.path;
}

// A copy of `bytes` in this process's temporary folder, under `name`.
std::string WriteTemp(const std::string& name, const std::vector<char>& bytes) {
  const fs::path& dir = TempDir();
  fs::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// The first 8192 bytes of a working plugin: before the fix dlopen died of SIGBUS.
std::string TruncatedPlugin() {
  std::vector<char> bytes = ReadBytes(SEAM_CPU_PLUGIN_PATH);
  bytes.resize(8192);
  return WriteTemp("libtruncated.so", bytes);
}

void ClearEnvironment() {
  for (const char* name : {"PJRT_DEVICE", "PJRT_DYNAMIC_PLUGINS", "PJRT_LIBRARY_PATH",
                           "TPU_LIBRARY_PATH", "PTXLA_TPU_LIBRARY_PATH", "XPU_LIBRARY_PATH",
                           "NEURON_LIBRARY_PATH", "ENABLE_PJRT_COMPATIBILITY"}) {
    unsetenv(name);
  }
}

// Calls made into a loaded test plugin (-1: not loaded in this process).
int CallCount(const char* path) {
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto count = reinterpret_cast<int (*)()>(dlsym(handle, "SeamTestPluginCallCount"));
  int value = count == nullptr ? -2 : count();
  dlclose(handle);
  return value;
}

TEST(PluginFileTest, TruncatedPluginIsRefusedBeforeDlopen) {
  std::string path = TruncatedPlugin();
  absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin("truncated", path);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string prefix = absl::StrCat("Failed to open ", path, ": ", path, ": truncated: ");
  EXPECT_EQ(api.status().message().substr(0, prefix.size()), prefix) << api.status();
  EXPECT_NE(api.status().message().find(", the file has 8192 bytes"), std::string::npos)
      << api.status();
  EXPECT_EQ(PjrtApi("truncated").status().code(), absl::StatusCode::kNotFound);
}

TEST(PluginFileTest, TruncatedPluginThroughPjrtLibraryPath) {
  ClearEnvironment();
  std::string path = TruncatedPlugin();
  setenv("PJRT_DEVICE", "LIBRARY", 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  setenv("PJRT_LIBRARY_PATH", path.c_str(), 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find(absl::StrCat(path, ": truncated: segment ")),
            std::string::npos)
      << client.status();
}

TEST(PluginFileTest, BareNameFoundInLdLibraryPathIsChecked) {
  std::string path = TruncatedPlugin();
  setenv("LD_LIBRARY_PATH",
         absl::StrCat("/nonexistent:", fs::path(path).parent_path().string()).c_str(), 1);
  absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin("bare", "libtruncated.so");
  ASSERT_FALSE(api.ok());
  const std::string prefix =
      absl::StrCat("Failed to open libtruncated.so: ", path, ": truncated: ");
  EXPECT_EQ(api.status().message().substr(0, prefix.size()), prefix) << api.status();
}

// One byte of the ELF header changed: each names the field and the value.
TEST(PluginFileTest, ForeignElfFilesNameTheProblem) {
  const std::vector<char> good = ReadBytes(SEAM_CPU_PLUGIN_PATH);
  struct Case {
    size_t offset;
    char value;
    std::string problem;
  };
  const Case cases[] = {
      {4, 1, "wrong ELF class 1 (32-bit); this machine loads class 2"},
      {5, 2, "wrong byte order (ELF data encoding 2); this machine needs 1 (little-endian)"},
      {16, 2,
       "not a shared object (ELF type 2, an executable); a plugin must be of type ET_DYN (3)"},
      {18, 40, absl::StrCat("built for ELF machine 40, this machine is ", kThisMachine)},
  };
  for (const Case& c : cases) {
    std::vector<char> bytes = good;
    bytes[c.offset] = c.value;
    if (c.offset == 18) bytes[19] = 0;
    std::string path = WriteTemp(absl::StrCat("libforeign", c.offset, ".so"), bytes);
    absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin(absl::StrCat("foreign", c.offset), path);
    ASSERT_FALSE(api.ok());
    EXPECT_EQ(api.status().message(),
              absl::StrCat("Failed to open ", path, ": ", path, ": ", c.problem));
  }
  std::string dir = fs::temp_directory_path().string();
  EXPECT_EQ(
      LoadPjrtPlugin("dir", dir).status().message(),
      absl::StrCat("Failed to open ", dir, ": ", dir, ": is a directory, not a shared library"));
  std::string tiny = WriteTemp("libtiny.so", {'\x7f', 'E', 'L', 'F', 2, 1});
  EXPECT_EQ(LoadPjrtPlugin("tiny", tiny).status().message(),
            absl::StrCat("Failed to open ", tiny, ": ", tiny,
                         ": file too short for an ELF header (6 bytes, the header has 64)"));
}

// ---- The version rule on every branch (it used to run only inside the plugin's initialize,
// which the XPU and NEURON branches skip).

TEST(ForeignMajorTest, XpuRefusesAGarbageTableOfMajor77) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "XPU", 1);
  setenv("XPU_LIBRARY_PATH", SEAM_PLUGIN_GARBAGE_MAJOR, 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(client.status().message(), kForeignMajor);
  EXPECT_EQ(PjrtApi("xpu").status().code(), absl::StatusCode::kNotFound);
}

TEST(ForeignMajorTest, NeuronRefusesAGarbageTableOfMajor77) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "NEURON", 1);
  setenv("NEURON_LIBRARY_PATH", SEAM_PLUGIN_GARBAGE_MAJOR, 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(), kForeignMajor);
}

TEST(ForeignMajorTest, TpuAndDynamicBranchesRefuseItToo) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "TPU", 1);
  setenv("TPU_LIBRARY_PATH", SEAM_PLUGIN_GARBAGE_MAJOR, 1);
  EXPECT_EQ(CreateClientFromEnvironment(nullptr).status().message(), kForeignMajor);
  setenv("PJRT_DEVICE", "LIBRARY", 1);
  setenv("PJRT_DYNAMIC_PLUGINS", "1", 1);
  setenv("PJRT_LIBRARY_PATH", SEAM_PLUGIN_GARBAGE_MAJOR, 1);
  EXPECT_EQ(CreateClientFromEnvironment(nullptr).status().message(), kForeignMajor);
}

// A well-formed table of another major (1: seam's plugins before PJRT's layout): refused on
// XPU with none of its functions called.
TEST(ForeignMajorTest, XpuCallsNoSlotOfAForeignMajorPlugin) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "XPU", 1);
  setenv("XPU_LIBRARY_PATH", SEAM_PLUGIN_OTHER_MAJOR, 1);
  ClientSelection selection;
  auto client = CreateClientFromEnvironment(&selection);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().message(),
            absl::StrCat("Mismatched PJRT plugin PJRT API major version (1) and framework PJRT "
                         "API major version ",
                         FrameworkVersion().major, ")."));
  EXPECT_EQ(selection.branch, "XPU");
  EXPECT_EQ(selection.plugin_version, "1.5");
  EXPECT_EQ(CallCount(SEAM_PLUGIN_OTHER_MAJOR), 0);
}

// The exact rule (compatibility off) applies on the XPU branch as well.
TEST(ForeignMajorTest, XpuAppliesTheExactRuleWhenCompatibilityIsOff) {
  ClearEnvironment();
  setenv("PJRT_DEVICE", "XPU", 1);
  setenv("XPU_LIBRARY_PATH", SEAM_PLUGIN_NEWER_MINOR, 1);
  setenv("ENABLE_PJRT_COMPATIBILITY", "false", 1);
  auto client = CreateClientFromEnvironment(nullptr);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("Mismatched PJRT plugin PJRT API version ("),
            std::string::npos)
      << client.status();
  EXPECT_EQ(CallCount(SEAM_PLUGIN_NEWER_MINOR), 0);
}

}  // namespace
}  // namespace seam::runtime
