// gather, scatter_add and scatter_replace: shapes and errors of the shape rules, and
// results worked out by hand from the definitions (docs/ir.md "Gather and scatter") for
// both the reference evaluator and the CPU plugin's kernels.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/shape_rules.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "tests/unit/reference_and_kernel.h"

namespace seam::ir {
namespace {

Shape F32(std::vector<int64_t> dims) { return Shape{DType::kF32, std::move(dims)}; }
Shape S32(std::vector<int64_t> dims) { return Shape{DType::kS32, std::move(dims)}; }

std::string Infer(const Instruction& inst, const std::vector<Shape>& operands) {
  absl::StatusOr<Shape> shape = InferShape(inst, operands);
  if (shape.ok()) return "OK " + shape->ToString();
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << shape.status();
  return std::string(shape.status().message());
}

// Row lookup of a [V, D] table by a vector of ids (index vector implicit).
Instruction Embedding(int64_t width) {
  Instruction inst;
  inst.op = Op::kGather;
  inst.attrs = {{"offset_dims", {1}},
                {"collapsed_slice_dims", {0}},
                {"start_index_map", {0}},
                {"index_vector_dim", {1}},
                {"slice_sizes", {1, width}}};
  return inst;
}

Instruction EmbeddingGrad(Op op) {
  Instruction inst;
  inst.op = op;
  inst.attrs = {{"update_window_dims", {1}},
                {"inserted_window_dims", {0}},
                {"scatter_dims_to_operand_dims", {0}},
                {"index_vector_dim", {1}}};
  return inst;
}

TEST(GatherShapeTest, ResultShapes) {
  EXPECT_EQ(Infer(Embedding(4), {F32({10, 4}), S32({6})}), "OK f32[6,4]");
  Instruction rows = Embedding(4);
  rows.attrs["index_vector_dim"] = {2};
  EXPECT_EQ(Infer(rows, {F32({10, 4}), S32({2, 3})}), "OK f32[2,4,3]");  // offset_dims={1}
  rows.attrs["offset_dims"] = {2};
  EXPECT_EQ(Infer(rows, {F32({10, 4}), S32({2, 3})}), "OK f32[2,3,4]");
  rows.attrs["offset_dims"] = {0};  // the slice's dimension first
  EXPECT_EQ(Infer(rows, {F32({10, 4}), S32({2, 3})}), "OK f32[4,2,3]");
  EXPECT_EQ(Infer(rows, {F32({5, 4}), Shape{DType::kS64, {0, 3}}}), "OK f32[4,0,3]");
  EXPECT_EQ(Infer(rows, {F32({0, 4}), S32({0, 3})}),
            "gather: slice_sizes[0]=1 must be in [0, 0] (dimension 0 of operand f32[0,4])");
  EXPECT_EQ(Infer(EmbeddingGrad(Op::kScatterAdd), {F32({10, 4}), S32({6}), F32({6, 4})}),
            "OK f32[10,4]");
}

TEST(GatherShapeTest, Errors) {
  EXPECT_EQ(Infer(Embedding(4), {F32({10, 4}), F32({6})}),
            "gather: operand 1 (the indices) has element type f32, expected s32 or s64");
  Instruction bad = Embedding(5);
  EXPECT_EQ(Infer(bad, {F32({10, 4}), S32({6})}),
            "gather: slice_sizes[1]=5 must be in [0, 4] (dimension 1 of operand f32[10,4])");
  bad = Embedding(4);
  bad.attrs["index_vector_dim"] = {3};
  EXPECT_EQ(Infer(bad, {F32({10, 4}), S32({6})}),
            "gather: index_vector_dim=3 is out of range [0, 1] for indices s32[6]");
  bad = Embedding(4);
  bad.attrs["start_index_map"] = {0, 1};
  EXPECT_EQ(Infer(bad, {F32({10, 4}), S32({6})}),
            "gather: start_index_map={0,1} has 2 entries, expected 1 (the length of an index "
            "vector)");
  bad = Embedding(4);
  bad.attrs["slice_sizes"] = {2, 4};
  EXPECT_EQ(Infer(bad, {F32({10, 4}), S32({6})}),
            "gather: collapsed dimension 0 has slice_sizes[0]=2, expected 1");
  bad = Embedding(4);
  bad.attrs["offset_dims"] = {2};
  EXPECT_EQ(Infer(bad, {F32({10, 4}), S32({6})}),
            "gather: offset_dims[0]=2 is out of range for the result of rank 2");
  Instruction scatter = EmbeddingGrad(Op::kScatterAdd);
  EXPECT_EQ(Infer(scatter, {F32({10, 4}), S32({6}), F32({5, 4})}),
            "scatter_add: updates f32[5,4] dimension 0 has size 5, expected 6 (the matching "
            "dimension of indices s32[6])");
  EXPECT_EQ(Infer(scatter, {F32({10, 4}), S32({6}), F32({6, 5})}),
            "scatter_add: the update window has size 5 along operand dimension 1, larger than "
            "operand f32[10,4]");
  EXPECT_EQ(Infer(scatter, {F32({10, 4}), S32({6}), Shape{DType::kF64, {6, 4}}}),
            "scatter_add: operand 2 (the updates) f64[6,4] must have the element type of "
            "operand 0 f32[10,4]");
  EXPECT_EQ(Infer(EmbeddingGrad(Op::kScatterAdd),
                  {Shape{DType::kPred, {3}}, S32({2}), Shape{DType::kPred, {2}}}),
            "scatter_add: operand 0 has element type pred, expected f32, f64, bf16, s32 or s64");
}

constexpr char kLookup[] = R"(  %0 = parameter(0) : f32[3,2]
  %1 = parameter(1) : s32[5]
  %2 = gather(%0, %1), collapsed_slice_dims={0}, index_vector_dim={1}, offset_dims={1}, slice_sizes={1,2}, start_index_map={0} : f32[5,2]
  return (%2))";

TEST(GatherEvalTest, EmbeddingLookupClampsOutOfRangeIds) {
  // Rows 2, 0, 0 (repeated), -1 -> 0 (clamped), 7 -> 2 (clamped).
  ExpectBoth(
      kLookup,
      {Literal::FromF32({1, 2, 3, 4, 5, 6}, {3, 2}), Literal::FromS32({2, 0, 0, -1, 7}, {5})},
      Literal::FromF32({5, 6, 1, 2, 1, 2, 1, 2, 5, 6}, {5, 2}));
}

TEST(GatherEvalTest, SlicesClampSoTheWholeSliceFits) {
  // A 2-wide window along a length-4 vector, s64 starts: 3 -> 2 (so [2,3] fits), -5 -> 0.
  ExpectBoth(R"(  %0 = parameter(0) : f32[4]
  %1 = parameter(1) : s64[3,1]
  %2 = gather(%0, %1), collapsed_slice_dims={}, index_vector_dim={1}, offset_dims={1}, slice_sizes={2}, start_index_map={0} : f32[3,2]
  return (%2))",
             {Literal::FromF32({10, 11, 12, 13}, {4}), Literal::FromS64({1, 3, -5}, {3, 1})},
             Literal::FromF32({11, 12, 12, 13, 10, 11}, {3, 2}));
}

