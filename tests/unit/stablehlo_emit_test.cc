// The StableHLO emitter (src/stablehlo/emit.h) against facts written by hand from the
// StableHLO specification (openxla/stablehlo docs/spec.md, StablehloOps.td at 1.20.0) and
// docs/stablehlo.md: the attribute text of each op family, constants as hex bit patterns,
// donation, precision, the module header; then every conformance case program of every op
// on every dtype, which must emit and contain no custom_call and no seam IR.
//
// SEAM_STABLEHLO_SEED_DIR=<dir>: the every-case test also writes each emitted program to
// <dir>/<op>_<dtype>_<k>.mlir (seeds for a StableHLO reader's fuzzer).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/conformance/op_cases.h"
#include "src/ir/text.h"
#include "src/stablehlo/emit.h"

namespace seam::stablehlo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Emit(const std::string& seam_ir, const EmitOptions& options = {}) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(seam_ir);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return "";
  absl::StatusOr<std::string> text = EmitStableHlo(*program, options);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(StableHloEmitTest, ModuleHeaderNamesTheProgramAndItsReplicas) {
  const std::string text = Emit(R"(program @step replicas=2 {
  %0 = parameter(0) : f32[4]
  %1 = all_reduce_sum(%0), group_size={2}, replica_groups={0,1} : f32[4]
  return (%1)
})");
  EXPECT_THAT(text,
              HasSubstr("module @step attributes {mhlo.num_partitions = 1 : i32, "
                        "mhlo.num_replicas = 2 : i32} {\n"
                        "  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"));
  EXPECT_THAT(text, HasSubstr("    return %0 : tensor<4xf32>\n  }\n}\n"));
}

TEST(StableHloEmitTest, ANameThatIsNoIdentifierIsQuoted) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @m {
  %0 = parameter(0) : f32[]
  return (%0)
})");
  ASSERT_TRUE(program.ok());
  program->name = "a b\"c";
  absl::StatusOr<std::string> text = EmitStableHlo(*program);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("module @\"a b\\22c\" attributes"));
}

TEST(StableHloEmitTest, SeveralResultsAReturnedParameterAndAValueReturnedTwice) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[3]
  %1 = parameter(1) : s32[]
  %2 = neg(%1) : s32[]
  return (%2, %0, %2)
})");
  EXPECT_THAT(text, HasSubstr("@main(%arg0: tensor<3xf32>, %arg1: tensor<i32>) -> (tensor<i32>, "
                              "tensor<3xf32>, tensor<i32>) {\n"));
  EXPECT_THAT(text, HasSubstr("%0 = \"stablehlo.negate\"(%arg1) : (tensor<i32>) -> tensor<i32>\n"));
  EXPECT_THAT(text,
              HasSubstr("    return %0, %arg0, %0 : tensor<i32>, tensor<3xf32>, tensor<i32>\n"));
}

TEST(StableHloEmitTest, DonationIsTfAliasingOutputWithTheFlatResultIndex) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[2]
  %1 = parameter(1) : f32[2]
  %2 = add(%0, %1) : f32[2]
  %3 = multiply(%0, %1) : f32[2]
  alias output 1 = parameter 1
  return (%2, %3)
})");
  EXPECT_THAT(text, HasSubstr("@main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32> "
                              "{tf.aliasing_output = 1 : i32}) -> (tensor<2xf32>, tensor<2xf32>)"));
  EXPECT_THAT(text, Not(HasSubstr("jax.buffer_donor")));
}

// Hex bit patterns keep what a decimal float would lose: a NaN payload, -0, infinity and a
// denormal (IEEE binary32 0x00000001 is 2^-149).
TEST(StableHloEmitTest, FloatConstantsAreHexBitPatterns) {
  ir::Literal f32;
  f32.shape = ir::Shape{ir::DType::kF32, {4}};
  for (uint32_t bits : {0x7FC00001u, 0x80000000u, 0x7F800000u, 0x00000001u}) {
    for (int b = 0; b < 4; ++b) f32.bytes.push_back(static_cast<uint8_t>(bits >> (8 * b)));
  }
  ir::Program program;
  ir::Instruction constant;
  constant.op = ir::Op::kConstant;
  constant.shape = f32.shape;
  constant.literal = f32;
  program.instructions.push_back(constant);
  program.results = {0};
  absl::StatusOr<std::string> text = EmitStableHlo(program);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_THAT(*text, HasSubstr("%0 = stablehlo.constant dense<[0x7FC00001, 0x80000000, "
                               "0x7F800000, 0x00000001]> : tensor<4xf32>\n"));
}

