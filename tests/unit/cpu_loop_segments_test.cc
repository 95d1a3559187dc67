// Segments of loop kernels run as generated code (loop_segments.h, chain_jit.h): seeded
// random f32 programs of arithmetic, maximum/minimum, neg, abs, sqrt, rsqrt, exp, erf, compares,
// selects and converts of predicates, with values read several times, scalar broadcasts
// (one defined between the steps) and intermediate results, at lengths around the vector (16), the
// pair (32), the tile (1024) and the thread split, give the unfused plan's values (NaN for NaN)
// with and without generated code (SEAM_CPU_JIT=off); runs longer than the registers or the
// references allow are cut into several segments and still agree; a segment writes in place into a
// donated parameter; row statistics broadcast along their rows are read in place.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/loop_segments.h"
#include "src/plugins/cpu/kernels/chain_jit.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

using harness::CompileOrDie;
using harness::RunProgram;
using harness::ToDevice;

// Uniform in [-4, 4] with one value in six special (NaN, infinities, zeros, subnormal, huge).
ir::Literal Input(int64_t count, unsigned seed) {
  using L = std::numeric_limits<float>;
  const float special[] = {
      0.0F,    -0.0F, L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), L::max(),
      -120.0F, 95.0F, 1.0F};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-4, 4);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = rng() % 6 == 0 ? special[rng() % std::size(special)] : uniform(rng);
  return ir::Literal::FromF32(values, {count});
}

// Equal as f32 values: the same bits, or both NaN (the IR fixes no NaN payload).
::testing::AssertionResult SameValues(const std::vector<ir::Literal>& got,
                                      const std::vector<ir::Literal>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "result counts differ";
  for (size_t r = 0; r < got.size(); ++r) {
    if (got[r].bytes.size() != want[r].bytes.size()) {
      return ::testing::AssertionFailure() << "result " << r << " sizes differ";
    }
    const size_t n = got[r].bytes.size() / 4;
    for (size_t i = 0; i < n; ++i) {
      float a, b;
      std::memcpy(&a, got[r].bytes.data() + 4 * i, 4);
      std::memcpy(&b, want[r].bytes.data() + 4 * i, 4);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::bit_cast<uint32_t>(a) != std::bit_cast<uint32_t>(b)) {
        return ::testing::AssertionFailure()
               << "result " << r << " element " << i << ": " << a << ", want " << b;
      }
    }
  }
  return ::testing::AssertionSuccess();
}

constexpr const char* kBinary[] = {"add", "subtract", "multiply", "divide", "maximum", "minimum"};
constexpr const char* kUnary[] = {"neg", "abs", "sqrt", "rsqrt", "exp", "erf"};
constexpr const char* kCompare[] = {"eq", "ne", "lt", "le", "gt", "ge"};

