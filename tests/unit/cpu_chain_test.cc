// Chains in the CPU loop kernels (TileOp::kChain, kernels_fast.cc): runs of f32/f64 add,
// subtract, multiply, divide, maximum and minimum, each reading the previous op's result,
// evaluated in one pass with the running value in registers. Seeded random programs on
// inputs full of special values (NaN, +-0, +-inf, subnormals, the largest finite values),
// at sizes around the 64-element block, the 1024-element tile and the thread split, give
// bit for bit the results of the unfused plan (one kernel per instruction), whatever the
// number of kernel threads; every op in every position (v op m, m op v, v op v) occurs;
// chains stop where the running value is read again, at an output and at the operand
// limit; a chain writes in place into a donated input; outputs of the streaming threshold
// (fixed at 8 MiB here) and more that nothing else in the loop reads are written with
// non-temporal stores. Each random
// program runs with its chains as generated machine code (chain_jit.h, on AVX-512F
// machines) and on FastChainF32/F64 (SEAM_CPU_JIT=off).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/kernels/chain_jit.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RunProgram;
using harness::ToDevice;

// The streaming threshold these tests compile with, whatever this machine's L3: outside a
// client the passes read SEAM_CPU_STREAM_MIN_BYTES at each compile (cpu_settings.h).
constexpr int64_t kStreamMinimumBytes = kStreamFloorBytes;

class FixedStreamThreshold : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("SEAM_CPU_STREAM_MIN_BYTES", absl::StrCat(kStreamMinimumBytes).c_str(), 1);
  }
  void TearDown() override { unsetenv("SEAM_CPU_STREAM_MIN_BYTES"); }
};
::testing::Environment* const fixed_stream_threshold =
    ::testing::AddGlobalTestEnvironment(new FixedStreamThreshold);

// A quarter of the elements special values, the rest uniform in [-3, 3].
template <typename T>
std::vector<T> SpecialValues(int64_t count, unsigned seed) {
  using L = std::numeric_limits<T>;
  // clang-format off
  const T special[] = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), T(1), T(-1),
                       L::denorm_min(), -L::denorm_min(), L::max(), -L::max(), L::min(), T(0.5),
                       T(3)};
  // clang-format on
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> uniform(-3, 3);
  std::vector<T> values(count);
  for (T& v : values) {
    v = rng() % 4 == 0 ? special[rng() % std::size(special)] : uniform(rng);
  }
  return values;
}