TEST(StableHloEmitTest, ConstantsOfEveryDType) {
  const std::string text = Emit(R"(program @m {
  %0 = constant(-0) : f64[]
  %1 = constant({1, 1, 1}) : bf16[3]
  %2 = constant({-9223372036854775808, 7}) : s64[2]
  %3 = constant({true, false, true, true}) : pred[2,2]
  %4 = constant({}) : f32[0,3]
  %5 = constant({1, 2, 3, 4, 5, 6}) : s32[2,1,3]
  %6 = constant(-inf) : f32[]
  return (%0, %1, %2, %3, %4, %5, %6)
})");
  EXPECT_THAT(text, HasSubstr("= stablehlo.constant dense<0x8000000000000000> : tensor<f64>\n"));
  EXPECT_THAT(text, HasSubstr("= stablehlo.constant dense<0x3F80> : tensor<3xbf16>\n"));  // splat
  EXPECT_THAT(text,
              HasSubstr("= stablehlo.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>\n"));
  EXPECT_THAT(
      text,
      HasSubstr("= stablehlo.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>\n"));
  EXPECT_THAT(text, HasSubstr("= stablehlo.constant dense<> : tensor<0x3xf32>\n"));
  EXPECT_THAT(
      text,
      HasSubstr("= stablehlo.constant dense<[[[1, 2, 3]], [[4, 5, 6]]]> : tensor<2x1x3xi32>\n"));
  EXPECT_THAT(text, HasSubstr("= stablehlo.constant dense<0xFF800000> : tensor<f32>\n"));
}

TEST(StableHloEmitTest, ElementwiseOpsTakeStableHloNames) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[2]
  %1 = neg(%0) : f32[2]
  %2 = exp(%1) : f32[2]
  %3 = log1p(%2) : f32[2]
  %4 = erf(%3) : f32[2]
  %5 = lt(%4, %0) : pred[2]
  %6 = select(%5, %4, %0) : f32[2]
  %7 = convert(%6) : s32[2]
  return (%7)
})");
  EXPECT_THAT(text,
              HasSubstr("%0 = \"stablehlo.negate\"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>\n"));
  EXPECT_THAT(text, HasSubstr("%1 = \"stablehlo.exponential\"(%0)"));
  EXPECT_THAT(text, HasSubstr("%2 = \"stablehlo.log_plus_one\"(%1)"));
  EXPECT_THAT(text, HasSubstr("%3 = \"chlo.erf\"(%2) : (tensor<2xf32>) -> tensor<2xf32>\n"));
  EXPECT_THAT(text, HasSubstr("%4 = \"stablehlo.compare\"(%3, %arg0) {comparison_direction = "
                              "#stablehlo<comparison_direction LT>} : (tensor<2xf32>, "
                              "tensor<2xf32>) -> tensor<2xi1>\n"));
  EXPECT_THAT(text, HasSubstr("%5 = \"stablehlo.select\"(%4, %3, %arg0) : (tensor<2xi1>, "
                              "tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"));
  EXPECT_THAT(text,
              HasSubstr("%6 = \"stablehlo.convert\"(%5) : (tensor<2xf32>) -> tensor<2xi32>\n"));
}

// StableHLO's transpose: result dimension i is operand dimension permutation[i], as seam's.
// f32[2,3,4] by {2,0,1} is f32[4,2,3] (not f32[3,4,2], which the inverse would give).
TEST(StableHloEmitTest, TransposeKeepsThePermutation) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[2,3,4]
  %1 = transpose(%0), permutation={2,0,1} : f32[4,2,3]
  return (%1)
})");
  EXPECT_THAT(text, HasSubstr("\"stablehlo.transpose\"(%arg0) {permutation = array<i64: 2, 0, 1>}"
                              " : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>\n"));
}

