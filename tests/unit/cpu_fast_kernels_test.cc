// The CPU plugin's wide-vector tile loops (kernels_fast.cc: FastBinaryF32/F64 and
// FastChainF32), whichever clone the machine picks (AVX-512, AVX2 or the baseline), and the
// chains' generated code (chain_jit.h, where the machine has AVX-512F), give bit for bit
// the values of one IEEE operation per element computed here one element at a time: every
// length from 0 past two whole blocks, operands and results off alignment, NaN,
// infinities, signed zeros and subnormals, results written in place.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/kernels/chain_jit.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"

namespace seam::cpu {
namespace {

using ir::Op;

constexpr Op kOps[] = {Op::kAdd,    Op::kSubtract, Op::kMultiply,
                       Op::kDivide, Op::kMaximum,  Op::kMinimum};

// One element as the IR defines it: maximum/minimum give NaN if either side is NaN, and
// +0 is larger than -0.
template <typename T>
T Scalar(Op op, T a, T b) {
  switch (op) {
    case Op::kAdd:
      return a + b;
    case Op::kSubtract:
      return a - b;
    case Op::kMultiply:
      return a * b;
    case Op::kDivide:
      return a / b;
    case Op::kMaximum:
    case Op::kMinimum: {
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
      if (a == b) return (op == Op::kMaximum) == std::signbit(a) ? b : a;
      return (op == Op::kMaximum) == (a > b) ? a : b;
    }
    default:
      return T(0);
  }
}

// Random values with the special ones mixed in (about one in eight).
template <typename T>
std::vector<T> Values(size_t count, unsigned seed) {
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        T(0),
                        -T(0),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::min(),
                        std::numeric_limits<T>::max(),
                        T(1),
                        T(-3)};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> dist(T(-4), T(4));
  std::vector<T> v(count);
  for (T& x : v) {
    x = rng() % 8 == 0 ? specials[rng() % std::size(specials)] : dist(rng);
  }
  return v;
}

template <typename T>
bool SameBits(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  // Any NaN matches any NaN: the IR does not fix a NaN's payload.
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::bit_cast<Bits>(a) == std::bit_cast<Bits>(b);
}

template <typename T>
void CheckBinary(bool (*kernel)(Op, const uint8_t*, const uint8_t*, uint8_t*, int64_t)) {
  const std::vector<T> a = Values<T>(600, 1), b = Values<T>(600, 2);
  std::vector<T> out(600);
  for (Op op : kOps) {
    for (int64_t n : {0, 1, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 257, 300}) {
      for (int offset : {0, 1, 3}) {
        std::fill(out.begin(), out.end(), T(-7));
        ASSERT_TRUE(kernel(op, reinterpret_cast<const uint8_t*>(a.data() + offset),
                           reinterpret_cast<const uint8_t*>(b.data() + 2 * offset),
                           reinterpret_cast<uint8_t*>(out.data() + offset), n));
        for (int64_t i = 0; i < n; ++i) {
          const T want = Scalar(op, a[offset + i], b[2 * offset + i]);
          ASSERT_TRUE(SameBits(out[offset + i], want))
              << ir::OpName(op) << " n=" << n << " offset=" << offset << " element " << i << ": "
              << a[offset + i] << ", " << b[2 * offset + i] << " gave " << out[offset + i]
              << ", want " << want;
        }
        // Nothing outside [offset, offset + n) is written.
        for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) {
          if (i < offset || i >= offset + n) {
            ASSERT_EQ(out[i], T(-7)) << "element " << i;
          }
        }
      }
    }
  }
}

TEST(CpuFastKernelsTest, BinaryF32MatchesOneOpPerElement) { CheckBinary<float>(FastBinaryF32); }

TEST(CpuFastKernelsTest, BinaryF64MatchesOneOpPerElement) { CheckBinary<double>(FastBinaryF64); }

