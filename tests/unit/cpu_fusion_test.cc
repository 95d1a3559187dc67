// Loop fusion, buffer assignment and kernel threads of the CPU plugin, at the executable:
// fused programs give bit for bit the results of the unfused plan (one kernel per
// instruction) and match the reference evaluator, for broadcasts, converts, reshapes,
// select, several outputs, scalars, 0-sized shapes and loops large enough to be split
// over threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "src/conformance/op_cases.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RunProgram;
using harness::ToDevice;

using conformance::FloatAt;
using conformance::IntAt;

std::vector<float> Random(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

// Results within `rtol` of the reference (relative to |expected| + `scale`), exact for
// integers and pred.
void ExpectNearReference(const std::vector<ir::Literal>& actual,
                         const std::vector<ir::Literal>& expected, double rtol, double scale,
                         const std::string& context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (size_t r = 0; r < actual.size(); ++r) {
    ASSERT_EQ(actual[r].shape, expected[r].shape) << context;
    const ir::DType dtype = expected[r].shape.dtype;
    for (int64_t i = 0; i < expected[r].shape.num_elements(); ++i) {
      if (!ir::IsFloat(dtype)) {
        ASSERT_EQ(IntAt(actual[r], i), IntAt(expected[r], i))
            << context << " result " << r << " element " << i;
        continue;
      }
      const double a = FloatAt(actual[r], i), e = FloatAt(expected[r], i);
      const double bound = (dtype == ir::DType::kBF16 ? 1e-2 : rtol) * (std::fabs(e) + scale);
      ASSERT_LE(std::fabs(a - e), bound) << context << " result " << r << " element " << i;
    }
  }
}

// Broadcasts of a row, a column and a scalar constant; convert through bf16 and to s32;
// compare and select; reshapes to other dims; a reduction reading a fused value (so it is
// written to memory) and four results.
std::string FusedProgram(int64_t m, int64_t n) {
  std::string text = R"(program @fused {
  %x = parameter(0) : f32[M,N]
  %row = parameter(1) : f32[N]
  %col = parameter(2) : f32[M]
  %two = constant(2) : f32[]
  %hundred = constant(100) : f32[]
  %r = broadcast_in_dim(%row), dims={1} : f32[M,N]
  %c = broadcast_in_dim(%col), dims={0} : f32[M,N]
  %t = broadcast_in_dim(%two), dims={} : f32[M,N]
  %a = multiply(%x, %r) : f32[M,N]
  %b = add(%a, %c) : f32[M,N]
  %d = multiply(%b, %t) : f32[M,N]
  %h = convert(%d) : bf16[M,N]
  %f = convert(%h) : f32[M,N]
  %g = tanh(%f) : f32[M,N]
  %p = gt(%f, %x) : pred[M,N]
  %s = select(%p, %g, %x) : f32[M,N]
  %hb = broadcast_in_dim(%hundred), dims={} : f32[M,N]
  %scaled = multiply(%b, %hb) : f32[M,N]
  %i = convert(%scaled) : s32[M,N]
  %flat = reshape(%s) : f32[MN]
  %neg = neg(%flat) : f32[MN]
  %back = reshape(%neg) : f32[N,M]
  %sum = reduce_sum(%s), axes={1} : f32[M]
  return (%back, %i, %sum, %h, %p)
})";
  return absl::StrReplaceAll(
      text, {{"MN", absl::StrCat(m * n)}, {"M", absl::StrCat(m)}, {"N", absl::StrCat(n)}});
}

class FusedChainTest : public ::testing::TestWithParam<std::pair<int64_t, int64_t>> {};

TEST_P(FusedChainTest, EqualsTheUnfusedPlanAndTheReference) {
  const auto [m, n] = GetParam();
  const std::string text = FusedProgram(m, n);
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  // One loop holds every elementwise op, broadcast and reshape; the reduction is its own
  // kernel.
  ASSERT_EQ(fused->fusion().groups.size(), 1u);
  EXPECT_EQ(fused->fusion().groups[0].members.size(), 17u);
  EXPECT_EQ(fused->fusion().steps.size(), 2u);
  EXPECT_TRUE(unfused->fusion().groups.empty());

  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(m * n, 1), {m, n}),
                                   ir::Literal::FromF32(Random(n, 2), {n}),
                                   ir::Literal::FromF32(Random(m, 3), {m})};
  std::vector<ir::Literal> want = RunProgram(*unfused, args);
  std::vector<ir::Literal> got = RunProgram(*fused, args);
  EXPECT_EQ(got, want) << "fused and unfused plans differ for " << m << "x" << n;

  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  // The sum adds n terms of magnitude <= 2.
  ExpectNearReference(got, *reference, 1e-5, 2.0 * static_cast<double>(n),
                      absl::StrFormat("%dx%d", m, n));
}

