// Shape rules and verifier checks of the ops beyond the first few (ir_verifier_test.cc
// covers the program-level checks, broadcast_in_dim and reduce_sum).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/shape_rules.h"
#include "src/ir/verifier.h"

namespace seam::ir {
namespace {

Shape F32(std::vector<int64_t> dims) { return Shape{DType::kF32, std::move(dims)}; }
Shape S32(std::vector<int64_t> dims) { return Shape{DType::kS32, std::move(dims)}; }
Shape Pred(std::vector<int64_t> dims) { return Shape{DType::kPred, std::move(dims)}; }

Instruction Node(Op op, Attributes attrs = {}, Shape declared = {}) {
  Instruction inst;
  inst.op = op;
  inst.attrs = std::move(attrs);
  inst.shape = std::move(declared);
  return inst;
}

std::string Infer(const Instruction& inst, const std::vector<Shape>& operands) {
  absl::StatusOr<Shape> shape = InferShape(inst, operands);
  if (shape.ok()) return "OK " + shape->ToString();
  EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << shape.status();
  return std::string(shape.status().message());
}

// A program of parameters with `shapes`, then `inst` on all of them.
std::string Verify(Instruction inst, const std::vector<Shape>& shapes, int64_t replicas = 1) {
  Program p;
  p.replica_count = replicas;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Instruction param;
    param.op = Op::kParameter;
    param.parameter_index = static_cast<int64_t>(i);
    param.shape = shapes[i];
    p.instructions.push_back(param);
    inst.operands.push_back(static_cast<int>(i));
  }
  p.instructions.push_back(std::move(inst));
  p.results = {static_cast<int>(p.instructions.size()) - 1};
  absl::Status status = VerifyProgram(p);
  return status.ok() ? "OK" : std::string(status.message());
}

TEST(IrShapeRulesTest, EveryOpRefusesTheDTypesOutsideItsRow) {
  int refused = 0;
  for (int i = 0; i < kNumOps; ++i) {
    Op op = static_cast<Op>(i);
    for (DType dtype : kAllDTypeList) {
      if (Contains(OpDTypes(op), dtype)) continue;
      Instruction inst = Node(op, {}, Shape{dtype, {2}});
      std::vector<Shape> operands(OpArity(op) < 0 ? 1 : OpArity(op), Shape{dtype, {2}});
      std::string set = DTypeSetToString(OpDTypes(op));
      // rng_bit_generator's row names its result's dtypes (its operands are always s64).
      std::string expected = operands.empty() || op == Op::kRngBitGenerator
                                 ? std::string(OpName(op)) + ": result element type " +
                                       std::string(DTypeName(dtype)) + " is not one of " + set
                                 : std::string(OpName(op)) + ": operand 0 has element type " +
                                       std::string(DTypeName(dtype)) + ", expected " + set;
      EXPECT_EQ(Infer(inst, operands), expected);
      ++refused;
    }
  }
  // s32, s64 and pred for each windowed op (15) and erf (3); pred for scatter_add, clamp,
  // argmax, argmin, cumsum and argsort (6); f32, f64, bf16 and pred results of
  // rng_bit_generator (4).
  EXPECT_EQ(refused, 83);
  EXPECT_EQ(Infer(Node(Op::kExp), {S32({2})}),
            "exp: operand 0 has element type s32, expected f32, f64 or bf16");
  EXPECT_EQ(Infer(Node(Op::kAnd), {F32({2}), F32({2})}),
            "and: operand 0 has element type f32, expected s32, s64 or pred");
  EXPECT_EQ(Infer(Node(Op::kAdd), {S32({2}), Pred({2})}),
            "add: operand 1 has element type pred, expected f32, f64, bf16, s32 or s64");
  EXPECT_EQ(Infer(Node(Op::kIota, {{"dimension", {0}}}, Pred({2})), {}),
            "iota: result element type pred is not one of f32, f64, bf16, s32 or s64");
}

TEST(IrShapeRulesTest, ElementwiseAndCompare) {
  EXPECT_EQ(Infer(Node(Op::kTanh), {F32({2, 0})}), "OK f32[2,0]");
  EXPECT_EQ(Infer(Node(Op::kNot), {Pred({})}), "OK pred[]");
  EXPECT_EQ(Infer(Node(Op::kNot), {S32({3})}), "OK s32[3]");
  EXPECT_EQ(Infer(Node(Op::kNeg, {{"axes", {}}}), {S32({3})}), "neg: unexpected attribute 'axes'");
  EXPECT_EQ(Infer(Node(Op::kPower), {S32({3}), S32({3})}), "OK s32[3]");
  EXPECT_EQ(Infer(Node(Op::kLt), {F32({3}), F32({3})}), "OK pred[3]");
  EXPECT_EQ(Infer(Node(Op::kEq), {Pred({}), Pred({})}), "OK pred[]");
  EXPECT_EQ(Infer(Node(Op::kGe), {F32({3}), F32({2})}),
            "ge: operand 1 has shape f32[2], expected f32[3] (operand 0)");
  EXPECT_EQ(Verify(Node(Op::kNe, {}, F32({3})), {S32({3}), S32({3})}),
            "%2 (ne): declared shape f32[3] differs from inferred pred[3]");
}

TEST(IrShapeRulesTest, Select) {
  Instruction select = Node(Op::kSelect);
  EXPECT_EQ(Infer(select, {Pred({2}), F32({2}), F32({2})}), "OK f32[2]");
  EXPECT_EQ(Infer(select, {Pred({}), Pred({}), Pred({})}), "OK pred[]");
  EXPECT_EQ(Infer(select, {S32({2}), F32({2}), F32({2})}),
            "select: operand 0 (the predicate) has shape s32[2], expected pred[2]");
  EXPECT_EQ(Infer(select, {Pred({}), F32({2}), F32({2})}),
            "select: operand 0 (the predicate) has shape pred[], expected pred[2]");
  EXPECT_EQ(Infer(select, {Pred({2}), F32({2}), S32({2})}),
            "select: operand 2 has shape s32[2], expected f32[2] (operand 1)");
  EXPECT_EQ(Infer(select, {Pred({2}), F32({2})}), "select: has 2 operands, expected 3");
}

TEST(IrShapeRulesTest, Convert) {
  EXPECT_EQ(Infer(Node(Op::kConvert, {}, Shape{DType::kBF16, {}}), {S32({2, 3})}), "OK bf16[2,3]");
  EXPECT_EQ(Infer(Node(Op::kConvert, {}, Pred({})), {Pred({4})}), "OK pred[4]");
  EXPECT_EQ(Verify(Node(Op::kConvert, {}, Shape{DType::kS64, {3}}), {F32({2})}),
            "%1 (convert): declared shape s64[3] differs from inferred s64[2]");
  EXPECT_EQ(Infer(Node(Op::kConvert, {}, Shape{static_cast<DType>(9), {}}), {F32({2})}),
            "convert: shape has invalid dtype 9");
}

TEST(IrShapeRulesTest, Reshape) {
  EXPECT_EQ(Infer(Node(Op::kReshape, {}, F32({3, 1, 2})), {S32({6})}), "OK s32[3,1,2]");
  EXPECT_EQ(Infer(Node(Op::kReshape, {}, F32({})), {F32({1, 1})}), "OK f32[]");
  EXPECT_EQ(Infer(Node(Op::kReshape, {}, F32({0, 5})), {F32({3, 0})}), "OK f32[0,5]");
  EXPECT_EQ(Infer(Node(Op::kReshape, {}, F32({4})), {F32({2, 3})}),
            "reshape: operand f32[2,3] has 6 elements, result f32[4] has 4");
  EXPECT_EQ(Infer(Node(Op::kReshape, {}, F32({-6})), {F32({6})}),
            "reshape: shape f32[-6]: dimension 0 is negative");
}

TEST(IrShapeRulesTest, Transpose) {
  Instruction t = Node(Op::kTranspose, {{"permutation", {2, 0, 1}}});
  EXPECT_EQ(Infer(t, {F32({2, 3, 4})}), "OK f32[4,2,3]");
  EXPECT_EQ(Infer(t, {F32({2, 3})}),
            "transpose: permutation={2,0,1} has 3 entries, operand f32[2,3] has rank 2");
  t.attrs["permutation"] = {0, 0};
  EXPECT_EQ(Infer(t, {F32({2, 3})}), "transpose: permutation={0,0} is not a permutation of 0..1");
  t.attrs["permutation"] = {0, 2};
  EXPECT_EQ(Infer(t, {F32({2, 3})}), "transpose: permutation={0,2} is not a permutation of 0..1");
  t.attrs["permutation"] = {};
  EXPECT_EQ(Infer(t, {S32({})}), "OK s32[]");
  EXPECT_EQ(Infer(Node(Op::kTranspose), {S32({})}), "transpose: missing attribute 'permutation'");
}

TEST(IrShapeRulesTest, Slice) {
  Instruction s = Node(Op::kSlice, {{"start", {1, 0}}, {"limit", {4, 3}}, {"stride", {2, 1}}});
  EXPECT_EQ(Infer(s, {F32({5, 3})}), "OK f32[2,3]");
  s.attrs["stride"] = {3, 2};
  EXPECT_EQ(Infer(s, {F32({5, 3})}), "OK f32[1,2]");
  s.attrs["start"] = {4, 0};
  EXPECT_EQ(Infer(s, {F32({5, 3})}), "OK f32[0,2]");
  s.attrs["start"] = {5, 0};
  EXPECT_EQ(Infer(s, {F32({5, 3})}),
            "slice: start[0]=5 and limit[0]=4 must satisfy 0 <= start <= limit <= 5 (dimension 0 "
            "of operand f32[5,3])");
  s.attrs["start"] = {0, -1};
  EXPECT_EQ(Infer(s, {F32({5, 3})}),
            "slice: start[1]=-1 and limit[1]=3 must satisfy 0 <= start <= limit <= 3 (dimension 1 "
            "of operand f32[5,3])");
  s.attrs["start"] = {0, 0};
  s.attrs["limit"] = {6, 3};
  EXPECT_EQ(Infer(s, {F32({5, 3})}),
            "slice: start[0]=0 and limit[0]=6 must satisfy 0 <= start <= limit <= 5 (dimension 0 "
            "of operand f32[5,3])");
  s.attrs["limit"] = {5, 3};
  s.attrs["stride"] = {1, 0};
  EXPECT_EQ(Infer(s, {F32({5, 3})}), "slice: stride[1]=0 must be >= 1");
  s.attrs["stride"] = {1};
  EXPECT_EQ(Infer(s, {F32({5, 3})}),
            "slice: stride={1} has 1 entries, operand f32[5,3] has rank 2");
  s.attrs.erase("stride");
  EXPECT_EQ(Infer(s, {F32({5, 3})}), "slice: missing attribute 'stride'");
}

TEST(IrShapeRulesTest, Concatenate) {
  Instruction c = Node(Op::kConcatenate, {{"dimension", {1}}});
  EXPECT_EQ(Infer(c, {F32({2, 3}), F32({2, 0}), F32({2, 4})}), "OK f32[2,7]");
  EXPECT_EQ(Infer(c, {S32({2, 3})}), "OK s32[2,3]");
  EXPECT_EQ(Infer(c, {}), "concatenate: has 0 operands, expected at least 1");
  EXPECT_EQ(Infer(c, {F32({2, 3}), F32({3, 3})}),
            "concatenate: operand 1 has shape f32[3,3], which differs from operand 0 f32[2,3] "
            "outside dimension 1");
  EXPECT_EQ(Infer(c, {F32({2, 3}), F32({2})}),
            "concatenate: operand 1 has shape f32[2], which differs from operand 0 f32[2,3] "
            "outside dimension 1");
  EXPECT_EQ(Infer(c, {F32({2, 3}), S32({2, 3})}),
            "concatenate: operand 1 has shape s32[2,3], which differs from operand 0 f32[2,3] "
            "outside dimension 1");
  EXPECT_EQ(Infer(c, {F32({3})}),
            "concatenate: dimension=1 is out of range for operand 0 f32[3] of rank 1");
  EXPECT_EQ(Infer(c, {F32({})}),
            "concatenate: dimension=1 is out of range for operand 0 f32[] of rank 0");
  c.attrs["dimension"] = {0, 1};
  EXPECT_EQ(Infer(c, {F32({2, 3})}), "concatenate: dimension={0,1} must have exactly one entry");
  c.attrs["dimension"] = {0};
  EXPECT_EQ(Infer(c, {Pred({INT64_MAX / 2 + 1}), Pred({INT64_MAX / 2 + 1})}),
            "concatenate: dimension 0 of the result overflows int64");
  Program p;
  p.instructions = {Node(Op::kConcatenate, {{"dimension", {0}}}, F32({}))};
  p.results = {0};
  EXPECT_EQ(VerifyProgram(p).message(), "%0 (concatenate): has 0 operands, expected at least 1");
}

TEST(IrShapeRulesTest, Pad) {
  Instruction pad = Node(Op::kPad, {{"low", {1, -1}}, {"high", {0, 2}}, {"interior", {2, 0}}});
  // dim 0: 1 + 0 + 3 + 2*2 = 8; dim 1: -1 + 2 + 4 = 5.
  EXPECT_EQ(Infer(pad, {F32({3, 4}), F32({})}), "OK f32[8,5]");
  EXPECT_EQ(Infer(pad, {F32({0, 4}), F32({})}), "OK f32[1,5]");
  EXPECT_EQ(Infer(pad, {F32({3, 4}), F32({1})}),
            "pad: operand 1 (the padding value) has shape f32[1], expected f32[]");
  EXPECT_EQ(Infer(pad, {F32({3, 4}), S32({})}),
            "pad: operand 1 (the padding value) has shape s32[], expected f32[]");
  EXPECT_EQ(Infer(pad, {F32({3}), F32({})}),
            "pad: low={1,-1} has 2 entries, operand f32[3] has rank 1");
  pad.attrs["interior"] = {-1, 0};
  EXPECT_EQ(Infer(pad, {F32({3, 4}), F32({})}), "pad: interior[0]=-1 is negative");
  pad.attrs["interior"] = {0, 0};
  pad.attrs["low"] = {1, -7};
  EXPECT_EQ(Infer(pad, {F32({3, 4}), F32({})}),
            "pad: dimension 1 of the result would have size < 0 (low=-7, high=2, interior=0, "
            "operand dimension 4)");
  pad.attrs["low"] = {INT64_MAX, 0};
  pad.attrs["high"] = {INT64_MAX, 0};
  EXPECT_EQ(Infer(pad, {F32({3, 4}), F32({})}),
            "pad: dimension 0 of the result would have size > int64 max (low=9223372036854775807, "
            "high=9223372036854775807, interior=0, operand dimension 3)");
}

TEST(IrShapeRulesTest, Iota) {
  Instruction iota = Node(Op::kIota, {{"dimension", {1}}}, S32({2, 3}));
  EXPECT_EQ(Infer(iota, {}), "OK s32[2,3]");
  iota.attrs["dimension"] = {2};
  EXPECT_EQ(Infer(iota, {}), "iota: dimension=2 is out of range for result s32[2,3] of rank 2");
  iota.attrs["dimension"] = {};
  EXPECT_EQ(Infer(iota, {}), "iota: dimension={} must have exactly one entry");
  iota.attrs["dimension"] = {0};
  iota.shape = F32({});
  EXPECT_EQ(Infer(iota, {}), "iota: dimension=0 is out of range for result f32[] of rank 0");
  iota.shape = F32({-1});
  EXPECT_EQ(Infer(iota, {}), "iota: shape f32[-1]: dimension 0 is negative");
  iota.shape = F32({2});
  iota.parameter_index = 0;
  EXPECT_EQ(Infer(iota, {}), "iota: has parameter index 0");
  iota.parameter_index = -1;
  EXPECT_EQ(Infer(iota, {F32({2})}), "iota: has 1 operands, expected 0");
}

TEST(IrShapeRulesTest, ReduceKinds) {
  for (Op op : {Op::kReduceProduct, Op::kReduceMax, Op::kReduceMin}) {
    Instruction r = Node(op, {{"axes", {1}}});
    EXPECT_EQ(Infer(r, {S32({2, 3})}), "OK s32[2]");
    r.attrs["axes"] = {1, 1};
    EXPECT_EQ(Infer(r, {S32({2, 3})}),
              std::string(OpName(op)) + ": axes={1,1} is not strictly increasing");
  }
}

TEST(IrShapeRulesTest, DotGeneral) {
  using Dims = std::vector<int64_t>;
  auto dot = [](Dims lb, Dims lc, Dims rb, Dims rc) {
    return Node(
        Op::kDotGeneral,
        {{"lhs_batch", lb}, {"lhs_contracting", lc}, {"rhs_batch", rb}, {"rhs_contracting", rc}});
  };
  EXPECT_EQ(Infer(dot({}, {1}, {}, {0}), {F32({2, 3}), F32({3, 5})}), "OK f32[2,5]");
  EXPECT_EQ(Infer(dot({}, {}, {}, {}), {S32({2}), S32({3})}), "OK s32[2,3]");
  EXPECT_EQ(Infer(dot({}, {0}, {}, {0}), {Pred({4}), Pred({4})}), "OK pred[]");
  // Batch dimensions first (lhs_batch order), then lhs free, then rhs free.
  EXPECT_EQ(Infer(dot({2, 0}, {1}, {1, 3}, {0}), {F32({7, 3, 2, 5}), F32({3, 2, 9, 7})}),
            "OK f32[2,7,5,9]");
  EXPECT_EQ(Infer(dot({}, {1}, {}, {0}), {F32({2, 3}), F32({4, 5})}),
            "dot_general: contracting dimension sizes differ: lhs f32[2,3] dimension 1 is 3, rhs "
            "f32[4,5] dimension 0 is 4");
  EXPECT_EQ(Infer(dot({0}, {}, {0}, {}), {F32({2, 3}), F32({4, 5})}),
            "dot_general: batch dimension sizes differ: lhs f32[2,3] dimension 0 is 2, rhs "
            "f32[4,5] dimension 0 is 4");
  EXPECT_EQ(Infer(dot({}, {1}, {}, {0}), {F32({2, 3}), S32({3, 5})}),
            "dot_general: operand dtypes differ: lhs f32[2,3], rhs s32[3,5]");
  EXPECT_EQ(Infer(dot({}, {1}, {}, {}), {F32({2, 3}), F32({3})}),
            "dot_general: lhs_contracting={1} and rhs_contracting={} have different lengths");
  EXPECT_EQ(Infer(dot({0}, {}, {}, {}), {F32({2, 3}), F32({3})}),
            "dot_general: lhs_batch={0} and rhs_batch={} have different lengths");
  EXPECT_EQ(Infer(dot({}, {2}, {}, {0}), {F32({2, 3}), F32({3})}),
            "dot_general: lhs_contracting[0]=2 is out of range for lhs f32[2,3] of rank 2");
  EXPECT_EQ(Infer(dot({}, {1}, {}, {-1}), {F32({2, 3}), F32({3})}),
            "dot_general: rhs_contracting[0]=-1 is out of range for rhs f32[3] of rank 1");
  EXPECT_EQ(Infer(dot({1}, {1}, {0}, {1}), {F32({2, 3}), F32({3, 3})}),
            "dot_general: lhs dimension 1 is listed more than once in lhs_batch and "
            "lhs_contracting");
  EXPECT_EQ(Infer(dot({}, {0, 0}, {}, {0, 1}), {F32({3}), F32({3, 3})}),
            "dot_general: lhs dimension 0 is listed more than once in lhs_batch and "
            "lhs_contracting");
  EXPECT_EQ(Infer(Node(Op::kDotGeneral, {{"lhs_batch", {}}}), {F32({3}), F32({3})}),
            "dot_general: missing attribute 'lhs_contracting'");
}

TEST(IrShapeRulesTest, AllReduce) {
  Instruction ar =
      Node(Op::kAllReduceSum, {{"replica_groups", {0, 2, 1, 3}}, {"group_size", {2}}}, F32({2}));
  EXPECT_EQ(Infer(ar, {F32({2})}), "OK f32[2]");
  EXPECT_EQ(Verify(ar, {F32({2})}, 4), "OK");
  EXPECT_EQ(Verify(ar, {F32({2})}, 3),
            "%1 (all_reduce_sum): replica_groups[3]=3 is out of range for replicas=3");
  EXPECT_EQ(Verify(ar, {F32({2})}, 5),
            "%1 (all_reduce_sum): replica_groups lists 4 replicas, the program has 5 (every "
            "replica must be in exactly one group)");
  EXPECT_EQ(Infer(ar, {Pred({2})}),
            "all_reduce_sum: operand 0 has element type pred, expected f32, f64, bf16, s32 or s64");
  ar.attrs["group_size"] = {3};
  EXPECT_EQ(Infer(ar, {F32({2})}),
            "all_reduce_sum: replica_groups has 4 entries, not a multiple of group_size=3");
  ar.attrs["group_size"] = {0};
  EXPECT_EQ(Infer(ar, {F32({2})}), "all_reduce_sum: group_size=0 must be >= 1");
  ar.attrs["group_size"] = {1, 2};
  EXPECT_EQ(Infer(ar, {F32({2})}), "all_reduce_sum: group_size={1,2} must have exactly one entry");
  ar.attrs["group_size"] = {2};
  ar.attrs["replica_groups"] = {0, -1};
  EXPECT_EQ(Infer(ar, {F32({2})}), "all_reduce_sum: replica_groups[1]=-1 is negative");
  ar.attrs["replica_groups"] = {1, 1};
  EXPECT_EQ(Infer(ar, {F32({2})}), "all_reduce_sum: replica 1 appears twice in replica_groups");
  ar.op = Op::kAllReduceMax;
  ar.attrs.erase("replica_groups");
  EXPECT_EQ(Infer(ar, {F32({2})}), "all_reduce_max: missing attribute 'replica_groups'");
}

TEST(IrShapeRulesTest, PredConstantsHoldOnlyZeroAndOne) {
  Instruction c;
  c.op = Op::kConstant;
  c.shape = Pred({3});
  c.literal = Literal::FromPred({true, false, true}, {3});
  EXPECT_EQ(Infer(c, {}), "OK pred[3]");
  c.literal.bytes[2] = 2;
  EXPECT_EQ(Infer(c, {}), "constant: pred value 2 is 2, must be 0 or 1");
}

}  // namespace
}  // namespace seam::ir
