// The reference plugin (src/plugins/reference) checked against values worked out by hand.
// `seam plugin check --ops` compares a plugin with the IR's reference evaluator, which is
// what this plugin runs: on it that check can only show that the plumbing works. These
// cases check the evaluator's answers themselves, through the plugin's C ABI, against
// expected values written here: literals worked out by hand from docs/ir.md, or short loops
// that compute a definition directly (never the evaluator).
//
// Programs go through PluginRunner (one device, format seam-ir) or, for the replicated
// and StableHLO cases, through the ABI by hand (AbiClient below).
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "seam/c/pjrt_c_api.h"
#include "src/abi/args.h"
#include "src/abi/buffer_type.h"
#include "src/conformance/plugin_runner.h"
#include "src/ir/bf16.h"
#include "src/ir/text.h"

namespace seam {
namespace {

using ir::Literal;

const PJRT_Api* ReferencePlugin() {
  static const PJRT_Api* api = []() -> const PJRT_Api* {
    void* library = dlopen(SEAM_REFERENCE_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) return nullptr;
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(library, "GetPjrtApi"));
    const PJRT_Api* loaded = get == nullptr ? nullptr : get();
    if (loaded == nullptr) return nullptr;
    auto initialize = SEAM_ABI_ARGS(PJRT_Plugin_Initialize_Args);
    return loaded->PJRT_Plugin_Initialize(&initialize) == nullptr ? loaded : nullptr;
  }();
  return api;
}

// Parses `text` (seam IR) and runs it on one device of the reference plugin.
std::vector<Literal> RunOnOneDevice(const std::string& text, const std::vector<Literal>& args) {
  const PJRT_Api* api = ReferencePlugin();
  if (api == nullptr) {
    ADD_FAILURE() << "cannot load " << SEAM_REFERENCE_PLUGIN_PATH;
    return {};
  }
  static conformance::PluginRunner* runner = new conformance::PluginRunner(api);
  EXPECT_TRUE(runner->status().ok()) << runner->status();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return {};
  absl::StatusOr<std::vector<Literal>> results = runner->Run(*program, args);
  EXPECT_TRUE(results.ok()) << results.status();
  return results.ok() ? *results : std::vector<Literal>{};
}

template <typename T>
std::vector<T> Values(const Literal& literal) {
  std::vector<T> values(literal.bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), literal.bytes.data(), literal.bytes.size());
  return values;
}

std::vector<bool> Preds(const Literal& literal) {
  std::vector<bool> values;
  for (uint8_t byte : literal.bytes) values.push_back(byte != 0);
  return values;
}

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();

// Floats compared bit for bit, except that any NaN matches any NaN.
void ExpectFloats(const Literal& literal, const std::vector<float>& expected,
                  const std::vector<int64_t>& dims) {
  EXPECT_EQ(literal.shape.dtype, ir::DType::kF32);
  EXPECT_EQ(literal.shape.dims, dims);
  std::vector<float> got = Values<float>(literal);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(got[i], expected[i]) << "element " << i;
    }
  }
}

// ---- Elementwise

TEST(ReferencePluginTest, FloatArithmeticAndNanInMaximum) {
  std::vector<Literal> out = RunOnOneDevice(
      R"(program @p {
  %x = parameter(0) : f32[4]
  %y = parameter(1) : f32[4]
  %a = add(%x, %y) : f32[4]
  %m = multiply(%x, %y) : f32[4]
  %d = divide(%x, %y) : f32[4]
  %n = constant({0, nan, -1, 5}) : f32[4]
  %mx = maximum(%x, %n) : f32[4]
  return (%a, %m, %d, %mx)
})",
      {Literal::FromF32({1.5f, -2, 0.25f, 4}, {4}), Literal::FromF32({0.5f, 4, -0.125f, 2}, {4})});
  ASSERT_EQ(out.size(), 4u);
  ExpectFloats(out[0], {2, 2, 0.125f, 6}, {4});
  ExpectFloats(out[1], {0.75f, -8, -0.03125f, 8}, {4});
  ExpectFloats(out[2], {3, -0.5f, -2, 2}, {4});
  ExpectFloats(out[3], {1.5f, kNan, 0.25f, 5}, {4});
}