ir::Literal Input(ir::DType dtype, int64_t count, unsigned seed) {
  if (dtype == ir::DType::kF32)
    return ir::Literal::FromF32(SpecialValues<float>(count, seed), {count});
  ir::Literal literal;
  literal.shape = ir::Shape{ir::DType::kF64, {count}};
  std::vector<double> values = SpecialValues<double>(count, seed);
  literal.bytes.resize(values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(literal.bytes.data(), values.data(), literal.bytes.size());
  return literal;
}

constexpr const char* kOps[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum"};

// A random program on three parameters of `count` elements: 14 ops, most reading the
// previous op's result (left, right or both sides), some reading any earlier value (which
// ends a chain when that value was a chain's running value); one or two results.
std::string RandomChainProgram(ir::DType dtype, int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  const std::string type = absl::StrCat(dtype == ir::DType::kF32 ? "f32" : "f64", "[", count, "]");
  std::string text = "program @chains {\n";
  std::vector<std::string> values;
  for (int p = 0; p < 3; ++p) {
    values.push_back(absl::StrCat("%p", p));
    absl::StrAppend(&text, "  %p", p, " = parameter(", p, ") : ", type, "\n");
  }
  auto any = [&] { return values[rng() % values.size()]; };
  auto parameter = [&] { return values[rng() % 3]; };
  for (int step = 0; step < 14; ++step) {
    const std::string previous = values.back();
    std::string a, b;
    switch (rng() % 8) {
      case 0:
      case 1:
      case 2:
        a = previous, b = parameter();
        break;
      case 3:
      case 4:
        a = parameter(), b = previous;
        break;
      case 5:
        a = b = previous;
        break;
      case 6:
        a = previous, b = any();
        break;
      default:
        a = any(), b = any();
        break;
    }
    values.push_back(absl::StrCat("%v", step));
    absl::StrAppend(&text, "  ", values.back(), " = ", kOps[rng() % std::size(kOps)], "(", a, ", ",
                    b, ") : ", type, "\n");
  }
  // Sometimes an intermediate is a result too: written to memory, so a chain stops there.
  std::string results = values.back();
  if (rng() % 3 == 0) absl::StrAppend(&results, ", ", values[3 + rng() % 12]);
  absl::StrAppend(&text, "  return (", results, ")\n}\n");
  return text;
}

// The (op, shape) pairs of every chain link in the executable's loops, and the longest
// chain.
void CollectLinks(const Executable& executable, std::set<std::pair<ir::Op, ChainShape>>* seen,
                  size_t* longest) {
  for (const LoopKernel& kernel : executable.kernels()) {
    for (const TileOp& op : kernel.ops) {
      if (op.kind != TileOp::kChain) continue;
      *longest = std::max(*longest, op.links.size());
      EXPECT_GE(op.links.size(), 2u);
      EXPECT_LE(op.operands.size(), static_cast<size_t>(kMaxChainOperands));
      EXPECT_EQ(op.steps.size(), op.links.size());
      for (const ChainLink& link : op.links) seen->insert({link.op, link.shape});
    }
  }
}

// How many chains and segments of the executable's loops run generated code (chain_jit.h,
// loop_segments.h).
int GeneratedChains(const Executable& executable) {
  int generated = 0;
  for (const LoopKernel& kernel : executable.kernels()) {
    for (const TileOp& op : kernel.ops) generated += op.chain_function != nullptr ? 1 : 0;
    generated += static_cast<int>(kernel.segments.size());
  }
  return generated;
}

// Each program with its chains as generated code (where the machine has it) and as
// FastChainF32/F64 (SEAM_CPU_JIT=off).
class RandomChainTest : public ::testing::TestWithParam<std::tuple<ir::DType, bool>> {
 protected:
  void SetUp() override {
    if (!std::get<1>(GetParam())) {
      ASSERT_EQ(setenv("SEAM_CPU_JIT", "off", 1), 0);
    }
  }
  void TearDown() override {
    ASSERT_EQ(unsetenv("SEAM_CPU_JIT"), 0);
    EXPECT_EQ(FailedCodeCompiles(), 0) << "code that could not be emitted or mapped";
  }
  static ir::DType Dtype() { return std::get<0>(GetParam()); }
  // The chains of `executable` run generated code exactly when they should.
  static void ExpectCode(const Executable& executable) {
    if (std::get<1>(GetParam()) && ChainCodeAvailable()) {
      EXPECT_GT(GeneratedChains(executable), 0);
    } else {
      EXPECT_EQ(GeneratedChains(executable), 0);
    }
  }
};

// Below a block, one block, a block and one, a tile, a tile and a block and one, a tile
// less 24; and (in the next test) enough elements to be split over threads.
TEST_P(RandomChainTest, EqualsTheUnfusedPlanBitForBit) {
  const ir::DType dtype = Dtype();
  std::set<std::pair<ir::Op, ChainShape>> seen;
  size_t longest = 0;
  for (int64_t count : {1, 7, 31, 64, 65, 1000, 1024, 1089}) {
    for (unsigned seed = 1; seed <= 12; ++seed) {
      const std::string text = RandomChainProgram(dtype, count, seed);
      auto fused = CompileOrDie(text, true);
      auto unfused = CompileOrDie(text, false);
      ASSERT_NE(fused, nullptr);
      ASSERT_NE(unfused, nullptr);
      CollectLinks(*fused, &seen, &longest);
      ExpectCode(*fused);
      std::vector<ir::Literal> args = {Input(dtype, count, 3 * seed),
                                       Input(dtype, count, 3 * seed + 1),
                                       Input(dtype, count, 3 * seed + 2)};
      ASSERT_EQ(RunProgram(*fused, args), RunProgram(*unfused, args))
          << "count " << count << " seed " << seed << "\n"
          << text;
    }
  }
  // Every op as v op m, m op v and v op v, and chains of several links.
  for (ir::Op op : {ir::Op::kAdd, ir::Op::kSubtract, ir::Op::kMultiply, ir::Op::kDivide,
                    ir::Op::kMaximum, ir::Op::kMinimum}) {
    for (ChainShape shape : {ChainShape::kLeft, ChainShape::kRight, ChainShape::kBoth}) {
      EXPECT_TRUE(seen.count({op, shape}))
          << ir::OpName(op) << " shape " << static_cast<int>(shape);
    }
  }
  EXPECT_GE(longest, 6u);
}

TEST_P(RandomChainTest, SplitOverThreadsGivesTheSameBits) {
  const ir::DType dtype = Dtype();
  const int64_t count = kParallelMinimumElements + 1000 + 37;
  for (unsigned seed = 100; seed < 103; ++seed) {
    const std::string text = RandomChainProgram(dtype, count, seed);
    auto fused = CompileOrDie(text, true);
    auto unfused = CompileOrDie(text, false);
    ASSERT_NE(fused, nullptr);
    ASSERT_NE(unfused, nullptr);
    std::vector<ir::Literal> args = {Input(dtype, count, seed), Input(dtype, count, seed + 7),
                                     Input(dtype, count, seed + 11)};
    SetKernelThreads(1);
    std::vector<ir::Literal> one = RunProgram(*fused, args);
    SetKernelThreads(2);
    std::vector<ir::Literal> two = RunProgram(*fused, args);
    SetKernelThreads(3);
    std::vector<ir::Literal> three = RunProgram(*fused, args);
    SetKernelThreads(0);
    std::vector<ir::Literal> want = RunProgram(*unfused, args);
    EXPECT_EQ(one, want) << "seed " << seed;
    EXPECT_EQ(two, want) << "seed " << seed;
    EXPECT_EQ(three, want) << "seed " << seed;
  }
}

// Outputs of kStreamMinimumBytes and more are written with non-temporal stores: the same
// bits as the unfused plan, on one thread and split over two (each thread fences its own
// stores), with a partial tile and a partial block at the end.
TEST_P(RandomChainTest, StreamedOutputsGiveTheSameBits) {
  const ir::DType dtype = Dtype();
  const int64_t count =
      kStreamMinimumBytes / static_cast<int64_t>(ir::DTypeSize(dtype)) + 1000 + 37;
  int streamed = 0;
  for (unsigned seed = 200; seed < 202; ++seed) {
    const std::string text = RandomChainProgram(dtype, count, seed);
    auto fused = CompileOrDie(text, true);
    auto unfused = CompileOrDie(text, false);
    ASSERT_NE(fused, nullptr);
    ASSERT_NE(unfused, nullptr);
    for (const LoopKernel& kernel : fused->kernels()) {
      for (const TileOp& op : kernel.ops) streamed += op.stream ? 1 : 0;
    }
    std::vector<ir::Literal> args = {Input(dtype, count, seed), Input(dtype, count, seed + 7),
                                     Input(dtype, count, seed + 11)};
    std::vector<ir::Literal> want = RunProgram(*unfused, args);
    SetKernelThreads(1);
    EXPECT_EQ(RunProgram(*fused, args), want) << "seed " << seed << "\n" << text;
    SetKernelThreads(2);
    EXPECT_EQ(RunProgram(*fused, args), want) << "seed " << seed << "\n" << text;
    SetKernelThreads(0);
  }
  EXPECT_GT(streamed, 0) << "no chain of these programs streamed its output";
}

INSTANTIATE_TEST_SUITE_P(DtypesAndCode, RandomChainTest,
                         ::testing::Combine(::testing::Values(ir::DType::kF32, ir::DType::kF64),
                                            ::testing::Bool()));

// The members each kChain op computes, loop by loop, in order.
std::vector<std::vector<int>> Chains(const Executable& executable) {
  std::vector<std::vector<int>> chains;
  for (const LoopKernel& kernel : executable.kernels()) {
    for (const TileOp& op : kernel.ops) {
      if (op.kind != TileOp::kChain) continue;
      chains.emplace_back();
      for (const ChainLink& link : op.links) chains.back().push_back(link.instruction);
    }
  }
  return chains;
}

// %4 is read again by %7, so the chain ends at %4; %5 is a result (memory), so the next
// ends there; a compare is not a chain op.
TEST(ChainTest, ChainsEndWhereTheRunningValueIsNeededElsewhere) {
  const std::string text = R"(program @split {
  %x = parameter(0) : f32[300]
  %y = parameter(1) : f32[300]
  %z = parameter(2) : f32[300]
  %3 = multiply(%x, %y) : f32[300]
  %4 = add(%3, %z) : f32[300]
  %5 = subtract(%y, %4) : f32[300]
  %6 = divide(%5, %x) : f32[300]
  %7 = maximum(%6, %4) : f32[300]
  %8 = minimum(%7, %7) : f32[300]
  %9 = gt(%8, %x) : pred[300]
  return (%5, %8, %9)
})";
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Chains(*fused), (std::vector<std::vector<int>>{{3, 4}, {6, 7, 8}}));
  std::vector<ir::Literal> args = {Input(ir::DType::kF32, 300, 1), Input(ir::DType::kF32, 300, 2),
                                   Input(ir::DType::kF32, 300, 3)};
  EXPECT_EQ(RunProgram(*fused, args), RunProgram(*CompileOrDie(text, false), args));
}

