// Shape rules of the windowed ops: result sizes worked out by hand and the errors for
// each kind of bad attribute.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/hash.h"
#include "src/ir/shape_rules.h"

namespace seam::ir {
namespace {

Shape F32(std::vector<int64_t> dims) { return Shape{DType::kF32, std::move(dims)}; }

std::string Infer(const Instruction& inst, const std::vector<Shape>& operands) {
  absl::StatusOr<Shape> shape = InferShape(inst, operands);
  if (shape.ok()) return "OK " + shape->ToString();
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << shape.status();
  return std::string(shape.status().message());
}

// NCHW / OIHW / NCHW, 3x3-style attributes for two spatial dimensions.
Instruction Conv() {
  Instruction inst;
  inst.op = Op::kConvolution;
  inst.attrs = {{"input_batch_dim", {0}},          {"input_feature_dim", {1}},
                {"input_spatial_dims", {2, 3}},    {"kernel_output_feature_dim", {0}},
                {"kernel_input_feature_dim", {1}}, {"kernel_spatial_dims", {2, 3}},
                {"output_batch_dim", {0}},         {"output_feature_dim", {1}},
                {"output_spatial_dims", {2, 3}},   {"feature_group_count", {1}},
                {"window_strides", {1, 1}},        {"padding_low", {1, 1}},
                {"padding_high", {1, 1}},          {"lhs_dilation", {1, 1}},
                {"rhs_dilation", {1, 1}}};
  return inst;
}

Instruction Window(Op op, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                   std::vector<int64_t> low, std::vector<int64_t> high) {
  Instruction inst;
  inst.op = op;
  inst.attrs = {{"window_dimensions", sizes},
                {"window_strides", strides},
                {"padding_low", low},
                {"padding_high", high}};
  if (op != Op::kSelectAndScatter) {
    inst.attrs["base_dilation"] = std::vector<int64_t>(sizes.size(), 1);
    inst.attrs["window_dilation"] = std::vector<int64_t>(sizes.size(), 1);
  }
  return inst;
}

TEST(IrShapeRulesWindowTest, ConvolutionResultSizes) {
  Instruction conv = Conv();
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 64, 3, 3})}), "OK f32[8,32,56,56]");
  conv.attrs["window_strides"] = {2, 2};
  // (56 + 2 - 3) / 2 + 1 = 28.
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 64, 3, 3})}), "OK f32[8,32,28,28]");
  conv.attrs["window_strides"] = {1, 1};
  conv.attrs["lhs_dilation"] = {2, 1};
  conv.attrs["rhs_dilation"] = {1, 3};
  // Height: dilated 2*4-1 = 7, padded 9, window 3 -> 7. Width: padded 6, window 7 -> 0.
  EXPECT_EQ(Infer(conv, {F32({1, 2, 4, 4}), F32({3, 2, 3, 3})}), "OK f32[1,3,7,0]");
  conv = Conv();
  conv.attrs["feature_group_count"] = {4};
  EXPECT_EQ(Infer(conv, {F32({2, 8, 5, 5}), F32({12, 2, 3, 3})}), "OK f32[2,12,5,5]");
  // NHWC input, HWIO kernel, NCHW result: any roles, any order.
  conv = Conv();
  conv.attrs["input_feature_dim"] = {3};
  conv.attrs["input_spatial_dims"] = {1, 2};
  conv.attrs["kernel_spatial_dims"] = {0, 1};
  conv.attrs["kernel_input_feature_dim"] = {2};
  conv.attrs["kernel_output_feature_dim"] = {3};
  EXPECT_EQ(Infer(conv, {F32({2, 7, 6, 3}), F32({3, 3, 3, 5})}), "OK f32[2,5,7,6]");
}

