// Seeded random programs full of what the passes look for (repeated instructions, constant
// operands, x*1, x+0, x+(-0), x*0, neg(neg), movement chains, broadcasts, constant
// predicates), for every dtype: the simplified program verifies and gives the same bytes
// as the original on random inputs with special values, and simplifying twice changes
// nothing more.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "src/ir/text.h"
#include "src/ir/verifier.h"
#include "src/plugins/cpu/compile/simplify.h"
#include "tests/unit/simplify_testing.h"

namespace seam::cpu {
namespace {

using ir::DType;
using ir::Op;

class Generator {
 public:
  Generator(DType dtype, uint64_t seed) : dtype_(dtype), rng_(seed) {}

  ir::Program Make() {
    for (int64_t p = 0; p < 2; ++p) Add(Param(p, Full()), &values_);
    Add(Param(2, Pred()), &preds_);
    Add(Param(3, ir::Shape{dtype_, {}}), &scalars_);
    for (int step = 0; step < 30; ++step) Step();
    for (size_t k = 0; k < 3 && k < values_.size(); ++k) {
      program_.results.push_back(values_[values_.size() - 1 - k]);
    }
    program_.results.push_back(preds_.back());
    return program_;
  }

 private:
  ir::Shape Full() const { return ir::Shape{dtype_, {2, 3}}; }
  static ir::Shape Pred() { return ir::Shape{DType::kPred, {2, 3}}; }
  bool Allowed(Op op) const { return ir::Contains(ir::OpDTypes(op), dtype_); }
  int Pick(const std::vector<int>& pool) { return pool[rng_() % pool.size()]; }

  static ir::Instruction Param(int64_t index, ir::Shape shape) {
    ir::Instruction inst;
    inst.op = Op::kParameter;
    inst.parameter_index = index;
    inst.shape = std::move(shape);
    return inst;
  }
  static ir::Instruction Node(Op op, std::vector<int> operands, ir::Shape shape,
                              ir::Attributes attrs = {}) {
    ir::Instruction inst;
    inst.op = op;
    inst.operands = std::move(operands);
    inst.shape = std::move(shape);
    inst.attrs = std::move(attrs);
    return inst;
  }
  int Add(ir::Instruction inst, std::vector<int>* pool) {
    int index = static_cast<int>(program_.instructions.size());
    program_.instructions.push_back(std::move(inst));
    if (pool != nullptr) pool->push_back(index);
    return index;
  }

  // A scalar constant of a value the rules care about.
  int ScalarConstant() {
    static const double kValues[] = {0.0, -0.0, 1.0, 2.0, -1.0, 0.5};
    double v = kValues[rng_() % std::size(kValues)];
    ir::Instruction inst;
    inst.op = Op::kConstant;
    inst.shape = ir::Shape{dtype_, {}};
    switch (dtype_) {
      case DType::kF32:
        inst.literal = ir::Literal::FromF32({float(v)}, {});
        break;
      case DType::kF64:
        inst.literal = ir::Literal::FromF64({v}, {});
        break;
      case DType::kBF16:
        inst.literal = ir::Literal::FromBF16({float(v)}, {});
        break;
      case DType::kS32:
        inst.literal = ir::Literal::FromS32({int32_t(v)}, {});
        break;
      case DType::kS64:
        inst.literal = ir::Literal::FromS64({int64_t(v)}, {});
        break;
      case DType::kPred:
        inst.literal = ir::Literal::FromPred({v != 0}, {});
        break;
    }
    return Add(std::move(inst), &scalars_);
  }

  int Broadcast(int scalar) {
    return Add(Node(Op::kBroadcastInDim, {scalar}, Full(), {{"dims", {}}}), &values_);
  }