// A layer norm's scale and shift: the broadcasts of %g and %b sit between the multiply and
// the add in program order; they move up, so the two ops are one chain, with the values of
// the unfused plan (300 rows of 7: tiles end inside rows; zeros, subnormals and the largest
// finite values among the inputs).
TEST(ChainTest, BroadcastOperandsDoNotSplitAChain) {
  const std::string text = R"(program @norm {
  %x = parameter(0) : f32[300,7]
  %g = parameter(1) : f32[7]
  %b = parameter(2) : f32[7]
  %s = parameter(3) : f32[]
  %4 = broadcast_in_dim(%s), dims={} : f32[300,7]
  %5 = multiply(%x, %4) : f32[300,7]
  %6 = broadcast_in_dim(%g), dims={1} : f32[300,7]
  %7 = multiply(%5, %6) : f32[300,7]
  %8 = broadcast_in_dim(%b), dims={1} : f32[300,7]
  %9 = add(%7, %8) : f32[300,7]
  return (%9)
})";
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(Chains(*fused), (std::vector<std::vector<int>>{{5, 7, 9}}));
  // Finite values: where two NaNs meet in an add or a multiply, which one comes out may
  // differ between the loops (NaNsMeetingInEveryOp).
  auto finite = [](int64_t count, unsigned seed) {
    std::vector<float> values = SpecialValues<float>(count, seed);
    for (float& v : values) v = std::isfinite(v) ? v : 2.5F;
    return values;
  };
  std::vector<ir::Literal> args = {
      ir::Literal::FromF32(finite(2100, 31), {300, 7}), ir::Literal::FromF32(finite(7, 32), {7}),
      ir::Literal::FromF32(finite(7, 33), {7}), ir::Literal::FromF32({0.37F}, {})};
  EXPECT_EQ(RunProgram(*fused, args), RunProgram(*CompileOrDie(text, false), args));
}

