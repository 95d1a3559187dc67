// bf16 dot_general on the CPU plugin's two paths (dot_onednn.h: oneDNN's matmul primitive
// where the CPU has bf16 instructions; the widening f32 path everywhere) against the
// reference evaluator at bf16's bound: plain, batched, transposed operands, an operand
// that needs a copy, products split over several kernel threads; that the oneDNN path
// is the one that ran where the rule sends a product there, the rule itself for CPUs this
// one is not, and the measured rate of the bf16 instruction (bf16_rate.h).
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "seam/c/pjrt_c_api.h"
#include "src/ir/bf16.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/kernels/bf16_rate.h"
#include "src/plugins/cpu/kernels/dot_onednn.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

struct Case {
  std::string name;
  std::string lhs, rhs, out;  // shapes, e.g. "[3,17,40]"
  std::string dims;           // the dot_general's attributes
};

const Case kCases[] = {
    {"plain", "[37,129]", "[129,53]", "[37,53]",
     "lhs_batch={}, rhs_batch={}, lhs_contracting={1}, rhs_contracting={0}"},
    {"batched", "[5,17,40]", "[5,40,23]", "[5,17,23]",
     "lhs_batch={0}, rhs_batch={0}, lhs_contracting={2}, rhs_contracting={1}"},
    // x^T . y: the lhs is read transposed (a weight gradient).
    {"lhs_transposed", "[64,33]", "[64,48]", "[33,48]",
     "lhs_batch={}, rhs_batch={}, lhs_contracting={0}, rhs_contracting={0}"},
    // x . w^T: the rhs is read transposed (a linear layer with [out, in] weights).
    {"rhs_transposed", "[19,72]", "[31,72]", "[19,31]",
     "lhs_batch={}, rhs_batch={}, lhs_contracting={1}, rhs_contracting={1}"},
    // Attention-like scores q . k^T per batch: batched with the rhs transposed.
    {"batched_rhs_transposed", "[6,24,16]", "[6,24,16]", "[6,24,24]",
     "lhs_batch={0}, rhs_batch={0}, lhs_contracting={2}, rhs_contracting={2}"},
    // The batch dimension last on the lhs: copied into the canonical layout first.
    {"copied", "[24,40,3]", "[3,40,18]", "[3,24,18]",
     "lhs_batch={2}, rhs_batch={0}, lhs_contracting={1}, rhs_contracting={1}"},
    // Large enough (>= 2^22 multiply-adds) to be split over the kernel threads: by rows
    // (one batch), and by batch with a shorter last part.
    {"split_rows", "[200,160]", "[160,144]", "[200,144]",
     "lhs_batch={}, rhs_batch={}, lhs_contracting={1}, rhs_contracting={0}"},
    {"split_batches", "[5,64,128]", "[5,128,128]", "[5,64,128]",
     "lhs_batch={0}, rhs_batch={0}, lhs_contracting={2}, rhs_contracting={1}"},
    // Fewer batches than threads: each batch split by rows, the lhs read transposed.
    {"split_rows_batched", "[2,128,160]", "[2,128,112]", "[2,160,112]",
     "lhs_batch={0}, rhs_batch={0}, lhs_contracting={1}, rhs_contracting={1}"},
};

std::string Text(const Case& c) {
  return absl::StrCat("program @dot {\n  %x = parameter(0) : bf16", c.lhs,
                      "\n  %y = parameter(1) : bf16", c.rhs, "\n  %z = dot_general(%x, %y), ",
                      c.dims, " : bf16", c.out, "\n  return (%z)\n}\n");
}

ir::Literal Random(const ir::Shape& shape, unsigned seed, bool magnitude) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(static_cast<size_t>(shape.num_elements()));
  for (float& v : values) v = magnitude ? std::fabs(dist(engine)) : dist(engine);
  return ir::Literal::FromBF16(values, shape.dims);
}

float At(const ir::Literal& l, int64_t i) {
  return ir::BF16ToFloat(reinterpret_cast<const uint16_t*>(l.bytes.data())[i]);
}

// Each element of `actual` within one bf16 rounding of the reference `expected` plus the
// f32 bound of a `terms`-term sum, relative to `scale` (the product of the magnitudes).
void ExpectNearReference(const ir::Literal& actual, const ir::Literal& expected,
                         const ir::Literal& scale, int64_t terms) {
  for (int64_t i = 0; i < actual.shape.num_elements(); ++i) {
    const double e = At(expected, i);
    const double bound = 4 * static_cast<double>(terms) * 6e-8 * At(scale, i) + std::fabs(e) / 128;
    EXPECT_NEAR(At(actual, i), e, bound) << "element " << i;
    if (std::fabs(At(actual, i) - e) > bound) break;  // one message per case
  }
}

