// The CPU plugin's vectorized float32 exp and erf (kernels_math.cc) against the C library in
// double: exp within 2 ulp of the correctly rounded value over the whole float range, erf
// within 2e-7 absolute and 4 ulp, and the special values expf and erff give; each version
// the machine has (AVX-512 and AVX2 with fused multiply-adds, the baseline without).
#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"

namespace seam::cpu {
namespace {

std::vector<float> Apply(MathVersion version, ir::Op op, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  bool available = false;
  EXPECT_TRUE(FastUnaryF32On(version, &available, op, reinterpret_cast<const uint8_t*>(x.data()),
                             reinterpret_cast<uint8_t*>(y.data()), static_cast<int64_t>(x.size())));
  return y;
}

const char* VersionName(MathVersion version) {
  switch (version) {
    case MathVersion::kAvx512Fma:
      return "Avx512Fma";
    case MathVersion::kAvx2Fma:
      return "Avx2Fma";
    case MathVersion::kBaseline:
      return "Baseline";
  }
  return "?";
}

bool Available(MathVersion version) {
  float x = 0, y = 0;
  bool available = false;
  FastUnaryF32On(version, &available, ir::Op::kExp, reinterpret_cast<const uint8_t*>(&x),
                 reinterpret_cast<uint8_t*>(&y), 1);
  return available;
}

class CpuMathTest : public ::testing::TestWithParam<MathVersion> {
 protected:
  void SetUp() override {
    if (!Available(GetParam())) {
      GTEST_SKIP() << VersionName(GetParam()) << " is not available on this machine or build";
    }
  }
  std::vector<float> Apply(ir::Op op, const std::vector<float>& x) {
    return cpu::Apply(GetParam(), op, x);
  }
};

// The distance in float steps between a float and the exact value (in double).
double Ulps(float got, double want) {
  const float rounded = static_cast<float>(want);
  const double ulp = std::fabs(static_cast<double>(std::nextafter(rounded, INFINITY)) -
                               static_cast<double>(rounded));
  return std::fabs(static_cast<double>(got) - want) / (ulp > 0 ? ulp : 1e-45);
}

std::vector<float> Sweep(float low, float high, int count) {
  std::vector<float> x;
  for (int i = 0; i <= count; ++i) x.push_back(low + (high - low) * static_cast<float>(i) / count);
  return x;
}

TEST_P(CpuMathTest, ExpIsWithinTwoUlps) {
  std::vector<float> x = Sweep(-103.0F, 88.7F, 400000);
  for (float v : Sweep(-1.0F, 1.0F, 20000)) x.push_back(v);
  for (float v : {0.0F, -0.0F, 1e-30F, -1e-30F, 88.72F, -87.3F, -100.0F}) x.push_back(v);
  const std::vector<float> y = Apply(ir::Op::kExp, x);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    // Subnormal results: 2 ulp of the smallest subnormal step.
    const double error = want < 1.2e-38 ? std::fabs(y[i] - want) / 1.4e-45 : Ulps(y[i], want);
    worst = std::max(worst, error);
    ASSERT_LE(error, 2.0) << "exp(" << x[i] << ") = " << y[i] << ", want " << want;
  }
  RecordProperty("worst_ulps", std::to_string(worst));
}

TEST_P(CpuMathTest, ExpSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y =
      Apply(ir::Op::kExp, {inf, -inf, std::nanf(""), 89.0F, 1000.0F, -104.0F, -1000.0F, 0.0F});
  EXPECT_EQ(y[0], inf);
  EXPECT_EQ(y[1], 0.0F);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], inf);
  EXPECT_EQ(y[4], inf);
  EXPECT_EQ(y[5], 0.0F);
  EXPECT_EQ(y[6], 0.0F);
  EXPECT_EQ(y[7], 1.0F);
}

// Inputs whose exp is +0 (x <= -104, -inf among them: the masked half of a causal softmax)
// never compute an underflowing product: on Intel cores every vector instruction that
// underflows takes a microcode assist (the char model's softmax exp loop ran 4x slower).
// The sticky underflow flag tells whether any lane underflowed.
TEST_P(CpuMathTest, ExpOfLargeNegativesNeverUnderflows) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(4096, -inf);
  for (size_t i = 0; i < x.size(); i += 3) x[i] = -104.0F - static_cast<float>(i);
  x[1] = -std::numeric_limits<float>::max();
  std::feclearexcept(FE_ALL_EXCEPT);
  const std::vector<float> y = Apply(ir::Op::kExp, x);
  const bool underflowed = std::fetestexcept(FE_UNDERFLOW) != 0;
  EXPECT_FALSE(underflowed) << "exp of x <= -104 computed a subnormal or underflowing product";
  for (size_t i = 0; i < y.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), 0U) << "exp(" << x[i] << ") = " << y[i];
  }
  // A subnormal result is still computed exactly (and does underflow): the flag is live.
  std::feclearexcept(FE_ALL_EXCEPT);
  const std::vector<float> tiny = Apply(ir::Op::kExp, {-95.0F});
  EXPECT_GT(tiny[0], 0.0F);
  EXPECT_LT(tiny[0], std::numeric_limits<float>::min());
  EXPECT_NE(std::fetestexcept(FE_UNDERFLOW), 0);
}