// Scalar broadcasts (TileOp::repeats) are filled on a thread's first tile and kept: their
// slots are never handed to a later value, which %8 and %9 would otherwise take once %4 and
// %6 are read for the last time. A broadcast that is an output (%6) is written at every
// tile. Enough elements to split over threads, the last tile short; 1, 2 and 3 threads
// give the unfused plan's values.
TEST(ChainTest, RepeatedBroadcastsKeepTheirTiles) {
  const int64_t count = kParallelMinimumElements + 1000 + 37;
  const std::string type = absl::StrCat("f32[", count, "]");
  const std::string text = absl::StrCat(
      "program @scale {\n  %x = parameter(0) : ", type,
      "\n  %a = parameter(1) : f32[]\n  %b = parameter(2) : f32[]",
      "\n  %4 = broadcast_in_dim(%a), dims={} : ", type, "\n  %5 = multiply(%x, %4) : ", type,
      "\n  %6 = broadcast_in_dim(%b), dims={} : ", type, "\n  %7 = add(%5, %6) : ", type,
      "\n  %8 = exp(%7) : ", type, "\n  %9 = neg(%8) : ", type,
      "\n  %10 = maximum(%9, %x) : ", type, "\n  return (%10, %7, %6)\n}\n");
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  int repeats = 0;
  for (const LoopKernel& kernel : fused->kernels()) {
    for (const TileOp& op : kernel.ops) repeats += op.kind == TileOp::kGather && op.repeats;
  }
  EXPECT_EQ(repeats, 1);  // %6 is a result: written tile by tile into its output
  std::vector<float> x = SpecialValues<float>(count, 41);
  for (float& v : x) v = std::isfinite(v) ? v : -1.5F;
  std::vector<ir::Literal> args = {ir::Literal::FromF32(x, {count}),
                                   ir::Literal::FromF32({0.75F}, {}),
                                   ir::Literal::FromF32({-0.25F}, {})};
  std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
  for (int threads : {1, 2, 3}) {
    SetKernelThreads(threads);
    EXPECT_EQ(RunProgram(*fused, args), want) << threads << " threads";
  }
  SetKernelThreads(0);
}