TEST(ReferencePluginTest, IntegerDivisionRemainderAndWrapping) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : s32[6]
  %y = parameter(1) : s32[6]
  %q = divide(%x, %y) : s32[6]
  %r = remainder(%x, %y) : s32[6]
  %s = add(%x, %x) : s32[6]
  %n = neg(%x) : s32[6]
  return (%q, %r, %s, %n)
})",
                                            {Literal::FromS32({7, -7, 7, -7, 5, kMin32}, {6}),
                                             Literal::FromS32({2, 2, -2, -2, 0, -1}, {6})});
  ASSERT_EQ(out.size(), 4u);
  // Truncation toward zero; x / 0 = -1; MIN / -1 = MIN. Remainders take the dividend's sign;
  // x % 0 = x; MIN % -1 = 0. Sums and negations wrap.
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{3, -3, -3, 3, -1, kMin32}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{1, -1, 1, -1, 5, 0}));
  EXPECT_EQ(Values<int32_t>(out[2]), (std::vector<int32_t>{14, -14, 14, -14, 10, 0}));
  EXPECT_EQ(Values<int32_t>(out[3]), (std::vector<int32_t>{-7, 7, -7, 7, -5, kMin32}));
}

TEST(ReferencePluginTest, IntegerPower) {
  std::vector<Literal> out = RunOnOneDevice(
      R"(program @p {
  %x = parameter(0) : s32[6]
  %y = parameter(1) : s32[6]
  %p = power(%x, %y) : s32[6]
  return (%p)
})",
      {Literal::FromS32({2, 3, -2, 1, -1, 2}, {6}), Literal::FromS32({10, 0, 3, -5, -3, -1}, {6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1024, 1, -8, 1, -1, 0}));
}

TEST(ReferencePluginTest, ComparisonsWithNan) {
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[3]
  %y = parameter(1) : f32[3]
  %eq = eq(%x, %y) : pred[3]
  %ne = ne(%x, %y) : pred[3]
  %lt = lt(%x, %y) : pred[3]
  %ge = ge(%x, %y) : pred[3]
  return (%eq, %ne, %lt, %ge)
})",
                     {Literal::FromF32({1, kNan, 2}, {3}), Literal::FromF32({1, 1, kNan}, {3})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Preds(out[0]), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Preds(out[1]), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(Preds(out[2]), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(Preds(out[3]), (std::vector<bool>{true, false, false}));
}

TEST(ReferencePluginTest, SelectAndClamp) {
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %c = parameter(0) : pred[3]
  %a = parameter(1) : f32[3]
  %b = parameter(2) : f32[3]
  %s = select(%c, %a, %b) : f32[3]
  %lo = constant({0, 0, 0}) : f32[3]
  %hi = constant({1, 1, 1}) : f32[3]
  %k = clamp(%lo, %b, %hi) : f32[3]
  return (%s, %k)
})",
                     {Literal::FromPred({true, false, true}, {3}), Literal::FromF32({1, 2, 3}, {3}),
                      Literal::FromF32({-1, 0.5f, 20}, {3})});
  ASSERT_EQ(out.size(), 2u);
  ExpectFloats(out[0], {1, 0.5f, 3}, {3});
  ExpectFloats(out[1], {0, 0.5f, 1}, {3});
}

TEST(ReferencePluginTest, ConvertSaturatesAndTruncates) {
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[5]
  %i = convert(%x) : s32[5]
  %b = convert(%i) : pred[5]
  return (%i, %b)
})",
                     {Literal::FromF32({2.7f, -2.7f, kNan, 3e10f, -0.4f}, {5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{2, -2, 0, kMax32, 0}));
  EXPECT_EQ(Preds(out[1]), (std::vector<bool>{true, true, false, true, false}));
}

TEST(ReferencePluginTest, Bf16AdditionRoundsToEven) {
  // 1 + 2^-8 lies halfway between the bf16 neighbours 1 and 1 + 2^-7: ties go to even (1);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
  std::vector<Literal> out = RunOnOneDevice(
      R"(program @p {
  %x = parameter(0) : bf16[2]
  %y = parameter(1) : bf16[2]
  %a = add(%x, %y) : bf16[2]
  return (%a)
})",
      {Literal::FromBF16({1, 1}, {2}), Literal::FromBF16({0.00390625f, 0.01171875f}, {2})});
  ASSERT_EQ(out.size(), 1u);
  // bf16 bits: 1 is 0x3f80, 1 + 2^-6 is 0x3f82.
  EXPECT_EQ(Values<uint16_t>(out[0]), (std::vector<uint16_t>{0x3f80, 0x3f82}));
}