  void Step() {
    static const Op kBinary[] = {Op::kAdd,     Op::kSubtract, Op::kMultiply, Op::kDivide,
                                 Op::kMaximum, Op::kMinimum,  Op::kPower,    Op::kAnd,
                                 Op::kOr,      Op::kRemainder};
    static const Op kUnary[] = {Op::kNeg, Op::kAbs, Op::kExp, Op::kNot, Op::kSign, Op::kFloor};
    switch (rng_() % 10) {
      case 0:  // a broadcast constant, or a constant folded through a broadcast
        Broadcast(rng_() % 2 ? ScalarConstant() : Pick(scalars_));
        return;
      case 1:
      case 2: {
        Op op = kBinary[rng_() % std::size(kBinary)];
        if (Allowed(op)) Add(Node(op, {Pick(values_), Pick(values_)}, Full()), &values_);
        return;
      }
      case 3: {
        Op op = kUnary[rng_() % std::size(kUnary)];
        if (Allowed(op)) Add(Node(op, {Pick(values_)}, Full()), &values_);
        return;
      }
      case 4: {  // an exact repeat of an earlier computation
        int i = Pick(values_);
        if (program_.instructions[i].op != Op::kParameter) {
          Add(program_.instructions[i], &values_);
        }
        return;
      }
      case 5: {  // movement round trips
        int x = Pick(values_);
        ir::Shape t{dtype_, {3, 2}};
        int y = rng_() % 2 ? Add(Node(Op::kTranspose, {x}, t, {{"permutation", {1, 0}}}), nullptr)
                           : Add(Node(Op::kReshape, {x}, t), nullptr);
        Add(Node(Op::kTranspose, {y}, Full(), {{"permutation", {1, 0}}}), &values_);
        return;
      }
      case 6: {  // no-op movement and converts
        int x = Pick(values_);
        switch (rng_() % 3) {
          case 0:
            Add(Node(Op::kConvert, {x}, Full()), &values_);
            return;
          case 1:
            Add(Node(Op::kSlice, {x}, Full(),
                     {{"start", {0, 0}}, {"limit", {2, 3}}, {"stride", {1, 1}}}),
                &values_);
            return;
          default:
            Add(Node(Op::kReshape, {x}, Full()), &values_);
            return;
        }
      }
      case 7: {  // comparisons and selects, sometimes on a constant predicate
        int p;
        if (rng_() % 2) {
          ir::Instruction c;
          c.op = Op::kConstant;
          c.shape = ir::Shape{DType::kPred, {}};
          c.literal = ir::Literal::FromPred({rng_() % 2 == 0}, {});
          int scalar = Add(std::move(c), nullptr);
          p = Add(Node(Op::kBroadcastInDim, {scalar}, Pred(), {{"dims", {}}}), &preds_);
        } else {
          p = Add(Node(Op::kLt, {Pick(values_), Pick(values_)}, Pred()), &preds_);
        }
        Add(Node(Op::kSelect, {Pick(preds_), Pick(values_), Pick(values_)}, Full()), &values_);
        (void)p;
        return;
      }
      case 8: {  // an elementwise op over two broadcasts of scalars
        Op op = kBinary[rng_() % std::size(kBinary)];
        if (!Allowed(op)) return;
        int a = Broadcast(Pick(scalars_));
        int b = Broadcast(Pick(scalars_));
        Add(Node(op, {a, b}, Full()), &values_);
        return;
      }
      default: {  // arithmetic with an identity-shaped constant
        static const Op kArith[] = {Op::kAdd, Op::kSubtract, Op::kMultiply, Op::kDivide};
        Op op = kArith[rng_() % std::size(kArith)];
        if (!Allowed(op)) return;
        int c = Broadcast(ScalarConstant());
        int x = Pick(values_);
        Add(Node(op, rng_() % 2 ? std::vector<int>{x, c} : std::vector<int>{c, x}, Full()),
            &values_);
        return;
      }
    }
  }

  DType dtype_;
  std::mt19937_64 rng_;
  ir::Program program_;
  std::vector<int> values_, preds_, scalars_;
};

class CpuSimplifyRandomTest : public ::testing::TestWithParam<DType> {};

TEST_P(CpuSimplifyRandomTest, SimplifiedProgramsVerifyAndGiveTheSameBytes) {
  int changed = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    ir::Program original = Generator(GetParam(), seed).Make();
    ASSERT_TRUE(ir::VerifyProgram(original).ok()) << ir::VerifyProgram(original) << "\n"
                                                  << ir::PrintProgram(original);
    absl::StatusOr<ir::Program> simplified = Simplify(original);
    ASSERT_TRUE(simplified.ok()) << simplified.status() << "\n" << ir::PrintProgram(original);
    changed += simplified->instructions.size() < original.instructions.size();
    testing::ExpectSameResults(original, *simplified, 3);
    absl::StatusOr<ir::Program> again = Simplify(*simplified);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(ir::PrintProgram(*again), ir::PrintProgram(*simplified)) << "seed " << seed;
    if (HasFailure()) break;
  }
  // The generator is built to give the passes work: most programs must shrink.
  EXPECT_GE(changed, 30);
}

INSTANTIATE_TEST_SUITE_P(EveryDType, CpuSimplifyRandomTest,
                         ::testing::Values(DType::kF32, DType::kF64, DType::kBF16, DType::kS32,
                                           DType::kS64, DType::kPred),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(ir::DTypeName(info.param));
                         });

}  // namespace
}  // namespace seam::cpu