// A broadcast whose values repeat with a period dividing kTileElements (a bias row of 256 over
// the rows, or a [4, 64] block over a leading axis) is a repeated broadcast too: filled on a
// thread's first tile and kept. One with a period that does not divide it (a row of 384),
// or whose leading dimension moves (a row statistic spread along its row), is filled on
// every tile. Rows enough to split over threads, the last tile short; 1, 2 and 3 threads
// give the unfused plan's values (a period taken for one that does not divide the tile
// would leave later tiles with the first tile's values).
TEST(ChainTest, BroadcastsRepeatingWithinATileAreKept) {
  struct Case {
    const char* bias_type;  // the broadcast operand
    const char* dims;       // its dims in the [rows, ...] result
    std::vector<int64_t> shape;
    bool repeats;
  };
  const int64_t rows = kParallelMinimumElements / 256 + 7;
  const Case cases[] = {{"f32[256]", "{1}", {rows, 256}, true},
                        {"f32[4,64]", "{1,2}", {rows, 4, 64}, true},
                        {"f32[384]", "{1}", {rows, 384}, false},
                        {"f32[R]", "{0}", {rows, 256}, false}};
  for (const Case& c : cases) {
    std::string result_type = "f32[";
    int64_t count = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) {
      absl::StrAppend(&result_type, d > 0 ? "," : "", c.shape[d]);
      count *= c.shape[d];
    }
    result_type += "]";
    std::string bias_type = c.bias_type;
    if (bias_type == "f32[R]") bias_type = absl::StrCat("f32[", rows, "]");
    const std::string text =
        absl::StrCat("program @bias {\n  %x = parameter(0) : ", result_type,
                     "\n  %b = parameter(1) : ", bias_type,
                     "\n  %2 = broadcast_in_dim(%b), dims=", c.dims, " : ", result_type,
                     "\n  %3 = add(%x, %2) : ", result_type, "\n  %4 = exp(%3) : ", result_type,
                     "\n  %5 = multiply(%4, %2) : ", result_type, "\n  return (%5)\n}\n");
    auto fused = CompileOrDie(text, true);
    ASSERT_NE(fused, nullptr) << text;
    int gathers = 0, repeats = 0;
    for (const LoopKernel& kernel : fused->kernels()) {
      for (const TileOp& op : kernel.ops) {
        gathers += op.kind == TileOp::kGather;
        repeats += op.kind == TileOp::kGather && op.repeats;
      }
    }
    EXPECT_EQ(gathers, 1) << bias_type;
    EXPECT_EQ(repeats, c.repeats ? 1 : 0) << bias_type;
    const int64_t bias_count = bias_type == "f32[256]"    ? 256
                               : bias_type == "f32[384]"  ? 384
                               : bias_type == "f32[4,64]" ? 256
                                                          : rows;
    std::vector<float> x = SpecialValues<float>(count, 51);
    for (float& v : x) v = std::isfinite(v) ? std::fmod(v, 4.0F) : -1.5F;
    std::vector<float> b(bias_count);
    for (int64_t i = 0; i < bias_count; ++i) b[i] = 0.01F * static_cast<float>(i % 97) - 0.3F;
    std::vector<int64_t> b_dims = {bias_count};
    if (bias_type == "f32[4,64]") b_dims = {4, 64};
    std::vector<ir::Literal> args = {ir::Literal::FromF32(x, c.shape),
                                     ir::Literal::FromF32(b, b_dims)};
    std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
    for (int threads : {1, 2, 3}) {
      SetKernelThreads(threads);
      EXPECT_EQ(RunProgram(*fused, args), want) << bias_type << ", " << threads << " threads";
    }
    SetKernelThreads(0);
  }
}