// limit_indices is an end, not a size: elements 1 and 3 of f32[6] are [1, 5) by 2.
TEST(StableHloEmitTest, SliceWritesLimitsNotSizes) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[6,4]
  %1 = slice(%0), limit={5,4}, start={1,2}, stride={2,1} : f32[2,2]
  return (%1)
})");
  EXPECT_THAT(text, HasSubstr("{start_indices = array<i64: 1, 2>, limit_indices = array<i64: 5, 4>,"
                              " strides = array<i64: 2, 1>} : (tensor<6x4xf32>) -> "
                              "tensor<2x2xf32>\n"));
}

TEST(StableHloEmitTest, DataMovementAttributes) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[3]
  %1 = broadcast_in_dim(%0), dims={1} : f32[2,3]
  %2 = concatenate(%1, %1), dimension={0} : f32[4,3]
  %3 = constant(0) : f32[]
  %4 = pad(%2, %3), high={0,-1}, interior={1,0}, low={2,1} : f32[9,3]
  %5 = iota(), dimension={1} : s64[2,5]
  %6 = reshape(%4) : f32[27]
  return (%6, %5)
})");
  EXPECT_THAT(text, HasSubstr("\"stablehlo.broadcast_in_dim\"(%arg0) {broadcast_dimensions = "
                              "array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>\n"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.concatenate\"(%0, %0) {dimension = 0 : i64}"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.pad\"(%1, %2) {edge_padding_low = array<i64: 2, 1>, "
                              "edge_padding_high = array<i64: 0, -1>, interior_padding = "
                              "array<i64: 1, 0>} : (tensor<4x3xf32>, tensor<f32>) -> "
                              "tensor<9x3xf32>\n"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> "
                              "tensor<2x5xi64>\n"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.reshape\"(%3) : (tensor<9x3xf32>) -> tensor<27xf32>\n"));
}

TEST(StableHloEmitTest, DotGeneralDimensionNumbersAndPrecision) {
  const std::string program = R"(program @m {
  %0 = parameter(0) : f32[2,3,4]
  %1 = parameter(1) : f32[2,4,5]
  %2 = dot_general(%0, %1), lhs_batch={0}, lhs_contracting={2}, rhs_batch={0}, rhs_contracting={1} : f32[2,3,5]
  return (%2)
})";
  const std::string dims =
      "\"stablehlo.dot_general\"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<"
      "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
      "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>";
  const std::string highest =
      ", precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : "
      "(tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>\n";
  EXPECT_THAT(Emit(program), HasSubstr(dims + highest));
  EmitOptions tf32;
  tf32.matmul_precision = MatmulPrecision::kTf32;
  const std::string text = Emit(program, tf32);
  EXPECT_THAT(text, HasSubstr(dims + "} : (tensor<2x3x4xf32>"));
  EXPECT_THAT(text, Not(HasSubstr("precision_config")));
}

TEST(StableHloEmitTest, OnlyF32ProductsCarryAPrecision) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f64[3,4]
  %1 = parameter(1) : f64[4]
  %2 = dot_general(%0, %1), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f64[3]
  %3 = parameter(2) : s32[4]
  %4 = dot_general(%3, %3), lhs_batch={}, lhs_contracting={}, rhs_batch={}, rhs_contracting={} : s32[4,4]
  return (%2, %4)
})");
  EXPECT_THAT(text, Not(HasSubstr("precision_config")));
  // An outer product has no dimension numbers at all.
  EXPECT_THAT(text, HasSubstr("{dot_dimension_numbers = #stablehlo.dot<>} : (tensor<4xi32>, "
                              "tensor<4xi32>) -> tensor<4x4xi32>\n"));
}

