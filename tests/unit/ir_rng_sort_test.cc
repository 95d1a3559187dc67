// rng_bit_generator and argsort (docs/ir.md "Random numbers and sorting"): Philox4x32-10
// against the known-answer vectors published with Random123 (Salmon et al. 2011), the
// element-to-block mapping, the counter's carry, and sorts worked out by hand, for both the
// reference evaluator and the CPU plugin's kernels.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/ir/philox.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/shape_rules.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "tests/unit/reference_and_kernel.h"

namespace seam::ir {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Kat {
  PhiloxBlock counter;
  PhiloxKey key;
  PhiloxBlock expected;
};

// Random123's kat_vectors, philox4x32 with 10 rounds: counter words, key words, result.
constexpr Kat kKats[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(PhiloxTest, KnownAnswers) {
  for (const Kat& kat : kKats) EXPECT_EQ(Philox4x32(kat.counter, kat.key), kat.expected);
}

// The IR operands that make block 0's Philox input the KAT's counter and key.
int64_t KeyOf(const Kat& k) { return static_cast<int64_t>(k.key[0] | uint64_t{k.key[1]} << 32); }
Literal CounterOf(const Kat& k, uint64_t minus_blocks = 0) {
  // The 128-bit counter minus `minus_blocks`, with the borrow from the high word.
  const uint64_t low = k.counter[0] | uint64_t{k.counter[1]} << 32;
  const uint64_t lo = low - minus_blocks;
  const uint64_t hi = (k.counter[2] | uint64_t{k.counter[3]} << 32) - (low < minus_blocks ? 1 : 0);
  return Literal::FromS64({static_cast<int64_t>(lo), static_cast<int64_t>(hi)}, {2});
}

std::string Rng(const std::string& result) {
  return "  %0 = parameter(0) : s64[]\n  %1 = parameter(1) : s64[2]\n"
         "  %2 = rng_bit_generator(%0, %1) : " +
         result + "\n  return (%2)";
}

std::vector<int32_t> Words(const PhiloxBlock& b) {
  std::vector<int32_t> w;
  for (uint32_t x : b) w.push_back(static_cast<int32_t>(x));
  return w;
}

TEST(RngBitGeneratorTest, S32ElementsAreTheWordsOfConsecutiveBlocks) {
  for (const Kat& kat : kKats) {
    // Counter one block before the KAT's: elements 4..7 are the KAT's words; 8..9 are the
    // first two words of the block after it.
    const PhiloxBlock next = Philox4x32(
        PhiloxCounterOf(static_cast<int64_t>(kat.counter[0] | uint64_t{kat.counter[1]} << 32),
                        static_cast<int64_t>(kat.counter[2] | uint64_t{kat.counter[3]} << 32), 1),
        kat.key);
    std::vector<Literal> r =
        Both(Rng("s32[2,5]"), {Literal::FromS64({KeyOf(kat)}, {}), CounterOf(kat, 1)});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0], r[1]);
    std::vector<int32_t> got(10);
    std::memcpy(got.data(), r[1].bytes.data(), 40);
    EXPECT_EQ(std::vector<int32_t>(got.begin() + 4, got.begin() + 8), Words(kat.expected));
    EXPECT_EQ(got[8], static_cast<int32_t>(next[0]));
    EXPECT_EQ(got[9], static_cast<int32_t>(next[1]));
  }
}

TEST(RngBitGeneratorTest, S64ElementsJoinTwoWordsLowFirst) {
  const Kat& kat = kKats[2];
  const auto join = [](uint32_t lo, uint32_t hi) {
    return static_cast<int64_t>(lo | uint64_t{hi} << 32);
  };
  std::vector<Literal> r =
      Both(Rng("s64[3]"), {Literal::FromS64({KeyOf(kat)}, {}), CounterOf(kat)});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], r[1]);
  std::vector<int64_t> got(3);
  std::memcpy(got.data(), r[1].bytes.data(), 24);
  EXPECT_EQ(got[0], join(kat.expected[0], kat.expected[1]));
  EXPECT_EQ(got[1], join(kat.expected[2], kat.expected[3]));
}

