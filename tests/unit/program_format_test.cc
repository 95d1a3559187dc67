// Which program format the PJRT client sends a plugin (src/runtime/pjrt/program_format.h):
// seam's IR where the plugin announces seam_ir_version, StableHLO elsewhere, and the
// overrides SEAM_PROGRAM_FORMAT and SEAM_MATMUL_PRECISION with their errors.
#include "src/runtime/pjrt/program_format.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"

namespace seam::runtime {
namespace {

const PluginOptions kSeamPlugin = {{"seam_ir_version", int64_t{1}}};
const PluginOptions kVendorPlugin = {{"stablehlo_current_version", std::vector<int64_t>{1, 20, 0}}};

TEST(ProgramFormatTest, AutoFollowsSeamIrVersion) {
  absl::StatusOr<ProgramFormatChoice> seam = ChooseProgramFormat(kSeamPlugin, "cpu", {}, {});
  ASSERT_TRUE(seam.ok()) << seam.status();
  EXPECT_EQ(seam->format, ProgramFormat::kSeamIr);
  EXPECT_STREQ(PjrtFormatName(seam->format), "seam-ir");
  EXPECT_EQ(DescribeProgramFormat(*seam),
            "seam (PJRT format \"seam-ir\"; the plugin announces seam_ir_version)");
  absl::StatusOr<ProgramFormatChoice> vendor =
      ChooseProgramFormat(kVendorPlugin, "cuda", std::string("auto"), {});
  ASSERT_TRUE(vendor.ok()) << vendor.status();
  EXPECT_EQ(vendor->format, ProgramFormat::kStableHlo);
  EXPECT_STREQ(PjrtFormatName(vendor->format), "mlir");
  EXPECT_EQ(vendor->emit.matmul_precision, stablehlo::MatmulPrecision::kHighest);
  EXPECT_EQ(DescribeProgramFormat(*vendor),
            "stablehlo (PJRT format \"mlir\", StableHLO text checked against 1.20.0; the plugin "
            "does not announce seam_ir_version), f32 products at highest precision");
}

TEST(ProgramFormatTest, TheVariablesOverride) {
  absl::StatusOr<ProgramFormatChoice> forced =
      ChooseProgramFormat(kSeamPlugin, "cpu", std::string("stablehlo"), std::string("tf32"));
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_EQ(forced->format, ProgramFormat::kStableHlo);
  EXPECT_EQ(forced->emit.matmul_precision, stablehlo::MatmulPrecision::kTf32);
  EXPECT_THAT(DescribeProgramFormat(*forced),
              ::testing::HasSubstr("SEAM_PROGRAM_FORMAT=stablehlo), f32 products at tf32"));
  absl::StatusOr<ProgramFormatChoice> seam =
      ChooseProgramFormat(kSeamPlugin, "cpu", std::string("seam"), std::string(""));
  ASSERT_TRUE(seam.ok()) << seam.status();
  EXPECT_EQ(seam->format, ProgramFormat::kSeamIr);
}

TEST(ProgramFormatTest, BadValuesAreNamed) {
  EXPECT_EQ(ChooseProgramFormat(kSeamPlugin, "cpu", std::string("hlo"), {}).status().message(),
            "SEAM_PROGRAM_FORMAT='hlo' is not a program format; allowed: auto (the default), "
            "stablehlo, seam");
  EXPECT_EQ(ChooseProgramFormat(kVendorPlugin, "cuda", std::string("seam"), {}).status().message(),
            "SEAM_PROGRAM_FORMAT=seam, but plugin 'cuda' does not announce the attribute "
            "seam_ir_version, so it cannot read seam's IR; use SEAM_PROGRAM_FORMAT=auto or "
            "stablehlo");
  EXPECT_EQ(
      ChooseProgramFormat(kSeamPlugin, "cpu", {}, std::string("TF32")).status().message(),
      "SEAM_MATMUL_PRECISION='TF32' is not a matmul precision; allowed: highest (the default), "
      "tf32");
}

// SEAM_DUMP_TO: the StableHLO sent is written as <hash>.stablehlo.mlir; seam's IR is not
// (the CPU plugin dumps what it receives).
TEST(ProgramFormatTest, StableHloSentIsDumped) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @m {
  %0 = parameter(0) : f32[4]
  %1 = exp(%0) : f32[4]
  return (%1)
})");
  ASSERT_TRUE(program.ok()) << program.status();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "seam_program_format_test_dump";
  std::filesystem::remove_all(dir);
  setenv("SEAM_DUMP_TO", dir.c_str(), 1);
  absl::StatusOr<ProgramFormatChoice> seam = ChooseProgramFormat(kSeamPlugin, "cpu", {}, {});
  ASSERT_TRUE(seam.ok());
  absl::StatusOr<std::string> seam_text = ProgramText(*program, *seam);
  ASSERT_TRUE(seam_text.ok()) << seam_text.status();
  EXPECT_EQ(*seam_text, ir::PrintProgram(*program));
  EXPECT_FALSE(std::filesystem::exists(dir));
  absl::StatusOr<ProgramFormatChoice> vendor = ChooseProgramFormat(kVendorPlugin, "cuda", {}, {});
  ASSERT_TRUE(vendor.ok());
  absl::StatusOr<std::string> text = ProgramText(*program, *vendor);
  unsetenv("SEAM_DUMP_TO");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, ::testing::HasSubstr("\"stablehlo.exponential\"(%arg0)"));
  std::ifstream in(dir / absl::StrFormat("%016x.stablehlo.mlir", ir::HashProgram(*program)));
  std::stringstream dumped;
  dumped << in.rdbuf();
  EXPECT_EQ(dumped.str(), *text);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seam::runtime
