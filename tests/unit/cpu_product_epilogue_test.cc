// Product epilogues (product_epilogue.h): an elementwise group after an f32 product runs
// interleaved with it, each kernel thread computing its rows and then the group's tiles
// over them. The results must match the reference and, bit for bit, the plan without
// epilogues (the same gemm calls: gemm.h splits a product by rows into the same parts), on
// 1, 2 and 3 threads, with tiles that straddle two parts; only groups that read the product
// elementwise are taken; nothing the product reads is overwritten while it runs.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/fusion_epilogue.h"
#include "src/plugins/cpu/compile/product_epilogue.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/runtime/block_pool.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"
#include "tests/unit/onednn_splits.h"

namespace seam::cpu {
namespace {

// 611 x 450 results: 1.05 MiB, just over kProductEpilogueMinimumBytes; the parts' first rows
// (304 on 2 threads; 208 and 416 on 3) fall inside tiles, so some tiles straddle two parts.
constexpr int kRows = 611, kCols = 450, kDepth = 16;

std::string F32(std::initializer_list<int> dims) {
  std::string text = "f32[";
  const char* separator = "";
  for (int d : dims) {
    absl::StrAppend(&text, separator, d);
    separator = ",";
  }
  return text + "]";
}

const std::string kResult = F32({kRows, kCols});

// The exact GELU of %h and the values its gradient keeps, as the front end's training step
// computes them (three outputs of the product's shape).
std::string Gelu() {
  const std::string& y = kResult;
  return absl::StrCat(
      "  %c = constant(0.70710678) : f32[]\n  %cb = broadcast_in_dim(%c), dims={} : ", y,
      "\n  %s = multiply(%h, %cb) : ", y, "\n  %e = erf(%s) : ", y,
      "\n  %half = constant(0.5) : f32[]\n  %hb = broadcast_in_dim(%half), dims={} : ", y,
      "\n  %t = multiply(%e, %hb) : ", y, "\n  %t2 = add(%t, %hb) : ", y,
      "\n  %g = multiply(%h, %t2) : ", y, "\n  %s2 = multiply(%s, %s) : ", y,
      "\n  %n = neg(%s2) : ", y, "\n  %p = exp(%n) : ", y, "\n  return (%g, %t2, %p)\n}\n");
}

std::string Dot(const std::string& lhs, const std::string& rhs, const std::string& attributes) {
  return absl::StrCat("  %d = dot_general(", lhs, ", ", rhs, "), ", attributes, " : ", kResult,
                      "\n");
}

const std::string kPlain = "lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0}";

// gelu(x.w + b): a dot update (the bias broadcast into the gemm's result) then the group.
std::string BiasGelu() {
  return absl::StrCat("program @bias_gelu {\n  %x = parameter(0) : ", F32({kRows, kDepth}),
                      "\n  %w = parameter(1) : ", F32({kDepth, kCols}),
                      "\n  %b = parameter(2) : ", F32({kCols}), "\n", Dot("%x", "%w", kPlain),
                      "  %bb = broadcast_in_dim(%b), dims={1} : ", kResult,
                      "\n  %h = add(%d, %bb) : ", kResult, "\n", Gelu());
}

// gelu(x.w) with x stored transposed ([depth, rows]): a plain dot_general whose lhs gemm
// reads transposed.
std::string TransposedGelu() {
  return absl::StrCat(
      "program @transposed_gelu {\n  %x = parameter(0) : ", F32({kDepth, kRows}),
      "\n  %w = parameter(1) : ", F32({kDepth, kCols}), "\n",
      Dot("%x", "%w", "lhs_batch={}, lhs_contracting={0}, rhs_batch={}, rhs_contracting={0}"),
      "  %h = add(%d, %d) : ", kResult, "\n", Gelu());
}

// A batched product whose parts' rows cross batches: 13 batches of 47 rows (611 rows), the
// result seen as [13, 47, 450] and then reshaped to the GELU's shape.
std::string BatchedGelu() {
  const std::string batched = F32({13, 47, kCols});
  return absl::StrCat(
      "program @batched_gelu {\n  %x = parameter(0) : ", F32({13, 47, kDepth}),
      "\n  %w = parameter(1) : ", F32({13, kDepth, kCols}),
      "\n  %d = dot_general(%x, %w), lhs_batch={0}, lhs_contracting={2}, rhs_batch={0}, "
      "rhs_contracting={1} : ",
      batched, "\n  %d2 = multiply(%d, %d) : ", batched, "\n  %h = reshape(%d2) : ", kResult, "\n",
      Gelu());
}

// Leaves blocks full of NaNs in the block pool for the run's results and arena, so that a
// run that fails to write an element cannot pass by finding an earlier run's value there.
void PoisonPool(const Executable& executable) {
  std::vector<size_t> sizes = {static_cast<size_t>(executable.buffers().arena_bytes)};
  for (const ir::Shape& shape : executable.result_shapes()) sizes.push_back(shape.byte_size());
  std::vector<Block> blocks;
  for (size_t size : sizes) {
    for (int copy = 0; copy < 4; ++copy) {
      blocks.push_back(AcquireBlock(size));
      std::memset(blocks.back().data, 0xFF, size);
    }
  }
  for (const Block& block : blocks) ReleaseBlock(block);
}

int InterleavedSteps(const Executable& executable) {
  const std::vector<Step>& steps = executable.fusion().steps;
  return static_cast<int>(
      std::count_if(steps.begin(), steps.end(), [](const Step& s) { return s.interleaved; }));
}

std::shared_ptr<const Executable> CompileWithout(const std::string& text) {
  setenv(kEpilogueVariable, "off", 1);
  auto executable = harness::CompileOrDie(text, true);
  unsetenv(kEpilogueVariable);
  return executable;
}

// That the plan runs no group interleaved (these plans are checked as plain plans elsewhere).
void ExpectNotTaken(const std::string& text) {
  auto plan = harness::CompileOrDie(text, true);
  ASSERT_NE(plan, nullptr);
  EXPECT_EQ(InterleavedSteps(*plan), 0) << OptimizedDumpText(*plan);
}

class ProductEpilogueTest : public ::testing::Test {
 protected:
  // Interleaving needs the products on oneDNN; `auto` may send them to OpenBLAS elsewhere.
  void SetUp() override {
    if (!OneDnnAvailable()) GTEST_SKIP() << "no oneDNN in this build";
    SetGemmLibrary(GemmLibrary::kOneDnn);
  }
  void TearDown() override {
    SetKernelThreads(0);
    SetGemmLibrary(GemmLibrary::kAuto);
  }