// Eleven parameters summed in turn: a chain reads at most kMaxChainOperands tiles, so the
// sum is two chains, the second starting from the first's result.
TEST(ChainTest, AChainReadsAtMostMaxOperandsTiles) {
  std::string text = "program @sum {\n";
  for (int p = 0; p < 11; ++p)
    absl::StrAppend(&text, "  %", p, " = parameter(", p, ") : f64[77]\n");
  absl::StrAppend(&text, "  %11 = add(%0, %1) : f64[77]\n");
  for (int p = 2; p < 11; ++p) {
    absl::StrAppend(&text, "  %", p + 10, " = add(%", p + 9, ", %", p, ") : f64[77]\n");
  }
  absl::StrAppend(&text, "  return (%20)\n}\n");
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  std::vector<std::vector<int>> chains = Chains(*fused);
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[0], (std::vector<int>{11, 12, 13, 14, 15, 16, 17}));  // reads %0..%7
  EXPECT_EQ(chains[1], (std::vector<int>{18, 19, 20}));
  std::vector<ir::Literal> args;
  for (unsigned p = 0; p < 11; ++p) args.push_back(Input(ir::DType::kF64, 77, p + 40));
  EXPECT_EQ(RunProgram(*fused, args), RunProgram(*CompileOrDie(text, false), args));
}

// A chain whose result is aliased to a donated parameter it reads in several links writes
// straight into that parameter's block; 1000 elements end in a partial block.
TEST(ChainTest, WritesInPlaceIntoTheDonatedParameter) {
  const std::string text = R"(program @step {
  %w = parameter(0) : f32[1000]
  %g = parameter(1) : f32[1000]
  %a = multiply(%g, %w) : f32[1000]
  %b = subtract(%w, %a) : f32[1000]
  %c = maximum(%b, %g) : f32[1000]
  %d = divide(%c, %w) : f32[1000]
  alias output 0 = parameter 0
  return (%d)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(Chains(*executable), (std::vector<std::vector<int>>{{2, 3, 4, 5}}));
  ASSERT_EQ(executable->buffers().outputs[0].how, OutputPlan::kInPlace);
  std::vector<ir::Literal> args = {Input(ir::DType::kF32, 1000, 5),
                                   Input(ir::DType::kF32, 1000, 6)};
  std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
  std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(args);
  auto results = executable->Run(inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0], inputs[0]);  // the donated block itself
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(std::memcmp(inputs[0]->data(), want[0].bytes.data(), want[0].bytes.size()), 0);
}

// The streamed chains (TileOp::stream) of each loop, in order.
std::vector<bool> StreamFlags(const Executable& executable) {
  std::vector<bool> flags;
  for (const LoopKernel& kernel : executable.kernels()) {
    for (const TileOp& op : kernel.ops) {
      if (op.kind == TileOp::kChain) flags.push_back(op.stream);
    }
  }
  return flags;
}

