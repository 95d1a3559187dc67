#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/shape_rules.h"
#include "src/ir/verifier.h"

namespace seam::ir {
namespace {

Shape F32(std::vector<int64_t> dims) { return Shape{DType::kF32, std::move(dims)}; }
Shape S32(std::vector<int64_t> dims) { return Shape{DType::kS32, std::move(dims)}; }

Instruction Param(int64_t index, Shape shape) {
  Instruction inst;
  inst.op = Op::kParameter;
  inst.parameter_index = index;
  inst.shape = std::move(shape);
  return inst;
}

Instruction Node(Op op, std::vector<int> operands, Shape shape, Attributes attrs = {}) {
  Instruction inst;
  inst.op = op;
  inst.operands = std::move(operands);
  inst.shape = std::move(shape);
  inst.attrs = std::move(attrs);
  return inst;
}

Program Make(std::vector<Instruction> instructions, std::vector<int> results) {
  Program p;
  p.instructions = std::move(instructions);
  p.results = std::move(results);
  return p;
}

std::string VerifyMessage(const Program& p) {
  absl::Status status = VerifyProgram(p);
  if (status.ok()) return "OK";
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

// The message of InferShape for `inst` applied to `operands`, or the shape it infers.
std::string Infer(const Instruction& inst, const std::vector<Shape>& operands) {
  absl::StatusOr<Shape> shape = InferShape(inst, operands);
  if (shape.ok()) return "OK " + shape->ToString();
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << shape.status();
  return std::string(shape.status().message());
}

TEST(IrVerifierTest, AcceptsValidProgram) {
  Program p = Make({Param(1, F32({2, 3})), Param(0, F32({3, 4})),
                    Node(Op::kDotGeneral, {0, 1}, F32({2, 4}),
                         {{"lhs_batch", {}},
                          {"lhs_contracting", {1}},
                          {"rhs_batch", {}},
                          {"rhs_contracting", {0}}}),
                    Node(Op::kReduceSum, {2}, F32({4}), {{"axes", {0}}})},
                   {3, 2, 3});
  EXPECT_EQ(VerifyMessage(p), "OK");
  int bad = 7;
  EXPECT_TRUE(VerifyProgram(p, &bad).ok());
  EXPECT_EQ(bad, -1);
}

TEST(IrVerifierTest, ProgramLevelErrors) {
  Program p = Make({Param(0, F32({}))}, {0});
  p.replica_count = 0;
  EXPECT_EQ(VerifyMessage(p), "replica count is 0, must be >= 1");
  p.replica_count = 1;
  p.results = {};
  EXPECT_EQ(VerifyMessage(p), "result tuple is empty");
  p.results = {0, 5};
  EXPECT_EQ(VerifyMessage(p),
            "result 1 refers to %5, which does not exist (program has 1 instructions)");
  p.results = {-1};
  EXPECT_EQ(VerifyMessage(p),
            "result 0 refers to %-1, which does not exist (program has 1 instructions)");
  int bad = 7;
  EXPECT_FALSE(VerifyProgram(p, &bad).ok());
  EXPECT_EQ(bad, -1);
}

TEST(IrVerifierTest, OperandErrors) {
  Program p = Make({Param(0, F32({4})), Param(1, F32({4})), Node(Op::kAdd, {0, 1}, F32({4})),
                    Node(Op::kAdd, {0, 7}, F32({4}))},
                   {3});
  EXPECT_EQ(VerifyMessage(p), "%3 (add): operand 1 refers to %7, which does not precede it");
  int bad = -1;
  EXPECT_FALSE(VerifyProgram(p, &bad).ok());
  EXPECT_EQ(bad, 3);
  p.instructions[3].operands = {3, 0};
  EXPECT_EQ(VerifyMessage(p), "%3 (add): operand 0 refers to %3, which does not precede it");
  p.instructions[3].operands = {0, -2};
  EXPECT_EQ(VerifyMessage(p), "%3 (add): operand 1 refers to %-2, which does not precede it");
  p.instructions[3].operands = {0};
  EXPECT_EQ(VerifyMessage(p), "%3 (add): has 1 operands, expected 2");
  p.instructions[3].operands = {0, 1, 2};
  EXPECT_EQ(VerifyMessage(p), "%3 (add): has 3 operands, expected 2");
  p.instructions[1].operands = {0};
  EXPECT_EQ(VerifyMessage(p), "%1 (parameter): has 1 operands, expected 0");
}

TEST(IrVerifierTest, ShapeErrors) {
  Program p = Make({Param(0, F32({4})), Param(1, F32({3})), Node(Op::kAdd, {0, 1}, F32({4}))}, {2});
  EXPECT_EQ(VerifyMessage(p), "%2 (add): operand 1 has shape f32[3], expected f32[4] (operand 0)");
  p.instructions[1].shape = F32({4});
  p.instructions[2].shape = F32({5});
  EXPECT_EQ(VerifyMessage(p), "%2 (add): declared shape f32[5] differs from inferred f32[4]");
  p.instructions[2].shape = S32({4});
  EXPECT_EQ(VerifyMessage(p), "%2 (add): declared shape s32[4] differs from inferred f32[4]");
  p.instructions[2].shape = F32({4});
  p.instructions[2].attrs["dims"] = {0};
  EXPECT_EQ(VerifyMessage(p), "%2 (add): unexpected attribute 'dims'");
  p.instructions[0].shape = F32({-4});
  EXPECT_EQ(VerifyMessage(p), "%0 (parameter): shape f32[-4]: dimension 0 is negative");
}

TEST(IrVerifierTest, ParameterIndexErrors) {
  Program p = Make({Param(0, F32({})), Param(2, F32({}))}, {0});
  EXPECT_EQ(VerifyMessage(p),
            "%1 (parameter): parameter index 2 is out of range, program has 2 parameters");
  p.instructions[1].parameter_index = -1;
  EXPECT_EQ(VerifyMessage(p),
            "%1 (parameter): parameter index -1 is out of range, program has 2 parameters");
  p.instructions[1].parameter_index = 0;
  EXPECT_EQ(VerifyMessage(p), "%1 (parameter): parameter index 0 is already used by %0");
  p.instructions[1].parameter_index = 1;
  EXPECT_EQ(VerifyMessage(p), "OK");
}

TEST(IrVerifierTest, InvalidOp) {
  Program p = Make({Param(0, F32({}))}, {0});
  p.instructions[0].op = static_cast<Op>(200);
  EXPECT_EQ(VerifyMessage(p), "%0: invalid op 200");
  EXPECT_EQ(Infer(p.instructions[0], {}), "invalid op 200");
}

TEST(IrShapeRulesTest, Leaf) {
  Instruction param = Param(0, F32({2, 3}));
  EXPECT_EQ(Infer(param, {}), "OK f32[2,3]");
  EXPECT_EQ(Infer(param, {F32({})}), "parameter: has 1 operands, expected 0");
  param.attrs["axes"] = {};
  EXPECT_EQ(Infer(param, {}), "parameter: unexpected attribute 'axes'");
  param.attrs.clear();
  param.literal = Literal::ScalarF32(1);
  EXPECT_EQ(Infer(param, {}), "parameter: has a literal value");
  param = Param(0, F32({4294967296, 4294967296}));
  EXPECT_EQ(Infer(param, {}), "parameter: shape f32[4294967296,4294967296]: size overflows int64");

  Instruction constant;
  constant.op = Op::kConstant;
  constant.shape = F32({2});
  constant.literal = Literal::FromF32({1, 2}, {2});
  EXPECT_EQ(Infer(constant, {}), "OK f32[2]");
  constant.parameter_index = 0;
  EXPECT_EQ(Infer(constant, {}), "constant: has parameter index 0");
  constant.parameter_index = -1;
  constant.shape = F32({3});
  EXPECT_EQ(Infer(constant, {}), "constant: literal has shape f32[2], declared shape is f32[3]");
  constant.shape = F32({2});
  constant.literal.bytes.pop_back();
  EXPECT_EQ(Infer(constant, {}), "constant: literal has 7 bytes, shape f32[2] needs 8");
}

TEST(IrShapeRulesTest, ElementwiseBinary) {
  Instruction sub = Node(Op::kSubtract, {0, 1}, F32({4}));
  EXPECT_EQ(Infer(sub, {F32({4}), F32({4})}), "OK f32[4]");
  EXPECT_EQ(Infer(sub, {F32({4}), S32({4})}),
            "subtract: operand 1 has shape s32[4], expected f32[4] (operand 0)");
  EXPECT_EQ(Infer(sub, {F32({4}), F32({})}),
            "subtract: operand 1 has shape f32[], expected f32[4] (operand 0)");
  EXPECT_EQ(Infer(sub, {F32({4})}), "subtract: has 1 operands, expected 2");
  EXPECT_EQ(Infer(sub, {F32({-2}), F32({-2})}),
            "subtract: operand 0: shape f32[-2]: dimension 0 is negative");
  sub.parameter_index = 3;
  EXPECT_EQ(Infer(sub, {F32({4}), F32({4})}), "subtract: has parameter index 3");
  sub.parameter_index = -1;
  sub.literal = Literal::FromS32({}, {0});
  EXPECT_EQ(Infer(sub, {F32({4}), F32({4})}), "subtract: has a literal value");
  Instruction mul = Node(Op::kMultiply, {0, 1}, S32({}), {{"axes", {}}});
  EXPECT_EQ(Infer(mul, {S32({}), S32({})}), "multiply: unexpected attribute 'axes'");
}

TEST(IrShapeRulesTest, BroadcastInDim) {
  Instruction b = Node(Op::kBroadcastInDim, {0}, F32({2, 3}), {{"dims", {1}}});
  EXPECT_EQ(Infer(b, {F32({3})}), "OK f32[2,3]");
  EXPECT_EQ(Infer(b, {F32({1})}), "OK f32[2,3]");
  EXPECT_EQ(Infer(b, {S32({3})}), "OK s32[2,3]");
  EXPECT_EQ(Infer(b, {F32({2})}),
            "broadcast_in_dim: operand f32[2] dimension 0 (2) cannot broadcast to result f32[2,3] "
            "dimension 1 (3)");
  EXPECT_EQ(Infer(b, {F32({3, 1})}),
            "broadcast_in_dim: dims={1} has 1 entries, operand f32[3,1] has rank 2");
  b.attrs["dims"] = {2};
  EXPECT_EQ(Infer(b, {F32({3})}),
            "broadcast_in_dim: dims[0]=2 is out of range for result f32[2,3] of rank 2");
  b.attrs["dims"] = {-1};
  EXPECT_EQ(Infer(b, {F32({3})}),
            "broadcast_in_dim: dims[0]=-1 is out of range for result f32[2,3] of rank 2");
  b.attrs["dims"] = {1, 0};
  EXPECT_EQ(Infer(b, {F32({3, 2})}), "broadcast_in_dim: dims={1,0} is not strictly increasing");
  b.attrs["dims"] = {1, 1};
  EXPECT_EQ(Infer(b, {F32({3, 3})}), "broadcast_in_dim: dims={1,1} is not strictly increasing");
  b.attrs["dims"] = {};
  EXPECT_EQ(Infer(b, {F32({})}), "OK f32[2,3]");
  b.shape = F32({2, -3});
  EXPECT_EQ(Infer(b, {F32({})}), "broadcast_in_dim: shape f32[2,-3]: dimension 1 is negative");
  b.attrs.clear();
  EXPECT_EQ(Infer(b, {F32({})}), "broadcast_in_dim: missing attribute 'dims'");
  b.attrs = {{"axes", {}}, {"dims", {}}};
  EXPECT_EQ(Infer(b, {F32({})}), "broadcast_in_dim: unexpected attribute 'axes'");
}

TEST(IrShapeRulesTest, Reduce) {
  Instruction r = Node(Op::kReduceSum, {0}, F32({}), {{"axes", {0, 2}}});
  EXPECT_EQ(Infer(r, {F32({2, 3, 4})}), "OK f32[3]");
  EXPECT_EQ(Infer(r, {S32({2, 3, 4})}), "OK s32[3]");
  r.attrs["axes"] = {};
  EXPECT_EQ(Infer(r, {F32({2, 3})}), "OK f32[2,3]");
  r.attrs["axes"] = {0, 1};
  EXPECT_EQ(Infer(r, {F32({2, 3})}), "OK f32[]");
  r.attrs["axes"] = {2};
  EXPECT_EQ(Infer(r, {F32({2, 3})}),
            "reduce_sum: axes[0]=2 is out of range for operand f32[2,3] of rank 2");
  r.attrs["axes"] = {0, -1};
  EXPECT_EQ(Infer(r, {F32({2, 3})}),
            "reduce_sum: axes[1]=-1 is out of range for operand f32[2,3] of rank 2");
  r.attrs["axes"] = {1, 0};
  EXPECT_EQ(Infer(r, {F32({2, 3})}), "reduce_sum: axes={1,0} is not strictly increasing");
  r.attrs.clear();
  EXPECT_EQ(Infer(r, {F32({2, 3})}), "reduce_sum: missing attribute 'axes'");
  EXPECT_EQ(Infer(r, {}), "reduce_sum: has 0 operands, expected 1");
}

TEST(IrShapeTest, ValidateShape) {
  EXPECT_TRUE(ValidateShape(F32({})).ok());
  EXPECT_TRUE(ValidateShape(F32({0, 4294967296})).ok());
  EXPECT_TRUE(ValidateShape(S32({1LL << 60})).ok());
  EXPECT_EQ(ValidateShape(S32({1LL << 61})).message(),
            "shape s32[2305843009213693952]: size overflows int64");
  EXPECT_EQ(ValidateShape(F32({3, -1})).message(), "shape f32[3,-1]: dimension 1 is negative");
  EXPECT_EQ(F32({2, 3}).num_elements(), 6);
  EXPECT_EQ(F32({}).num_elements(), 1);
  EXPECT_EQ(S32({2, 3}).byte_size(), 24u);
  EXPECT_EQ(S32({2, 0}).ToString(), "s32[2,0]");
}

TEST(IrProgramTest, Accessors) {
  Program p =
      Make({Param(1, S32({2})), Node(Op::kAdd, {0, 0}, S32({2})), Param(0, F32({}))}, {1, 2});
  EXPECT_EQ(p.num_parameters(), 2);
  EXPECT_EQ(p.ParameterShapes(), (std::vector<Shape>{F32({}), S32({2})}));
  EXPECT_EQ(p.ResultShapes(), (std::vector<Shape>{S32({2}), F32({})}));
  Op op;
  ASSERT_TRUE(ParseOpName("broadcast_in_dim", &op));
  EXPECT_EQ(op, Op::kBroadcastInDim);
  EXPECT_FALSE(ParseOpName("mul", &op));
  EXPECT_EQ(OpName(Op::kReduceSum), "reduce_sum");
  EXPECT_EQ(OpArity(Op::kDotGeneral), 2);
  EXPECT_EQ(OpArity(Op::kSelect), 3);
  EXPECT_EQ(OpArity(Op::kConcatenate), -1);
  EXPECT_EQ(OpArity(Op::kIota), 0);
  EXPECT_EQ(OpDTypes(Op::kExp), kFloatDTypes);
  EXPECT_EQ(OpDTypes(Op::kNot), kLogicalDTypes);
  EXPECT_EQ(ParseDType("s32"), DType::kS32);
  EXPECT_EQ(ParseDType("f64"), DType::kF64);
  EXPECT_EQ(ParseDType("bf16"), DType::kBF16);
  EXPECT_EQ(ParseDType("s64"), DType::kS64);
  EXPECT_EQ(ParseDType("pred"), DType::kPred);
  EXPECT_EQ(ParseDType("f16"), std::nullopt);
  Literal lit = Literal::FromS32({7, -8}, {2});
  EXPECT_EQ(lit.shape, S32({2}));
  EXPECT_EQ(lit.s32()[1], -8);
}

}  // namespace
}  // namespace seam::ir