// pred: the OR of ANDs, as an i32 product of 0/1 compared with 0.
TEST(StableHloEmitTest, PredDotIsAnI32ProductComparedWithZero) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : pred[2,3]
  %1 = parameter(1) : pred[3]
  %2 = dot_general(%0, %1), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : pred[2]
  return (%2)
})");
  EXPECT_THAT(text, HasSubstr("%0 = \"stablehlo.convert\"(%arg0) : (tensor<2x3xi1>) -> "
                              "tensor<2x3xi32>\n"));
  EXPECT_THAT(text,
              HasSubstr("%1 = \"stablehlo.convert\"(%arg1) : (tensor<3xi1>) -> tensor<3xi32>\n"));
  EXPECT_THAT(text, HasSubstr("%2 = \"stablehlo.dot_general\"(%0, %1)"));
  EXPECT_THAT(text, HasSubstr("%3 = stablehlo.constant dense<0> : tensor<2xi32>\n"));
  EXPECT_THAT(text, HasSubstr("%4 = \"stablehlo.compare\"(%2, %3) {comparison_direction = "
                              "#stablehlo<comparison_direction NE>}"));
  EXPECT_THAT(text, HasSubstr("return %4 : tensor<2xi1>"));
}

// #stablehlo.conv<[input]x[kernel]->[output]>: entry d of each list is dimension d's role
// (b batch, f feature, i/o kernel input/output feature, k the k-th spatial dimension).
TEST(StableHloEmitTest, ConvolutionDimensionNumbersNchwAndNhwc) {
  const std::string nchw = Emit(R"(program @m {
  %0 = parameter(0) : f32[8,64,56,56]
  %1 = parameter(1) : f32[64,64,3,3]
  %2 = convolution(%0, %1), feature_group_count={1}, input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={2,3}, lhs_dilation={1,1}, output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2,3}, padding_high={1,1}, padding_low={1,1}, rhs_dilation={1,1}, window_strides={1,1} : f32[8,64,56,56]
  return (%2)
})");
  EXPECT_THAT(nchw, HasSubstr("\"stablehlo.convolution\"(%arg0, %arg1) {padding = dense<[[1, 1], "
                              "[1, 1]]> : tensor<2x2xi64>, dimension_numbers = "
                              "#stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, "
                              "feature_group_count = 1 : i64, batch_group_count = 1 : i64, "
                              "precision_config = [#stablehlo<precision HIGHEST>, "
                              "#stablehlo<precision HIGHEST>]} : (tensor<8x64x56x56xf32>, "
                              "tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>\n"));
  const std::string nhwc = Emit(R"(program @m {
  %0 = parameter(0) : bf16[1,9,9,4]
  %1 = parameter(1) : bf16[3,2,2,6]
  %2 = convolution(%0, %1), feature_group_count={2}, input_batch_dim={0}, input_feature_dim={3}, input_spatial_dims={1,2}, kernel_input_feature_dim={2}, kernel_output_feature_dim={3}, kernel_spatial_dims={0,1}, lhs_dilation={1,2}, output_batch_dim={0}, output_feature_dim={3}, output_spatial_dims={1,2}, padding_high={0,1}, padding_low={2,0}, rhs_dilation={2,1}, window_strides={2,3} : bf16[1,4,6,6]
  return (%2)
})");
  EXPECT_THAT(nhwc,
              HasSubstr("{window_strides = array<i64: 2, 3>, padding = dense<[[2, 0], [0, 1]]>"
                        " : tensor<2x2xi64>, lhs_dilation = array<i64: 1, 2>, rhs_dilation = "
                        "array<i64: 2, 1>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x"
                        "[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, "
                        "batch_group_count = 1 : i64} : (tensor<1x9x9x4xbf16>"));
}

