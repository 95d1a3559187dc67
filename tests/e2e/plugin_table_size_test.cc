// The loader reads a plugin table's struct_size before any other field: a table too small
// to hold the version field, or (for a version the handshake would accept) the error
// functions every call needs, is refused with a message naming the file and both sizes, and
// none of its functions is called. Any other slot is checked at the call that needs it.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "seam/c/pjrt_c_api.h"
#include "src/runtime/pjrt/pjrt_api.h"

namespace seam::runtime {
namespace {

// Calls made into a test plugin's table so far (0 proves the loader never called it).
int CallCount(const char* path) {
  void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return -1;
  auto count = reinterpret_cast<int (*)()>(dlsym(handle, "SeamTestPluginCallCount"));
  int value = count == nullptr ? -2 : count();
  dlclose(handle);  // only drops the reference RTLD_NOLOAD added
  return value;
}

std::string Framework() { return absl::StrCat(PJRT_API_MAJOR, ".", PJRT_API_MINOR); }

TEST(PluginTableSizeTest, ATableTooSmallForTheVersionFieldIsRefused) {
  absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin("tiny", SEAM_PLUGIN_TINY_TABLE);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(
      api.status().message(),
      absl::StrCat("Unexpected PJRT_Api size in ", SEAM_PLUGIN_TINY_TABLE, ": expected at least ",
                   offsetof(PJRT_Api, pjrt_api_version) + PJRT_Api_Version_STRUCT_SIZE,
                   " bytes (up to the version field), got ", sizeof(size_t),
                   ". Check installed software versions. The framework PJRT API version "
                   "is ",
                   Framework(), "."));
  EXPECT_EQ(CallCount(SEAM_PLUGIN_TINY_TABLE), 0);
  EXPECT_EQ(PjrtApi("tiny").status().code(), absl::StatusCode::kNotFound);  // not registered
}

TEST(PluginTableSizeTest, ATableWithoutTheErrorFunctionsIsRefused) {
  absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin("short", SEAM_PLUGIN_SHORT_TABLE);
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(api.status().message(),
            absl::StrCat("Unexpected PJRT_Api size in ", SEAM_PLUGIN_SHORT_TABLE,
                         ": expected at least ", PJRT_STRUCT_SIZE(PJRT_Api, PJRT_Error_GetCode),
                         " bytes (up to PJRT_Error_GetCode: the error functions every call needs; "
                         "the plugin reports ",
                         Framework(), "), got ", offsetof(PJRT_Api, PJRT_Error_GetCode),
                         ". Check installed software versions. The framework PJRT API version "
                         "is ",
                         Framework(), "."));
  EXPECT_EQ(CallCount(SEAM_PLUGIN_SHORT_TABLE), 0);
  EXPECT_EQ(PjrtApi("short").status().code(), absl::StatusCode::kNotFound);
}

TEST(PluginTableSizeTest, AFullTableIsAccepted) {
  absl::StatusOr<const PJRT_Api*> api = LoadPjrtPlugin("full", SEAM_PLUGIN_CURRENT);
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_EQ(CallCount(SEAM_PLUGIN_CURRENT), 0);  // loading calls nothing either
}

}  // namespace
}  // namespace seam::runtime