// Scalars and 0-sized dims, one tile, part of a tile, several tiles, and more than
// kParallelMinimumElements (split over threads).
INSTANTIATE_TEST_SUITE_P(Shapes, FusedChainTest,
                         ::testing::Values(std::make_pair(0, 5), std::make_pair(3, 0),
                                           std::make_pair(1, 1), std::make_pair(7, 13),
                                           std::make_pair(1, 3000), std::make_pair(300, 700)));

TEST(FusionTest, ScalarChainWithBroadcastAndReshape) {
  const std::string text = R"(program @scalar {
  %x = parameter(0) : f32[]
  %y = parameter(1) : f32[]
  %a = add(%x, %y) : f32[]
  %b = multiply(%a, %x) : f32[]
  %c = reshape(%b) : f32[1,1]
  %d = broadcast_in_dim(%b), dims={} : f32[2,3]
  %e = convert(%d) : s64[2,3]
  %f = abs(%c) : f32[1,1]
  return (%e, %f, %b)
})";
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  // The scalar chain is one loop; the broadcast that repeats %b reads it from memory.
  EXPECT_EQ(fused->fusion().groups.size(), 2u);
  std::vector<ir::Literal> args = {ir::Literal::FromF32({-2.5f}, {}),
                                   ir::Literal::FromF32({7.25f}, {})};
  std::vector<ir::Literal> got = RunProgram(*fused, args);
  EXPECT_EQ(got, RunProgram(*unfused, args));
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(got, *ir::Evaluate(*program, args));
}

// The 10-op chain of bench/elementwise_bench.cc becomes one loop of ten operations, with
// no memory for the nine intermediates.
TEST(FusionTest, TenOpChainIsOneLoop) {
  const std::string text = R"(program @chain {
  %x = parameter(0) : f32[4096]
  %a = parameter(1) : f32[4096]
  %b = parameter(2) : f32[4096]
  %1 = multiply(%x, %a) : f32[4096]
  %2 = add(%1, %b) : f32[4096]
  %3 = multiply(%2, %x) : f32[4096]
  %4 = subtract(%3, %a) : f32[4096]
  %5 = maximum(%4, %b) : f32[4096]
  %6 = multiply(%5, %a) : f32[4096]
  %7 = add(%6, %x) : f32[4096]
  %8 = minimum(%7, %a) : f32[4096]
  %9 = subtract(%8, %b) : f32[4096]
  %10 = multiply(%9, %9) : f32[4096]
  return (%10)
})";
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->fusion().groups.size(), 1u);
  EXPECT_EQ(fused->fusion().groups[0].members, (std::vector<int>{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // Ten ops in one pass: each reads the previous one's result and nothing else reads it.
  ASSERT_EQ(fused->kernels()[0].ops.size(), 1u);
  const TileOp& chain = fused->kernels()[0].ops[0];
  EXPECT_EQ(chain.kind, TileOp::kChain);
  std::vector<int> computed;
  for (const ChainLink& link : chain.links) computed.push_back(link.instruction);
  EXPECT_EQ(computed, (std::vector<int>{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(chain.operands.size(), 3u);  // %x, %a and %b, each read once per block
  EXPECT_EQ(fused->buffers().arena_bytes, 0);
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(4096, 1), {4096}),
                                   ir::Literal::FromF32(Random(4096, 2), {4096}),
                                   ir::Literal::FromF32(Random(4096, 3), {4096})};
  EXPECT_EQ(RunProgram(*fused, args), RunProgram(*CompileOrDie(text, false), args));
}

// A value both fused onward and read by a later non-fusible op that feeds the same chain
// again: the chain is split where one loop would have to run both before and after the
// reduction.
TEST(FusionTest, NoGroupRunsBothBeforeAndAfterAnOutsideInstruction) {
  const std::string text = R"(program @diamond {
  %x = parameter(0) : f32[4,8]
  %e = exp(%x) : f32[4,8]
  %s = reduce_sum(%e), axes={1} : f32[4]
  %sb = broadcast_in_dim(%s), dims={0} : f32[4,8]
  %d = divide(%e, %sb) : f32[4,8]
  %n = neg(%d) : f32[4,8]
  return (%n)
})";
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  const FusionPlan& plan = fused->fusion();
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].members, (std::vector<int>{1}));
  EXPECT_EQ(plan.groups[1].members, (std::vector<int>{3, 4, 5}));
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(32, 4), {4, 8})};
  EXPECT_EQ(RunProgram(*fused, args), RunProgram(*CompileOrDie(text, false), args));
}