TEST(StableHloEmitTest, ReductionsStartFromTheirIdentity) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[4,3]
  %1 = reduce_max(%0), axes={1} : f32[4]
  %2 = parameter(1) : s32[5]
  %3 = reduce_min(%2), axes={0} : s32[]
  %4 = reduce_product(%0), axes={0,1} : f32[]
  return (%1, %3, %4)
})");
  EXPECT_THAT(text, HasSubstr("%0 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                              "    %1 = \"stablehlo.reduce\"(%arg0, %0) ({\n"
                              "      ^bb0(%2: tensor<f32>, %3: tensor<f32>):\n"
                              "        %4 = \"stablehlo.maximum\"(%2, %3) : (tensor<f32>, "
                              "tensor<f32>) -> tensor<f32>\n"
                              "        \"stablehlo.return\"(%4) : (tensor<f32>) -> ()\n"
                              "    }) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, "
                              "tensor<f32>) -> tensor<4xf32>\n"));
  EXPECT_THAT(text, HasSubstr("stablehlo.constant dense<2147483647> : tensor<i32>\n"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.minimum\""));
  EXPECT_THAT(text, HasSubstr("stablehlo.constant dense<0x3F800000> : tensor<f32>\n"));
  EXPECT_THAT(text, HasSubstr("{dimensions = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<f32>) "
                              "-> tensor<f32>\n"));
}

// argmax: a reduce of (x, iota along the axis) from (-inf, INT64_MAX), whose body takes the
// first index of the maximum with NaN winning; the result is the second output.
TEST(StableHloEmitTest, ArgmaxIsATwoOperandReduce) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[4,3]
  %1 = argmax(%0), axis={1} : s64[4]
  return (%1)
})");
  EXPECT_THAT(text, HasSubstr("%0 = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> "
                              "tensor<4x3xi64>\n"
                              "    %1 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
                              "    %2 = stablehlo.constant dense<9223372036854775807> : "
                              "tensor<i64>\n"
                              "    %3:2 = \"stablehlo.reduce\"(%arg0, %0, %1, %2) ({\n"
                              "      ^bb0(%4: tensor<f32>, %5: tensor<i64>, %6: tensor<f32>, "
                              "%7: tensor<i64>):\n"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.compare\"(%4, %6) {comparison_direction = "
                              "#stablehlo<comparison_direction GT>}"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.compare\"(%4, %4) {comparison_direction = "
                              "#stablehlo<comparison_direction NE>}"));  // a is NaN
  EXPECT_THAT(text, HasSubstr("\"stablehlo.compare\"(%5, %7) {comparison_direction = "
                              "#stablehlo<comparison_direction LT>}"));  // the first index
  EXPECT_THAT(text, HasSubstr("}) {dimensions = array<i64: 1>} : (tensor<4x3xf32>, "
                              "tensor<4x3xi64>, tensor<f32>, tensor<i64>) -> (tensor<4xf32>, "
                              "tensor<4xi64>)\n"));
  EXPECT_THAT(text, HasSubstr("return %3#1 : tensor<4xi64>"));
  const std::string argmin = Emit(R"(program @m {
  %0 = parameter(0) : s32[5]
  %1 = argmin(%0), axis={0} : s64[]
  return (%1)
})");
  EXPECT_THAT(argmin, HasSubstr("stablehlo.constant dense<2147483647> : tensor<i32>\n"));
  EXPECT_THAT(argmin, HasSubstr("#stablehlo<comparison_direction LT>"));
  EXPECT_THAT(argmin, Not(HasSubstr("comparison_direction NE")));  // integers: no NaN
}

// cumsum along an axis of n: a window of n ending at each element, n - 1 zeros below.
TEST(StableHloEmitTest, CumsumIsAPaddedReduceWindow) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : s64[2,5]
  %1 = cumsum(%0), axis={1} : s64[2,5]
  return (%1)
})");
  EXPECT_THAT(text, HasSubstr("%0 = stablehlo.constant dense<0> : tensor<i64>\n"
                              "    %1 = \"stablehlo.reduce_window\"(%arg0, %0) ({\n"));
  EXPECT_THAT(text, HasSubstr("\"stablehlo.add\""));
  EXPECT_THAT(text, HasSubstr("}) {window_dimensions = array<i64: 1, 5>, padding = dense<[[0, 0], "
                              "[4, 0]]> : tensor<2x2xi64>} : (tensor<2x5xi64>, tensor<i64>) -> "
                              "tensor<2x5xi64>\n"));
}

