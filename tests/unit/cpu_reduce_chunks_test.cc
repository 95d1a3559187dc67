// Outputs that live one chunk at a time (reduce_chunks.h): a group output that nothing but
// the group's own reductions reads (a batch norm's squares for its variance, the products
// of its gradient's sums, a relu gradient read only by the bias gradient) gets an arena
// slot of one chunk instead of the whole array. The plan and the dump say which, the slot
// is one chunk long, and the results are bit for bit those of the unfused plan (one kernel
// per instruction) on one and two kernel threads, compiled for either, for NCHW and NHWC,
// channel counts that fill no AVX block, rows cut by chunk boundaries, and a loop with too
// many chunks for two threads. Values read elsewhere, results, and groups whose loop runs
// whole keep their whole slot.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/reduce_chunks.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/batch_norm_program.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RandomF32Arguments;
using harness::RunBytes;

struct Case {
  std::string name;
  std::vector<int64_t> dims;            // the activation's shape
  int feature = 1;                      // its channel dimension: 1 (NCHW) or 3 (NHWC)
  bool squares_read_elsewhere = false;  // %sq is also a result: it keeps its whole slot
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// A batch norm in training mode and the sums of its gradient, as the front end records
// them: mean, centred values, variance from their squares, normalised output; then
// relu's gradient with the sums for beta (of the masked gradient) and gamma (of its
// product with the centred values).
std::string ProgramText(const Case& c) {
  const testing::BatchNormProgram bn = testing::BatchNormPrefix("batch_norm", c.dims, c.feature);
  const std::string& t = bn.t;
  const std::string& v = bn.v;
  std::string text =
      absl::StrCat(bn.text, "  %y = multiply(%d, %rb) : ", t, "\n  %c = ge(%y, %zb) : pred",
                   t.substr(3), "\n  %c1 = convert(%c) : ", t, "\n  %dy = multiply(%g, %c1) : ", t,
                   "\n  %db = reduce_sum(%dy), ", bn.over, "\n  %p = multiply(%dy, %d) : ", t,
                   "\n  %dg = reduce_sum(%p), ", bn.over, "\n  %n1 = neg(%db) : ", v,
                   "\n  %n2 = neg(%dg) : ", v, "\n  %n3 = neg(%r) : ", v, "\n");
  // The sums are read by other steps, not returned: results keep their own step.
  const std::string extra = c.squares_read_elsewhere ? ", %sq" : "";
  return absl::StrCat(text, "  return (%y, %n1, %n2, %n3", extra, ")\n}");
}

// The chunk-local values of the compiled plan, by instruction.
std::vector<int> ChunkLocal(const Executable& e) {
  std::vector<int> local;
  for (size_t g = 0; g < e.chunks().size(); ++g) {
    const ReduceChunks& c = e.chunks()[g];
    for (size_t k = 0; k < c.local.size(); ++k) {
      if (c.local[k]) local.push_back(e.kernels()[g].outputs[k]);
    }
  }
  std::sort(local.begin(), local.end());
  return local;
}

class ReduceChunksTest : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override { SetKernelThreads(0); }
};

TEST_P(ReduceChunksTest, PlanSlotAndBitsMatchTheUnfusedPlan) {
  const Case& c = GetParam();
  const std::string text = ProgramText(c);
  const std::vector<ir::Literal> args = RandomF32Arguments(text);
  ASSERT_EQ(args.size(), 2u);
  SetKernelThreads(1);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(unfused, nullptr);
  const auto expected = RunBytes(*unfused, args);
  ASSERT_EQ(expected.size(), c.squares_read_elsewhere ? 5u : 4u);
  // Instructions in text order: %x %g %k %kv %z %zb %s %m %mb %d %sq %var %r %rb %y %c %c1
  // %dy %db %p %dg.
  constexpr int kSquares = 10, kMaskedGradient = 17, kProduct = 19;
  for (int compile_threads : {1, 2}) {
    SetKernelThreads(compile_threads);
    auto fused = CompileOrDie(text, true);
    ASSERT_NE(fused, nullptr);
    std::vector<int> want = {kMaskedGradient, kProduct};
    if (!c.squares_read_elsewhere) want.insert(want.begin(), kSquares);
    EXPECT_EQ(ChunkLocal(*fused), want) << OptimizedDumpText(*fused);
    const std::string dump = OptimizedDumpText(*fused);
    EXPECT_NE(dump.find("chunk_local={"), std::string::npos) << dump;
    int64_t count = 1;
    for (int64_t d : c.dims) count *= d;
    for (int v : want) {
      const ValueHome& home = fused->buffers().homes[v];
      ASSERT_EQ(home.kind, ValueHome::kArena) << "%" << v;
      const int64_t chunk = ReduceChunkTiles(count, compile_threads) * kTileElements;
      if (count > chunk) {
        EXPECT_LT(fused->buffers().slot_bytes[home.index], count * 4) << "%" << v;
      }
      EXPECT_GE(fused->buffers().slot_bytes[home.index], std::min(count, chunk) * 4) << "%" << v;
    }
    for (int run_threads : {1, 2}) {
      SetKernelThreads(run_threads);
      EXPECT_EQ(RunBytes(*fused, args), expected)
          << "compiled for " << compile_threads << " thread(s), run on " << run_threads << "\n"
          << text;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ReduceChunksTest,
    ::testing::Values(
        // The CNN's second block (NCHW), several chunks, 64 channels.
        Case{"Nchw", {64, 64, 14, 14}},
        // Channels that fill no block of 8 or 16, rows cut by chunk boundaries.
        Case{"NchwOddChannels", {7, 19, 13, 11}}, Case{"NhwcOddChannels", {6, 15, 17, 23}, 3},
        Case{"Nhwc", {32, 14, 14, 64}, 3},
        // Smaller than one chunk: the slot is the whole (short) array.
        Case{"OneChunk", {2, 3, 5, 7}}, Case{"SquaresAlsoAResult", {8, 32, 14, 14}, 1, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// A loop with more than kMaxParallelChunks chunks on two threads runs whole, so its
// outputs keep their whole slots; on one thread it runs chunk by chunk.
TEST(ReduceChunksPlan, LoopsThatRunWholeKeepWholeSlots) {
  const std::string text = ProgramText({"Large", {16, 64, 56, 40}});
  SetKernelThreads(2);
  auto fused = CompileOrDie(text, true);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(ReduceChunkTiles(16 * 64 * 56 * 40, 2), 0);
  EXPECT_TRUE(ChunkLocal(*fused).empty()) << OptimizedDumpText(*fused);
  SetKernelThreads(1);
  auto single = CompileOrDie(text, true);
  ASSERT_NE(single, nullptr);
  EXPECT_FALSE(ChunkLocal(*single).empty());
  SetKernelThreads(0);
}

// A chunk-local output's ops never stream past the cache.
TEST(ReduceChunksPlan, ChunkLocalOutputsAreNotStreamed) {
  SetKernelThreads(1);
  auto fused = CompileOrDie(ProgramText({"Streams", {32, 128, 28, 28}}), true);
  ASSERT_NE(fused, nullptr);
  for (size_t g = 0; g < fused->chunks().size(); ++g) {
    const ReduceChunks& c = fused->chunks()[g];
    if (c.tiles == 0) continue;
    for (const TileOp& op : fused->kernels()[g].ops) {
      if (op.result.kind == TileRef::kOutput && c.local[op.result.index]) {
        EXPECT_FALSE(op.stream) << "fusion." << g;
      }
    }
  }
  SetKernelThreads(0);
}

}  // namespace
}  // namespace seam::cpu