// A chain streams its output only when the output is large (kStreamMinimumBytes) and no
// other op of the loop reads it back: %5 is read by the compare %6 in the same loop.
TEST(ChainTest, StreamsOnlyLargeOutputsThatNoOtherOpReads) {
  const int64_t large = kStreamMinimumBytes / 4;
  auto program = [](int64_t count, bool reread) {
    const std::string type = absl::StrCat("f32[", count, "]");
    return absl::StrCat(
        "program @s {\n  %x = parameter(0) : ", type, "\n  %y = parameter(1) : ", type,
        "\n  %2 = multiply(%x, %y) : ", type, "\n  %3 = add(%2, %x) : ", type,
        "\n  %4 = maximum(%3, %y) : ", type, "\n  %5 = subtract(%4, %x) : ", type,
        reread ? absl::StrCat("\n  %6 = gt(%5, %y) : pred[", count, "]\n  return (%5, %6)\n}\n")
               : std::string("\n  return (%5)\n}\n"));
  };
  auto streamed = [&](int64_t count, bool reread) {
    auto executable = CompileOrDie(program(count, reread), true);
    EXPECT_NE(executable, nullptr);
    if (executable == nullptr) return std::vector<bool>();
    EXPECT_EQ(Chains(*executable), (std::vector<std::vector<int>>{{2, 3, 4, 5}}));
    return StreamFlags(*executable);
  };
  EXPECT_EQ(streamed(large, false), std::vector<bool>{true});
  EXPECT_EQ(streamed(large - 1, false), std::vector<bool>{false});
  EXPECT_EQ(streamed(large, true), std::vector<bool>{false});
  // And the re-read case still computes the same values as unfused.
  const std::string text = program(large + 3, true);
  std::vector<ir::Literal> args = {Input(ir::DType::kF32, large + 3, 8),
                                   Input(ir::DType::kF32, large + 3, 9)};
  EXPECT_EQ(RunProgram(*CompileOrDie(text, true), args),
            RunProgram(*CompileOrDie(text, false), args));
}

// A lone chain op (GELU's outputs: one multiply each after an erf or an exp) whose result
// is a large output nothing else reads becomes a chain of one link, for the streaming
// stores; a small one, or one read again in the loop, stays a plain binary op. The values
// are the unfused plan's (no NaN meets another NaN here: the inputs are finite).
TEST(ChainTest, ALoneOpStreamsALargeOutputAsAChainOfOneLink) {
  const int64_t large = kStreamMinimumBytes / 4 + 37;
  auto program = [](int64_t count, bool reread) {
    const std::string type = absl::StrCat("f32[", count, "]");
    return absl::StrCat(
        "program @gelu {\n  %x = parameter(0) : ", type, "\n  %y = parameter(1) : ", type,
        "\n  %2 = exp(%x) : ", type, "\n  %3 = multiply(%2, %y) : ", type,
        reread ? absl::StrCat("\n  %4 = lt(%3, %x) : pred[", count, "]\n  return (%3, %4)\n}\n")
               : std::string("\n  return (%3)\n}\n"));
  };
  auto flags = [&](int64_t count, bool reread) {
    auto executable = CompileOrDie(program(count, reread), true);
    EXPECT_NE(executable, nullptr);
    return executable == nullptr ? std::vector<bool>() : StreamFlags(*executable);
  };
  EXPECT_EQ(flags(large, false), std::vector<bool>{true});
  EXPECT_EQ(flags(100, false), std::vector<bool>{});
  EXPECT_EQ(flags(large, true), std::vector<bool>{});
  std::vector<float> x(large), y(large);
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> uniform(-5, 5);
  for (int64_t i = 0; i < large; ++i) {
    x[i] = uniform(rng);
    y[i] = uniform(rng);
  }
  for (bool reread : {false, true}) {
    const std::string text = program(large, reread);
    std::vector<ir::Literal> args = {ir::Literal::FromF32(x, {large}),
                                     ir::Literal::FromF32(y, {large})};
    std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
    for (int threads : {1, 2}) {  // each thread fences its own streamed stores
      SetKernelThreads(threads);
      EXPECT_EQ(RunProgram(*CompileOrDie(text, true), args), want) << threads << " threads";
    }
    SetKernelThreads(0);
  }
}

