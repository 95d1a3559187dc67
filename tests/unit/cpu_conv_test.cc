// The CPU plugin's three convolution paths (oneDNN, matrix products over patches, the
// direct loop) against the reference evaluator on 2-D cases larger than the conformance
// suite's: ResNet-like blocks, strides, dilations, groups (depthwise too), NHWC, uneven
// padding, first-layer channel counts, batches split into cache-sized parts; and which
// path each case takes.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/ir/bf16.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels_window.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

struct Case {
  std::string name;
  int64_t n, c, o, hw, k, groups, stride, dilation, low, high;
  bool nhwc;
};

const Case kCases[] = {
    {"resnet_block", 2, 16, 16, 12, 3, 1, 1, 1, 1, 1, false},
    {"stride2", 3, 8, 12, 11, 3, 1, 2, 1, 1, 1, false},
    {"dilated", 2, 4, 6, 13, 3, 1, 1, 2, 2, 2, false},
    {"groups", 2, 8, 12, 9, 3, 4, 1, 1, 1, 1, false},
    {"depthwise", 2, 8, 8, 10, 3, 8, 1, 1, 1, 1, false},
    {"nhwc", 4, 6, 10, 9, 3, 1, 1, 1, 1, 1, true},
    {"pointwise", 2, 12, 20, 7, 1, 1, 1, 1, 0, 0, true},
    {"uneven_padding", 2, 3, 5, 8, 5, 1, 2, 1, 0, 3, false},
    // Two input channels: oneDNN writes the result in its own layout (conv_onednn.cc).
    {"few_channels", 3, 2, 8, 10, 3, 1, 1, 1, 1, 1, false},
    // 128 KiB per image: oneDNN runs the batch in cache-sized parts of four.
    {"cache_parts", 8, 4, 4, 64, 3, 1, 1, 1, 1, 1, false},
};

std::string Text(const Case& c, const std::string& dtype) {
  auto dims = [&](int64_t a, int64_t b, int64_t h, int64_t w, bool last) {
    return last ? absl::StrCat(dtype, "[", a, ",", h, ",", w, ",", b, "]")
                : absl::StrCat(dtype, "[", a, ",", b, ",", h, ",", w, "]");
  };
  const int64_t extent = (c.k - 1) * c.dilation + 1;
  const int64_t out = (c.hw + c.low + c.high - extent) / c.stride + 1;
  const std::string kernel =
      c.nhwc ? absl::StrCat(dtype, "[", c.k, ",", c.k, ",", c.c / c.groups, ",", c.o, "]")
             : dims(c.o, c.c / c.groups, c.k, c.k, false);
  const std::string numbers =
      c.nhwc ? "input_batch_dim={0}, input_feature_dim={3}, input_spatial_dims={1,2}, "
               "kernel_input_feature_dim={2}, kernel_output_feature_dim={3}, "
               "kernel_spatial_dims={0,1}, output_batch_dim={0}, output_feature_dim={3}, "
               "output_spatial_dims={1,2}"
             : "input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, "
               "kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, "
               "kernel_spatial_dims={2,3}, output_batch_dim={0}, output_feature_dim={1}, "
               "output_spatial_dims={2,3}";
  return absl::StrCat("program @c {\n  %x = parameter(0) : ", dims(c.n, c.c, c.hw, c.hw, c.nhwc),
                      "\n  %k = parameter(1) : ", kernel, "\n  %y = convolution(%x, %k), ", numbers,
                      ", feature_group_count={", c.groups, "}, window_strides={", c.stride, ",",
                      c.stride, "}, padding_low={", c.low, ",", c.low, "}, padding_high={", c.high,
                      ",", c.high, "}, lhs_dilation={1,1}, rhs_dilation={", c.dilation, ",",
                      c.dilation, "} : ", dims(c.n, c.o, out, out, c.nhwc), "\n  return (%y)\n}\n");
}