TEST(ReferencePluginTest, TranscendentalsAgreeWithCMath) {
  const std::vector<float> x = {-2, -0.5f, 0, 0.75f, 3};
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[5]
  %e = exp(%x) : f32[5]
  %t = tanh(%x) : f32[5]
  %l = logistic(%x) : f32[5]
  return (%e, %t, %l)
})",
                                            {Literal::FromF32(x, {5})});
  ASSERT_EQ(out.size(), 3u);
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    EXPECT_NEAR(Values<float>(out[0])[i], std::exp(v), 1e-6 * std::exp(v)) << i;
    EXPECT_NEAR(Values<float>(out[1])[i], std::tanh(v), 1e-6) << i;
    EXPECT_NEAR(Values<float>(out[2])[i], 1 / (1 + std::exp(-v)), 1e-6) << i;
  }
}

// ---- Data movement

TEST(ReferencePluginTest, TransposeSlicePadConcatenateAndIota) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[2,3]
  %t = transpose(%x), permutation={1,0} : f32[3,2]
  %r = reshape(%x) : f32[6]
  %s = slice(%r), limit={6}, start={1}, stride={2} : f32[3]
  %z = constant(0) : f32[]
  %p = pad(%s, %z), high={2}, interior={1}, low={1} : f32[8]
  %c = concatenate(%s, %s), dimension={0} : f32[6]
  %i = iota(), dimension={1} : s32[2,3]
  return (%t, %s, %p, %c, %i)
})",
                                            {Literal::FromF32({1, 2, 3, 4, 5, 6}, {2, 3})});
  ASSERT_EQ(out.size(), 5u);
  ExpectFloats(out[0], {1, 4, 2, 5, 3, 6}, {3, 2});
  ExpectFloats(out[1], {2, 4, 6}, {3});
  ExpectFloats(out[2], {0, 2, 0, 4, 0, 6, 0, 0}, {8});
  ExpectFloats(out[3], {2, 4, 6, 2, 4, 6}, {6});
  EXPECT_EQ(Values<int32_t>(out[4]), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
}

// ---- Reductions and products

TEST(ReferencePluginTest, EveryReduceKindFoldsWithItsOwnCombiner) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[2,3]
  %sum = reduce_sum(%x), axes={1} : f32[2]
  %prod = reduce_product(%x), axes={1} : f32[2]
  %max = reduce_max(%x), axes={1} : f32[2]
  %min = reduce_min(%x), axes={1} : f32[2]
  %cols = reduce_sum(%x), axes={0} : f32[3]
  return (%sum, %prod, %max, %min, %cols)
})",
                                            {Literal::FromF32({1, -2, 3, 4, 5, -6}, {2, 3})});
  ASSERT_EQ(out.size(), 5u);
  ExpectFloats(out[0], {2, 3}, {2});
  ExpectFloats(out[1], {-6, -120}, {2});
  ExpectFloats(out[2], {3, 5}, {2});
  ExpectFloats(out[3], {-2, -6}, {2});
  ExpectFloats(out[4], {5, 3, -3}, {3});
}

TEST(ReferencePluginTest, ReducingNothingGivesEachIdentity) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[2,0]
  %sum = reduce_sum(%x), axes={1} : f32[2]
  %prod = reduce_product(%x), axes={1} : f32[2]
  %max = reduce_max(%x), axes={1} : f32[2]
  %min = reduce_min(%x), axes={1} : f32[2]
  return (%sum, %prod, %max, %min)
})",
                                            {Literal::FromF32({}, {2, 0})});
  ASSERT_EQ(out.size(), 4u);
  ExpectFloats(out[0], {0, 0}, {2});
  ExpectFloats(out[1], {1, 1}, {2});
  ExpectFloats(out[2], {-kInf, -kInf}, {2});
  ExpectFloats(out[3], {kInf, kInf}, {2});
}