// `steps` ops over three parameters, a broadcast scalar and a predicate parameter: each
// reads the previous value or any earlier one (so values are read several times and live
// long); compares feed selects (in registers, or stored when a cut falls between them) and
// converts (which segments do not take: the predicate is stored for them); one to three
// results.
std::string RandomProgram(int64_t count, unsigned seed, int steps) {
  std::mt19937 rng(seed);
  const std::string type = absl::StrCat("f32[", count, "]");
  const std::string pred = absl::StrCat("pred[", count, "]");
  std::string text = "program @segments {\n";
  std::vector<std::string> values;
  for (int p = 0; p < 3; ++p) {
    values.push_back(absl::StrCat("%p", p));
    absl::StrAppend(&text, "  %p", p, " = parameter(", p, ") : ", type, "\n");
  }
  absl::StrAppend(
      &text, "  %s = parameter(3) : f32[]\n  %b = broadcast_in_dim(%s), dims={} : ", type, "\n");
  absl::StrAppend(&text, "  %m = parameter(4) : ", pred, "\n  %t = parameter(5) : f32[]\n");
  values.push_back("%b");
  std::vector<std::string> predicates = {"%m"};
  auto any = [&] { return values[rng() % values.size()]; };
  // A second broadcast scalar, defined between the steps (its fill may run before the
  // segment around it, where its scratch slot is free).
  const int broadcast_at = static_cast<int>(rng() % static_cast<unsigned>(steps));
  for (int step = 0; step < steps; ++step) {
    if (step == broadcast_at) {
      absl::StrAppend(&text, "  %g = broadcast_in_dim(%t), dims={} : ", type, "\n");
      values.push_back("%g");
    }
    // Each draw its own statement: the same program whatever order a compiler evaluates a
    // call's arguments in.
    const std::string a = rng() % 2 == 0 ? values.back() : any();
    const std::string name = absl::StrCat("%v", step);
    const unsigned kind = rng() % 12;
    if (kind < 4) {
      const char* op = kUnary[rng() % std::size(kUnary)];
      absl::StrAppend(&text, "  ", name, " = ", op, "(", a, ") : ", type, "\n");
    } else if (kind < 9) {
      const char* op = kBinary[rng() % std::size(kBinary)];
      const std::string b = any();
      absl::StrAppend(&text, "  ", name, " = ", op, "(", a, ", ", b, ") : ", type, "\n");
    } else if (kind < 11) {
      const std::string c = absl::StrCat("%c", step);
      const char* op = kCompare[rng() % std::size(kCompare)];
      const std::string b = any();
      absl::StrAppend(&text, "  ", c, " = ", op, "(", a, ", ", b, ") : ", pred, "\n");
      predicates.push_back(c);
      // The select reads this compare or an earlier predicate.
      const std::string p = kind == 9 ? c : predicates[rng() % predicates.size()];
      const std::string on_true = any();
      const std::string on_false = any();
      absl::StrAppend(&text, "  ", name, " = select(", p, ", ", on_true, ", ", on_false,
                      ") : ", type, "\n");
    } else {
      const std::string p = predicates[rng() % predicates.size()];
      absl::StrAppend(&text, "  ", name, " = convert(", p, ") : ", type, "\n");
    }
    values.push_back(name);
  }
  std::string results = values.back();
  for (int extra = static_cast<int>(rng() % 3); extra > 0; --extra) {
    absl::StrAppend(&results, ", ", values[4 + rng() % (values.size() - 4)]);
  }
  absl::StrAppend(&text, "  return (", results, ")\n}\n");
  return text;
}

std::vector<ir::Literal> Arguments(int64_t count, unsigned seed) {
  ir::Literal scalar = ir::Literal::FromF32({1.5F}, {});
  std::mt19937 rng(seed + 3);
  std::vector<bool> mask(static_cast<size_t>(count));
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = rng() % 2 == 0;
  return {Input(count, seed),
          Input(count, seed + 1),
          Input(count, seed + 2),
          scalar,
          ir::Literal::FromPred(mask, {count}),
          ir::Literal::FromF32({-0.75F}, {})};
}

int Segments(const Executable& executable) {
  int segments = 0;
  for (const LoopKernel& kernel : executable.kernels()) {
    segments += static_cast<int>(kernel.segments.size());
  }
  return segments;
}

// Selects and compares (f32 operands, a predicate result) run inside segments.
struct PredicateOps {
  int selects = 0, compares = 0, fills = 0;  // fills: broadcasts filled before a segment
};
PredicateOps InSegments(const Executable& executable) {
  PredicateOps found;
  for (const LoopKernel& kernel : executable.kernels()) {
    for (const LoopSegment& segment : kernel.segments) {
      found.fills += static_cast<int>(segment.gathers.size());
      for (int i = segment.first; i < segment.end; ++i) {
        const TileOp& op = kernel.ops[i];
        found.selects += op.kind == TileOp::kSelect ? 1 : 0;
        found.compares += op.result_dtype == ir::DType::kPred ? 1 : 0;
      }
    }
  }
  return found;
}

// Runs each test with generated code on, then with SEAM_CPU_JIT=off.
class LoopSegmentsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (!GetParam()) {
      ASSERT_EQ(setenv("SEAM_CPU_JIT", "off", 1), 0);
    }
  }
  void TearDown() override {
    ASSERT_EQ(unsetenv("SEAM_CPU_JIT"), 0);
    EXPECT_EQ(FailedCodeCompiles(), 0) << "code that could not be emitted or mapped";
  }
  static bool Generated() { return GetParam() && ChainCodeAvailable(); }

  // The fused plan against the unfused one; the number of segments with code (and the
  // selects and compares in them, added to `predicate_ops`).
  static int Check(const std::string& text, int64_t count, unsigned seed,
                   PredicateOps* predicate_ops = nullptr) {
    auto fused = CompileOrDie(text, true);
    auto unfused = CompileOrDie(text, false);
    if (fused == nullptr || unfused == nullptr) return -1;
    if (predicate_ops != nullptr) {
      const PredicateOps found = InSegments(*fused);
      predicate_ops->selects += found.selects;
      predicate_ops->compares += found.compares;
      predicate_ops->fills += found.fills;
    }
    const std::vector<ir::Literal> args = Arguments(count, seed);
    EXPECT_TRUE(SameValues(RunProgram(*fused, args), RunProgram(*unfused, args)))
        << "count " << count << " seed " << seed << "\n"
        << text;
    const int segments = Segments(*fused);
    if (!Generated()) {
      EXPECT_EQ(segments, 0);
    }
    return segments;
  }
};