TEST(CpuFastKernelsTest, BinaryInPlace) {
  std::vector<float> a = Values<float>(1000, 3);
  const std::vector<float> b = Values<float>(1000, 4);
  const std::vector<float> before = a;
  auto* bytes = reinterpret_cast<uint8_t*>(a.data());
  ASSERT_TRUE(
      FastBinaryF32(Op::kMultiply, bytes, reinterpret_cast<const uint8_t*>(b.data()), bytes, 1000));
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(SameBits(a[i], before[i] * b[i])) << "element " << i;
  }
}

// A chain of every op in every shape over three operands: v = ((x + a) * b), then
// max(v, x), a - v (right), v * v (both), v / b, min(v, a), v - x.
TEST(CpuFastKernelsTest, ChainF32MatchesOneOpAtATime) {
  const std::vector<float> x = Values<float>(700, 5), a = Values<float>(700, 6),
                           b = Values<float>(700, 7);
  struct Link {
    Op op;
    ChainShape shape;
    int operand;
  };
  const Link links[] = {
      {Op::kAdd, ChainShape::kLeft, 1},      {Op::kMultiply, ChainShape::kLeft, 2},
      {Op::kMaximum, ChainShape::kLeft, 0},  {Op::kSubtract, ChainShape::kRight, 1},
      {Op::kMultiply, ChainShape::kBoth, 0}, {Op::kDivide, ChainShape::kLeft, 2},
      {Op::kMinimum, ChainShape::kLeft, 1},  {Op::kSubtract, ChainShape::kLeft, 0}};
  std::vector<ChainStep> steps;
  for (const Link& link : links) steps.push_back(MakeChainStep(link.op, link.shape, link.operand));
  for (int64_t n : {0, 1, 15, 16, 63, 64, 65, 128, 130, 200, 513}) {
    for (int offset : {0, 1}) {
      const uint8_t* operands[] = {reinterpret_cast<const uint8_t*>(x.data() + offset),
                                   reinterpret_cast<const uint8_t*>(a.data() + offset),
                                   reinterpret_cast<const uint8_t*>(b.data() + offset)};
      std::vector<float> out(700, -7.0F);
      FastChainF32(steps.data(), static_cast<int>(steps.size()), operands, 3,
                   reinterpret_cast<uint8_t*>(out.data() + offset), n, /*stream=*/false);
      for (int64_t i = 0; i < n; ++i) {
        const float m[] = {x[offset + i], a[offset + i], b[offset + i]};
        float v = m[0];
        for (const Link& link : links) {
          switch (link.shape) {
            case ChainShape::kLeft:
              v = Scalar(link.op, v, m[link.operand]);
              break;
            case ChainShape::kRight:
              v = Scalar(link.op, m[link.operand], v);
              break;
            case ChainShape::kBoth:
              v = Scalar(link.op, v, v);
              break;
          }
        }
        ASSERT_TRUE(SameBits(out[offset + i], v))
            << "n=" << n << " offset=" << offset << " element " << i << " gave " << out[offset + i]
            << ", want " << v;
      }
    }
  }
}

// exp and erf: the vector loops give the same value for an element whatever its position
// in the call (the start, a whole vector or the tail) and whatever the length.
TEST(CpuFastKernelsTest, UnaryF32IsTheSameAtEveryPosition) {
  const std::vector<float> x = Values<float>(300, 8);
  for (Op op : {Op::kExp, Op::kErf}) {
    std::vector<float> whole(x.size());
    ASSERT_TRUE(FastUnaryF32(op, reinterpret_cast<const uint8_t*>(x.data()),
                             reinterpret_cast<uint8_t*>(whole.data()),
                             static_cast<int64_t>(x.size())));
    for (size_t i = 0; i < x.size(); ++i) {
      float one = 0;
      ASSERT_TRUE(FastUnaryF32(op, reinterpret_cast<const uint8_t*>(&x[i]),
                               reinterpret_cast<uint8_t*>(&one), 1));
      ASSERT_TRUE(SameBits(one, whole[i]))
          << ir::OpName(op) << "(" << x[i] << "): alone " << one << ", in a run " << whole[i];
    }
  }
}