TEST(ReferencePluginTest, ArgmaxAndArgminTakeTheFirstNanAndTheFirstTie) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[3,4]
  %hi = argmax(%x), axis={1} : s64[3]
  %lo = argmin(%x), axis={1} : s64[3]
  return (%hi, %lo)
})",
                                            {Literal::FromF32({1, kNan, 3, kNan,  //
                                                               5, 5, -1, 2,       //
                                                               -0.0f, 0, -3, -3},
                                                              {3, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int64_t>(out[0]), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(Values<int64_t>(out[1]), (std::vector<int64_t>{1, 2, 2}));
}

TEST(ReferencePluginTest, CumsumAlongEachAxis) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : s32[2,3]
  %rows = cumsum(%x), axis={1} : s32[2,3]
  %cols = cumsum(%x), axis={0} : s32[2,3]
  return (%rows, %cols)
})",
                                            {Literal::FromS32({1, 2, 3, 4, 5, 6}, {2, 3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int32_t>(out[0]), (std::vector<int32_t>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(Values<int32_t>(out[1]), (std::vector<int32_t>{1, 2, 3, 5, 7, 9}));
}

TEST(ReferencePluginTest, MatrixProduct) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %a = parameter(0) : f32[2,3]
  %b = parameter(1) : f32[3,2]
  %c = dot_general(%a, %b), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[2,2]
  return (%c)
})",
                                            {Literal::FromF32({1, 2, 3, 4, 5, 6}, {2, 3}),
                                             Literal::FromF32({7, 8, 9, 10, 11, 12}, {3, 2})});
  ASSERT_EQ(out.size(), 1u);
  ExpectFloats(out[0], {58, 64, 139, 154}, {2, 2});
}

TEST(ReferencePluginTest, BatchedIntegerProductMatchesALoop) {
  // out[b, m, n] = sum_k lhs[b, m, k] * rhs[b, k, n], computed here directly.
  constexpr int B = 2, M = 3, K = 4, N = 2;
  std::vector<int32_t> lhs(B * M * K), rhs(B * K * N);
  for (size_t i = 0; i < lhs.size(); ++i) lhs[i] = static_cast<int32_t>(i % 7) - 3;
  for (size_t i = 0; i < rhs.size(); ++i) rhs[i] = static_cast<int32_t>(i % 5) - 2;
  std::vector<int32_t> expected(B * M * N, 0);
  for (int b = 0; b < B; ++b) {
    for (int m = 0; m < M; ++m) {
      for (int n = 0; n < N; ++n) {
        for (int k = 0; k < K; ++k) {
          expected[(b * M + m) * N + n] += lhs[(b * M + m) * K + k] * rhs[(b * K + k) * N + n];
        }
      }
    }
  }
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %a = parameter(0) : s32[2,3,4]
  %b = parameter(1) : s32[2,4,2]
  %c = dot_general(%a, %b), lhs_batch={0}, lhs_contracting={2}, rhs_batch={0}, rhs_contracting={1} : s32[2,3,2]
  return (%c)
})",
                     {Literal::FromS32(lhs, {B, M, K}), Literal::FromS32(rhs, {B, K, N})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape.dims, (std::vector<int64_t>{B, M, N}));
  EXPECT_EQ(Values<int32_t>(out[0]), expected);
}

// ---- Windowed ops

TEST(ReferencePluginTest, ConvolutionByHand) {
  // in (3x3) = 1..9, kernel (2x2) = {1, 2; 3, 4}, no padding, stride 1:
  // out[0,0] = 1*1 + 2*2 + 3*4 + 4*5 = 37, and so on.
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[1,1,3,3]
  %w = parameter(1) : f32[1,1,2,2]
  %y = convolution(%x, %w), feature_group_count={1}, input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={2,3}, lhs_dilation={1,1}, output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2,3}, padding_high={0,0}, padding_low={0,0}, rhs_dilation={1,1}, window_strides={1,1} : f32[1,1,2,2]
  return (%y)
})",
                     {Literal::FromF32({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3}),
                      Literal::FromF32({1, 2, 3, 4}, {1, 1, 2, 2})});
  ASSERT_EQ(out.size(), 1u);
  ExpectFloats(out[0], {37, 47, 67, 77}, {1, 1, 2, 2});
}