ir::Literal Random(const ir::Shape& shape, unsigned seed, bool magnitude = false) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> values(shape.num_elements());
  for (double& v : values) v = magnitude ? std::fabs(dist(engine)) : dist(engine);
  if (shape.dtype == ir::DType::kF64) return ir::Literal::FromF64(values, shape.dims);
  std::vector<float> floats(values.begin(), values.end());
  if (shape.dtype == ir::DType::kBF16) return ir::Literal::FromBF16(floats, shape.dims);
  return ir::Literal::FromF32(floats, shape.dims);
}

double At(const ir::Literal& l, int64_t i) {
  switch (l.shape.dtype) {
    case ir::DType::kF64:
      return reinterpret_cast<const double*>(l.bytes.data())[i];
    case ir::DType::kBF16:
      return ir::BF16ToFloat(reinterpret_cast<const uint16_t*>(l.bytes.data())[i]);
    default:
      return l.f32()[i];
  }
}

enum class Path { kOneDnn, kGemm, kDirect, kAny };

// Runs the convolution of `text` on the path SEAM_CPU_CONV=`mode` gives and compares with
// the reference; `feature_dim` is the result's output feature dimension (each element sums
// the rhs's elements of one output feature). `expect`: the path
// the plan must take (kAny: oneDNN or matrix products, as the CPU allows); `weight_gradient`:
// whether a oneDNN plan must take the weight-gradient form.
void CheckText(const std::string& text, const std::string& dtype, const char* mode, Path expect,
               int64_t feature_dim, bool weight_gradient = false) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok()) << program.status();
  const ir::Instruction& conv = program->instructions[2];
  const ir::Shape lhs = program->instructions[0].shape, rhs = program->instructions[1].shape;
  std::vector<ir::Literal> args = {Random(lhs, 1), Random(rhs, 2)};
  absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(*program, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // |x| * |k| bounds every sum's terms: the error scale.
  std::vector<ir::Literal> magnitudes = {Random(lhs, 1, true), Random(rhs, 2, true)};
  absl::StatusOr<std::vector<ir::Literal>> scale = ir::Evaluate(*program, magnitudes);
  ASSERT_TRUE(scale.ok());
  setenv("SEAM_CPU_CONV", mode, 1);
  ConvolutionPlan plan(conv, lhs, rhs);
  unsetenv("SEAM_CPU_CONV");
  if (expect != Path::kAny) {
    EXPECT_EQ(plan.uses_onednn(), expect == Path::kOneDnn);
    EXPECT_EQ(plan.uses_gemm(), expect == Path::kGemm);
  } else {
    EXPECT_TRUE(plan.uses_onednn() || plan.uses_gemm());
  }
  EXPECT_EQ(plan.uses_weight_gradient(), plan.uses_onednn() && weight_gradient);
  std::vector<uint8_t> out(conv.shape.byte_size());
  plan.Run(args[0].bytes.data(), args[1].bytes.data(), out.data());
  ir::Literal actual{conv.shape, out};
  // bf16: the result's own rounding (2^-8 relative) plus f32 accumulation.
  const double epsilon = dtype == "f64" ? 1e-15 : 1e-6;
  const double rounding = dtype == "bf16" ? 1.0 / 128 : 0.0;
  const double terms =
      static_cast<double>(rhs.num_elements()) / static_cast<double>(conv.shape.dims[feature_dim]);
  for (int64_t i = 0; i < conv.shape.num_elements(); ++i) {
    const double e = At(expected->front(), i);
    ASSERT_NEAR(At(actual, i), e,
                4 * terms * epsilon * At(scale->front(), i) + rounding * std::fabs(e))
        << "element " << i;
  }
}

void Check(const Case& c, const std::string& dtype, const char* mode, Path expect) {
  SCOPED_TRACE(absl::StrCat(c.name, " ", dtype, " ", mode));
  CheckText(Text(c, dtype), dtype, mode, expect, c.nhwc ? 3 : 1);
}

TEST(CpuConvolutionTest, EveryPathMatchesTheReference) {
  const Path f32 = OneDnnAvailable() ? Path::kOneDnn : Path::kGemm;
  for (const Case& c : kCases) {
    Check(c, "f32", "auto", f32);
    Check(c, "f32", "gemm", Path::kGemm);
    Check(c, "f32", "direct", Path::kDirect);
    Check(c, "f64", "auto", Path::kGemm);  // oneDNN has no f64 convolution
    Check(c, "f64", "direct", Path::kDirect);
    // oneDNN where it has a bf16 kernel for this CPU, else matrix products.
    Check(c, "bf16", "auto", Path::kAny);
    Check(c, "bf16", "gemm", Path::kGemm);
  }
}