// A streamed chain written in place into a donated parameter it reads in several links.
TEST(ChainTest, StreamsInPlaceIntoTheDonatedParameter) {
  const int64_t count = kStreamMinimumBytes / 4 + 100;
  const std::string type = absl::StrCat("f32[", count, "]");
  const std::string text = absl::StrCat(
      "program @step {\n  %w = parameter(0) : ", type, "\n  %g = parameter(1) : ", type,
      "\n  %a = multiply(%g, %w) : ", type, "\n  %b = subtract(%w, %a) : ", type,
      "\n  %c = maximum(%b, %g) : ", type, "\n  %d = divide(%c, %w) : ", type,
      "\n  alias output 0 = parameter 0\n  return (%d)\n}\n");
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(StreamFlags(*executable), std::vector<bool>{true});
  ASSERT_EQ(executable->buffers().outputs[0].how, OutputPlan::kInPlace);
  std::vector<ir::Literal> args = {Input(ir::DType::kF32, count, 15),
                                   Input(ir::DType::kF32, count, 16)};
  std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
  std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(args);
  auto results = executable->Run(inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0], inputs[0]);
  ASSERT_EQ(want.size(), 1u);
  EXPECT_EQ(std::memcmp(inputs[0]->data(), want[0].bytes.data(), want[0].bytes.size()), 0);
}

// Two NaNs of different sign (inf - inf gives the processor's default NaN, which has the
// sign bit set; %n holds +qNaN) meet in every chain op, with the running value on the left
// and on the right, at 300 elements (whole blocks and a tail). maximum and minimum give
// the one quiet NaN; subtract and divide, like the unfused loops, the left operand's NaN.
// add and multiply are commutative, and which of the two NaNs they return depends on the
// order the compiler puts the operands in, which differs between the loops (known, see
// docs/plugins.md): only that the result is NaN is checked for them.
TEST(ChainTest, NaNsMeetingInEveryOp) {
  for (const char* op : kOps) {
    for (bool running_left : {true, false}) {
      const std::string text =
          absl::StrCat(R"(program @nans {
  %i = parameter(0) : f32[300]
  %n = parameter(1) : f32[300]
  %2 = subtract(%i, %i) : f32[300]
  %3 = )",
                       op, running_left ? "(%2, %n)" : "(%n, %2)", R"( : f32[300]
  return (%3)
})");
      auto fused = CompileOrDie(text, true);
      ASSERT_NE(fused, nullptr);
      EXPECT_EQ(Chains(*fused), (std::vector<std::vector<int>>{{2, 3}}));
      std::vector<ir::Literal> args = {
          ir::Literal::FromF32(std::vector<float>(300, std::numeric_limits<float>::infinity()),
                               {300}),
          ir::Literal::FromF32(std::vector<float>(300, std::numeric_limits<float>::quiet_NaN()),
                               {300})};
      std::vector<ir::Literal> got = RunProgram(*fused, args);
      std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
      ASSERT_EQ(got.size(), 1u);
      ASSERT_EQ(want.size(), 1u);
      const std::string context = absl::StrCat(op, running_left ? " (v, m)" : " (m, v)");
      const std::string name = op;
      if (name == "add" || name == "multiply") {
        for (int64_t i = 0; i < 300; ++i) {
          float g, w;
          std::memcpy(&g, got[0].bytes.data() + 4 * i, 4);
          std::memcpy(&w, want[0].bytes.data() + 4 * i, 4);
          ASSERT_TRUE(std::isnan(g) && std::isnan(w)) << context << " element " << i;
        }
      } else {
        EXPECT_EQ(got, want) << context;
      }
    }
  }
}

}  // namespace
}  // namespace seam::cpu
