// lazy::MakeNode takes a shortcut for elementwise ops (compare, select and convert too) whose
// operands agree, plain matrix products, valid broadcasts, reshapes and reductions; its
// shapes must be exactly those of ir::InferShape, and anything the rule rejects must still
// be rejected with the rule's message.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <utility>

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
  for (ir::Op op :
       {ir::Op::kAdd, ir::Op::kSubtract, ir::Op::kMultiply, ir::Op::kDivide, ir::Op::kMaximum,
        ir::Op::kMinimum, ir::Op::kPower, ir::Op::kEq, ir::Op::kGe, ir::Op::kLt}) {
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

TEST(MakeNodeTest, ReshapeReduceConvertAndSelectShortcutsEqualTheRule) {
  NodePtr m = Leaf(ir::DType::kF32, {3, 4}), k = Leaf(ir::DType::kS32, {3, 4});
  NodePtr t = Leaf(ir::DType::kF64, {2, 3, 4}), e = Leaf(ir::DType::kF32, {0, 5});
  struct Case {
    NodePtr x;
    std::vector<int64_t> values;
  };
  for (const Case& c :
       {Case{m, {12}}, Case{m, {4, 3, 1}}, Case{k, {2, 6}}, Case{t, {24}}, Case{e, {5, 0, 7}}}) {
    ir::Shape declared{c.x->shape.dtype, c.values};
    EXPECT_EQ(MakeNode(ir::Op::kReshape, {c.x}, {}, declared)->shape,
              RuleShape(ir::Op::kReshape, {c.x}, {}, declared));
  }
  for (ir::Op op :
       {ir::Op::kReduceSum, ir::Op::kReduceMax, ir::Op::kReduceMin, ir::Op::kReduceProduct}) {
    for (const Case& c : {Case{m, {1}}, Case{m, {0}}, Case{m, {0, 1}}, Case{m, {}}, Case{k, {1}},
                          Case{t, {0, 2}}, Case{e, {0}}}) {
      ir::Attributes attrs{{"axes", c.values}};
      EXPECT_EQ(MakeNode(op, {c.x}, attrs)->shape, RuleShape(op, {c.x}, attrs)) << ir::OpName(op);
    }
  }
  for (const auto& [x, dtype] : {std::pair{m, ir::DType::kS32}, std::pair{k, ir::DType::kF32},
                                 std::pair{t, ir::DType::kPred}, std::pair{m, ir::DType::kF32}}) {
    ir::Shape declared{dtype, x->shape.dims};
    EXPECT_EQ(MakeNode(ir::Op::kConvert, {x}, {}, declared)->shape,
              RuleShape(ir::Op::kConvert, {x}, {}, declared));
  }
  NodePtr p = Leaf(ir::DType::kPred, {3, 4});
  for (const auto& [a, b] : {std::pair{m, m}, std::pair{k, k}, std::pair{p, p}}) {
    EXPECT_EQ(MakeNode(ir::Op::kSelect, {p, a, b}, {})->shape,
              RuleShape(ir::Op::kSelect, {p, a, b}, {}));
  }
  // Integer and pred elementwise ops.
  for (ir::Op op : {ir::Op::kAdd, ir::Op::kMultiply, ir::Op::kEq, ir::Op::kLt, ir::Op::kAnd}) {
    EXPECT_EQ(MakeNode(op, {k, k}, {})->shape, RuleShape(op, {k, k}, {})) << ir::OpName(op);
  }
  EXPECT_EQ(MakeNode(ir::Op::kNeg, {k}, {})->shape, RuleShape(ir::Op::kNeg, {k}, {}));
  EXPECT_EQ(MakeNode(ir::Op::kNot, {p}, {})->shape, RuleShape(ir::Op::kNot, {p}, {}));
  EXPECT_EQ(MakeNode(ir::Op::kEq, {p, p}, {})->shape, RuleShape(ir::Op::kEq, {p, p}, {}));
}

TEST(MakeNodeTest, ReshapeReduceConvertAndSelectRejectionsAreTheRules) {
  NodePtr m = Leaf(ir::DType::kF32, {3, 4}), p = Leaf(ir::DType::kPred, {3, 4});
  NodePtr other = Leaf(ir::DType::kF32, {4, 3});
  auto expect_error = [](const std::function<void()>& record, const std::string& part) {
    try {
      record();
      ADD_FAILURE() << "accepted; expected an error with: " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error(
      [&] {
        MakeNode(ir::Op::kReshape, {m}, {}, ir::Shape{ir::DType::kF32, {5}});
      },
      "elements");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReshape, {m}, {}, ir::Shape{ir::DType::kF32, {-12}});
      },
      "negative");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReduceSum, {m}, ir::Attributes{{"axes", {1, 0}}});
      },
      "not strictly increasing");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReduceSum, {m}, ir::Attributes{{"axes", {1, 1}}});
      },
      "not strictly increasing");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReduceMax, {m}, ir::Attributes{{"axes", {2}}});
      },
      "out of range");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReduceMax, {m}, ir::Attributes{{"axes", {-1}}});
      },
      "out of range");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReduceSum, {p}, ir::Attributes{{"axes", {0}}});
      },
      "element type");
  expect_error(
      [&] {
        MakeNode(ir::Op::kReduceSum, {m}, ir::Attributes{{"dims", {0}}});
      },
      "attribute");
  expect_error([&] { MakeNode(ir::Op::kSelect, {m, m, m}, {}); }, "predicate");
  expect_error([&] { MakeNode(ir::Op::kSelect, {p, m, other}, {}); }, "operand 2");
  expect_error([&] { MakeNode(ir::Op::kNeg, {p}, {}); }, "element type");
  expect_error([&] { MakeNode(ir::Op::kAdd, {p, p}, {}); }, "element type");
  expect_error(
      [&] {
        MakeNode(ir::Op::kConvert, {m}, ir::Attributes{{"axes", {0}}});
      },
      "attribute");
}