// A convolution's kernel adjoint as the front end records it (src/lazy/autodiff_window.cc):
// the input x [n, c, hw, hw] read with its channels as the batch, convolved with the
// result's gradient g [n, o, m, m] as the kernel (window strides = the forward kernel
// dilation, kernel dilation = the forward stride), giving dw [o, c, k, k].
std::string WeightGradientText(const Case& c) {
  const int64_t extent = (c.k - 1) * c.dilation + 1;
  const int64_t m = (c.hw + c.low + c.high - extent) / c.stride + 1;
  const int64_t high = ((m - 1) * c.stride + 1) - c.hw + extent - c.low - 1;
  return absl::StrCat(
      "program @dw {\n  %x = parameter(0) : f32[", c.n, ",", c.c, ",", c.hw, ",", c.hw,
      "]\n  %g = parameter(1) : f32[", c.n, ",", c.o, ",", m, ",", m,
      "]\n  %dw = convolution(%x, %g), input_batch_dim={1}, input_feature_dim={0}, "
      "input_spatial_dims={2,3}, kernel_input_feature_dim={0}, kernel_output_feature_dim={1}, "
      "kernel_spatial_dims={2,3}, output_batch_dim={1}, output_feature_dim={0}, "
      "output_spatial_dims={2,3}, feature_group_count={1}, window_strides={",
      c.dilation, ",", c.dilation, "}, padding_low={", c.low, ",", c.low, "}, padding_high={", high,
      ",", high, "}, lhs_dilation={1,1}, rhs_dilation={", c.stride, ",", c.stride, "} : f32[", c.o,
      ",", c.c, ",", c.k, ",", c.k, "]\n  return (%dw)\n}\n");
}

// The kernel adjoints run on oneDNN's backward-weights primitive (where oneDNN serves
// them) and match the reference; the other paths still serve them.
TEST(CpuConvolutionTest, KernelAdjointsTakeTheWeightGradientForm) {
  const Case cases[] = {
      {"cnn_conv1", 8, 1, 32, 14, 3, 1, 1, 1, 1, 1, false},
      {"cnn_conv2", 4, 32, 64, 7, 3, 1, 1, 1, 1, 1, false},
      {"stride2", 3, 8, 12, 11, 3, 1, 2, 1, 1, 1, false},
      {"dilated", 2, 4, 6, 13, 3, 1, 1, 2, 2, 2, false},
      {"uneven_padding", 2, 3, 5, 24, 5, 1, 2, 1, 0, 3, false},
      {"pointwise", 2, 12, 20, 7, 1, 1, 1, 1, 0, 0, false},
  };
  const Path f32 = OneDnnAvailable() ? Path::kOneDnn : Path::kGemm;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CheckText(WeightGradientText(c), "f32", "auto", f32, 0, true);
    CheckText(WeightGradientText(c), "f32", "gemm", Path::kGemm, 0);
    CheckText(WeightGradientText(c), "f32", "direct", Path::kDirect, 0);
  }
}

// The executable of program `text` (two parameters, one f32 result) on random arguments
// (seeds `seed` and `seed` + 1): each element within `tolerance` of the reference's.
void ExpectTheReferenceResult(const Executable& exe, const std::string& text, unsigned seed,
                              double tolerance) {
  const std::vector<ir::Literal> args = {Random(exe.parameter_shapes()[0], seed),
                                         Random(exe.parameter_shapes()[1], seed + 1)};
  std::vector<ir::Literal> results = harness::RunProgram(exe, args);
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(*program, args);
  ASSERT_TRUE(expected.ok() && results.size() == 1);
  for (int64_t i = 0; i < results[0].shape.num_elements(); ++i) {
    ASSERT_NEAR(results[0].f32()[i], expected->front().f32()[i], tolerance) << "element " << i;
  }
}