  // That the plan interleaves `expected` groups, and that its results match the reference
  // (float tolerance) and the plan without epilogues (bit for bit) on 1, 2 and 3 threads.
  void Check(const std::string& text, int expected) {
    auto with = harness::CompileOrDie(text, true);
    auto without = CompileWithout(text);
    ASSERT_NE(with, nullptr);
    ASSERT_NE(without, nullptr);
    EXPECT_EQ(InterleavedSteps(*with), expected) << OptimizedDumpText(*with);
    EXPECT_EQ(InterleavedSteps(*without), 0);
    const std::vector<ir::Literal> args = harness::RandomF32Arguments(text);
    absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
    ASSERT_TRUE(program.ok());
    absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
    ASSERT_TRUE(reference.ok()) << reference.status();
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE(absl::StrCat(threads, " thread(s)"));
      SetKernelThreads(threads);
      PoisonPool(*with);
      // Bit for bit against the plan without epilogues where oneDNN's parts keep the bits
      // (tests/unit/onednn_splits.h); elsewhere both plans against the reference's bound.
      const bool exact = seam::testing::OneDnnSplitsKeepTheBits();
      for (const Executable* plan : {with.get(), exact ? nullptr : without.get()}) {
        if (plan == nullptr) continue;
        const std::vector<ir::Literal> actual = harness::RunProgram(*plan, args);
        ASSERT_EQ(actual.size(), reference->size());
        for (size_t r = 0; r < actual.size(); ++r) {
          for (int64_t i = 0; i < actual[r].shape.num_elements(); ++i) {
            const double e = (*reference)[r].f32()[i];
            ASSERT_NEAR(actual[r].f32()[i], e, 1e-4 + 1e-4 * std::fabs(e))
                << (plan == with.get() ? "interleaved" : "without epilogues") << ": result " << r
                << " element " << i;
          }
        }
      }
      if (exact) {
        EXPECT_EQ(harness::RunBytes(*with, args), harness::RunBytes(*without, args));
      }
    }
  }
};

TEST_F(ProductEpilogueTest, AGeluAfterABiasedProductRunsInterleaved) {
  Check(BiasGelu(), 1);
  auto plan = harness::CompileOrDie(BiasGelu(), true);
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(OptimizedDumpText(*plan).find("'s rows: each thread's rows, then their tiles)"),
            std::string::npos)
      << OptimizedDumpText(*plan);
}

TEST_F(ProductEpilogueTest, TransposedAndBatchedProductsRunInterleaved) {
  {
    SCOPED_TRACE("transposed lhs");
    Check(TransposedGelu(), 1);
  }
  {
    SCOPED_TRACE("13 batches");
    Check(BatchedGelu(), 1);
  }
}

// Groups that read the product through a broadcast, reduce, or come after another reader
// of the product stay steps of their own; so do small products and products on OpenBLAS.
TEST_F(ProductEpilogueTest, OnlyElementwiseReadersOfLargeOneDnnProductsAreTaken) {
  const std::string head =
      absl::StrCat("program @p {\n  %x = parameter(0) : ", F32({kRows, kDepth}),
                   "\n  %w = parameter(1) : ", F32({kDepth, kCols}), "\n", Dot("%x", "%w", kPlain));
  // A reduction in the group.
  ExpectNotTaken(absl::StrCat(
      head, "  %e = exp(%d) : ", kResult, "\n  %r = reduce_sum(%e), axes={1} : ", F32({kRows}),
      "\n  %q = multiply(%r, %r) : ", F32({kRows}), "\n  return (%q)\n}\n"));
  // The group reads the product through a broadcast (a loop twice the product's size).
  const std::string twice = F32({2, kRows, kCols});
  ExpectNotTaken(absl::StrCat("program @p {\n  %x = parameter(0) : ", F32({kRows, kDepth}),
                              "\n  %w = parameter(1) : ", F32({kDepth, kCols}),
                              "\n  %y = parameter(2) : ", twice, "\n", Dot("%x", "%w", kPlain),
                              "  %bt = broadcast_in_dim(%d), dims={1,2} : ", twice,
                              "\n  %e = add(%bt, %y) : ", twice, "\n  return (%e)\n}\n"));
  // The first reader is a transpose (no group).
  ExpectNotTaken(absl::StrCat(head,
                              "  %t = transpose(%d), permutation={1,0} : ", F32({kCols, kRows}),
                              "\n  %e = exp(%d) : ", kResult, "\n  return (%t, %e)\n}\n"));
  // A small product (a quarter of the rows).
  const std::string small = F32({kRows / 4, kCols});
  ExpectNotTaken(absl::StrCat("program @small {\n  %x = parameter(0) : ", F32({kRows / 4, kDepth}),
                              "\n  %w = parameter(1) : ", F32({kDepth, kCols}),
                              "\n  %d = dot_general(%x, %w), ", kPlain, " : ", small,
                              "\n  %e = exp(%d) : ", small, "\n  return (%e)\n}\n"));
  SetGemmLibrary(GemmLibrary::kOpenBlas);
  ExpectNotTaken(BiasGelu());
}

// The group never overwrites a value the product still reads: %v (the product's lhs, of the
// result's shape) dies in the group, which could otherwise write its output over it (the
// product's own value, a result, is not in the arena). Likewise for a donated parameter.
TEST_F(ProductEpilogueTest, TheGroupNeverOverwritesWhatTheProductReads) {
  const std::string tall = F32({4096, 64}), square = F32({64, 64});
  // The group's output %p is read by a later step, so that it lives in the arena.
  const std::string transpose_p =
      "\n  %t = transpose(%p), permutation={1,0} : f32[64,4096]\n  return (%t, %d)\n}\n";
  const std::string text = absl::StrCat(
      "program @overwrite {\n  %x = parameter(0) : ", tall, "\n  %w = parameter(1) : ", square,
      "\n  %v = neg(%x) : ", tall, "\n  %d = dot_general(%v, %w), ", kPlain, " : ", tall,
      "\n  %o = add(%d, %v) : ", tall, "\n  %p = exp(%o) : ", tall, transpose_p);
  auto plan = harness::CompileOrDie(text, true);
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(InterleavedSteps(*plan), 1) << OptimizedDumpText(*plan);
  const ir::Program& program = plan->program();
  int v = -1, p = -1;
  for (int i = 0; i < static_cast<int>(program.instructions.size()); ++i) {
    if (program.instructions[i].op == ir::Op::kNeg) v = i;
    if (program.instructions[i].op == ir::Op::kExp) p = i;
  }
  ASSERT_GE(v, 0);
  ASSERT_GE(p, 0);
  const ValueHome& v_home = plan->buffers().homes[v];
  const ValueHome& p_home = plan->buffers().homes[p];
  ASSERT_EQ(v_home.kind, ValueHome::kArena) << OptimizedDumpText(*plan);
  ASSERT_EQ(p_home.kind, ValueHome::kArena) << OptimizedDumpText(*plan);
  EXPECT_FALSE(p_home.kind == ValueHome::kArena && v_home.index == p_home.index)
      << OptimizedDumpText(*plan);
  Check(text, 1);
  // %v read by the product alone: it stays alive through the group, whose output does not
  // take its slot.
  const std::string lhs_only = absl::StrCat(
      "program @lhs_only {\n  %x = parameter(0) : ", tall, "\n  %w = parameter(1) : ", square,
      "\n  %v = neg(%x) : ", tall, "\n  %d = dot_general(%v, %w), ", kPlain, " : ", tall,
      "\n  %p = exp(%d) : ", tall, transpose_p);
  auto alive = harness::CompileOrDie(lhs_only, true);
  ASSERT_NE(alive, nullptr);
  ASSERT_EQ(InterleavedSteps(*alive), 1) << OptimizedDumpText(*alive);
  const ValueHome& lhs_home = alive->buffers().homes[v];
  const ValueHome& out_home = alive->buffers().homes[p - 1];  // no %o: exp is one earlier
  ASSERT_EQ(alive->program().instructions[p - 1].op, ir::Op::kExp);
  ASSERT_EQ(out_home.kind, ValueHome::kArena) << OptimizedDumpText(*alive);
  EXPECT_FALSE(out_home.kind == ValueHome::kArena && lhs_home.index == out_home.index)
      << OptimizedDumpText(*alive);
  // Donated: %x itself is the lhs and dies in the group.
  const std::string donated = absl::StrCat(
      "program @donated {\n  %x = parameter(0) : ", tall, "\n  %w = parameter(1) : ", square,
      "\n  %d = dot_general(%x, %w), ", kPlain, " : ", tall, "\n  %o = add(%d, %x) : ", tall,
      "\n  %p = exp(%o) : ", tall, "\n  alias output 0 = parameter 0\n  return (%p, %d)\n}\n");
  auto aliased = harness::CompileOrDie(donated, true);
  ASSERT_NE(aliased, nullptr);
  ASSERT_EQ(InterleavedSteps(*aliased), 1) << OptimizedDumpText(*aliased);
  EXPECT_NE(aliased->buffers().outputs[0].how, OutputPlan::kInPlace) << OptimizedDumpText(*aliased);
}

}  // namespace
}  // namespace seam::cpu
