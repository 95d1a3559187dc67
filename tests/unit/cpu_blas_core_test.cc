// Which kernels OpenBLAS runs and where f32 products go because of it (issue 14, item 11;
// src/plugins/cpu/kernels/blas_core.h, gemm.h). The decision is a pure function of the core's name
// and the CPU's features, tested here for machines this one is not. Built twice: as
// cpu_blas_core_test in the environment ctest gives every test, and as
// cpu_blas_prescott_test with OPENBLAS_CORETYPE=Prescott, which makes OpenBLAS really run
// its generic kernels here (SEAM_TEST_GENERIC_CORE): the end-to-end checks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "seam/c/pjrt_c_api.h"
#include "src/base/logging.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/kernels/blas_core.h"
#include "src/plugins/cpu/kernels/gemm.h"

namespace seam::cpu {
namespace {

constexpr CpuFeatures kNoAvx2{false, false};
constexpr CpuFeatures kAvx2{true, false};
constexpr CpuFeatures kAvx512{true, true};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BlasCoreTest, PreAvx2CoresOnAnAvx2CpuAreGeneric) {
  for (const char* core : {"Prescott", "prescott", "PRESCOTT", "Core2", "Nehalem", "Sandybridge",
                           "Bulldozer", "Generic", "Unknown"}) {
    EXPECT_TRUE(IsGenericBlasCore(core, kAvx512)) << core;
    EXPECT_TRUE(IsGenericBlasCore(core, kAvx2)) << core;
    // On a CPU without AVX2 these kernels are what the CPU allows.
    EXPECT_FALSE(IsGenericBlasCore(core, kNoAvx2)) << core;
  }
}

TEST(BlasCoreTest, AvxTwoCoresAndUnknownNamesFit) {
  for (const char* core : {"Haswell", "HASWELL", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids",
                           "Excavator", "Zen5", ""}) {
    EXPECT_FALSE(IsGenericBlasCore(core, kAvx512)) << core;
    EXPECT_FALSE(IsGenericBlasCore(core, kAvx2)) << core;
  }
}

TEST(BlasCoreTest, SuggestsTheCoreTypeTheCpuAllows) {
  EXPECT_EQ(SuggestedCoreType(kAvx512), "SkylakeX");
  EXPECT_EQ(SuggestedCoreType(kAvx2), "Haswell");
  EXPECT_EQ(SuggestedCoreType(kNoAvx2), "");
}

TEST(BlasCoreTest, TheNoteNamesTheCoreTheProductsAndTheVariable) {
  const BlasCore generic{"Prescott", kAvx512, true};
  const std::string routed = GenericBlasCoreNote(generic, /*f32_elsewhere=*/true);
  EXPECT_TRUE(Contains(routed, "generic 'Prescott' kernels on this AVX-512 CPU")) << routed;
  EXPECT_TRUE(Contains(routed, "f32 products go to oneDNN instead, f64 products stay on OpenBLAS"))
      << routed;
  EXPECT_TRUE(Contains(routed,
                       "Set OPENBLAS_CORETYPE=SkylakeX in the environment before the "
                       "program starts"))
      << routed;
  const std::string kept =
      GenericBlasCoreNote(BlasCore{"Nehalem", kAvx2, true}, /*f32_elsewhere=*/false);
  EXPECT_TRUE(Contains(kept, "on this AVX2 CPU")) << kept;
  EXPECT_TRUE(Contains(kept, "f32 and f64 products stay on OpenBLAS")) << kept;
  EXPECT_TRUE(Contains(kept, "OPENBLAS_CORETYPE=Haswell")) << kept;
  EXPECT_EQ(GenericBlasCoreNote(BlasCore{"Haswell", kAvx512, false}, true), "");
}

// The routing of f32 products, for every kind of host (oneDNN built or not, with AVX-512
// or not, OpenBLAS on generic kernels or not). f64 never reaches this choice: it always
// goes to OpenBLAS (oneDNN has no f64 gemm).
TEST(BlasCoreTest, AutoSendsEveryF32ProductToOneDnnWhenOpenBlasIsGeneric) {
  constexpr int64_t kSmall = 16, kLarge = 512;  // 4096 and 134M multiply-adds
  auto pick = [](GemmLibrary choice, GemmHost host, int64_t size) {
    return ChooseSgemmLibrary(choice, host, size, size, size);
  };
  const GemmLibrary kBlas = GemmLibrary::kOpenBlas, kDnn = GemmLibrary::kOneDnn;
  const GemmLibrary kAuto = GemmLibrary::kAuto;
  // A fitting OpenBLAS: the measured rule (oneDNN for large products on AVX-512 only).
  EXPECT_EQ(pick(kAuto, GemmHost{true, true, false}, kSmall), kBlas);
  EXPECT_EQ(pick(kAuto, GemmHost{true, true, false}, kLarge), kDnn);
  EXPECT_EQ(pick(kAuto, GemmHost{true, false, false}, kLarge), kBlas);
  // Generic OpenBLAS on an AVX-512 or an AVX2 CPU: every f32 product to oneDNN.
  for (bool avx512 : {true, false}) {
    EXPECT_EQ(pick(kAuto, GemmHost{true, avx512, true}, kSmall), kDnn);
    EXPECT_EQ(pick(kAuto, GemmHost{true, avx512, true}, kLarge), kDnn);
  }
  // No oneDNN in the build: OpenBLAS, generic or not.
  EXPECT_EQ(pick(kAuto, GemmHost{false, false, true}, kLarge), kBlas);
  EXPECT_EQ(pick(GemmLibrary::kOneDnn, GemmHost{false, false, true}, kLarge), kBlas);
  // An explicit choice wins over the core.
  EXPECT_EQ(pick(kBlas, GemmHost{true, true, true}, kLarge), kBlas);
  EXPECT_EQ(pick(kDnn, GemmHost{true, false, false}, kSmall), kDnn);
}

// Products through gemm.h give the right values whichever library the host picked.
void ExpectProductsRight() {
  const int64_t m = 5, n = 7, k = 9;
  std::vector<float> a(m * k), b(k * n), c(m * n, -1.0f);
  std::vector<double> ad(m * k), bd(k * n), cd(m * n, -1.0);
  for (int64_t i = 0; i < m * k; ++i) ad[i] = a[i] = static_cast<float>((i % 7) - 3) / 4;
  for (int64_t i = 0; i < k * n; ++i) bd[i] = b[i] = static_cast<float>((i % 5) - 2) / 2;
  Sgemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n);
  Dgemm(false, false, m, n, k, 1.0, ad.data(), k, bd.data(), n, 0.0, cd.data(), n);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p) want += ad[i * k + p] * bd[p * n + j];
      EXPECT_NEAR(c[i * n + j], want, 1e-5) << i << "," << j;
      EXPECT_DOUBLE_EQ(cd[i * n + j], want) << i << "," << j;
    }
  }
}