TEST(ReferencePluginTest, PaddedStridedTwoChannelConvolutionMatchesALoop) {
  // NCHW input [1,2,4,4], OIHW kernel [3,2,3,3], padding 1, stride 2: out [1,3,2,2].
  constexpr int C = 2, H = 4, O = 3, R = 3, OH = 2;
  std::vector<float> x(C * H * H), w(O * C * R * R);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 3) - 1);
  std::vector<float> expected(O * OH * OH, 0);
  for (int o = 0; o < O; ++o) {
    for (int oy = 0; oy < OH; ++oy) {
      for (int ox = 0; ox < OH; ++ox) {
        for (int c = 0; c < C; ++c) {
          for (int ky = 0; ky < R; ++ky) {
            for (int kx = 0; kx < R; ++kx) {
              const int iy = oy * 2 + ky - 1, ix = ox * 2 + kx - 1;
              if (iy < 0 || iy >= H || ix < 0 || ix >= H) continue;
              expected[(o * OH + oy) * OH + ox] +=
                  x[(c * H + iy) * H + ix] * w[((o * C + c) * R + ky) * R + kx];
            }
          }
        }
      }
    }
  }
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[1,2,4,4]
  %w = parameter(1) : f32[3,2,3,3]
  %y = convolution(%x, %w), feature_group_count={1}, input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={2,3}, lhs_dilation={1,1}, output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2,3}, padding_high={1,1}, padding_low={1,1}, rhs_dilation={1,1}, window_strides={2,2} : f32[1,3,2,2]
  return (%y)
})",
                     {Literal::FromF32(x, {1, C, H, H}), Literal::FromF32(w, {O, C, R, R})});
  ASSERT_EQ(out.size(), 1u);
  ExpectFloats(out[0], expected, {1, O, OH, OH});  // small integers: exact in any order
}

TEST(ReferencePluginTest, PoolingAndItsGradient) {
  std::vector<Literal> out = RunOnOneDevice(
      R"(program @p {
  %x = parameter(0) : f32[4,4]
  %max = reduce_window_max(%x), base_dilation={1,1}, padding_high={0,0}, padding_low={0,0}, window_dilation={1,1}, window_dimensions={2,2}, window_strides={2,2} : f32[2,2]
  %v = parameter(1) : f32[4]
  %sum = reduce_window_sum(%v), base_dilation={1}, padding_high={1}, padding_low={1}, window_dilation={1}, window_dimensions={3}, window_strides={1} : f32[4]
  %g = parameter(2) : f32[2]
  %back = select_and_scatter(%v, %g), padding_high={0}, padding_low={0}, window_dimensions={2}, window_strides={2} : f32[4]
  return (%max, %sum, %back)
})",
      {Literal::FromF32({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {4, 4}),
       Literal::FromF32({1, 3, 2, 4}, {4}), Literal::FromF32({10, 20}, {2})});
  ASSERT_EQ(out.size(), 3u);
  ExpectFloats(out[0], {5, 7, 13, 15}, {2, 2});
  ExpectFloats(out[1], {4, 6, 9, 6}, {4});    // {0+1+3, 1+3+2, 3+2+4, 2+4+0}
  ExpectFloats(out[2], {0, 10, 0, 20}, {4});  // each window's maximum gets its value
}

// ---- Gather, scatter, sorting, random bits

TEST(ReferencePluginTest, EmbeddingGatherClampsAndScatterAddAccumulates) {
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %table = parameter(0) : f32[4,2]
  %ids = parameter(1) : s32[4]
  %rows = gather(%table, %ids), collapsed_slice_dims={0}, index_vector_dim={1}, offset_dims={1}, slice_sizes={1,2}, start_index_map={0} : f32[4,2]
  %zero = constant(0) : f32[]
  %zeros = broadcast_in_dim(%zero), dims={} : f32[4,2]
  %grad = scatter_add(%zeros, %ids, %rows), index_vector_dim={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={1} : f32[4,2]
  return (%rows, %grad)
})",
                     {Literal::FromF32({0, 1, 10, 11, 20, 21, 30, 31}, {4, 2}),
                      Literal::FromS32({2, 0, 7, -1}, {4})});
  ASSERT_EQ(out.size(), 2u);
  // Id 7 is clamped to row 3, id -1 to row 0.
  ExpectFloats(out[0], {20, 21, 0, 1, 30, 31, 0, 1}, {4, 2});
  // Rows 0 (read twice), 2 and 3 get back what was read from them.
  ExpectFloats(out[1], {0, 2, 0, 0, 20, 21, 30, 31}, {4, 2});
}