TEST(IrShapeRulesWindowTest, ConvolutionErrors) {
  Instruction conv = Conv();
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 16, 3, 3})}),
            "convolution: the rhs input feature count 16 (rhs f32[32,16,3,3] dimension 1) times "
            "feature_group_count=1 must equal the lhs feature count 64 (lhs f32[8,64,56,56] "
            "dimension 1)");
  conv.attrs["feature_group_count"] = {3};
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 16, 3, 3})}),
            "convolution: feature_group_count=3 must be >= 1 and divide both the lhs feature "
            "count 64 and the rhs output feature count 32");
  conv = Conv();
  conv.attrs["input_spatial_dims"] = {2, 1};
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 64, 3, 3})}),
            "convolution: lhs dimension 1 is given more than one role (in input_spatial_dims)");
  conv = Conv();
  conv.attrs["output_spatial_dims"] = {2};
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 64, 3, 3})}),
            "convolution: output_spatial_dims={2} has 1 entries, expected 2 (the result has rank "
            "4)");
  conv = Conv();
  conv.attrs["window_strides"] = {1, 0};
  EXPECT_EQ(Infer(conv, {F32({8, 64, 56, 56}), F32({32, 64, 3, 3})}),
            "convolution: window_strides[1]=0 must be >= 1");
  conv = Conv();
  conv.attrs["padding_low"] = {1, -9};
  EXPECT_EQ(Infer(conv, {F32({1, 1, 4, 4}), F32({1, 1, 3, 3})}),
            "convolution: dimension 3: the padded input has size < 0 (input 4, padding_low -9, "
            "padding_high 1, dilation 1)");
  conv = Conv();
  EXPECT_EQ(Infer(conv, {F32({1, 1, 4, 4}), F32({1, 1, 0, 3})}),
            "convolution: rhs f32[1,1,0,3] spatial dimension 2 has size 0; a window needs >= 1");
  EXPECT_EQ(Infer(conv, {F32({1, 1, 4, 4}), Shape{DType::kF64, {1, 1, 3, 3}}}),
            "convolution: operand dtypes differ: lhs f32[1,1,4,4], rhs f64[1,1,3,3]");
  EXPECT_EQ(Infer(conv, {F32({1, 1, 4, 4}), F32({1, 1, 3})}),
            "convolution: lhs f32[1,1,4,4] and rhs f32[1,1,3] must have the same rank, at least 2");
  conv.attrs.erase("rhs_dilation");
  EXPECT_EQ(Infer(conv, {F32({1, 1, 4, 4}), F32({1, 1, 3, 3})}),
            "convolution: missing attribute 'rhs_dilation'");
}

TEST(IrShapeRulesWindowTest, ReduceWindowAndSelectAndScatter) {
  Instruction pool =
      Window(Op::kReduceWindowMax, {1, 1, 3, 3}, {1, 1, 2, 2}, {0, 0, 1, 1}, {0, 0, 1, 1});
  // (112 + 2 - 3) / 2 + 1 = 56.
  EXPECT_EQ(Infer(pool, {F32({8, 64, 112, 112})}), "OK f32[8,64,56,56]");
  // Padding lets a 3-high window fit a 1-high input once.
  EXPECT_EQ(Infer(pool, {F32({8, 64, 1, 112})}), "OK f32[8,64,1,56]");
  // A window larger than the padded input: an empty dimension, as in XLA.
  pool.attrs["window_dimensions"] = {1, 1, 5, 3};
  EXPECT_EQ(Infer(pool, {F32({8, 64, 1, 112})}), "OK f32[8,64,0,56]");
  pool.attrs["padding_low"] = {0, 0, -1, 1};
  EXPECT_EQ(Infer(pool, {F32({8, 64, 112, 112})}),
            "reduce_window_max: padding_low[2]=-1 must be >= 0");
  pool.attrs["padding_low"] = {0, 0, 1};
  EXPECT_EQ(Infer(pool, {F32({8, 64, 112, 112})}),
            "reduce_window_max: padding_low={0,0,1} has 3 entries, operand f32[8,64,112,112] "
            "has rank 4");
  Instruction scatter = Window(Op::kSelectAndScatter, {2, 2}, {2, 2}, {0, 0}, {0, 0});
  EXPECT_EQ(Infer(scatter, {F32({4, 6}), F32({2, 3})}), "OK f32[4,6]");
  EXPECT_EQ(Infer(scatter, {F32({4, 6}), F32({2, 2})}),
            "select_and_scatter: operand 1 (the source) has shape f32[2,2], expected f32[2,3] "
            "(one value per window of operand 0 f32[4,6])");
  scatter.attrs["window_dimensions"] = {0, 2};
  EXPECT_EQ(Infer(scatter, {F32({4, 6}), F32({2, 3})}),
            "select_and_scatter: window_dimensions[0]=0 must be >= 1");
}

// The windowed ops' attributes are part of the program hash (the compile cache's key).
TEST(IrShapeRulesWindowTest, AttributesChangeTheHash) {
  Program p;
  for (int i = 0; i < 2; ++i) {
    Instruction param;
    param.op = Op::kParameter;
    param.parameter_index = i;
    param.shape = F32({1, 1, 4, 4});
    p.instructions.push_back(param);
  }
  Instruction conv = Conv();
  conv.operands = {0, 1};
  conv.shape = F32({1, 1, 4, 4});
  p.instructions.push_back(conv);
  p.results = {2};
  const uint64_t base = HashProgram(p);
  for (const char* attr : {"padding_low", "rhs_dilation", "window_strides"}) {
    Program q = p;
    q.instructions[2].attrs[attr] = {2, 1};
    EXPECT_NE(HashProgram(q), base) << attr;
  }
  Program q = p;
  q.instructions[2].attrs["feature_group_count"] = {2};
  EXPECT_NE(HashProgram(q), base);
}

}  // namespace
}  // namespace seam::ir
