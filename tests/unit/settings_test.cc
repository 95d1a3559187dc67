// The registry of environment variables (src/base/settings.h): names, reads, the generated
// table, and the report of SEAM_* variables nobody reads.
#include "src/base/settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

namespace seam::base {
namespace {

TEST(SettingsTest, NamesAndReads) {
  EXPECT_STREQ(SettingName(Setting::kSeamCpuThreads), "SEAM_CPU_THREADS");
  EXPECT_STREQ(SettingName(Setting::kPjrtDevice), "PJRT_DEVICE");
  EXPECT_TRUE(IsDeclaredSetting("SEAM_DUMP_TO"));
  EXPECT_TRUE(IsDeclaredSetting("WORLD_SIZE"));
  EXPECT_FALSE(IsDeclaredSetting("SEAM_DUMP"));
  EXPECT_FALSE(IsDeclaredSetting(""));
  ASSERT_EQ(setenv("SEAM_CONFORMANCE_SEED", "17", 1), 0);
  EXPECT_EQ(ReadSetting(Setting::kSeamConformanceSeed), "17");
  ASSERT_EQ(setenv("SEAM_CONFORMANCE_SEED", "", 1), 0);
  EXPECT_EQ(ReadSetting(Setting::kSeamConformanceSeed), "");
  ASSERT_EQ(unsetenv("SEAM_CONFORMANCE_SEED"), 0);
  EXPECT_EQ(ReadSetting(Setting::kSeamConformanceSeed), std::nullopt);
}

TEST(SettingsTest, TableHasOneRowPerEntryAndEveryVariable) {
  const std::string table = SettingsMarkdownTable();
  EXPECT_EQ(table.rfind("| variable | read by | when | meaning |\n| --- | --- | --- | --- |\n", 0),
            0u);
  for (int i = 0; i < static_cast<int>(Setting::kCount); ++i) {
    const std::string name = SettingName(static_cast<Setting>(i));
    EXPECT_NE(table.find("`" + name + "`"), std::string::npos) << name << " has no row";
  }
  int lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_GT(lines, 40);
}

TEST(SettingsTest, UnknownSeamVariablesAreNamedWithTheClosestDeclaredOne) {
  std::string misspelt = "SEAM_CPU_THRAEDS=2", unrelated = "SEAM_SOMETHING_ELSE_ENTIRELY=1",
              declared = "SEAM_CPU_GEMM=openblas", other = "HOME=/root", bare = "SEAM_EAGR";
  std::vector<char*> environment = {misspelt.data(), unrelated.data(), declared.data(),
                                    other.data(),    bare.data(),      nullptr};
  EXPECT_EQ(UnknownSeamVariables(environment.data()),
            (std::vector<std::string>{"SEAM_CPU_THRAEDS (did you mean SEAM_CPU_THREADS?)",
                                      "SEAM_EAGR (did you mean SEAM_EAGER?)",
                                      "SEAM_SOMETHING_ELSE_ENTIRELY"}));
  std::vector<char*> empty = {nullptr};
  EXPECT_TRUE(UnknownSeamVariables(empty.data()).empty());
  EXPECT_TRUE(UnknownSeamVariables(nullptr).empty());
}

}  // namespace
}  // namespace seam::base