// Plans and runs `c` under `library` and compares with the reference: each element within
// one bf16 rounding of the exact sum plus the f32 bound of a k-term sum. Returns whether
// the plan took oneDNN's matmul.
bool Check(const Case& c, GemmLibrary library, int threads) {
  SCOPED_TRACE(
      absl::StrCat(c.name, " ", std::string(GemmLibraryName(library)), " threads=", threads));
  absl::StatusOr<ir::Program> program = ir::ParseProgram(Text(c));
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return false;
  const ir::Instruction& dot = program->instructions[2];
  const ir::Shape lhs = program->instructions[0].shape, rhs = program->instructions[1].shape;
  std::vector<ir::Literal> args = {Random(lhs, 1, false), Random(rhs, 2, false)};
  std::vector<ir::Literal> magnitudes = {Random(lhs, 1, true), Random(rhs, 2, true)};
  absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(*program, args);
  absl::StatusOr<std::vector<ir::Literal>> scale = ir::Evaluate(*program, magnitudes);
  EXPECT_TRUE(expected.ok() && scale.ok());
  if (!expected.ok() || !scale.ok()) return false;
  SetGemmLibrary(library);
  SetKernelThreads(threads);
  const DotPlan plan = PlanDot(lhs, rhs, DotDimensionsOf(dot));
  std::vector<uint8_t> out(dot.shape.byte_size());
  RunDot(plan, args[0].bytes.data(), args[1].bytes.data(), out.data());
  SetKernelThreads(0);
  SetGemmLibrary(GemmLibrary::kAuto);
  ExpectNearReference(ir::Literal{dot.shape, out}, expected->front(), scale->front(), plan.k);
  return plan.bf16_matmul != nullptr;
}

// Where the rule sends `c` under SEAM_CPU_GEMM=auto on this machine.
bool AutoTakesOneDnn(const Case& c) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(Text(c));
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return false;
  const DotPlan plan = PlanDot(program->instructions[0].shape, program->instructions[1].shape,
                               DotDimensionsOf(program->instructions[2]));
  return Bf16ProductOnOneDnn(ThisBf16Hardware(), GemmLibrary::kAuto, plan.batches, plan.m, plan.n,
                             plan.k);
}

TEST(CpuBf16DotTest, BothPathsMatchTheReference) {
  for (const Case& c : kCases) {
    for (int threads : {1, 3}) {
      // `onednn` sends every case there where oneDNN runs bf16 code; `openblas` none.
      EXPECT_EQ(Check(c, GemmLibrary::kOneDnn, threads), OneDnnHasBf16()) << c.name;
      EXPECT_FALSE(Check(c, GemmLibrary::kOpenBlas, threads)) << c.name;
      EXPECT_EQ(Check(c, GemmLibrary::kAuto, threads), AutoTakesOneDnn(c)) << c.name;
    }
  }
}