TEST(GatherEvalTest, TakeAlongAxisWithTwoEntryIndexVectors) {
  // x[i, idx[i]] for a [2,3] x: index vectors (row, column) built explicitly.
  ExpectBoth(R"(  %0 = parameter(0) : s32[2,3]
  %1 = parameter(1) : s32[2,2]
  %2 = gather(%0, %1), collapsed_slice_dims={0,1}, index_vector_dim={1}, offset_dims={}, slice_sizes={1,1}, start_index_map={0,1} : s32[2]
  return (%2))",
             {Literal::FromS32({1, 2, 3, 4, 5, 6}, {2, 3}), Literal::FromS32({0, 2, 1, 0}, {2, 2})},
             Literal::FromS32({3, 4}, {2}));
}

std::string ScatterBody(const std::string& op) {
  return R"(  %0 = parameter(0) : f32[3,2]
  %1 = parameter(1) : s32[4]
  %2 = parameter(2) : f32[4,2]
  %3 = )" +
         op +
         R"((%0, %1, %2), index_vector_dim={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={1} : f32[3,2]
  return (%3))";
}

TEST(ScatterEvalTest, AddSumsDuplicatesAndClamps) {
  // Rows 1, 1 (duplicate), 9 -> 2 (clamped), -3 -> 0 (clamped), onto [[0,0],[100,100],[0,0]].
  ExpectBoth(
      ScatterBody("scatter_add"),
      {Literal::FromF32({0, 0, 100, 100, 0, 0}, {3, 2}), Literal::FromS32({1, 1, 9, -3}, {4}),
       Literal::FromF32({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2})},
      Literal::FromF32({7, 8, 104, 106, 5, 6}, {3, 2}));
}

TEST(ScatterEvalTest, ReplaceKeepsTheLastDuplicate) {
  ExpectBoth(ScatterBody("scatter_replace"),
             {Literal::FromF32({0, 0, 100, 100, 0, 0}, {3, 2}), Literal::FromS32({1, 1, 9, 1}, {4}),
              Literal::FromF32({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2})},
             Literal::FromF32({0, 0, 7, 8, 5, 6}, {3, 2}));
}

TEST(ScatterEvalTest, IntegerAddWrapsAndNoIndicesLeaveTheOperand) {
  ExpectBoth(R"(  %0 = parameter(0) : s32[2]
  %1 = parameter(1) : s32[2]
  %2 = parameter(2) : s32[2]
  %3 = scatter_add(%0, %1, %2), index_vector_dim={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={} : s32[2]
  return (%3))",
             {Literal::FromS32({2147483647, 5}, {2}), Literal::FromS32({0, 0}, {2}),
              Literal::FromS32({1, 1}, {2})},
             Literal::FromS32({-2147483647, 5}, {2}));
  ExpectBoth(R"(  %0 = parameter(0) : f32[2]
  %1 = parameter(1) : s32[0]
  %2 = parameter(2) : f32[0]
  %3 = scatter_add(%0, %1, %2), index_vector_dim={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, update_window_dims={} : f32[2]
  return (%3))",
             {Literal::FromF32({1, 2}, {2}), Literal::FromS32({}, {0}), Literal::FromF32({}, {0})},
             Literal::FromF32({1, 2}, {2}));
}

}  // namespace
}  // namespace seam::ir
