// lazy::MakeNode takes a shortcut for elementwise ops of one float shape, for plain
// matrix products and for valid broadcasts; its shapes must be exactly those of
// ir::InferShape, and anything the rule rejects must still be rejected with the rule's
// message.
#include <tuple>

#include <gtest/gtest.h>

#include "seam/tensor.h"
#include "src/ir/shape_rules.h"
#include "src/lazy/tensor_internal.h"

namespace seam::lazy {
namespace {

NodePtr Leaf(ir::DType dtype, std::vector<int64_t> dims) {
  return DataLeaf(FullLiteral(dtype, dims, 1.0));
}

ir::Shape RuleShape(ir::Op op, const std::vector<NodePtr>& operands, const ir::Attributes& attrs,
                    ir::Shape declared = {}) {
  ir::Instruction inst;
  inst.op = op;
  inst.attrs = attrs;
  inst.shape = std::move(declared);
  std::vector<ir::Shape> shapes;
  for (const NodePtr& n : operands) shapes.push_back(n->shape);
  absl::StatusOr<ir::Shape> shape = ir::InferShape(inst, shapes);
  EXPECT_TRUE(shape.ok()) << shape.status();
  return shape.ok() ? *shape : ir::Shape{};
}

ir::Attributes Dot(std::vector<int64_t> lc, std::vector<int64_t> rc) {
  return {{"lhs_batch", {}}, {"rhs_batch", {}}, {"lhs_contracting", lc}, {"rhs_contracting", rc}};
}

TEST(MakeNodeTest, ShortcutShapesEqualTheRule) {
  NodePtr a = Leaf(ir::DType::kF32, {3, 4}), b = Leaf(ir::DType::kF32, {3, 4});
  NodePtr d = Leaf(ir::DType::kF64, {5});
  for (ir::Op op : {ir::Op::kAdd, ir::Op::kSubtract, ir::Op::kMultiply, ir::Op::kDivide,
                    ir::Op::kMaximum, ir::Op::kMinimum, ir::Op::kPower, ir::Op::kEq, ir::Op::kGe,
                    ir::Op::kLt}) {
    EXPECT_EQ(MakeNode(op, {a, b}, {})->shape, RuleShape(op, {a, b}, {})) << ir::OpName(op);
  }
  for (ir::Op op : {ir::Op::kNeg, ir::Op::kExp, ir::Op::kLog, ir::Op::kTanh, ir::Op::kSqrt}) {
    EXPECT_EQ(MakeNode(op, {d}, {})->shape, RuleShape(op, {d}, {})) << ir::OpName(op);
  }
  NodePtr m = Leaf(ir::DType::kF32, {4, 7}), n = Leaf(ir::DType::kF32, {7, 4});
  for (auto [lc, rc, lhs, rhs] : {std::tuple{1, 0, a, m}, std::tuple{0, 0, a, b},
                                  std::tuple{1, 1, a, b}, std::tuple{0, 1, m, n}}) {
    ir::Attributes attrs = Dot({lc}, {rc});
    EXPECT_EQ(MakeNode(ir::Op::kDotGeneral, {lhs, rhs}, attrs)->shape,
              RuleShape(ir::Op::kDotGeneral, {lhs, rhs}, attrs));
  }
}

TEST(MakeNodeTest, BroadcastShortcutEqualsTheRule) {
  NodePtr v = Leaf(ir::DType::kF32, {4}), s = Leaf(ir::DType::kS32, {});
  NodePtr m = Leaf(ir::DType::kF32, {3, 1});
  struct Case {
    NodePtr x;
    std::vector<int64_t> mapping, dims;
  };
  for (const Case& c : {Case{v, {1}, {3, 4}}, Case{v, {0}, {4, 2}}, Case{s, {}, {2, 5}},
                        Case{m, {0, 1}, {3, 6}}, Case{m, {0, 2}, {3, 2, 1}}, Case{v, {0}, {4}}}) {
    ir::Attributes attrs{{"dims", c.mapping}};
    ir::Shape declared{ir::DType::kF32, c.dims};
    EXPECT_EQ(MakeNode(ir::Op::kBroadcastInDim, {c.x}, attrs, declared)->shape,
              RuleShape(ir::Op::kBroadcastInDim, {c.x}, attrs, declared));
  }
}

TEST(MakeNodeTest, WhatTheRuleRejectsIsStillRejected) {
  NodePtr a = Leaf(ir::DType::kF32, {3, 4}), c = Leaf(ir::DType::kF32, {4, 3});
  NodePtr i = Leaf(ir::DType::kS32, {3, 4});
  try {
    MakeNode(ir::Op::kDotGeneral, {a, c}, Dot({0}, {1}));  // 3 vs 3 fine; next is not
    MakeNode(ir::Op::kDotGeneral, {a, c}, Dot({1}, {1}));  // 4 vs 3
    FAIL() << "contracting sizes 4 and 3 were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("contracting dimension sizes differ"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(MakeNode(ir::Op::kDotGeneral, {a, i}, Dot({1}, {0})), Error);  // dtypes
  EXPECT_THROW(MakeNode(ir::Op::kAdd, {a, c}, {}), Error);                    // shapes
  EXPECT_THROW(MakeNode(ir::Op::kAnd, {a, a}, {}), Error);  // and is not for floats
  // Broadcasts the shortcut leaves to the rule: each is rejected with the rule's message.
  NodePtr v = Leaf(ir::DType::kF32, {4});
  struct Bad {
    std::vector<int64_t> mapping, dims;
    const char* message;
  };
  for (const Bad& bad : {Bad{{0}, {3, 4}, "cannot broadcast"}, Bad{{2}, {3, 4}, "out of range"},
                         Bad{{}, {3, 4}, "dims"}, Bad{{1}, {3, -4}, "negative"}}) {
    try {
      MakeNode(ir::Op::kBroadcastInDim, {v}, {{"dims", bad.mapping}},
               ir::Shape{ir::DType::kF32, bad.dims});
      FAIL() << "accepted: " << bad.message;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad.message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace seam::lazy