TEST_P(CpuMathTest, ErfIsAccurate) {
  std::vector<float> x = Sweep(-6.0F, 6.0F, 400000);
  for (float v : Sweep(-1e-3F, 1e-3F, 2000)) x.push_back(v);
  for (float v : {1e-30F, -1e-30F, 0.999999F, 1.0F, 1.000001F, 3.9F, 4.0F, 4.1F}) x.push_back(v);
  const std::vector<float> y = Apply(ir::Op::kErf, x);
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::erf(static_cast<double>(x[i]));
    ASSERT_LE(std::fabs(y[i] - want), 2e-7) << "erf(" << x[i] << ") = " << y[i];
    ASSERT_LE(Ulps(y[i], want), 4.0) << "erf(" << x[i] << ") = " << y[i] << ", want " << want;
  }
}

TEST_P(CpuMathTest, ErfSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> y = Apply(ir::Op::kErf, {inf, -inf, std::nanf(""), 0.0F, -0.0F});
  EXPECT_EQ(y[0], 1.0F);
  EXPECT_EQ(y[1], -1.0F);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(y[3], 0.0F);
  EXPECT_TRUE(y[4] == 0.0F && std::signbit(y[4]));
}

TEST(CpuMathVersionsTest, OtherOpsAreLeftToTheGenericKernels) {
  float x = 1.0F, y = 0.0F;
  EXPECT_FALSE(FastUnaryF32(ir::Op::kLog, reinterpret_cast<const uint8_t*>(&x),
                            reinterpret_cast<uint8_t*>(&y), 1));
  EXPECT_EQ(y, 0.0F);
}

INSTANTIATE_TEST_SUITE_P(Versions, CpuMathTest,
                         ::testing::Values(MathVersion::kAvx512Fma, MathVersion::kAvx2Fma,
                                           MathVersion::kBaseline),
                         [](const ::testing::TestParamInfo<MathVersion>& info) {
                           return std::string(VersionName(info.param));
                         });

// FastUnaryF32 runs the best version the machine has, the two FMA versions agree bit for bit,
// and the baseline (no fused multiply-adds) stays within 2 ulp of them.
TEST(CpuMathVersionsTest, VersionsAgree) {
  std::vector<float> x;
  for (int i = 0; i <= 60000; ++i) x.push_back(-100.0F + 190.0F * static_cast<float>(i) / 60000);
  for (int i = 0; i <= 60000; ++i) x.push_back(-6.0F + 12.0F * static_cast<float>(i) / 60000);
  for (ir::Op op : {ir::Op::kExp, ir::Op::kErf}) {
    std::vector<float> best(x.size());
    ASSERT_TRUE(FastUnaryF32(op, reinterpret_cast<const uint8_t*>(x.data()),
                             reinterpret_cast<uint8_t*>(best.data()),
                             static_cast<int64_t>(x.size())));
    const MathVersion first = Available(MathVersion::kAvx512Fma) ? MathVersion::kAvx512Fma
                              : Available(MathVersion::kAvx2Fma) ? MathVersion::kAvx2Fma
                                                                 : MathVersion::kBaseline;
    const std::vector<float> picked = Apply(first, op, x);
    ASSERT_EQ(0, std::memcmp(best.data(), picked.data(), x.size() * sizeof(float)))
        << ir::OpName(op) << ": FastUnaryF32 is not " << VersionName(first);
    const std::vector<float> base = Apply(MathVersion::kBaseline, op, x);
    for (MathVersion v : {MathVersion::kAvx512Fma, MathVersion::kAvx2Fma}) {
      if (!Available(v)) continue;
      const std::vector<float> y = Apply(v, op, x);
      if (v != first) {
        ASSERT_EQ(0, std::memcmp(y.data(), picked.data(), x.size() * sizeof(float)))
            << ir::OpName(op) << ": " << VersionName(v) << " differs from " << VersionName(first);
      }
      for (size_t i = 0; i < x.size(); ++i) {
        if (y[i] == base[i]) continue;  // infinities included
        const double step = std::fabs(static_cast<double>(std::nextafter(base[i], INFINITY)) -
                                      static_cast<double>(base[i]));
        ASSERT_LE(std::fabs(static_cast<double>(y[i]) - base[i]), 2 * step + 1e-45)
            << ir::OpName(op) << "(" << x[i] << "): " << VersionName(v) << " " << y[i]
            << ", baseline " << base[i];
      }
    }
  }
}

}  // namespace
}  // namespace seam::cpu