TEST(FusionTest, ResultsDoNotDependOnTheNumberOfKernelThreads) {
  const std::string text = FusedProgram(512, 600);
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(512 * 600, 5), {512, 600}),
                                   ir::Literal::FromF32(Random(600, 6), {600}),
                                   ir::Literal::FromF32(Random(512, 7), {512})};
  SetKernelThreads(1);
  std::vector<ir::Literal> one = RunProgram(*fused, args);
  SetKernelThreads(2);
  std::vector<ir::Literal> two = RunProgram(*fused, args);
  SetKernelThreads(3);
  std::vector<ir::Literal> three = RunProgram(*fused, args);
  SetKernelThreads(0);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
}

// Large reductions that keep dimension 0 are split along it over the threads; each result
// still accumulates in one fixed order.
TEST(FusionTest, LargeReductionsDoNotDependOnTheNumberOfKernelThreads) {
  const std::string text = R"(program @reduce {
  %x = parameter(0) : f32[512,600]
  %y = parameter(1) : f32[300,20,30]
  %s = reduce_sum(%x), axes={1} : f32[512]
  %m = reduce_max(%y), axes={1,2} : f32[300]
  %p = reduce_product(%y), axes={1} : f32[300,30]
  %all = reduce_sum(%x), axes={0,1} : f32[]
  return (%s, %m, %p, %all)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(512 * 600, 13), {512, 600}),
                                   ir::Literal::FromF32(Random(300 * 20 * 30, 14), {300, 20, 30})};
  SetKernelThreads(1);
  std::vector<ir::Literal> one = RunProgram(*executable, args);
  SetKernelThreads(2);
  std::vector<ir::Literal> two = RunProgram(*executable, args);
  SetKernelThreads(3);
  std::vector<ir::Literal> three = RunProgram(*executable, args);
  SetKernelThreads(0);
  EXPECT_EQ(one, two);
  EXPECT_EQ(one, three);
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
  ASSERT_TRUE(reference.ok());
  // Sums of up to 307200 terms of magnitude <= 2; products of 20 terms.
  ExpectNearReference(one, *reference, 1e-5, 2.0 * 512 * 600, "reductions");
}

// Intermediates share arena slots: a value's slot goes to a later value once it is dead.
TEST(BufferAssignmentTest, DeadValuesLendTheirSlotsToLaterOnes) {
  const std::string text = R"(program @slots {
  %x = parameter(0) : f32[64,64]
  %t1 = transpose(%x), permutation={1,0} : f32[64,64]
  %t2 = neg(%t1) : f32[64,64]
  %t3 = transpose(%t2), permutation={1,0} : f32[64,64]
  %t4 = neg(%t3) : f32[64,64]
  return (%t4)
})";
  // (Negations between the transposes keep the simplifier from merging the chain away;
  // neg(transpose(neg(transpose(x)))) is x again, exactly.)
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  const BufferPlan& buffers = executable->buffers();
  // %t1..%t3 are intermediates: two slots suffice. The neg loop overwrites %t1, which dies
  // in it, in place; a transpose never writes over its operand, so %t3 takes the other slot.
  EXPECT_EQ(buffers.slot_bytes.size(), 2u);
  EXPECT_EQ(buffers.arena_bytes, 2 * 64 * 64 * 4);
  for (int v : {1, 2, 3}) EXPECT_EQ(buffers.homes[v].kind, ValueHome::kArena) << v;
  EXPECT_EQ(buffers.homes[1].offset, buffers.homes[2].offset);
  EXPECT_NE(buffers.homes[2].offset, buffers.homes[3].offset);
  EXPECT_EQ(buffers.homes[4].kind, ValueHome::kResult);
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(64 * 64, 8), {64, 64})};
  EXPECT_EQ(RunProgram(*executable, args), args);
}

