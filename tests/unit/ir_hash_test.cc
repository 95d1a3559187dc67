#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"

namespace seam::ir {
namespace {

Shape F32(std::vector<int64_t> dims) { return Shape{DType::kF32, std::move(dims)}; }

// p0 + broadcast(c), reduced over axis 1, dotted with p1.
Program BuildProgram() {
  Program p;
  p.name = "hashed";
  p.replica_count = 2;
  Instruction p0;
  p0.op = Op::kParameter;
  p0.parameter_index = 0;
  p0.shape = F32({2, 3});
  Instruction p1 = p0;
  p1.parameter_index = 1;
  p1.shape = F32({3, 2});
  Instruction c;
  c.op = Op::kConstant;
  c.literal = Literal::FromF32({1.5f, -2, 3}, {3});
  c.shape = c.literal.shape;
  Instruction b;
  b.op = Op::kBroadcastInDim;
  b.operands = {2};
  b.attrs["dims"] = {1};
  b.shape = F32({2, 3});
  Instruction add;
  add.op = Op::kAdd;
  add.operands = {0, 3};
  add.shape = F32({2, 3});
  Instruction dot;
  dot.op = Op::kDotGeneral;
  dot.operands = {4, 1};
  dot.attrs = {
      {"lhs_batch", {}}, {"lhs_contracting", {1}}, {"rhs_batch", {}}, {"rhs_contracting", {0}}};
  dot.shape = F32({2, 2});
  Instruction r;
  r.op = Op::kReduceSum;
  r.operands = {5};
  r.attrs["axes"] = {1};
  r.shape = F32({2});
  p.instructions = {p0, p1, c, b, add, dot, r};
  p.results = {6, 5};
  return p;
}

TEST(IrHashTest, EqualProgramsHashEqual) {
  Program a = BuildProgram();
  Program b = BuildProgram();
  ASSERT_EQ(a, b);
  EXPECT_EQ(HashProgram(a), HashProgram(b));
  EXPECT_EQ(HashProgram(a), HashProgram(a));
}

TEST(IrHashTest, SurvivesTextRoundTrip) {
  Program a = BuildProgram();
  absl::StatusOr<Program> parsed = ParseProgram(PrintProgram(a));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(HashProgram(*parsed), HashProgram(a));
}

TEST(IrHashTest, IgnoresName) {
  Program a = BuildProgram();
  Program b = a;
  b.name = "something_else";
  EXPECT_EQ(HashProgram(a), HashProgram(b));
}

TEST(IrHashTest, EveryCoveredFieldChangesTheHash) {
  const Program base = BuildProgram();
  const uint64_t base_hash = HashProgram(base);
  struct Change {
    const char* what;
    std::function<void(Program&)> apply;
  };
  const std::vector<Change> changes = {
      {"op", [](Program& p) { p.instructions[4].op = Op::kSubtract; }},
      {"op multiply", [](Program& p) { p.instructions[4].op = Op::kMultiply; }},
      {"shape dims",
       [](Program& p) {
         p.instructions[0].shape.dims = {3, 2};
       }},
      {"shape rank",
       [](Program& p) {
         p.instructions[6].shape.dims = {2, 1};
       }},
      {"dtype", [](Program& p) { p.instructions[1].shape.dtype = DType::kS32; }},
      {"attribute value", [](Program& p) { p.instructions[6].attrs["axes"] = {0}; }},
      {"attribute name",
       [](Program& p) {
         p.instructions[6].attrs = {{"dims", {1}}};
       }},
      {"extra attribute", [](Program& p) { p.instructions[4].attrs["axes"] = {}; }},
      {"operand order",
       [](Program& p) {
         p.instructions[4].operands = {3, 0};
       }},
      {"operand",
       [](Program& p) {
         p.instructions[5].operands = {4, 0};
       }},
      {"constant value",
       [](Program& p) {
         p.instructions[2].literal = Literal::FromF32({1.5f, -2, 4}, {3});
       }},
      {"literal shape",
       [](Program& p) {
         p.instructions[2].literal = Literal::FromF32({1.5f, -2, 3}, {1, 3});
       }},
      {"parameter index",
       [](Program& p) {
         std::swap(p.instructions[0].parameter_index, p.instructions[1].parameter_index);
       }},
      {"results order",
       [](Program& p) {
         p.results = {5, 6};
       }},
      {"results length",
       [](Program& p) {
         p.results = {6, 5, 5};
       }},
      {"results member",
       [](Program& p) {
         p.results = {6, 4};
       }},
      {"replica count", [](Program& p) { p.replica_count = 1; }},
      {"instruction count", [](Program& p) { p.instructions.push_back(p.instructions[0]); }},
  };
  std::set<uint64_t> seen = {base_hash};
  for (const Change& change : changes) {
    Program p = base;
    change.apply(p);
    ASSERT_NE(p, base) << change.what;
    uint64_t h = HashProgram(p);
    EXPECT_NE(h, base_hash) << change.what;
    EXPECT_TRUE(seen.insert(h).second) << change.what << " collides with an earlier change";
  }
}

TEST(IrHashTest, LengthPrefixesKeepBoundariesApart) {
  // Moving a dimension from one shape to the next keeps the flat list of numbers the same.
  Program a = BuildProgram();
  Program b = a;
  a.instructions[6].attrs["axes"] = {1};
  a.results = {6, 5};
  b.instructions[6].attrs["axes"] = {};
  b.results = {1, 6, 5};
  EXPECT_NE(HashProgram(a), HashProgram(b));
  Program c = a;
  c.instructions[2].literal.bytes.push_back(0);
  EXPECT_NE(HashProgram(a), HashProgram(c));
}

}  // namespace
}  // namespace seam::ir