TEST(MakeNodeTest, EqualAttributesAreOneSharedSet) {
  NodePtr m = Leaf(ir::DType::kF32, {3, 4});
  const std::vector<int64_t> one = {1};
  NodePtr a = MakeNode(ir::Op::kReduceSum, {m}, {{"axes", one}});
  NodePtr b = MakeNode(ir::Op::kReduceMax, {m}, ir::Attributes{{"axes", {1}}});
  ASSERT_NE(a->attributes, nullptr);
  EXPECT_EQ(a->attributes, b->attributes);
  EXPECT_EQ(a->attrs(), (ir::Attributes{{"axes", {1}}}));
  // Given in any order, with the first of a repeated name counting (as in a map).
  const std::vector<int64_t> empty, zero = {0}, two = {2};
  NodePtr c = Leaf(ir::DType::kF32, {4, 3});
  NodePtr d1 = MakeNode(ir::Op::kDotGeneral, {m, c},
                        {{"rhs_contracting", zero},
                         {"lhs_batch", empty},
                         {"rhs_batch", empty},
                         {"lhs_contracting", one},
                         {"lhs_contracting", two}});
  NodePtr d2 = MakeNode(ir::Op::kDotGeneral, {m, c}, Dot({1}, {0}));
  EXPECT_EQ(d1->attributes, d2->attributes);
  EXPECT_EQ(d1->attrs(), Dot({1}, {0}));
  EXPECT_EQ(d1->shape, (ir::Shape{ir::DType::kF32, {3, 3}}));
  EXPECT_EQ(MakeNode(ir::Op::kAdd, {m, m}, {})->attributes, nullptr);
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
                         Bad{{}, {3, 4}, "dims"}, Bad{{1}, {3, -4}, "negative"},
                         Bad{{1}, {int64_t{1} << 62, 4}, "overflows"}}) {
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