// neg, abs, sqrt and rsqrt: bit for bit the generic loops' expressions, special values
// included.
TEST(CpuFastKernelsTest, SimpleUnaryF32MatchesOneOpPerElement) {
  const std::vector<float> x = Values<float>(300, 9);  // negatives too: sqrt gives NaN
  struct Case {
    Op op;
    float (*f)(float);
  };
  const Case cases[] = {{Op::kNeg, [](float v) { return -v; }},
                        {Op::kAbs, [](float v) { return std::fabs(v); }},
                        {Op::kSqrt, [](float v) { return std::sqrt(v); }},
                        {Op::kRsqrt, [](float v) { return 1.0F / std::sqrt(v); }}};
  for (const Case& c : cases) {
    for (int64_t n : {0, 1, 15, 16, 17, 64, 100, 299}) {
      std::vector<float> out(302, -7.0F);
      ASSERT_TRUE(FastUnaryF32(c.op, reinterpret_cast<const uint8_t*>(x.data() + 1),
                               reinterpret_cast<uint8_t*>(out.data() + 1), n));
      for (int64_t i = 0; i < n; ++i) {
        const float want = c.f(x[1 + i]);
        ASSERT_TRUE(SameBits(out[1 + i], want))
            << ir::OpName(c.op) << "(" << x[1 + i] << ") gave " << out[1 + i] << ", want " << want;
      }
      ASSERT_EQ(out[0], -7.0F);
      ASSERT_EQ(out[1 + n], -7.0F);
    }
  }
}

// A random chain of `count` steps over `operands` operands: every op in every shape.
std::vector<ChainStep> RandomSteps(int count, int operands, std::mt19937& rng,
                                   std::vector<std::pair<Op, ChainShape>>* links,
                                   std::vector<int>* reads) {
  std::vector<ChainStep> steps;
  for (int s = 0; s < count; ++s) {
    const Op op = kOps[rng() % std::size(kOps)];
    const auto shape = static_cast<ChainShape>(rng() % 3);
    const int operand = static_cast<int>(rng() % operands);
    steps.push_back(MakeChainStep(op, shape, operand));
    links->push_back({op, shape});
    reads->push_back(shape == ChainShape::kBoth ? 0 : operand);
  }
  return steps;
}

// Generated chains of 1 to 64 steps over 1 to 8 operands, f32 and f64: RunChainFunction's
// whole blocks, then FastChainF32/F64 for the rest (as the loop kernels run them), element
// by element the value of one op at a time; in place into an operand; streamed into an
// aligned result (and refused, nothing written, for a misaligned one).
template <typename T>
void CheckGeneratedChains() {
  if (!ChainCodeAvailable()) GTEST_SKIP() << "this machine or build generates no chain code";
  const ir::DType dtype = sizeof(T) == 4 ? ir::DType::kF32 : ir::DType::kF64;
  constexpr size_t kSize = 1200;
  std::mt19937 rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    const int operands = 1 + trial % kMaxChainOperands;
    const int count = trial == 0 ? kMaxGeneratedChainSteps : 1 + static_cast<int>(rng() % 12);
    std::vector<std::pair<Op, ChainShape>> links;
    std::vector<int> reads;
    const std::vector<ChainStep> steps = RandomSteps(count, operands, rng, &links, &reads);
    const bool stream = trial % 5 == 4;
    const std::shared_ptr<const ChainCode> code =
        ChainCode::Compile({ChainSpec{dtype, steps, operands, stream}});
    ASSERT_NE(code, nullptr);
    const ChainFunction function = code->function(0);
    ASSERT_NE(function, nullptr);
    std::vector<std::vector<T>> in;
    for (int k = 0; k < operands; ++k) in.push_back(Values<T>(kSize, 100 * trial + k));
    const int64_t n = std::vector<int64_t>{0, 1, 31, 32, 64, 65, 1000, 1024, 1111}[trial % 9];
    const bool in_place = trial % 7 == 3;
    // 64-byte aligned storage: offset 0 keeps a streamed result aligned, 1 does not.
    const int offset = stream ? trial % 2 : static_cast<int>(trial % 3);
    std::vector<T> out_storage(kSize + 64, T(-7));
    T* out = out_storage.data();
    while (reinterpret_cast<uintptr_t>(out) % 64 != 0) ++out;
    std::vector<T> keep = in[operands - 1];
    if (in_place) std::copy(keep.begin(), keep.end(), out);
    const uint8_t* ptrs[kMaxChainOperands];
    for (int k = 0; k < operands; ++k) {
      ptrs[k] = reinterpret_cast<const uint8_t*>(
          (in_place && k == operands - 1 ? out : in[k].data()) + offset);
    }
    uint8_t* result = reinterpret_cast<uint8_t*>(out + offset);
    const int64_t done = RunChainFunction(function, dtype, stream, ptrs, result, n);
    if (stream && offset != 0) {
      ASSERT_EQ(done, 0) << "a misaligned streamed result";
    }
    ASSERT_LE(done, n);
    ASSERT_EQ(done % (kChainCodeBlockBytes / static_cast<int64_t>(sizeof(T))), 0);
    for (int k = 0; k < operands; ++k) ptrs[k] += done * sizeof(T);
    (sizeof(T) == 4 ? FastChainF32 : FastChainF64)(steps.data(), count, ptrs, operands,
                                                   result + done * sizeof(T), n - done, stream);
    StreamFence();
    for (int64_t i = 0; i < n; ++i) {
      auto m = [&](int k) { return k == operands - 1 ? keep[offset + i] : in[k][offset + i]; };
      T v = m(0);
      for (int s = 0; s < count; ++s) {
        const auto [op, shape] = links[s];
        v = shape == ChainShape::kLeft    ? Scalar(op, v, m(reads[s]))
            : shape == ChainShape::kRight ? Scalar(op, m(reads[s]), v)
                                          : Scalar(op, v, v);
      }
      ASSERT_TRUE(SameBits(out[offset + i], v))
          << "trial " << trial << " n=" << n << " element " << i << " gave " << out[offset + i]
          << ", want " << v;
    }
  }
}