TEST_P(LoopSegmentsTest, RandomProgramsEqualTheUnfusedPlan) {
  int segments = 0;
  PredicateOps predicate_ops;
  for (int64_t count : {1, 15, 16, 17, 31, 32, 33, 100, 1024, 1025, 3001}) {
    for (unsigned seed = 1; seed <= 8; ++seed) {
      segments += Check(RandomProgram(count, seed, 12), count, 10 * seed, &predicate_ops);
    }
  }
  if (Generated()) {
    EXPECT_GT(segments, 40);
    EXPECT_GT(predicate_ops.selects, 20);
    EXPECT_GT(predicate_ops.compares, 20);
  }
}

TEST_P(LoopSegmentsTest, SplitOverThreadsGivesTheSameValues) {
  const int64_t count = kParallelMinimumElements + 1000 + 21;
  for (unsigned seed = 50; seed < 53; ++seed) {
    const std::string text = RandomProgram(count, seed, 14);
    auto fused = CompileOrDie(text, true);
    auto unfused = CompileOrDie(text, false);
    ASSERT_NE(fused, nullptr);
    ASSERT_NE(unfused, nullptr);
    const std::vector<ir::Literal> args = Arguments(count, seed);
    const std::vector<ir::Literal> want = RunProgram(*unfused, args);
    for (int threads : {1, 2, 3}) {
      SetKernelThreads(threads);
      EXPECT_TRUE(SameValues(RunProgram(*fused, args), want)) << threads << " threads";
    }
    SetKernelThreads(0);
  }
}

// A GELU: the second scalar's broadcast sits between the erf and the multiply that reads
// it; its fill runs before the segment, which then takes every operation but the last.
TEST_P(LoopSegmentsTest, BroadcastBetweenOperationsIsFilledBeforeTheSegment) {
  for (int64_t count : {1000, 3001}) {
    const std::string type = absl::StrCat("f32[", count, "]");
    const std::string text =
        absl::StrCat("program @gelu {\n  %x = parameter(0) : ", type,
                     "\n  %s = parameter(1) : f32[]\n  %t = parameter(2) : f32[]\n"
                     "  %bs = broadcast_in_dim(%s), dims={} : ",
                     type, "\n  %a = multiply(%x, %bs) : ", type, "\n  %e = erf(%a) : ", type,
                     "\n  %bt = broadcast_in_dim(%t), dims={} : ", type,
                     "\n  %m = multiply(%e, %bt) : ", type, "\n  %y = add(%m, %bt) : ", type,
                     "\n  %z = multiply(%x, %y) : ", type, "\n  return (%y, %z)\n}\n");
    auto fused = CompileOrDie(text, true);
    auto unfused = CompileOrDie(text, false);
    ASSERT_NE(fused, nullptr);
    ASSERT_NE(unfused, nullptr);
    // Two runs with other scalars: the second's fills must not be the first's.
    for (float t : {0.5F, -1.25F}) {
      const std::vector<ir::Literal> args = {Input(count, 21), ir::Literal::FromF32({0.7F}, {}),
                                             ir::Literal::FromF32({t}, {})};
      const std::vector<ir::Literal> got = RunProgram(*fused, args);
      EXPECT_TRUE(SameValues(got, RunProgram(*unfused, args))) << count << " " << t;
    }
    if (Generated()) {
      EXPECT_GE(InSegments(*fused).fills, 1) << OptimizedDumpText(*fused);
      EXPECT_NE(OptimizedDumpText(*fused).find("broadcasts filled before it"), std::string::npos)
          << OptimizedDumpText(*fused);
    }
  }
}