TEST(StableHloEmitTest, ReduceWindowAndSelectAndScatter) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[1,1,4,4]
  %1 = reduce_window_max(%0), base_dilation={1,1,1,1}, padding_high={0,0,1,0}, padding_low={0,0,0,0}, window_dilation={1,1,1,2}, window_dimensions={1,1,2,2}, window_strides={1,1,2,2} : f32[1,1,2,1]
  %2 = parameter(1) : f32[1,1,2,2]
  %3 = select_and_scatter(%0, %2), padding_high={0,0,0,0}, padding_low={0,0,0,0}, window_dimensions={1,1,2,2}, window_strides={1,1,2,2} : f32[1,1,4,4]
  return (%1, %3)
})");
  EXPECT_THAT(text, HasSubstr("{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = "
                              "array<i64: 1, 1, 2, 2>, window_dilations = array<i64: 1, 1, 1, 2>, "
                              "padding = dense<[[0, 0], [0, 0], [0, 1], [0, 0]]> : "
                              "tensor<4x2xi64>} : (tensor<1x1x4x4xf32>, tensor<f32>) -> "
                              "tensor<1x1x2x1xf32>\n"));
  EXPECT_THAT(text, HasSubstr("= stablehlo.constant dense<0x00000000> : tensor<f32>\n"
                              "    %6 = \"stablehlo.select_and_scatter\"(%arg0, %arg1, %5) ({\n"));
  EXPECT_THAT(text, HasSubstr("#stablehlo<comparison_direction GE>"));
  EXPECT_THAT(text, HasSubstr("}) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = "
                              "array<i64: 1, 1, 2, 2>} : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>,"
                              " tensor<f32>) -> tensor<1x1x4x4xf32>\n"));
}

TEST(StableHloEmitTest, GatherDimensionNumbers) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[10,8]
  %1 = parameter(1) : s32[6]
  %2 = gather(%0, %1), collapsed_slice_dims={0}, index_vector_dim={1}, offset_dims={1}, slice_sizes={1,8}, start_index_map={0} : f32[6,8]
  return (%2)
})");
  EXPECT_THAT(text, HasSubstr("\"stablehlo.gather\"(%arg0, %arg1) {dimension_numbers = "
                              "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
                              "start_index_map = [0], index_vector_dim = 1>, slice_sizes = "
                              "array<i64: 1, 8>} : (tensor<10x8xf32>, tensor<6xi32>) -> "
                              "tensor<6x8xf32>\n"));
}

// seam clamps a scatter's starts into [0, dim - window]; XLA drops such updates, so the
// indices are clamped before the scatter: rows of a [10,8] table, windows of 1 row.
TEST(StableHloEmitTest, ScatterClampsItsIndicesFirst) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f32[10,8]
  %1 = parameter(1) : s32[6]
  %2 = parameter(2) : f32[6,8]
  %3 = scatter_add(%0, %1, %2), index_vector_dim={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={1} : f32[10,8]
  return (%3)
})");
  EXPECT_THAT(text, HasSubstr("%0 = stablehlo.constant dense<0> : tensor<6xi32>\n"
                              "    %1 = stablehlo.constant dense<9> : tensor<6xi32>\n"
                              "    %2 = \"stablehlo.clamp\"(%0, %arg1, %1) : (tensor<6xi32>, "
                              "tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>\n"
                              "    %3 = \"stablehlo.scatter\"(%arg0, %2, %arg2) ({\n"));
  EXPECT_THAT(text, HasSubstr("}) {scatter_dimension_numbers = #stablehlo.scatter<"
                              "update_window_dims = [1], inserted_window_dims = [0], "
                              "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : "
                              "(tensor<10x8xf32>, tensor<6xi32>, tensor<6x8xf32>) -> "
                              "tensor<10x8xf32>\n"));
  // Index vectors (row, column) into [5,7] with windows [2,3]: largest starts 3 and 4, one
  // per entry along index_vector_dim 1.
  const std::string replace = Emit(R"(program @m {
  %0 = parameter(0) : s64[5,7]
  %1 = parameter(1) : s64[4,2]
  %2 = parameter(2) : s64[4,2,3]
  %3 = scatter_replace(%0, %1, %2), index_vector_dim={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, update_window_dims={1,2} : s64[5,7]
  return (%3)
})");
  EXPECT_THAT(replace, HasSubstr("stablehlo.constant dense<[3, 4]> : tensor<2xi64>\n"));
  EXPECT_THAT(replace, HasSubstr("\"stablehlo.broadcast_in_dim\"(%1) {broadcast_dimensions = "
                                 "array<i64: 1>} : (tensor<2xi64>) -> tensor<4x2xi64>\n"));
  // replace: the body returns the update (its second argument).
  EXPECT_THAT(replace, HasSubstr("      ^bb0(%5: tensor<i64>, %6: tensor<i64>):\n"
                                 "        \"stablehlo.return\"(%6) : (tensor<i64>) -> ()\n"));
}