// Creates and destroys a client through the plugin's table; returns the warnings logged.
std::vector<std::string> CreateClientAndCollectWarnings() {
  std::vector<std::string> warnings;
  base::SetLogSink([&](base::LogSeverity severity, const std::string& message) {
    if (severity == base::LogSeverity::kWarning) warnings.push_back(message);
  });
  const PJRT_Api* api = GetCpuPjrtApi();
  PJRT_Client_Create_Args create{};
  create.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE;
  EXPECT_EQ(api->PJRT_Client_Create(&create), nullptr);
  PJRT_Client_Destroy_Args destroy{};
  destroy.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE;
  destroy.client = create.client;
  EXPECT_EQ(api->PJRT_Client_Destroy(&destroy), nullptr);
  base::SetLogSink(nullptr);
  return warnings;
}

// The plugin attribute `name` as text ("" when absent; a bool as "true"/"false").
std::string Attribute(const std::string& name) {
  PJRT_Plugin_Attributes_Args args{};
  args.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
  EXPECT_EQ(GetCpuPjrtApi()->PJRT_Plugin_Attributes(&args), nullptr);
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& value = args.attributes[i];
    if (std::string(value.name, value.name_size) != name) continue;
    if (value.type == PJRT_NamedValue_kString)
      return std::string(value.string_value, value.value_size);
    if (value.type == PJRT_NamedValue_kBool) return value.bool_value ? "true" : "false";
  }
  return "";
}

#ifndef SEAM_TEST_GENERIC_CORE

// This machine as it is: the process's facts feed the same rule, and a fitting core is
// neither logged nor noted.
TEST(BlasCoreTest, ThisProcessUsesItsOwnFacts) {
  const BlasCore& core = ThisBlasCore();
  EXPECT_FALSE(core.name.empty());
  EXPECT_EQ(core.generic, IsGenericBlasCore(core.name, DetectCpuFeatures()));
  EXPECT_EQ(ThisGemmHost().blas_generic, core.generic);
  EXPECT_EQ(Attribute("blas_core"), core.name);
  if (core.generic) GTEST_SKIP() << "OpenBLAS runs generic kernels here: " << core.name;
  EXPECT_EQ(Attribute("blas_generic_kernels"), "false");
  EXPECT_EQ(Attribute("blas_note"), "");
  EXPECT_TRUE(CreateClientAndCollectWarnings().empty());
  ExpectProductsRight();
}

#else

// OPENBLAS_CORETYPE=Prescott: OpenBLAS runs its SSE3 kernels on this CPU.
class GenericCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ThisBlasCore().name, SEAM_TEST_GENERIC_CORE)
        << "OpenBLAS did not take OPENBLAS_CORETYPE (a build without DYNAMIC_ARCH?)";
    if (!DetectCpuFeatures().avx2) GTEST_SKIP() << "this CPU has no AVX2: Prescott fits it";
  }
};

TEST_F(GenericCoreTest, F32ProductsGoToOneDnnAndF64StaysRight) {
  EXPECT_TRUE(ThisBlasCore().generic);
  EXPECT_TRUE(ThisGemmHost().blas_generic);
  SetGemmLibrary(GemmLibrary::kAuto);
  const GemmLibrary want = OneDnnAvailable() ? GemmLibrary::kOneDnn : GemmLibrary::kOpenBlas;
  EXPECT_EQ(SgemmLibraryFor(4, 4, 4), want);
  EXPECT_EQ(SgemmLibraryFor(1024, 1024, 1024), want);
  ExpectProductsRight();
}

// One warning per process, however many clients; seam info reads the same note.
TEST_F(GenericCoreTest, ClientCreationWarnsOnceAndTheAttributesSaySo) {
  const std::vector<std::string> first = CreateClientAndCollectWarnings();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(Contains(first[0], "generic 'Prescott' kernels")) << first[0];
  EXPECT_TRUE(Contains(first[0], "OPENBLAS_CORETYPE=")) << first[0];
  EXPECT_TRUE(CreateClientAndCollectWarnings().empty());
  EXPECT_EQ(Attribute("blas_core"), "Prescott");
  EXPECT_EQ(Attribute("blas_generic_kernels"), "true");
  EXPECT_TRUE(Contains(Attribute("blas_note"), "OPENBLAS_CORETYPE=")) << Attribute("blas_note");
}

#endif

}  // namespace
}  // namespace seam::cpu