TEST(RngBitGeneratorTest, TheCounterCarriesIntoItsHighWord) {
  // Counter {lo = 2^64 - 1, hi = 0}: block 1 is the 128-bit counter 2^64, i.e. words
  // {0, 0, 1, 0}.
  const PhiloxBlock expected = Philox4x32({0, 0, 1, 0}, {7, 0});
  std::vector<Literal> r =
      Both(Rng("s32[8]"), {Literal::FromS64({7}, {}), Literal::FromS64({-1, 0}, {2})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], r[1]);
  std::vector<int32_t> got(8);
  std::memcpy(got.data(), r[1].bytes.data(), 32);
  EXPECT_EQ(std::vector<int32_t>(got.begin() + 4, got.end()), Words(expected));
  EXPECT_EQ(std::vector<int32_t>(got.begin(), got.begin() + 4),
            Words(Philox4x32({0xffffffff, 0xffffffff, 0, 0}, {7, 0})));
}

std::string Argsort(const std::string& in, int axis, bool descending) {
  return "  %0 = parameter(0) : " + in + "\n  %1 = argsort(%0), axis={" + std::to_string(axis) +
         "}, descending={" + (descending ? "1" : "0") + "} : s64" + in.substr(in.find('[')) +
         "\n  return (%1)";
}

TEST(ArgsortTest, StableWithNaNAboveInfinity) {
  // 3, NaN, -0, 1, 0, NaN, -inf, 1: ascending ties keep input order (-0 before 0, the
  // first 1 before the second, the NaNs last in input order).
  Literal x = Literal::FromF32({3, kNaN, -0.0f, 1, 0.0f, kNaN, -kInf, 1}, {8});
  ExpectBoth(Argsort("f32[8]", 0, false), {x}, Literal::FromS64({6, 2, 4, 3, 7, 0, 1, 5}, {8}));
  // Descending: NaNs first, equal values still in input order.
  ExpectBoth(Argsort("f32[8]", 0, true), {x}, Literal::FromS64({1, 5, 0, 3, 7, 2, 4, 6}, {8}));
}

TEST(ArgsortTest, AlongTheFirstAxisOfIntegers) {
  // Columns {5, -1, 5} and {2, 2, -7}.
  Literal x = Literal::FromS32({5, 2, -1, 2, 5, -7}, {3, 2});
  ExpectBoth(Argsort("s32[3,2]", 0, false), {x}, Literal::FromS64({1, 2, 0, 0, 2, 1}, {3, 2}));
  ExpectBoth(Argsort("s32[3,2]", 0, true), {x}, Literal::FromS64({0, 0, 2, 1, 1, 2}, {3, 2}));
}

TEST(ArgsortTest, ShapeRuleErrors) {
  Instruction inst;
  inst.op = Op::kArgsort;
  inst.attrs = {{"axis", {2}}, {"descending", {0}}};
  absl::StatusOr<Shape> s = InferShape(inst, {Shape{DType::kF32, {2, 3}}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "argsort: axis=2 is out of range for operand f32[2,3] of rank 2");
  inst.attrs = {{"axis", {0}}, {"descending", {2}}};
  s = InferShape(inst, {Shape{DType::kF32, {2, 3}}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "argsort: descending=2 must be 0 or 1");
}

TEST(RngBitGeneratorTest, ShapeRuleErrors) {
  Instruction inst;
  inst.op = Op::kRngBitGenerator;
  inst.shape = Shape{DType::kS32, {4}};
  absl::StatusOr<Shape> s = InferShape(inst, {Shape{DType::kS32, {}}, Shape{DType::kS64, {2}}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "rng_bit_generator: key (operand 0) is s32[], expected s64[]");
  s = InferShape(inst, {Shape{DType::kS64, {}}, Shape{DType::kS64, {4}}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "rng_bit_generator: counter (operand 1) is s64[4], expected s64[2]");
  inst.shape = Shape{DType::kF32, {4}};
  s = InferShape(inst, {Shape{DType::kS64, {}}, Shape{DType::kS64, {2}}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "rng_bit_generator: result element type f32 is not one of s32 or s64");
}

}  // namespace
}  // namespace seam::ir