// Compiled whole, the kernel adjoint's step says which form it runs in the optimized dump,
// and the executable's result matches the reference.
TEST(CpuConvolutionTest, TheDumpNamesTheWeightGradientForm) {
  const Case c = {"cnn_conv2", 4, 32, 64, 7, 3, 1, 1, 1, 1, 1, false};
  const std::string text = WeightGradientText(c);
  std::shared_ptr<const Executable> exe = harness::CompileOrDie(text, true);
  ASSERT_NE(exe, nullptr);
  const bool named =
      OptimizedDumpText(*exe).find("convolution, oneDNN backward weights") != std::string::npos;
  EXPECT_EQ(named, OneDnnAvailable()) << OptimizedDumpText(*exe);
  // 4 * 7 * 7 terms of magnitude below 1 each.
  ExpectTheReferenceResult(*exe, text, 5, 1e-4);
}

// A first layer's kernel adjoint (one input channel: the CNN example's, batch 64 at 28x28)
// runs oneDNN's direct backward-weights kernel, not the Winograd one its `auto` picks on
// AVX-512 (whose transforms cost about five times one channel's products); the dump names
// the kernel, and the result matches the reference. (On a CPU without oneDNN's Winograd
// kernels the assertion on the name holds whatever the plan asks for.)
TEST(CpuConvolutionTest, AFirstLayersKernelAdjointIsNotWinograd) {
  if (!OneDnnAvailable()) GTEST_SKIP() << "this build has no oneDNN";
  const Case c = {"cnn_conv1_full", 64, 1, 32, 28, 3, 1, 1, 1, 1, 1, false};
  const std::string text = WeightGradientText(c);
  std::shared_ptr<const Executable> exe = harness::CompileOrDie(text, true);
  ASSERT_NE(exe, nullptr);
  const std::string dump = OptimizedDumpText(*exe);
  const size_t at = dump.find("oneDNN backward weights, oneDNN kernel ");
  ASSERT_NE(at, std::string::npos) << dump;
  const std::string kernel = dump.substr(at, dump.find(')', at) - at);
  EXPECT_EQ(kernel.find("wino"), std::string::npos) << kernel;
  // 64 * 28 * 28 terms of magnitude below 1 each.
  ExpectTheReferenceResult(*exe, text, 7, 2e-2);
}

// One plan run from two threads at once (the executable shares its plans between the
// replicas' threads) gives the same bits as a lone run.
TEST(CpuConvolutionTest, APlanRunsOnSeveralThreadsAtOnce) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(Text(kCases[0], "f32"));
  ASSERT_TRUE(program.ok());
  const ir::Instruction& conv = program->instructions[2];
  const ir::Shape lhs = program->instructions[0].shape, rhs = program->instructions[1].shape;
  ir::Literal x = Random(lhs, 3), k = Random(rhs, 4);
  ConvolutionPlan plan(conv, lhs, rhs);
  std::vector<uint8_t> alone(conv.shape.byte_size());
  plan.Run(x.bytes.data(), k.bytes.data(), alone.data());
  std::vector<std::vector<uint8_t>> outs(4, std::vector<uint8_t>(conv.shape.byte_size()));
  std::vector<std::thread> threads;
  threads.reserve(outs.size());
  for (auto& out : outs) {
    threads.emplace_back([&] {
      for (int r = 0; r < 5; ++r) plan.Run(x.bytes.data(), k.bytes.data(), out.data());
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& out : outs) EXPECT_EQ(out, alone);
}

TEST(CpuConvolutionTest, TheVariableIsChecked) {
  setenv("SEAM_CPU_CONV", "mkl", 1);
  absl::Status status = CheckConvolutionVariable();
  unsetenv("SEAM_CPU_CONV");
  EXPECT_EQ(status.message(),
            "PJRT_Client_Create: environment variable SEAM_CPU_CONV must be auto, gemm or direct, "
            "got 'mkl'");
  for (const char* good : {"", "auto", "gemm", "direct"}) {
    setenv("SEAM_CPU_CONV", good, 1);
    EXPECT_TRUE(CheckConvolutionVariable().ok()) << good;
  }
  unsetenv("SEAM_CPU_CONV");
}

}  // namespace
}  // namespace seam::cpu