// Fourteen values all live until the end (each read by the last sums): more than the
// registers hold, so the run is cut and the values crossing a cut are stored.
TEST_P(LoopSegmentsTest, ValuesBeyondTheRegistersAreCutIntoSegments) {
  const int64_t count = 1000;
  std::string text =
      "program @wide {\n  %x = parameter(0) : f32[1000]\n"
      "  %y = parameter(1) : f32[1000]\n  %z = parameter(2) : f32[1000]\n"
      "  %s = parameter(3) : f32[]\n";
  for (int i = 0; i < 14; ++i) {
    absl::StrAppend(&text, "  %a", i, " = ", kBinary[i % 4], "(", i % 2 ? "%x" : "%y", ", ",
                    i % 3 ? "%z" : "%x", ") : f32[1000]\n  %e", i, " = exp(%a", i,
                    ") : f32[1000]\n");
  }
  std::string sum = "%e0";
  for (int i = 1; i < 14; ++i) {
    absl::StrAppend(&text, "  %t", i, " = add(", sum, ", %e", i, ") : f32[1000]\n");
    sum = absl::StrCat("%t", i);
  }
  absl::StrAppend(&text, "  return (", sum, ")\n}\n");
  const int segments = Check(text, count, 7);
  if (Generated()) {
    EXPECT_GE(segments, 1);
  }
}

// More distinct inputs than a segment's references (kMaxSegmentRefs): cut there.
TEST_P(LoopSegmentsTest, ReferencesBeyondTheLimitAreCutIntoSegments) {
  std::string text = "program @many {\n";
  const int inputs = kMaxSegmentRefs + 8;
  for (int p = 0; p < inputs; ++p) {
    absl::StrAppend(&text, "  %p", p, " = parameter(", p, ") : f32[100]\n");
  }
  std::string sum = "%p0";
  for (int p = 1; p < inputs; ++p) {
    absl::StrAppend(&text, "  %t", p, " = ", p % 2 ? "add" : "multiply", "(%p", p, ", ", sum,
                    ") : f32[100]\n");
    sum = absl::StrCat("%t", p);
  }
  absl::StrAppend(&text, "  return (", sum, ")\n}\n");
  auto fused = CompileOrDie(text, true);
  auto unfused = CompileOrDie(text, false);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  std::vector<ir::Literal> args;
  for (int p = 0; p < inputs; ++p) args.push_back(Input(100, 300 + p));
  EXPECT_TRUE(SameValues(RunProgram(*fused, args), RunProgram(*unfused, args)));
  for (const LoopKernel& kernel : fused->kernels()) {
    for (const LoopSegment& segment : kernel.segments) {
      EXPECT_LE(segment.refs.size(), static_cast<size_t>(kMaxSegmentRefs));
    }
  }
}

// A row statistic spread along its rows (a softmax's maxima and sums, a layer norm's means)
// is read in place by the segment (a row reference: one value per row, no fill) where the
// rows are a power of two from 16 to 1024 elements long and only the segment reads the
// broadcast; other lengths (96) keep the fill. Row counts with a short last tile and a
// split over 1, 2 and 3 threads give the unfused plan's values; the broadcast read outside
// the segment as well (here by a convert, which segments do not take, through a compare)
// is still filled.
TEST_P(LoopSegmentsTest, RowStatisticsAreReadInPlace) {
  for (const int64_t length : {16, 128, 256, 1024, 96}) {
    const bool in_place = length != 96;
    for (const int64_t rows : {int64_t{37}, kParallelMinimumElements / length + 3}) {
      for (const bool read_outside : {false, true}) {
        const std::string type = absl::StrCat("f32[", rows, ",", length, "]");
        const std::string row = absl::StrCat("f32[", rows, "]");
        std::string text = absl::StrCat(
            "program @rows {\n  %x = parameter(0) : ", type, "\n  %r = parameter(1) : ", row,
            "\n  %b = broadcast_in_dim(%r), dims={0} : ", type,
            "\n  %d = subtract(%x, %b) : ", type, "\n  %e = exp(%d) : ", type,
            "\n  %q = divide(%e, %b) : ", type, "\n  %w = maximum(%q, %d) : ", type, "\n");
        if (read_outside) {
          absl::StrAppend(&text, "  %c = lt(%w, %b) : pred[", rows, ",", length,
                          "]\n  %f = convert(%c) : ", type, "\n  %v = add(%f, %b) : ", type,
                          "\n  return (%v, %d)\n}\n");
        } else {
          absl::StrAppend(&text, "  return (%w, %d)\n}\n");
        }
        auto fused = CompileOrDie(text, true);
        auto unfused = CompileOrDie(text, false);
        ASSERT_NE(fused, nullptr);
        ASSERT_NE(unfused, nullptr);
        std::vector<float> stats(static_cast<size_t>(rows));
        for (int64_t i = 0; i < rows; ++i) stats[i] = 0.25F * static_cast<float>(i % 13) - 1.0F;
        stats[rows / 2] = std::numeric_limits<float>::quiet_NaN();
        ir::Literal x = Input(rows * length, 61);
        x.shape = ir::Shape{ir::DType::kF32, {rows, length}};
        const std::vector<ir::Literal> args = {x, ir::Literal::FromF32(stats, {rows})};
        const std::vector<ir::Literal> want = RunProgram(*unfused, args);
        for (int threads : {1, 2, 3}) {
          SetKernelThreads(threads);
          EXPECT_TRUE(SameValues(RunProgram(*fused, args), want))
              << "length " << length << " rows " << rows << " threads " << threads;
        }
        SetKernelThreads(0);
        int row_gathers = 0, row_refs = 0;
        for (const LoopKernel& kernel : fused->kernels()) {
          for (const LoopSegment& segment : kernel.segments) {
            row_gathers += static_cast<int>(segment.row_gathers.size());
            for (int shift : segment.row_shift) row_refs += shift != 0 ? 1 : 0;
          }
        }
        const bool expected = Generated() && in_place && !read_outside;
        EXPECT_EQ(row_gathers > 0, expected) << "length " << length << "\n"
                                             << OptimizedDumpText(*fused);
        EXPECT_EQ(row_refs > 0, expected) << "length " << length;
      }
    }
  }
}