TEST(StableHloEmitTest, RngBitGeneratorUsesAUi64State) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : s64[]
  %1 = parameter(1) : s64[2]
  %2 = rng_bit_generator(%0, %1) : s32[3,5]
  return (%2)
})");
  EXPECT_THAT(text,
              HasSubstr("%0 = \"stablehlo.reshape\"(%arg0) : (tensor<i64>) -> tensor<1xi64>\n"
                        "    %1 = \"stablehlo.concatenate\"(%0, %arg1) {dimension = 0 : i64} :"
                        " (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>\n"
                        "    %2 = \"stablehlo.bitcast_convert\"(%1) : (tensor<3xi64>) -> "
                        "tensor<3xui64>\n"
                        "    %3:2 = \"stablehlo.rng_bit_generator\"(%2) {rng_algorithm = "
                        "#stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> "
                        "(tensor<3xui64>, tensor<3x5xi32>)\n"));
  EXPECT_THAT(text, HasSubstr("return %3#1 : tensor<3x5xi32>"));
}

// argsort: a stable sort of (x, iota); floats compare in TOTALORDER after -0 -> +0 and
// every NaN -> +qNaN, so NaN sorts above +inf and -0 ties with +0.
TEST(StableHloEmitTest, ArgsortIsAStableSortWithACanonicalComparator) {
  const std::string text = Emit(R"(program @m {
  %0 = parameter(0) : f64[3,4]
  %1 = argsort(%0), axis={1}, descending={1} : s64[3,4]
  return (%1)
})");
  EXPECT_THAT(text, HasSubstr("%0 = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> "
                              "tensor<3x4xi64>\n"
                              "    %1:2 = \"stablehlo.sort\"(%arg0, %0) ({\n"
                              "      ^bb0(%2: tensor<f64>, %3: tensor<f64>, %4: tensor<i64>, "
                              "%5: tensor<i64>):\n"));
  EXPECT_THAT(text, HasSubstr("stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>\n"));
  EXPECT_THAT(text, HasSubstr("{comparison_direction = #stablehlo<comparison_direction GT>, "
                              "compare_type = #stablehlo<comparison_type TOTALORDER>}"));
  EXPECT_THAT(text, HasSubstr("}) {dimension = 1 : i64, is_stable = true} : (tensor<3x4xf64>, "
                              "tensor<3x4xi64>) -> (tensor<3x4xf64>, tensor<3x4xi64>)\n"));
  EXPECT_THAT(text, HasSubstr("return %1#1 : tensor<3x4xi64>"));
}

TEST(StableHloEmitTest, AllReduceReplicaGroups) {
  const std::string text = Emit(R"(program @m replicas=4 {
  %0 = parameter(0) : s32[3]
  %1 = all_reduce_max(%0), group_size={2}, replica_groups={0,2,1,3} : s32[3]
  return (%1)
})");
  EXPECT_THAT(text, HasSubstr("%0 = \"stablehlo.all_reduce\"(%arg0) ({\n"
                              "      ^bb0(%1: tensor<i32>, %2: tensor<i32>):\n"
                              "        %3 = \"stablehlo.maximum\"(%1, %2)"));
  EXPECT_THAT(text, HasSubstr("}) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : "
                              "(tensor<3xi32>) -> tensor<3xi32>\n"));
}

