// SEAM_DUMP_TO: every compile of the CPU plugin writes the received and the optimized program.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/ten_op_chain.h"
#include "seam/c/pjrt_c_api.h"
#include "src/ir/hash.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/kernels/gemm.h"

namespace {

const PJRT_Api* Api() { return seam::cpu::GetCpuPjrtApi(); }

template <typename Args>
Args Make() {
  Args args{};
  args.struct_size = sizeof(Args);
  return args;
}

std::string Take(PJRT_Error* error) {
  if (error == nullptr) return "";
  auto message = Make<PJRT_Error_Message_Args>();
  message.error = error;
  Api()->PJRT_Error_Message(&message);
  std::string text(message.message, message.message_size);
  auto destroy = Make<PJRT_Error_Destroy_Args>();
  destroy.error = error;
  Api()->PJRT_Error_Destroy(&destroy);
  return text;
}

// Hand-written (not canonical) text: the received dump keeps it byte for byte.
constexpr char kProgram[] =
    "program @dumped {\n"
    "  %x = parameter(0) : f32[3]   # the input\n"
    "  %y = exp(%x) : f32[3]\n"
    "  %z = add(%y, %x) : f32[3]\n"
    "  alias output 0 = parameter 0\n"
    "  return (%z)\n"
    "}\n";

std::string Compile(std::string_view text = kProgram) {
  auto create = Make<PJRT_Client_Create_Args>();
  std::string error = Take(Api()->PJRT_Client_Create(&create));
  if (!error.empty()) return error;
  auto program = Make<PJRT_Program>();
  program.code = const_cast<char*>(text.data());
  program.code_size = text.size();
  program.format = "seam-ir";
  program.format_size = 7;
  auto compile = Make<PJRT_Client_Compile_Args>();
  compile.client = create.client;
  compile.program = &program;
  error = Take(Api()->PJRT_Client_Compile(&compile));
  if (error.empty()) {
    auto destroy = Make<PJRT_LoadedExecutable_Destroy_Args>();
    destroy.executable = compile.executable;
    Take(Api()->PJRT_LoadedExecutable_Destroy(&destroy));
  }
  auto destroy = Make<PJRT_Client_Destroy_Args>();
  destroy.client = create.client;
  Take(Api()->PJRT_Client_Destroy(&destroy));
  return error;
}

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string HashName(std::string_view text = kProgram) {
  absl::StatusOr<seam::ir::Program> program = seam::ir::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  return absl::StrFormat("%016x", seam::ir::HashProgram(*program));
}

TEST(CpuDumpTest, WritesReceivedAndOptimizedProgramsNamedByHash) {
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "seam_dump_test" / "nested";
  std::filesystem::remove_all(dir);
  setenv("SEAM_DUMP_TO", dir.c_str(), 1);
  ASSERT_EQ(Compile(), "");
  std::string name = HashName();
  EXPECT_EQ(Read(dir / (name + ".received.txt")), kProgram);
  std::string optimized = Read(dir / (name + ".optimized.txt"));
  EXPECT_NE(optimized.find("Passes: simplify ("), std::string::npos) << optimized;
  // exp and add are one loop reading %0 and writing %2, straight into the donated block.
  EXPECT_NE(optimized.find("# fusion.0 = { %1 %2 } kind=loop elements=3 inputs={%0} "
                           "outputs={%2} scratch=1\n"
                           "#   %1 = exp(in0(%0)) -> s0\n"
                           "#   %2 = add(s0, in0(%0)) -> out0\n"),
            std::string::npos)
      << optimized;
  EXPECT_NE(optimized.find("# steps: fusion.0\n"), std::string::npos) << optimized;
  EXPECT_NE(optimized.find("#   %0: parameter 0\n"), std::string::npos) << optimized;
  EXPECT_NE(optimized.find("#   %1: no memory (fused, or not needed)\n"), std::string::npos)
      << optimized;
  EXPECT_NE(optimized.find("#   %2: donated block of parameter 0 (in place)\n"), std::string::npos)
      << optimized;
  EXPECT_NE(optimized.find("# output 0 (%2): computed in place in the donated memory of "
                           "parameter 0\n"),
            std::string::npos)
      << optimized;
  // The optimized dump parses back (the plan is comments) to the same program.
  absl::StatusOr<seam::ir::Program> reparsed = seam::ir::ParseProgram(optimized);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(reparsed->aliases.size(), 1u);
  EXPECT_EQ(absl::StrFormat("%016x", seam::ir::HashProgram(*reparsed)), name);
  std::filesystem::remove_all(dir.parent_path());
}

TEST(CpuDumpTest, TheOptimizedDumpShowsTheSimplifiedProgramUnderTheReceivedHash) {
  constexpr char kRedundant[] =
      "program @redundant {\n"
      "  %x = parameter(0) : f32[3]\n"
      "  %one = constant(1) : f32[]\n"
      "  %ones = broadcast_in_dim(%one), dims={} : f32[3]\n"
      "  %a = multiply(%x, %ones) : f32[3]\n"
      "  %b = exp(%a) : f32[3]\n"
      "  %c = exp(%x) : f32[3]\n"
      "  %d = add(%b, %c) : f32[3]\n"
      "  return (%d)\n"
      "}\n";
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "seam_dump_simplified";
  std::filesystem::remove_all(dir);
  setenv("SEAM_DUMP_TO", dir.c_str(), 1);
  ASSERT_EQ(Compile(kRedundant), "");
  std::string name = HashName(kRedundant);
  EXPECT_EQ(Read(dir / (name + ".received.txt")), kRedundant);
  std::string optimized = Read(dir / (name + ".optimized.txt"));
  absl::StatusOr<seam::ir::Program> reparsed = seam::ir::ParseProgram(optimized);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << optimized;
  absl::StatusOr<seam::ir::Program> want = seam::ir::ParseProgram(
      "program @redundant {\n"
      "  %0 = parameter(0) : f32[3]\n"
      "  %1 = exp(%0) : f32[3]\n"
      "  %2 = add(%1, %1) : f32[3]\n"
      "  return (%2)\n"
      "}\n");
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(*reparsed, *want) << optimized;
  EXPECT_NE(absl::StrFormat("%016x", seam::ir::HashProgram(*reparsed)), name);
  std::filesystem::remove_all(dir);
}

// The 10-op chain of bench/elementwise_bench.cc: the optimized dump shows exactly one fused
// kernel, holding all ten ops, and it is the only step.
constexpr const char* kChain = seam::bench::kTenOpChain;

TEST(CpuDumpTest, TheTenOpChainIsOneFusedKernel) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "seam_dump_chain";
  std::filesystem::remove_all(dir);
  setenv("SEAM_DUMP_TO", dir.c_str(), 1);
  ASSERT_EQ(Compile(kChain), "");
  std::string optimized = Read(dir / (HashName(kChain) + ".optimized.txt"));
  ASSERT_FALSE(optimized.empty());
  std::vector<std::string> kernels;
  std::istringstream lines(optimized);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# fusion.", 0) == 0) kernels.push_back(line);
  }
  ASSERT_EQ(kernels.size(), 1u) << optimized;
  // Its member list names the ten ops (%3..%12; %0..%2 are the parameters).
  const size_t open = kernels[0].find("{ "), close = kernels[0].find(" }");
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  std::istringstream members(kernels[0].substr(open + 2, close - open - 2));
  std::vector<std::string> names;
  for (std::string name; members >> name;) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"%3", "%4", "%5", "%6", "%7", "%8", "%9", "%10", "%11",
                                             "%12"}))
      << kernels[0];
  EXPECT_NE(kernels[0].find("kind=loop"), std::string::npos) << kernels[0];
  EXPECT_NE(optimized.find("# steps: fusion.0\n"), std::string::npos) << optimized;
  // No intermediate gets memory.
  EXPECT_NE(optimized.find("# buffers: arena of 0 bytes in 0 slot(s)"), std::string::npos)
      << optimized;
  std::filesystem::remove_all(dir);
}

TEST(CpuDumpTest, AFailedWriteIsAWarningNotACompileError) {
  setenv("SEAM_DUMP_TO", "/dev/null/not-a-directory", 1);
  ::testing::internal::CaptureStderr();
  std::string error = Compile();
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(error, "");
  EXPECT_NE(warning.find("seam cpu plugin: warning: SEAM_DUMP_TO=/dev/null/not-a-directory: "
                         "the compile dump failed: cannot create directory"),
            std::string::npos)
      << warning;
}

TEST(CpuDumpTest, NothingIsWrittenWithoutTheVariable) {
  unsetenv("SEAM_DUMP_TO");
  // The plugin's one warning per process where OpenBLAS runs generic kernels (an Intel
  // AVX-512 CPU that Debian's OpenBLAS takes for a Prescott) is not the dump's: given first.
  seam::cpu::LogBlasCoreOnce();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Compile(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