TEST(CpuFastKernelsTest, GeneratedChainsF32MatchOneOpAtATime) { CheckGeneratedChains<float>(); }

TEST(CpuFastKernelsTest, GeneratedChainsF64MatchOneOpAtATime) { CheckGeneratedChains<double>(); }

// What gets no code: chains longer than kMaxGeneratedChainSteps, other dtypes, more
// operands than kMaxChainOperands; the others in the same call still do.
TEST(CpuFastKernelsTest, GeneratedCodeLeavesOutWhatItCannotRun) {
  if (!ChainCodeAvailable()) GTEST_SKIP() << "this machine or build generates no chain code";
  const ChainStep add = MakeChainStep(Op::kAdd, ChainShape::kLeft, 0);
  const std::vector<ChainStep> longest(kMaxGeneratedChainSteps, add);
  const std::vector<ChainStep> too_long(kMaxGeneratedChainSteps + 1, add);
  const int64_t before = GeneratedChainCount();
  const std::shared_ptr<const ChainCode> code = ChainCode::Compile(
      {ChainSpec{ir::DType::kF32, too_long, 1, false}, ChainSpec{ir::DType::kS32, {add}, 1, false},
       ChainSpec{ir::DType::kF32, {add}, kMaxChainOperands + 1, false},
       ChainSpec{ir::DType::kF64, longest, 1, false}});
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(code->function(0), nullptr);
  EXPECT_EQ(code->function(1), nullptr);
  EXPECT_EQ(code->function(2), nullptr);
  EXPECT_NE(code->function(3), nullptr);
  EXPECT_EQ(code->function(4), nullptr);  // past the end
  EXPECT_EQ(GeneratedChainCount(), before + 1);
  EXPECT_EQ(ChainCode::Compile({ChainSpec{ir::DType::kF32, too_long, 1, false}}), nullptr);
}

// A segment program of one step over memory reference 0, stored to reference 1.
std::shared_ptr<const ChainCode> OneStepSegment(VectorOp op) {
  VectorProgram program;
  program.num_refs = 3;
  VectorStep step;
  step.op = op;
  step.dst = 3;
  step.a = {true, 0};
  step.b = {true, 2};
  step.store_to = 1;
  program.steps.push_back(step);
  return ChainCode::Compile({}, {program});
}