TEST(StableHloEmitTest, AProgramThatDoesNotVerifyIsRefused) {
  ir::Program program;
  ir::Instruction add;
  add.op = ir::Op::kAdd;
  add.operands = {3, 4};
  add.shape = ir::Shape{ir::DType::kF32, {2}};
  program.instructions.push_back(add);
  program.results = {0};
  absl::StatusOr<std::string> text = EmitStableHlo(program);
  EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(StableHloEmitTest, MatmulPrecisionValues) {
  EXPECT_EQ(*ParseMatmulPrecision("highest"), MatmulPrecision::kHighest);
  EXPECT_EQ(*ParseMatmulPrecision("tf32"), MatmulPrecision::kTf32);
  absl::StatusOr<MatmulPrecision> bad = ParseMatmulPrecision("fast");
  EXPECT_EQ(bad.status().message(),
            "SEAM_MATMUL_PRECISION='fast' is not a matmul precision; allowed: highest (the "
            "default), tf32");
}

TEST(StableHloEmitTest, EveryRowNamesItsStableHloOp) {
  EXPECT_EQ(StableHloOpName(ir::Op::kNeg), "stablehlo.negate");
  EXPECT_EQ(StableHloOpName(ir::Op::kErf), "chlo.erf");
  EXPECT_EQ(StableHloOpName(ir::Op::kEq), "stablehlo.compare");
  EXPECT_EQ(StableHloOpName(ir::Op::kArgsort), "stablehlo.sort");
  EXPECT_EQ(StableHloOpName(ir::Op::kParameter), "%arg");
}

// Every conformance case of every op on every dtype of its row emits; the text has the
// op's StableHLO name, and no custom_call and nothing of seam's IR syntax.
TEST(StableHloEmitTest, EveryConformanceCaseEmitsWithoutCustomCallOrSeamIr) {
  const char* seed_dir = std::getenv("SEAM_STABLEHLO_SEED_DIR");
  if (seed_dir != nullptr) std::filesystem::create_directories(seed_dir);
  int emitted = 0;
  for (int i = 0; i < ir::kNumOps; ++i) {
    const auto op = static_cast<ir::Op>(i);
    if (op == ir::Op::kParameter) continue;
    for (ir::DType dtype : ir::kAllDTypeList) {
      if (!ir::Contains(ir::OpDTypes(op), dtype)) continue;
      int k = 0;
      for (const conformance::OpCase& c : conformance::MakeCases(op, dtype, 20240611)) {
        const std::string where =
            absl::StrCat(std::string(ir::OpName(op)), " on ", std::string(ir::DTypeName(dtype)),
                         ", case ", k, ":\n", ir::PrintProgram(c.program));
        absl::StatusOr<std::string> text = EmitStableHlo(c.program);
        ASSERT_TRUE(text.ok()) << where << text.status();
        EXPECT_THAT(*text, Not(HasSubstr("custom_call"))) << where;
        EXPECT_THAT(*text, Not(HasSubstr("program @"))) << where;
        EXPECT_THAT(*text, Not(HasSubstr("= parameter("))) << where;
        EXPECT_THAT(*text, Not(HasSubstr("alias output"))) << where;
        EXPECT_THAT(*text, Not(HasSubstr(absl::StrCat(" = ", std::string(ir::OpName(op)), "("))))
            << where;
        EXPECT_THAT(*text, HasSubstr(std::string(StableHloOpName(op)))) << where;
        if (seed_dir != nullptr) {
          std::ofstream(std::filesystem::path(seed_dir) /
                        absl::StrCat(std::string(ir::OpName(op)), "_",
                                     std::string(ir::DTypeName(dtype)), "_", k, ".mlir"))
              << *text;
        }
        ++k;
        ++emitted;
      }
    }
  }
  EXPECT_GT(emitted, 500);
}

}  // namespace
}  // namespace seam::stablehlo