// A loop's output overwrites the arena slot of an input that dies in the loop (the relu
// after a product), but not one read later, one of another element size, or one the loop
// reads at other positions (a broadcast); results equal the unfused plan on 1 and 2 threads.
TEST(BufferAssignmentTest, LoopsOverwriteInputsThatDieInThem) {
  const std::string text = R"(program @inplace {
  %x = parameter(0) : f32[300,400]
  %w = parameter(1) : f32[400,400]
  %d = dot_general(%x, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[300,400]
  %z = constant(0) : f32[]
  %zb = broadcast_in_dim(%z), dims={} : f32[300,400]
  %r = maximum(%d, %zb) : f32[300,400]
  %e = dot_general(%r, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[300,400]
  %k = reduce_sum(%e), axes={1} : f32[300]
  %kb = broadcast_in_dim(%k), dims={0} : f32[300,400]
  %q = multiply(%e, %kb) : f32[300,400]
  %f = dot_general(%q, %w), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[300,400]
  %c = convert(%f) : f64[300,400]
  %t = transpose(%c), permutation={1,0} : f64[400,300]
  return (%t, %e)
})";
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  const std::vector<ValueHome>& homes = fused->buffers().homes;
  // %d dies in the relu: %r takes its slot.
  ASSERT_EQ(homes[2].kind, ValueHome::kArena);
  ASSERT_EQ(homes[5].kind, ValueHome::kArena);
  EXPECT_EQ(homes[2].offset, homes[5].offset);
  // %k is read at repeated positions (broadcast): %q does not take its slot. (%e is a result.)
  ASSERT_EQ(homes[7].kind, ValueHome::kArena);
  ASSERT_EQ(homes[9].kind, ValueHome::kArena);
  EXPECT_NE(homes[7].offset, homes[9].offset);
  // %f (f32) dies in the convert to f64: different element size, so not in place.
  ASSERT_EQ(homes[10].kind, ValueHome::kArena);
  ASSERT_EQ(homes[11].kind, ValueHome::kArena);
  EXPECT_NE(homes[10].offset, homes[11].offset);
  std::vector<float> x = Random(300 * 400, 21), w = Random(400 * 400, 22);
  for (size_t i = 0; i < x.size(); i += 3) x[i] = -x[i];
  std::vector<ir::Literal> args = {ir::Literal::FromF32(x, {300, 400}),
                                   ir::Literal::FromF32(w, {400, 400})};
  SetKernelThreads(1);
  const std::vector<ir::Literal> expected = RunProgram(*unfused, args);
  EXPECT_EQ(RunProgram(*fused, args), expected);
  SetKernelThreads(2);
  EXPECT_EQ(RunProgram(*fused, args), expected);
  SetKernelThreads(0);
}

// A dot update accumulates into the arena slot of its base when the base dies there (the
// attention backward's dx = dq.Wq + dk.Wk + dv.Wv chain), not when the base is read later;
// results agree with the unfused plan (products added separately) on 1 and 2 threads.
TEST(BufferAssignmentTest, DotUpdatesAccumulateIntoBasesThatDieInThem) {
  const std::string dot = "lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting=";
  const std::string text = absl::StrReplaceAll(R"(program @updates {
  %a = parameter(0) : f32[300,400]
  %b = parameter(1) : f32[300,400]
  %c = parameter(2) : f32[300,400]
  %w = parameter(3) : f32[400,400]
  %p = dot_general(%a, %w), DOT{0} : f32[300,400]
  %q = dot_general(%b, %w), DOT{0} : f32[300,400]
  %s = add(%p, %q) : f32[300,400]
  %r = dot_general(%c, %w), DOT{0} : f32[300,400]
  %t = add(%s, %r) : f32[300,400]
  %m = dot_general(%t, %w), DOT{0} : f32[300,400]
  %n = dot_general(%a, %w), DOT{1} : f32[300,400]
  %o = add(%m, %n) : f32[300,400]
  %x = add(%m, %o) : f32[300,400]
  return (%x)
})",
                                               {{"DOT", dot}});
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  ASSERT_EQ(fused->fusion().updates.size(), 3u);
  const std::vector<ValueHome>& homes = fused->buffers().homes;
  for (int v : {4, 6, 8, 9, 11}) ASSERT_EQ(homes[v].kind, ValueHome::kArena) << v;
  // %s = %p + b.w in %p's slot, %t = %s + c.w in it too.
  EXPECT_EQ(homes[6].offset, homes[4].offset);
  EXPECT_EQ(homes[8].offset, homes[6].offset);
  // %m is read again by the last add: %o = %m + a.w^T gets a slot of its own.
  EXPECT_NE(homes[11].offset, homes[9].offset);
  std::vector<ir::Literal> args;
  for (uint32_t seed : {31U, 32U, 33U}) {
    args.push_back(ir::Literal::FromF32(Random(300 * 400, seed), {300, 400}));
  }
  args.push_back(ir::Literal::FromF32(Random(400 * 400, 34), {400, 400}));
  SetKernelThreads(1);
  const std::vector<ir::Literal> expected = RunProgram(*unfused, args);
  // Inputs in [-2, 2]: typical sums of 400 products, with errors far below 1e-5 * 1e5.
  ExpectNearReference(RunProgram(*fused, args), expected, 1e-5, 1e5, "1 thread");
  SetKernelThreads(2);
  ExpectNearReference(RunProgram(*fused, args), expected, 1e-5, 1e5, "2 threads");
  SetKernelThreads(0);
}