// Every segment operation on one vector at a time against the loops the tile passes run
// (FastUnaryF32 / FastBinaryF32), bit for bit: exp and erf over a sweep of every 4099th
// float bit pattern (all exponents, both signs, NaNs, infinities, subnormals) plus the
// clamps' and erf's branch edges and a dense run over [0.5, 6),
// neg/abs/sqrt/rsqrt and the six binary ops on special values; n covers the pairs, the
// single vector and the masked tail (nothing written past n).
TEST(CpuFastKernelsTest, SegmentOpsMatchTheTileLoops) {
  if (!ChainCodeAvailable()) GTEST_SKIP() << "this machine or build generates no chain code";
  std::vector<float> sweep;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4099) {
    sweep.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  for (float edge :
       {-104.0F, std::nextafter(-104.0F, 0.0F), std::nextafter(-104.0F, -200.0F), 89.0F,
        std::nextafter(89.0F, 0.0F), std::nextafter(89.0F, 100.0F), -87.3F, 88.7F, 0.0F, -0.0F}) {
    sweep.push_back(edge);
  }
  for (float edge : {1.0F, 4.0F}) {  // erf's branch and clamp
    for (float e : {edge, std::nextafter(edge, 0.0F), std::nextafter(edge, 9.0F)}) {
      sweep.push_back(e);
      sweep.push_back(-e);
    }
  }
  // And a dense run where erf's two forms meet and its exp matters: [0.5, 6] in steps.
  for (float v = 0.5F; v < 6.0F; v += 0.0009765625F) sweep.push_back(v);
  const std::vector<float> other = Values<float>(sweep.size(), 77);
  const struct {
    VectorOp op;
    Op ir;
    bool binary;
  } cases[] = {
      {VectorOp::kExp, Op::kExp, false},          {VectorOp::kErf, Op::kErf, false},
      {VectorOp::kNeg, Op::kNeg, false},          {VectorOp::kAbs, Op::kAbs, false},
      {VectorOp::kSqrt, Op::kSqrt, false},        {VectorOp::kRsqrt, Op::kRsqrt, false},
      {VectorOp::kAdd, Op::kAdd, true},           {VectorOp::kSubtract, Op::kSubtract, true},
      {VectorOp::kMultiply, Op::kMultiply, true}, {VectorOp::kDivide, Op::kDivide, true},
      {VectorOp::kMaximum, Op::kMaximum, true},   {VectorOp::kMinimum, Op::kMinimum, true}};
  for (const auto& c : cases) {
    const std::shared_ptr<const ChainCode> code = OneStepSegment(c.op);
    ASSERT_NE(code, nullptr);
    ASSERT_NE(code->segment(0), nullptr);
    for (int64_t n :
         {static_cast<int64_t>(sweep.size()), int64_t{1}, int64_t{16}, int64_t{17}, int64_t{47}}) {
      std::vector<float> got(sweep.size() + 1, -7.0F), want(sweep.size(), 0.0F);
      uint8_t* refs[] = {reinterpret_cast<uint8_t*>(sweep.data()),
                         reinterpret_cast<uint8_t*>(got.data()),
                         reinterpret_cast<uint8_t*>(const_cast<float*>(other.data()))};
      code->segment(0)(refs, n);
      const auto* x = reinterpret_cast<const uint8_t*>(sweep.data());
      auto* w = reinterpret_cast<uint8_t*>(want.data());
      ASSERT_TRUE(c.binary
                      ? FastBinaryF32(c.ir, x, reinterpret_cast<const uint8_t*>(other.data()), w, n)
                      : FastUnaryF32(c.ir, x, w, n));
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_TRUE(SameBits(got[i], want[i]))
            << ir::OpName(c.ir) << "(" << sweep[i] << ", " << other[i] << ") gave " << got[i]
            << ", want " << want[i] << " (n=" << n << ", element " << i << ")";
      }
      ASSERT_EQ(got[n], -7.0F) << "written past n=" << n;
    }
  }
}