// The rule of Bf16ProductOnOneDnn for the kinds of CPU there are, whatever this one is.
TEST(CpuBf16DotTest, TheRuleFollowsTheCpusBf16Rate) {
  const Bf16Hardware none{}, amx{true, true, 0.5}, fast{true, false, 2.0}, slow{true, false, 0.5};
  const GemmLibrary kAuto = GemmLibrary::kAuto, kOneDnn = GemmLibrary::kOneDnn,
                    kOpenBlas = GemmLibrary::kOpenBlas;
  // No bf16 code in oneDNN, or `openblas`: always widened.
  EXPECT_FALSE(Bf16ProductOnOneDnn(none, kAuto, 1, 512, 512, 512));
  EXPECT_FALSE(Bf16ProductOnOneDnn(none, kOneDnn, 1, 512, 512, 512));
  EXPECT_FALSE(Bf16ProductOnOneDnn(fast, kOpenBlas, 1, 512, 512, 512));
  // Below 32^3 multiply-adds widened everywhere; from there on oneDNN where its bf16 code is
  // the faster.
  EXPECT_FALSE(Bf16ProductOnOneDnn(fast, kAuto, 1, 16, 16, 16));
  EXPECT_FALSE(Bf16ProductOnOneDnn(slow, kOneDnn, 1, 16, 16, 16));
  EXPECT_TRUE(Bf16ProductOnOneDnn(fast, kAuto, 1, 32, 32, 32));
  EXPECT_TRUE(Bf16ProductOnOneDnn(fast, kAuto, 1, 2048, 2048, 2048));
  EXPECT_TRUE(Bf16ProductOnOneDnn(amx, kAuto, 1, 2048, 2048, 2048));
  // A bf16 instruction at half the FMA's rate: large products widen, a side of at most 128
  // keeps oneDNN, and `onednn` forces it.
  EXPECT_FALSE(Bf16ProductOnOneDnn(slow, kAuto, 1, 2048, 2048, 2048));
  EXPECT_FALSE(Bf16ProductOnOneDnn(slow, kAuto, 4, 129, 129, 129));
  EXPECT_TRUE(Bf16ProductOnOneDnn(slow, kAuto, 1, 128, 4096, 4096));
  EXPECT_TRUE(Bf16ProductOnOneDnn(slow, kAuto, 1, 4096, 128, 4096));
  EXPECT_TRUE(Bf16ProductOnOneDnn(slow, kAuto, 128, 4096, 4096, 64));
  EXPECT_TRUE(Bf16ProductOnOneDnn(slow, kOneDnn, 1, 2048, 2048, 2048));
  // The attribute's names.
  EXPECT_STREQ(Bf16PathName(none, kAuto), "widened_to_f32");
  EXPECT_STREQ(Bf16PathName(fast, kOpenBlas), "widened_to_f32");
  EXPECT_STREQ(Bf16PathName(fast, kAuto), "onednn_bf16_matmul");
  EXPECT_STREQ(Bf16PathName(amx, kAuto), "onednn_bf16_matmul");
  EXPECT_STREQ(Bf16PathName(slow, kAuto), "by_size");
  EXPECT_STREQ(Bf16PathName(slow, kOneDnn), "onednn_bf16_matmul");
}

// The measured rate: 0 without AVX512_BF16, else a plausible ratio (about 0.5 or 2 on the
// CPUs measured so far; a broken measurement gives 0, infinity or far-off values), the
// same at every call, and the one the rule reads where oneDNN runs bf16 code.
TEST(CpuBf16DotTest, TheBf16RateIsMeasuredOnce) {
  const double ratio = Bf16DotRateOverFma();
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512bf16")) {
    EXPECT_EQ(ratio, 0);
    GTEST_SKIP() << "this CPU has no AVX512_BF16: nothing to measure";
  }
  EXPECT_GT(ratio, 0.2);
  EXPECT_LT(ratio, 5.0);
  EXPECT_EQ(Bf16DotRateOverFma(), ratio);
  if (OneDnnHasBf16()) {
    EXPECT_EQ(ThisBf16Hardware().dot_over_fma, ratio);
  }
}

// Products below kBf16OneDnnMinimumWork multiply-adds widen (a oneDNN call costs more),
// and still match the reference.
TEST(CpuBf16DotTest, TinyProductsWiden) {
  const Case tiny = {"tiny", "[16,16]", "[16,16]", "[16,16]",
                     "lhs_batch={}, rhs_batch={}, lhs_contracting={1}, rhs_contracting={0}"};
  EXPECT_FALSE(Check(tiny, GemmLibrary::kAuto, 1));
  const Case level = {"level", "[32,32]", "[32,32]", "[32,32]", tiny.dims};
  EXPECT_EQ(Check(level, GemmLibrary::kAuto, 1), OneDnnHasBf16());
}

// One plan run from several threads at once (an executable shares its plans between the
// replicas' threads) gives the bits of a lone run.
TEST(CpuBf16DotTest, APlanRunsOnSeveralThreadsAtOnce) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(Text(kCases[7]));  // split_batches
  ASSERT_TRUE(program.ok());
  const ir::Instruction& dot = program->instructions[2];
  const ir::Shape lhs = program->instructions[0].shape, rhs = program->instructions[1].shape;
  const ir::Literal x = Random(lhs, 5, false), y = Random(rhs, 6, false);
  SetKernelThreads(2);
  const DotPlan plan = PlanDot(lhs, rhs, DotDimensionsOf(dot));
  std::vector<uint8_t> alone(dot.shape.byte_size());
  RunDot(plan, x.bytes.data(), y.bytes.data(), alone.data());
  std::vector<std::vector<uint8_t>> outs(4, std::vector<uint8_t>(dot.shape.byte_size()));
  std::vector<std::thread> threads;
  threads.reserve(outs.size());
  for (auto& out : outs) {
    threads.emplace_back([&] {
      for (int r = 0; r < 5; ++r) RunDot(plan, x.bytes.data(), y.bytes.data(), out.data());
    });
  }
  for (std::thread& t : threads) t.join();
  SetKernelThreads(0);
  for (const auto& out : outs) EXPECT_EQ(out, alone);
}