// The generated code refuses a program that stores to a row reference, or whose row shift
// is out of range (a row shorter than a vector): no function, nothing run.
TEST_P(LoopSegmentsTest, RowReferencesAreReadOnlyAndWholeVectors) {
  if (!Generated()) GTEST_SKIP() << "no generated code here";
  VectorProgram program;
  program.num_refs = 2;
  program.steps.push_back({VectorOp::kAdd, 0, {true, 0}, {true, 1}, -1, {}});
  auto compiled = [](const VectorProgram& p) {
    std::shared_ptr<const ChainCode> code = ChainCode::Compile({}, {p});
    return code != nullptr && code->segment(0) != nullptr;
  };
  program.row_shift = {0, 7};
  EXPECT_TRUE(compiled(program));
  program.steps[0].store_to = 1;  // a store to the row reference
  EXPECT_FALSE(compiled(program));
  program.steps[0].store_to = 0;
  program.row_shift = {0, kMinRowShift - 1};
  EXPECT_FALSE(compiled(program));
  program.row_shift = {0, kMaxRowShift + 1};
  EXPECT_FALSE(compiled(program));
  program.row_shift = {7};  // not one per reference
  EXPECT_FALSE(compiled(program));
}

TEST_P(LoopSegmentsTest, WritesInPlaceIntoTheDonatedParameter) {
  const std::string text = R"(program @step {
  %w = parameter(0) : f32[1000]
  %g = parameter(1) : f32[1000]
  %a = multiply(%g, %w) : f32[1000]
  %b = exp(%a) : f32[1000]
  %c = subtract(%w, %b) : f32[1000]
  %d = sqrt(%c) : f32[1000]
  %e = maximum(%d, %a) : f32[1000]
  alias output 0 = parameter 0
  return (%e)
})";
  auto executable = CompileOrDie(text, true);
  ASSERT_NE(executable, nullptr);
  if (Generated()) {
    EXPECT_EQ(Segments(*executable), 1);
    // The optimized dump says which operations run as generated code.
    EXPECT_NE(OptimizedDumpText(*executable).find("generated: %"), std::string::npos)
        << OptimizedDumpText(*executable);
  }
  ASSERT_EQ(executable->buffers().outputs[0].how, OutputPlan::kInPlace);
  const std::vector<ir::Literal> args = {Input(1000, 5), Input(1000, 6)};
  const std::vector<ir::Literal> want = RunProgram(*CompileOrDie(text, false), args);
  std::vector<std::shared_ptr<DeviceMemory>> inputs = ToDevice(args);
  auto results = executable->Run(inputs);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0], inputs[0]);
  ir::Literal got = want[0];
  std::memcpy(got.bytes.data(), inputs[0]->data(), got.bytes.size());
  EXPECT_TRUE(SameValues({got}, want));
}

INSTANTIATE_TEST_SUITE_P(CodeOnAndOff, LoopSegmentsTest, ::testing::Bool());

}  // namespace
}  // namespace seam::cpu