TEST(ReferencePluginTest, ArgsortIsStableWithNanAboveInfinity) {
  std::vector<Literal> out = RunOnOneDevice(R"(program @p {
  %x = parameter(0) : f32[6]
  %up = argsort(%x), axis={0}, descending={0} : s64[6]
  %down = argsort(%x), axis={0}, descending={1} : s64[6]
  return (%up, %down)
})",
                                            {Literal::FromF32({3, kNan, -1, 3, kInf, -0.0f}, {6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values<int64_t>(out[0]), (std::vector<int64_t>{2, 5, 0, 3, 4, 1}));
  EXPECT_EQ(Values<int64_t>(out[1]), (std::vector<int64_t>{1, 4, 0, 3, 5, 2}));
}

TEST(ReferencePluginTest, RandomBitsAreRandom123sPhiloxKnownAnswer) {
  // Random123's kat_vectors: philox4x32-10 of counter 0 and key 0.
  std::vector<Literal> out =
      RunOnOneDevice(R"(program @p {
  %key = parameter(0) : s64[]
  %counter = parameter(1) : s64[2]
  %bits = rng_bit_generator(%key, %counter) : s32[4]
  return (%bits)
})",
                     {Literal::FromS64({0}, {}), Literal::FromS64({0, 0}, {2})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values<uint32_t>(out[0]),
            (std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
}

// ---- The ABI by hand: create options, several devices, StableHLO text

absl::Status Take(const PJRT_Api* api, PJRT_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  auto message = SEAM_ABI_ARGS(PJRT_Error_Message_Args);
  message.error = error;
  api->PJRT_Error_Message(&message);
  auto code = SEAM_ABI_ARGS(PJRT_Error_GetCode_Args);
  code.error = error;
  absl::Status status = api->PJRT_Error_GetCode(&code) == nullptr
                            ? absl::Status(static_cast<absl::StatusCode>(code.code),
                                           std::string(message.message, message.message_size))
                            : absl::InternalError("PJRT_Error_GetCode failed");
  auto destroy = SEAM_ABI_ARGS(PJRT_Error_Destroy_Args);
  destroy.error = error;
  api->PJRT_Error_Destroy(&destroy);
  return status;
}

// A client of the reference plugin made with the create option device_count.
class AbiClient {
 public:
  explicit AbiClient(int64_t device_count) : api_(ReferencePlugin()) {
    if (api_ == nullptr) {
      status_ = absl::InternalError("cannot load the reference plugin");
      return;
    }
    static constexpr char kName[] = "device_count";
    PJRT_NamedValue option{};
    option.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    option.name = kName;
    option.name_size = sizeof(kName) - 1;
    option.type = PJRT_NamedValue_kInt64;
    option.int64_value = device_count;
    option.value_size = 1;
    auto create = SEAM_ABI_ARGS(PJRT_Client_Create_Args);
    create.create_options = &option;
    create.num_options = 1;
    status_ = Take(api_, api_->PJRT_Client_Create(&create));
    if (!status_.ok()) return;
    client_ = create.client;
    auto devices = SEAM_ABI_ARGS(PJRT_Client_AddressableDevices_Args);
    devices.client = client_;
    status_ = Take(api_, api_->PJRT_Client_AddressableDevices(&devices));
    if (status_.ok()) {
      devices_.assign(devices.addressable_devices,
                      devices.addressable_devices + devices.num_addressable_devices);
    }
  }
  ~AbiClient() {
    if (client_ == nullptr) return;
    auto destroy = SEAM_ABI_ARGS(PJRT_Client_Destroy_Args);
    destroy.client = client_;
    Take(api_, api_->PJRT_Client_Destroy(&destroy)).IgnoreError();
  }
  AbiClient(const AbiClient&) = delete;
  AbiClient& operator=(const AbiClient&) = delete;

  const absl::Status& status() const { return status_; }
  size_t device_count() const { return devices_.size(); }

  // Compiles `code` and runs it once on the first args.size() devices (args[d]: device d's
  // arguments); returns outputs[d].
  absl::StatusOr<std::vector<std::vector<Literal>>> Run(
      const std::string& format, const std::string& code,
      const std::vector<std::vector<Literal>>& args) {
    if (!status_.ok()) return status_;
    auto program = SEAM_ABI_ARGS(PJRT_Program);
    program.code = const_cast<char*>(code.data());
    program.code_size = code.size();
    program.format = format.data();
    program.format_size = format.size();
    auto compile = SEAM_ABI_ARGS(PJRT_Client_Compile_Args);
    compile.client = client_;
    compile.program = &program;
    if (absl::Status s = Take(api_, api_->PJRT_Client_Compile(&compile)); !s.ok()) return s;
    PJRT_LoadedExecutable* executable = compile.executable;
    absl::StatusOr<std::vector<std::vector<Literal>>> outputs = Execute(executable, args);
    auto destroy = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Destroy_Args);
    destroy.executable = executable;
    Take(api_, api_->PJRT_LoadedExecutable_Destroy(&destroy)).IgnoreError();
    return outputs;
  }

 private:
  absl::StatusOr<size_t> NumOutputs(PJRT_LoadedExecutable* loaded) {
    auto get = SEAM_ABI_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
    get.loaded_executable = loaded;
    if (absl::Status s = Take(api_, api_->PJRT_LoadedExecutable_GetExecutable(&get)); !s.ok()) {
      return s;
    }
    auto count = SEAM_ABI_ARGS(PJRT_Executable_NumOutputs_Args);
    count.executable = get.executable;
    absl::Status status = Take(api_, api_->PJRT_Executable_NumOutputs(&count));
    auto destroy = SEAM_ABI_ARGS(PJRT_Executable_Destroy_Args);
    destroy.executable = get.executable;
    Take(api_, api_->PJRT_Executable_Destroy(&destroy)).IgnoreError();
    if (!status.ok()) return status;
    return count.num_outputs;
  }

  absl::StatusOr<PJRT_Buffer*> Upload(const Literal& value, PJRT_Device* device) {
    auto upload = SEAM_ABI_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    upload.client = client_;
    upload.data = value.bytes.data();
    upload.type = abi::ToPjrtBufferType(value.shape.dtype);
    upload.dims = value.shape.dims.data();
    upload.num_dims = value.shape.dims.size();
    upload.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    upload.device = device;
    if (absl::Status s = Take(api_, api_->PJRT_Client_BufferFromHostBuffer(&upload)); !s.ok()) {
      return s;
    }
    Await(upload.done_with_host_buffer).IgnoreError();
    return upload.buffer;
  }

  absl::Status Await(PJRT_Event* event) {
    if (event == nullptr) return absl::OkStatus();
    auto await = SEAM_ABI_ARGS(PJRT_Event_Await_Args);
    await.event = event;
    absl::Status status = Take(api_, api_->PJRT_Event_Await(&await));
    auto destroy = SEAM_ABI_ARGS(PJRT_Event_Destroy_Args);
    destroy.event = event;
    Take(api_, api_->PJRT_Event_Destroy(&destroy)).IgnoreError();
    return status;
  }

  absl::StatusOr<Literal> Download(PJRT_Buffer* buffer) {
    Literal value;
    auto type = SEAM_ABI_ARGS(PJRT_Buffer_ElementType_Args);
    type.buffer = buffer;
    auto dims = SEAM_ABI_ARGS(PJRT_Buffer_Dimensions_Args);
    dims.buffer = buffer;
    if (absl::Status s = Take(api_, api_->PJRT_Buffer_ElementType(&type)); !s.ok()) return s;
    if (absl::Status s = Take(api_, api_->PJRT_Buffer_Dimensions(&dims)); !s.ok()) return s;
    for (ir::DType dtype : ir::kAllDTypeList) {
      if (abi::ToPjrtBufferType(dtype) == type.type) value.shape.dtype = dtype;
    }
    value.shape.dims.assign(dims.dims, dims.dims + dims.num_dims);
    auto read = SEAM_ABI_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    read.src = buffer;
    if (absl::Status s = Take(api_, api_->PJRT_Buffer_ToHostBuffer(&read)); !s.ok()) return s;
    value.bytes.resize(read.dst_size);
    read.dst = value.bytes.data();
    if (absl::Status s = Take(api_, api_->PJRT_Buffer_ToHostBuffer(&read)); !s.ok()) return s;
    if (absl::Status s = Await(read.event); !s.ok()) return s;
    return value;
  }

  void Destroy(PJRT_Buffer* buffer) {
    auto destroy = SEAM_ABI_ARGS(PJRT_Buffer_Destroy_Args);
    destroy.buffer = buffer;
    Take(api_, api_->PJRT_Buffer_Destroy(&destroy)).IgnoreError();
  }

  absl::StatusOr<std::vector<std::vector<Literal>>> Execute(
      PJRT_LoadedExecutable* executable, const std::vector<std::vector<Literal>>& args) {
    absl::StatusOr<size_t> num_outputs = NumOutputs(executable);
    if (!num_outputs.ok()) return num_outputs.status();
    const size_t replicas = args.size();
    if (replicas > devices_.size()) return absl::InvalidArgumentError("too few devices");
    std::vector<std::vector<PJRT_Buffer*>> inputs(replicas), outputs(replicas);
    std::vector<PJRT_Buffer* const*> input_lists;
    std::vector<PJRT_Buffer**> output_lists;
    absl::Status status;
    for (size_t d = 0; d < replicas; ++d) {
      for (const Literal& value : args[d]) {
        absl::StatusOr<PJRT_Buffer*> buffer = Upload(value, devices_[d]);
        if (!buffer.ok()) status = buffer.status();
        inputs[d].push_back(buffer.ok() ? *buffer : nullptr);
      }
      outputs[d].assign(*num_outputs, nullptr);
      input_lists.push_back(inputs[d].data());
      output_lists.push_back(outputs[d].data());
    }
    if (status.ok()) {
      auto execute = SEAM_ABI_ARGS(PJRT_LoadedExecutable_Execute_Args);
      execute.executable = executable;
      execute.argument_lists = input_lists.data();
      execute.num_devices = replicas;
      execute.num_args = replicas == 0 ? 0 : args[0].size();
      execute.output_lists = output_lists.data();
      status = Take(api_, api_->PJRT_LoadedExecutable_Execute(&execute));
    }
    std::vector<std::vector<Literal>> results(replicas);
    for (size_t d = 0; d < replicas; ++d) {
      for (PJRT_Buffer* buffer : outputs[d]) {
        if (buffer == nullptr) continue;
        absl::StatusOr<Literal> value = Download(buffer);
        if (value.ok()) results[d].push_back(*std::move(value));
        if (!value.ok() && status.ok()) status = value.status();
        Destroy(buffer);
      }
      for (PJRT_Buffer* buffer : inputs[d]) {
        if (buffer != nullptr) Destroy(buffer);
      }
    }
    if (!status.ok()) return status;
    return results;
  }

  const PJRT_Api* api_;
  absl::Status status_;
  PJRT_Client* client_ = nullptr;
  std::vector<PJRT_Device*> devices_;
};

TEST(ReferencePluginTest, AllReduceAcrossTwoDevices) {
  AbiClient client(2);
  ASSERT_TRUE(client.status().ok()) << client.status();
  ASSERT_EQ(client.device_count(), 2u);
  absl::StatusOr<std::vector<std::vector<Literal>>> out =
      client.Run("seam-ir", R"(program @p replicas=2 {
  %x = parameter(0) : f32[2]
  %s = all_reduce_sum(%x), group_size={2}, replica_groups={0,1} : f32[2]
  %m = all_reduce_max(%x), group_size={2}, replica_groups={0,1} : f32[2]
  return (%s, %m)
})",
                 {{Literal::FromF32({1, 20}, {2})}, {Literal::FromF32({10, 2}, {2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  for (const std::vector<Literal>& replica : *out) {
    ASSERT_EQ(replica.size(), 2u);
    ExpectFloats(replica[0], {11, 22}, {2});
    ExpectFloats(replica[1], {10, 20}, {2});
  }
}

TEST(ReferencePluginTest, HandWrittenStableHloText) {
  AbiClient client(1);
  ASSERT_TRUE(client.status().ok()) << client.status();
  absl::StatusOr<std::vector<std::vector<Literal>>> out =
      client.Run("mlir", R"(module @axpy {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>) {
    %0 = stablehlo.constant dense<2.000000e+00> : tensor<2x3xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<2x3xf32>
    %2 = stablehlo.add %1, %arg1 : tensor<2x3xf32>
    %3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%2 init: %3) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    return %2, %4 : tensor<2x3xf32>, tensor<2xf32>
  }
})",
                 {{Literal::FromF32({1, 2, 3, 4, 5, 6}, {2, 3}),
                   Literal::FromF32({0.5f, -1, 10, 0, 0, -20}, {2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  ASSERT_EQ((*out)[0].size(), 2u);
  ExpectFloats((*out)[0][0], {2.5f, 3, 16, 8, 10, -8}, {2, 3});
  ExpectFloats((*out)[0][1], {16, 10}, {2});
}

TEST(ReferencePluginTest, DeviceCountOptionIsChecked) {
  AbiClient zero(0);
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(),
            "PJRT_Client_Create: option 'device_count' must be in [1, 64], got 0");
  AbiClient four(4);
  ASSERT_TRUE(four.status().ok()) << four.status();
  EXPECT_EQ(four.device_count(), 4u);
}

}  // namespace
}  // namespace seam