// Where the CPU has bf16 instructions, a compiled bf16 product runs on oneDNN (the run
// counter moves, the optimized dump says so); SEAM_CPU_GEMM=openblas keeps it off.
TEST(CpuBf16DotTest, TheOneDnnPathRunsWhereTheCpuHasBf16) {
  if (!OneDnnHasBf16()) {
    GTEST_SKIP() << "this build has no oneDNN, or oneDNN runs no bf16 code on this CPU "
                    "(no AVX512_BF16 or AMX): every bf16 product widens to f32";
  }
  const std::string text = Text(kCases[1]);
  std::shared_ptr<const Executable> exe = harness::CompileOrDie(text, true);
  ASSERT_NE(exe, nullptr);
  EXPECT_NE(OptimizedDumpText(*exe).find("dot_general, oneDNN bf16 matmul"), std::string::npos)
      << OptimizedDumpText(*exe);
  const std::vector<ir::Literal> args = {Random(exe->parameter_shapes()[0], 3, false),
                                         Random(exe->parameter_shapes()[1], 4, false)};
  const int64_t before = Bf16MatmulRuns();
  std::vector<ir::Literal> results = harness::RunProgram(*exe, args);
  EXPECT_EQ(Bf16MatmulRuns(), before + 1);
  ASSERT_EQ(results.size(), 1u);

  SetGemmLibrary(GemmLibrary::kOpenBlas);
  std::shared_ptr<const Executable> widened = harness::CompileOrDie(text, true);
  SetGemmLibrary(GemmLibrary::kAuto);
  ASSERT_NE(widened, nullptr);
  EXPECT_EQ(OptimizedDumpText(*widened).find("oneDNN bf16 matmul"), std::string::npos);
  std::vector<ir::Literal> wide_results = harness::RunProgram(*widened, args);
  EXPECT_EQ(Bf16MatmulRuns(), before + 1);
  ASSERT_EQ(wide_results.size(), 1u);
  // Both within the bound of the reference.
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok());
  const std::vector<ir::Literal> magnitudes = {Random(exe->parameter_shapes()[0], 3, true),
                                               Random(exe->parameter_shapes()[1], 4, true)};
  absl::StatusOr<std::vector<ir::Literal>> expected = ir::Evaluate(*program, args);
  absl::StatusOr<std::vector<ir::Literal>> scale = ir::Evaluate(*program, magnitudes);
  ASSERT_TRUE(expected.ok() && scale.ok());
  const int64_t terms = exe->parameter_shapes()[0].dims[2];
  ExpectNearReference(results[0], expected->front(), scale->front(), terms);
  ExpectNearReference(wide_results[0], expected->front(), scale->front(), terms);
}

std::string Attribute(const std::string& name) {
  PJRT_Plugin_Attributes_Args args{};
  args.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE;
  EXPECT_EQ(GetCpuPjrtApi()->PJRT_Plugin_Attributes(&args), nullptr);
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& value = args.attributes[i];
    if (std::string(value.name, value.name_size) == name && value.type == PJRT_NamedValue_kString) {
      return std::string(value.string_value, value.value_size);
    }
  }
  return "";
}

// The plugin attribute dot_bf16 (`seam info`) says which path bf16 products take.
TEST(CpuBf16DotTest, TheAttributeNamesThePath) {
  const Bf16Hardware& hardware = ThisBf16Hardware();
  const std::string automatic = Attribute("dot_bf16");
  EXPECT_EQ(automatic, Bf16PathName(hardware, GemmLibrary::kAuto));
  if (!OneDnnHasBf16()) {
    EXPECT_EQ(automatic, "widened_to_f32");
  } else if (hardware.dot_over_fma >= 1) {
    EXPECT_EQ(automatic, "onednn_bf16_matmul");
  }
  SetGemmLibrary(GemmLibrary::kOpenBlas);
  EXPECT_EQ(Attribute("dot_bf16"), "widened_to_f32");
  SetGemmLibrary(GemmLibrary::kOneDnn);
  EXPECT_EQ(Attribute("dot_bf16"), OneDnnHasBf16() ? "onednn_bf16_matmul" : "widened_to_f32");
  SetGemmLibrary(GemmLibrary::kAuto);
}

}  // namespace
}  // namespace seam::cpu