// In place: the output aliased to a donated parameter is computed straight into that
// parameter's block, which the run returns as the output.
TEST(DonationInPlaceTest, OutputIsComputedInTheDonatedBlock) {
  const std::string text = R"(program @step {
  %w = parameter(0) : f32[5000]
  %g = parameter(1) : f32[5000]
  %lr = constant(0.5) : f32[]
  %lrb = broadcast_in_dim(%lr), dims={} : f32[5000]
  %u = multiply(%g, %lrb) : f32[5000]
  %n = subtract(%w, %u) : f32[5000]
  %m = multiply(%n, %w) : f32[5000]
  alias output 0 = parameter 0
  return (%m)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  ASSERT_EQ(executable->buffers().outputs[0].how, OutputPlan::kInPlace);
  EXPECT_EQ(executable->buffers().outputs[0].copy_into_parameter, -1);
  std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(5000, 9), {5000}),
                                   ir::Literal::FromF32(Random(5000, 10), {5000})};
  std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(args);
  auto results = executable->Run(inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0], inputs[0]);  // the same block, not a copy of the value
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  ir::Literal got;
  got.shape = executable->result_shapes()[0];
  got.bytes.assign(inputs[0]->data(), inputs[0]->data() + got.shape.byte_size());
  EXPECT_EQ(got, ir::Evaluate(*program, args)->front());
}

// Where computing into the donated block would overwrite a value still to be read, the run
// computes into a block of its own and copies at the end; the output still has the donated
// block.
TEST(DonationInPlaceTest, FallsBackToACopyWhenTheParameterIsReadLater) {
  const std::string text = R"(program @step {
  %w = parameter(0) : f32[4,6]
  %g = parameter(1) : f32[4,6]
  %n = subtract(%w, %g) : f32[4,6]
  %t = transpose(%w), permutation={1,0} : f32[6,4]
  alias output 0 = parameter 0
  return (%n, %t)
})";
  for (bool fuse : {true, false}) {
    auto executable = CompileOrDie(text, fuse);
    ASSERT_NE(executable, nullptr);
    // The transpose may run after the subtract: it reads %w, so no in place.
    EXPECT_EQ(executable->buffers().outputs[0].how, OutputPlan::kOwn);
    EXPECT_EQ(executable->buffers().outputs[0].copy_into_parameter, 0);
    std::vector<ir::Literal> args = {ir::Literal::FromF32(Random(24, 11), {4, 6}),
                                     ir::Literal::FromF32(Random(24, 12), {4, 6})};
    std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(args);
    auto results = executable->Run(inputs);
    ASSERT_TRUE(results.ok()) << results.status();
    EXPECT_EQ((*results)[0], inputs[0]);
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    ASSERT_TRUE(program.ok());
    std::vector<ir::Literal> want = *ir::Evaluate(*program, args);
    for (int k = 0; k < 2; ++k) {
      ir::Literal got;
      got.shape = executable->result_shapes()[k];
      got.bytes.assign((*results)[k]->data(), (*results)[k]->data() + got.shape.byte_size());
      EXPECT_EQ(got, want[k]) << "result " << k << (fuse ? " fused" : " unfused");
    }
  }
}

// A loop that reads the donated parameter after writing the aliased output (in loop
// order) must not be in place.
TEST(DonationInPlaceTest, NotInPlaceWhenTheLoopReadsTheParameterAfterWritingTheOutput) {
  const std::string text = R"(program @step {
  %w = parameter(0) : f32[8]
  %a = add(%w, %w) : f32[8]
  %r = reshape(%w) : f32[2,4]
  %ra = reshape(%a) : f32[2,4]
  %m = multiply(%ra, %r) : f32[2,4]
  alias output 0 = parameter 0
  return (%a, %m)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  ASSERT_EQ(executable->fusion().groups.size(), 1u);
  EXPECT_EQ(executable->buffers().outputs[0].how, OutputPlan::kOwn);
  std::vector<ir::Literal> args = {ir::Literal::FromF32({1, 2, 3, 4, 5, 6, 7, 8}, {8})};
  std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(args);
  auto results = executable->Run(inputs);
  ASSERT_TRUE(results.ok());
  EXPECT_EQ((*results)[0], inputs[0]);
  const float* m = reinterpret_cast<const float*>((*results)[1]->data());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(m[i], 2.0f * (i + 1) * (i + 1)) << i;
}

}  // namespace
}  // namespace seam::cpu