// The compares (their predicates stored as bytes of 0 or 1) and select (its predicate read
// from bytes, any nonzero byte true, or from a compare's register) against the IR's
// definitions, on values with equal lanes, both zeros, NaNs and infinities; n covers the
// pairs, the single vector and the masked tail (no byte or float written past n).
TEST(CpuFastKernelsTest, SegmentComparesAndSelectMatchTheirDefinitions) {
  if (!ChainCodeAvailable()) GTEST_SKIP() << "this machine or build generates no chain code";
  constexpr size_t kCount = 3001;
  std::vector<float> x = Values<float>(kCount, 91), y = Values<float>(kCount, 92);
  for (size_t i = 0; i < kCount; i += 3) y[i] = x[i];  // equal lanes (NaN with NaN among them)
  for (size_t i = 1; i < kCount; i += 7) {
    x[i] = 0.0F;
    y[i] = -0.0F;
  }
  std::vector<uint8_t> mask(kCount);
  std::mt19937 rng(93);
  for (uint8_t& m : mask) m = static_cast<uint8_t>(rng() % 3 == 0 ? 0 : 1 + rng() % 2);
  const struct {
    VectorOp op;
    bool (*want)(float, float);
  } compares[] = {{VectorOp::kEq, [](float a, float b) { return a == b; }},
                  {VectorOp::kNe, [](float a, float b) { return a != b; }},
                  {VectorOp::kLt, [](float a, float b) { return a < b; }},
                  {VectorOp::kLe, [](float a, float b) { return a <= b; }},
                  {VectorOp::kGt, [](float a, float b) { return a > b; }},
                  {VectorOp::kGe, [](float a, float b) { return a >= b; }}};
  for (const auto& c : compares) {
    // p = compare(x, y) stored as bytes (ref 2); z = select(p, x, y) from the register
    // (ref 3); w = select(mask, y, x) with the mask read from bytes (ref 4).
    VectorProgram program;
    program.num_refs = 6;
    program.steps.push_back({c.op, 0, {true, 0}, {true, 1}, 2, {}});
    program.steps.push_back({VectorOp::kSelect, 1, {false, 0}, {true, 0}, 3, {true, 1}});
    program.steps.push_back({VectorOp::kSelect, 2, {true, 5}, {true, 1}, 4, {true, 0}});
    const std::shared_ptr<const ChainCode> code = ChainCode::Compile({}, {program});
    ASSERT_NE(code, nullptr);
    ASSERT_NE(code->segment(0), nullptr);
    for (int64_t n : {static_cast<int64_t>(kCount), int64_t{1}, int64_t{16}, int64_t{17},
                      int64_t{32}, int64_t{47}}) {
      std::vector<uint8_t> p(kCount + 1, 9);
      std::vector<float> z(kCount + 1, -7.0F), w(kCount + 1, -7.0F);
      uint8_t* refs[] = {
          reinterpret_cast<uint8_t*>(x.data()), reinterpret_cast<uint8_t*>(y.data()), p.data(),
          reinterpret_cast<uint8_t*>(z.data()), reinterpret_cast<uint8_t*>(w.data()), mask.data()};
      code->segment(0)(refs, n);
      for (int64_t i = 0; i < n; ++i) {
        const bool holds = c.want(x[i], y[i]);
        ASSERT_EQ(p[i], holds ? 1 : 0)
            << "compare " << static_cast<int>(c.op) << " of " << x[i] << " and " << y[i]
            << " (n=" << n << ", element " << i << ")";
        ASSERT_TRUE(SameBits(z[i], holds ? x[i] : y[i])) << "select, element " << i;
        ASSERT_TRUE(SameBits(w[i], mask[i] != 0 ? y[i] : x[i])) << "select, element " << i;
      }
      ASSERT_EQ(p[n], 9) << "predicate written past n=" << n;
      ASSERT_EQ(z[n], -7.0F) << "written past n=" << n;
      ASSERT_EQ(w[n], -7.0F) << "written past n=" << n;
    }
  }
}

}  // namespace
}  // namespace seam::cpu
