// The CPU plugin's settings as create options (cpu_settings.h, docs/cpu-plugin.md
// "Settings"): each option changes what the plugin does exactly as its environment variable
// does, wins over the variable, and a bad value or type is an error from PJRT_Client_Create
// naming the option and the value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/api/cpu_settings.h"
#include "src/plugins/cpu/api/objects.h"
#include "src/plugins/cpu/api/testing_hooks.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/kernels/chain_jit.h"
#include "src/plugins/cpu/kernels/dot_onednn.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "src/testing/file_kv_store.h"
#include "src/testing/pjrt_client.h"
#include "src/testing/worker_process.h"
#include "tests/unit/attention_program.h"

namespace seam::cpu {
namespace {

using seam::testing::PjrtClient;

// A create option: an int64 or a string.
struct Option {
  std::string name;
  std::variant<int64_t, std::string> value;
};

absl::StatusOr<std::unique_ptr<PjrtClient>> Client(const std::vector<Option>& options,
                                                   seam::testing::FileKvStore* store = nullptr) {
  std::vector<PJRT_NamedValue> values;
  for (const Option& option : options) {
    PJRT_NamedValue value{};
    value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    value.name = option.name.c_str();
    value.name_size = option.name.size();
    if (const auto* number = std::get_if<int64_t>(&option.value)) {
      value.type = PJRT_NamedValue_kInt64;
      value.int64_value = *number;
      value.value_size = 1;
    } else {
      const std::string& text = std::get<std::string>(option.value);
      value.type = PJRT_NamedValue_kString;
      value.string_value = text.c_str();
      value.value_size = text.size();
    }
    values.push_back(value);
  }
  return PjrtClient::CreateWithValues(GetCpuPjrtApi(), values, store);
}

std::string CreateError(const std::vector<Option>& options) {
  absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options);
  return client.ok() ? "ok" : std::string(client.status().message());
}

// The plugin's compiled form of `text` under a client with `options`.
class Compiled {
 public:
  Compiled(const std::vector<Option>& options, const std::string& text,
           seam::testing::FileKvStore* store = nullptr) {
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options, store);
    EXPECT_TRUE(client.ok()) << client.status();
    if (!client.ok()) return;
    client_ = *std::move(client);
    absl::StatusOr<PJRT_LoadedExecutable*> loaded = client_->Compile(text);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (loaded.ok()) loaded_ = *loaded;
  }
  ~Compiled() {
    if (loaded_ != nullptr) client_->Destroy(loaded_);
  }
  Compiled(const Compiled&) = delete;
  Compiled& operator=(const Compiled&) = delete;

  const Executable* executable() const {
    return loaded_ == nullptr ? nullptr : loaded_->executable.get();
  }
  std::string Dump() const {
    return executable() == nullptr ? "" : OptimizedDumpText(*executable());
  }
  PjrtClient* client() const { return client_.get(); }
  PJRT_LoadedExecutable* loaded() const { return loaded_; }

 private:
  std::unique_ptr<PjrtClient> client_;
  PJRT_LoadedExecutable* loaded_ = nullptr;
};

// Runs `compiled` (one f32 parameter of `elements`, one result) once and waits for it.
void RunOnce(const Compiled& compiled, int64_t elements) {
  ASSERT_NE(compiled.loaded(), nullptr);
  PjrtClient& client = *compiled.client();
  std::vector<float> input(static_cast<size_t>(elements), 0.5f);
  absl::StatusOr<PJRT_Buffer*> argument =
      client.Upload(input.data(), PJRT_Buffer_Type_F32, {elements}, 0);
  ASSERT_TRUE(argument.ok()) << argument.status();
  absl::StatusOr<PjrtClient::Launch> launch = client.Execute(compiled.loaded(), {*argument});
  ASSERT_TRUE(launch.ok()) << launch.status();
  EXPECT_TRUE(client.ReadyStatus(launch->outputs[0]).ok());
  client.Destroy(*launch);
  client.Destroy(*argument);
}

std::string ElementwiseProgram(int64_t elements) {
  const std::string shape = absl::StrCat("f32[", elements, "]");
  return absl::StrCat("program @elementwise {\n  %0 = parameter(0) : ", shape,
                      "\n  %1 = exp(%0) : ", shape, "\n  %2 = add(%1, %0) : ", shape,
                      "\n  return (%2)\n}\n");
}

// A loop large enough to be split over every kernel thread.
constexpr int64_t kLarge = int64_t{1} << 20;

// The thread count the run's loops were split over.
int ThreadsOfARun(const std::vector<Option>& options) {
  Compiled compiled(options, ElementwiseProgram(kLarge));
  RunOnce(compiled, kLarge);
  return LastLoopThreads();
}

TEST(CpuOptionsTest, ThreadsSetsTheKernelThreadsAsTheVariableDoes) {
  unsetenv("SEAM_CPU_THREADS");
  EXPECT_EQ(ThreadsOfARun({{"threads", int64_t{3}}}), 3);
  EXPECT_EQ(ThreadsOfARun({{"threads", int64_t{2}}}), 2);
  EXPECT_EQ(ThreadsOfARun({{"threads", int64_t{1000}}}), 256);  // capped, as the variable
  setenv("SEAM_CPU_THREADS", "3", 1);
  EXPECT_EQ(ThreadsOfARun({}), 3);
  EXPECT_EQ(ThreadsOfARun({{"threads", int64_t{2}}}), 2);  // the option wins
  setenv("SEAM_CPU_THREADS", "1000", 1);
  EXPECT_EQ(ThreadsOfARun({}), 256);
  unsetenv("SEAM_CPU_THREADS");
  EXPECT_EQ(CreateError({{"threads", int64_t{0}}}),
            "PJRT_Client_Create: option 'threads' must be a positive integer, got '0'");
  setenv("SEAM_CPU_THREADS", "0", 1);
  EXPECT_EQ(CreateError({}),
            "PJRT_Client_Create: environment variable SEAM_CPU_THREADS must be a positive "
            "integer, got '0'");
  EXPECT_EQ(CreateError({{"threads", int64_t{2}}}), "ok");  // the variable is not read
  unsetenv("SEAM_CPU_THREADS");
  EXPECT_EQ(CreateError({{"threads", std::string("4")}}),
            "PJRT_Client_Create: option 'threads' must be an int64 value");
}

// Two clients of one process with different settings each run with their own.
TEST(CpuOptionsTest, TwoClientsKeepTheirOwnSettings) {
  Compiled two({{"threads", int64_t{2}}}, ElementwiseProgram(kLarge));
  Compiled three({{"threads", int64_t{3}}}, ElementwiseProgram(kLarge));
  RunOnce(two, kLarge);
  EXPECT_EQ(LastLoopThreads(), 2);
  RunOnce(three, kLarge);
  EXPECT_EQ(LastLoopThreads(), 3);
  RunOnce(two, kLarge);
  EXPECT_EQ(LastLoopThreads(), 2);
}

constexpr char kBf16Product[] = R"(program @bf16_product {
  %0 = parameter(0) : bf16[64,64]
  %1 = dot_general(%0, %0), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : bf16[64,64]
  return (%1)
}
)";

bool OnOneDnn(const std::vector<Option>& options) {
  Compiled compiled(options, kBf16Product);
  return compiled.Dump().find("oneDNN bf16 matmul") != std::string::npos;
}

TEST(CpuOptionsTest, GemmPicksTheProductLibraryAsTheVariableDoes) {
  unsetenv("SEAM_CPU_GEMM");
  EXPECT_EQ(CreateError({{"gemm", std::string("mkl")}}),
            "PJRT_Client_Create: option 'gemm' must be auto, openblas or onednn, got 'mkl'");
  setenv("SEAM_CPU_GEMM", "mkl", 1);
  EXPECT_EQ(CreateError({}),
            "PJRT_Client_Create: environment variable SEAM_CPU_GEMM must be auto, openblas or "
            "onednn, got 'mkl'");
  EXPECT_EQ(CreateError({{"gemm", std::string("openblas")}}), "ok");
  unsetenv("SEAM_CPU_GEMM");
  if (!OneDnnHasBf16()) {
    GTEST_SKIP() << "this build has no oneDNN, or oneDNN runs no bf16 code on this CPU: no "
                    "product path differs between the choices";
  }
  EXPECT_TRUE(OnOneDnn({}));
  EXPECT_TRUE(OnOneDnn({{"gemm", std::string("auto")}}));
  EXPECT_FALSE(OnOneDnn({{"gemm", std::string("openblas")}}));
  setenv("SEAM_CPU_GEMM", "openblas", 1);
  EXPECT_FALSE(OnOneDnn({}));
  EXPECT_TRUE(OnOneDnn({{"gemm", std::string("")}}));  // empty is auto, as for the variable
  unsetenv("SEAM_CPU_GEMM");
}

std::string ConvLine(const std::string& name, const std::string& x, const std::string& image) {
  return absl::StrCat(
      "  ", name, " = convolution(", x,
      ", %k), input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, "
      "kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={2,3}, "
      "output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2,3}, "
      "feature_group_count={1}, window_strides={1,1}, padding_low={1,1}, padding_high={1,1}, "
      "lhs_dilation={1,1}, rhs_dilation={1,1} : ",
      image, "\n");
}

constexpr char kImage[] = "f32[4,16,10,10]";

// conv(x, k) alone: both parameters feed only the convolution.
std::string ConvProgram() {
  return absl::StrCat("program @conv {\n  %x = parameter(0) : ", kImage,
                      "\n  %k = parameter(1) : f32[16,16,3,3]\n", ConvLine("%c", "%x", kImage),
                      "  return (%c)\n}\n");
}

// relu(conv(x, k) + b): an epilogue oneDNN can run inside the convolution.
std::string BiasReluProgram() {
  return absl::StrCat("program @bias_relu {\n  %x = parameter(0) : ", kImage,
                      "\n  %k = parameter(1) : f32[16,16,3,3]\n  %b = parameter(2) : f32[16]\n",
                      ConvLine("%c", "%x", kImage),
                      "  %bb = broadcast_in_dim(%b), dims={1} : ", kImage,
                      "\n  %y = add(%c, %bb) : ", kImage, "\n  %z = constant(0) : f32[]\n",
                      "  %zb = broadcast_in_dim(%z), dims={} : ", kImage,
                      "\n  %r = maximum(%zb, %y) : ", kImage, "\n  return (%r)\n}\n");
}

// "onednn", "gemm" or "direct": the path the program's convolution plan took.
std::string ConvPath(const std::vector<Option>& options) {
  Compiled compiled(options, ConvProgram());
  if (compiled.executable() == nullptr) return "none";
  for (const StepPlan& plan : compiled.executable()->step_plans()) {
    if (plan.conv == nullptr) continue;
    return plan.conv->uses_onednn() ? "onednn" : plan.conv->uses_gemm() ? "gemm" : "direct";
  }
  return "no convolution step";
}

TEST(CpuOptionsTest, ConvPicksTheConvolutionPathAsTheVariableDoes) {
  unsetenv("SEAM_CPU_CONV");
  const std::string automatic = OneDnnAvailable() ? "onednn" : "gemm";
  EXPECT_EQ(ConvPath({}), automatic);
  EXPECT_EQ(ConvPath({{"conv", std::string("gemm")}}), "gemm");
  EXPECT_EQ(ConvPath({{"conv", std::string("direct")}}), "direct");
  EXPECT_EQ(ConvPath({{"conv", std::string("auto")}}), automatic);
  setenv("SEAM_CPU_CONV", "direct", 1);
  EXPECT_EQ(ConvPath({}), "direct");
  EXPECT_EQ(ConvPath({{"conv", std::string("gemm")}}), "gemm");  // the option wins
  unsetenv("SEAM_CPU_CONV");
  EXPECT_EQ(CreateError({{"conv", std::string("mkl")}}),
            "PJRT_Client_Create: option 'conv' must be auto, gemm or direct, got 'mkl'");
}

// The path of a convolution compiled by `client` now.
std::string ConvPathOf(PjrtClient& client) {
  absl::StatusOr<PJRT_LoadedExecutable*> loaded = client.Compile(ConvProgram());
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return "none";
  std::string path = "no convolution step";
  for (const StepPlan& plan : (*loaded)->executable->step_plans()) {
    if (plan.conv == nullptr) continue;
    path = plan.conv->uses_onednn() ? "onednn" : plan.conv->uses_gemm() ? "gemm" : "direct";
  }
  client.Destroy(*loaded);
  return path;
}

// SEAM_CPU_CONV, SEAM_CPU_EPILOGUES, SEAM_CPU_LAYOUTS and SEAM_DUMP_TO are read at each
// compile, as they always were (bench/conv_bench.cc compares paths with one client); an
// option fixes its setting for the client's life.
TEST(CpuOptionsTest, TheCompileTimeVariablesAreReadAtEachCompileUnlessAnOptionIsGiven) {
  unsetenv("SEAM_CPU_CONV");
  absl::StatusOr<std::unique_ptr<PjrtClient>> plain = Client({});
  absl::StatusOr<std::unique_ptr<PjrtClient>> pinned = Client({{"conv", std::string("gemm")}});
  ASSERT_TRUE(plain.ok() && pinned.ok());
  setenv("SEAM_CPU_CONV", "direct", 1);
  EXPECT_EQ(ConvPathOf(**plain), "direct");
  EXPECT_EQ(ConvPathOf(**pinned), "gemm");
  setenv("SEAM_CPU_CONV", "gemm", 1);
  EXPECT_EQ(ConvPathOf(**plain), "gemm");
  setenv("SEAM_CPU_CONV", "direct", 1);
  EXPECT_EQ(ConvPathOf(**pinned), "gemm");
  unsetenv("SEAM_CPU_CONV");
}

bool EpilogueFused(const std::vector<Option>& options) {
  Compiled compiled(options, BiasReluProgram());
  return compiled.Dump().find("(epilogue in %") != std::string::npos;
}

TEST(CpuOptionsTest, EpiloguesTurnsConvolutionEpiloguesOnAndOffAsTheVariableDoes) {
  unsetenv("SEAM_CPU_EPILOGUES");
  EXPECT_EQ(CreateError({{"epilogues", std::string("maybe")}}),
            "PJRT_Client_Create: option 'epilogues' must be on or off, got 'maybe'");
  if (!OneDnnAvailable()) GTEST_SKIP() << "epilogues run inside oneDNN's convolutions only";
  EXPECT_TRUE(EpilogueFused({}));
  EXPECT_TRUE(EpilogueFused({{"epilogues", std::string("on")}}));
  EXPECT_FALSE(EpilogueFused({{"epilogues", std::string("off")}}));
  setenv("SEAM_CPU_EPILOGUES", "off", 1);
  EXPECT_FALSE(EpilogueFused({}));
  EXPECT_TRUE(EpilogueFused({{"epilogues", std::string("on")}}));
  unsetenv("SEAM_CPU_EPILOGUES");
}

// Whether the convolution's parameters are read in oneDNN's layouts.
bool BlockedParameters(const std::vector<Option>& options) {
  Compiled compiled(options, ConvProgram());
  if (compiled.executable() == nullptr) return false;
  const LayoutPlan& layouts = compiled.executable()->layouts();
  return !layouts.parameters.empty() && layouts.parameters[0] != nullptr;
}

TEST(CpuOptionsTest, LayoutsKeepsParametersDenseAsTheVariableDoes) {
  unsetenv("SEAM_CPU_LAYOUTS");
  EXPECT_EQ(CreateError({{"layouts", std::string("blocked")}}),
            "PJRT_Client_Create: option 'layouts' must be auto or dense, got 'blocked'");
  if (!OneDnnAvailable()) GTEST_SKIP() << "only oneDNN's convolutions take other layouts";
  const bool automatic = BlockedParameters({});
  if (!automatic) GTEST_SKIP() << "oneDNN keeps this convolution's operands dense on this CPU";
  EXPECT_FALSE(BlockedParameters({{"layouts", std::string("dense")}}));
  EXPECT_TRUE(BlockedParameters({{"layouts", std::string("auto")}}));
  setenv("SEAM_CPU_LAYOUTS", "dense", 1);
  EXPECT_FALSE(BlockedParameters({}));
  EXPECT_TRUE(BlockedParameters({{"layouts", std::string("auto")}}));
  unsetenv("SEAM_CPU_LAYOUTS");
}

std::vector<std::string> FilesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::exists(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(CpuOptionsTest, DumpToWritesTheDumpsIntoTheGivenFolder) {
  const std::filesystem::path root =
      std::filesystem::path(::testing::TempDir()) / "seam_cpu_options_dump";
  std::filesystem::remove_all(root);
  const std::filesystem::path by_option = root / "option", by_variable = root / "variable";
  unsetenv("SEAM_DUMP_TO");
  { Compiled compiled({{"dump_to", by_option.string()}}, ElementwiseProgram(8)); }
  const std::vector<std::string> written = FilesIn(by_option);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_NE(written[0].find(".optimized.txt"), std::string::npos) << written[0];
  EXPECT_NE(written[1].find(".received.txt"), std::string::npos) << written[1];
  std::ifstream file(by_option / written[1]);
  std::stringstream received;
  received << file.rdbuf();
  EXPECT_EQ(received.str(), ElementwiseProgram(8));
  // The variable writes the same files; the option wins over it.
  setenv("SEAM_DUMP_TO", by_variable.c_str(), 1);
  { Compiled compiled({}, ElementwiseProgram(8)); }
  EXPECT_EQ(FilesIn(by_variable), written);
  std::filesystem::remove_all(root);
  { Compiled compiled({{"dump_to", by_option.string()}}, ElementwiseProgram(8)); }
  EXPECT_EQ(FilesIn(by_option), written);
  EXPECT_TRUE(FilesIn(by_variable).empty());
  // An empty option is no dump, as an empty variable.
  std::filesystem::remove_all(root);
  { Compiled compiled({{"dump_to", std::string()}}, ElementwiseProgram(8)); }
  EXPECT_TRUE(FilesIn(by_variable).empty());
  unsetenv("SEAM_DUMP_TO");
  // A failed write is a warning naming the option, as it names the variable.
  ::testing::internal::CaptureStderr();
  { Compiled compiled({{"dump_to", std::string("/dev/null/x")}}, ElementwiseProgram(8)); }
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warning.find("seam cpu plugin: warning: dump_to=/dev/null/x: the compile dump "
                         "failed: cannot create directory"),
            std::string::npos)
      << warning;
  std::filesystem::remove_all(root);
}

// How many of `runs` runs of a small program went on the caller's thread.
int64_t InlineRunsOf(const std::vector<Option>& options, int runs = 3) {
  Compiled compiled(options, ElementwiseProgram(4));
  const int64_t before = ::seam::cpu::testing::InlineRuns();
  for (int r = 0; r < runs; ++r) RunOnce(compiled, 4);
  return ::seam::cpu::testing::InlineRuns() - before;
}

TEST(CpuOptionsTest, InlineMaxCostBoundsTheInlineRunsAsTheVariableDoes) {
  unsetenv("SEAM_CPU_INLINE_MAX_COST");
  EXPECT_EQ(InlineRunsOf({}), 3);
  EXPECT_EQ(InlineRunsOf({{"inline_max_cost", int64_t{0}}}), 0);
  // The program's cost (a few element operations) is above 1: queued, as with the variable.
  EXPECT_EQ(InlineRunsOf({{"inline_max_cost", int64_t{1}}}), 0);
  setenv("SEAM_CPU_INLINE_MAX_COST", "1", 1);
  EXPECT_EQ(InlineRunsOf({}), 0);
  EXPECT_EQ(InlineRunsOf({{"inline_max_cost", int64_t{32768}}}), 3);  // the option wins
  unsetenv("SEAM_CPU_INLINE_MAX_COST");
  EXPECT_EQ(CreateError({{"inline_max_cost", int64_t{-1}}}),
            "PJRT_Client_Create: option 'inline_max_cost' must be a non-negative integer, got "
            "'-1'");
}

TEST(CpuOptionsTest, InlineCrossProcessIsAFlagAsTheVariable) {
  unsetenv("SEAM_CPU_INLINE_CROSS_PROCESS");
  EXPECT_EQ(CreateError({{"inline_cross_process", int64_t{2}}}),
            "PJRT_Client_Create: option 'inline_cross_process' must be a flag (0 or 1), got '2'");
  for (int64_t flag : {0, 1}) {
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client({{"inline_cross_process", flag}});
    ASSERT_TRUE(client.ok()) << client.status();
    EXPECT_EQ((*client)->client()->inline_cross_process, flag == 1);
  }
  setenv("SEAM_CPU_INLINE_CROSS_PROCESS", "0", 1);
  absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client({});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_FALSE((*client)->client()->inline_cross_process);
  client = Client({{"inline_cross_process", int64_t{1}}});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE((*client)->client()->inline_cross_process);
  unsetenv("SEAM_CPU_INLINE_CROSS_PROCESS");
}

// How many of `runs` runs of this process's one replica of a launch across two processes
// went on the caller's thread. The program has no collective, so no peer is needed.
int64_t CrossProcessInlineRunsOf(std::vector<Option> options, int runs = 3) {
  seam::testing::TempDir dir;
  seam::testing::FileKvStore store(dir.path());
  options.push_back({"process_count", int64_t{2}});
  options.push_back({"master_addr", std::string("127.0.0.1")});
  std::string text = ElementwiseProgram(4);
  const std::string head = "program @elementwise {";
  text.replace(text.find(head), head.size(), "program @elementwise replicas=2 {");
  Compiled compiled(options, text, &store);
  const int64_t before = ::seam::cpu::testing::InlineRuns();
  for (int r = 0; r < runs; ++r) RunOnce(compiled, 4);
  return ::seam::cpu::testing::InlineRuns() - before;
}

TEST(CpuOptionsTest, InlineCrossProcessPlacesTheProcessReplicaAsTheVariableDoes) {
  unsetenv("SEAM_CPU_INLINE_CROSS_PROCESS");
  EXPECT_EQ(CrossProcessInlineRunsOf({}), 3);
  EXPECT_EQ(CrossProcessInlineRunsOf({{"inline_cross_process", int64_t{0}}}), 0);
  // Not the size rule: even with small runs inline off, the flag alone decides.
  EXPECT_EQ(CrossProcessInlineRunsOf({{"inline_max_cost", int64_t{0}}}), 3);
  setenv("SEAM_CPU_INLINE_CROSS_PROCESS", "0", 1);
  EXPECT_EQ(CrossProcessInlineRunsOf({}), 0);
  EXPECT_EQ(CrossProcessInlineRunsOf({{"inline_cross_process", int64_t{1}}}), 3);
  unsetenv("SEAM_CPU_INLINE_CROSS_PROCESS");
}

TEST(CpuOptionsTest, MasterAddrIsResolvedAsTheVariable) {
  seam::testing::TempDir dir;
  seam::testing::FileKvStore store(dir.path());
  auto message = [&](const std::vector<Option>& options) {
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options, &store);
    return client.ok() ? std::string("ok") : std::string(client.status().message());
  };
  const Option two{"process_count", int64_t{2}};
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  EXPECT_EQ(message({two, {"master_addr", std::string("no-such-host.invalid")}})
                .rfind("PJRT_Client_Create: MASTER_ADDR='no-such-host.invalid' cannot be "
                       "resolved",
                       0),
            0u);
  setenv("MASTER_ADDR", "no-such-host.invalid", 1);
  EXPECT_EQ(message({two}).rfind("PJRT_Client_Create: MASTER_ADDR='no-such-host.invalid'", 0), 0u);
  EXPECT_EQ(message({two, {"master_addr", std::string("127.0.0.1")}}), "ok");
  unsetenv("MASTER_ADDR");
}

// How many of a causal attention step's products skip the masked blocks.
int CausalProductsUnder(const std::vector<Option>& options) {
  Compiled compiled(options, testing::AttentionProgram(testing::Shape{1, 1, 64, 64, 16},
                                                       testing::Mask::kCausal, 0));
  return compiled.executable() == nullptr ? -1 : testing::CausalProducts(*compiled.executable());
}

// How many sliced regions (sliced_region.h) the same program's plan has.
int SlicedRegionsUnder(const std::vector<Option>& options) {
  Compiled compiled(options, testing::AttentionProgram(testing::Shape{1, 2, 64, 64, 16},
                                                       testing::Mask::kCausal, 0));
  return compiled.executable() == nullptr
             ? -1
             : static_cast<int>(compiled.executable()->fusion().regions.size());
}

// How many chains of a small loop run generated code (chain_jit.h).
int GeneratedChainsUnder(const std::vector<Option>& options) {
  Compiled compiled(options, R"(program @chain {
  %x = parameter(0) : f32[256]
  %y = parameter(1) : f32[256]
  %1 = multiply(%x, %y) : f32[256]
  %2 = add(%1, %x) : f32[256]
  %3 = maximum(%2, %y) : f32[256]
  return (%3)
})");
  if (compiled.executable() == nullptr) return -1;
  int generated = 0;
  for (const LoopKernel& kernel : compiled.executable()->kernels()) {
    for (const TileOp& op : kernel.ops) generated += op.chain_function != nullptr ? 1 : 0;
  }
  return generated;
}

TEST(CpuOptionsTest, JitTurnsGeneratedChainsOnAndOffAsTheVariableDoes) {
  unsetenv("SEAM_CPU_JIT");
  EXPECT_EQ(CreateError({{"jit", std::string("fast")}}),
            "PJRT_Client_Create: option 'jit' must be on or off, got 'fast'");
  EXPECT_EQ(CreateError({{"jit", int64_t{1}}}),
            "PJRT_Client_Create: option 'jit' must be a string value");
  // One chain of three links; generated only where the machine has the code (AVX-512F).
  const int on = ChainCodeAvailable() ? 1 : 0;
  if (on == 0) std::printf("no generated chain code on this machine: counts of 0 expected\n");
  EXPECT_EQ(GeneratedChainsUnder({}), on);
  EXPECT_EQ(GeneratedChainsUnder({{"jit", std::string("on")}}), on);
  EXPECT_EQ(GeneratedChainsUnder({{"jit", std::string("off")}}), 0);
  setenv("SEAM_CPU_JIT", "off", 1);
  EXPECT_EQ(GeneratedChainsUnder({}), 0);
  EXPECT_EQ(GeneratedChainsUnder({{"jit", std::string("on")}}), on);
  setenv("SEAM_CPU_JIT", "sometimes", 1);
  EXPECT_EQ(CreateError({}),
            "PJRT_Client_Create: environment variable SEAM_CPU_JIT must be on or off, got "
            "'sometimes'");
  unsetenv("SEAM_CPU_JIT");
}

// Whether a lone chain writing an output of `elements` f32 streams it (TileOp::stream).
int StreamedChainsUnder(const std::vector<Option>& options, int64_t elements) {
  Compiled compiled(options, ElementwiseProgram(elements));
  if (compiled.executable() == nullptr) return -1;
  int streamed = 0;
  for (const LoopKernel& kernel : compiled.executable()->kernels()) {
    for (const TileOp& op : kernel.ops) streamed += op.stream ? 1 : 0;
  }
  return streamed;
}

// stream_min_bytes: the smallest output a loop writes with non-temporal stores. 4 MiB of
// output (1 Mi elements) streams under a 4 MiB threshold, not under 4 MiB + 1 byte, and
// never under the default (at least 8 MiB, whatever the L3).
TEST(CpuOptionsTest, StreamMinBytesSetsTheStreamingThresholdAsTheVariableDoes) {
  unsetenv("SEAM_CPU_STREAM_MIN_BYTES");
  EXPECT_EQ(CreateError({{"stream_min_bytes", int64_t{0}}}),
            "PJRT_Client_Create: option 'stream_min_bytes' must be a positive integer, got '0'");
  EXPECT_EQ(CreateError({{"stream_min_bytes", std::string("8M")}}),
            "PJRT_Client_Create: option 'stream_min_bytes' must be an int64 value");
  const int64_t four_mib = int64_t{4} << 20;
  EXPECT_EQ(StreamedChainsUnder({}, kLarge), 0);
  EXPECT_EQ(StreamedChainsUnder({{"stream_min_bytes", four_mib}}, kLarge), 1);
  EXPECT_EQ(StreamedChainsUnder({{"stream_min_bytes", four_mib + 1}}, kLarge), 0);
  setenv("SEAM_CPU_STREAM_MIN_BYTES", "4194304", 1);
  EXPECT_EQ(StreamedChainsUnder({}, kLarge), 1);
  EXPECT_EQ(StreamedChainsUnder({{"stream_min_bytes", four_mib + 1}}, kLarge), 0);
  setenv("SEAM_CPU_STREAM_MIN_BYTES", "-5", 1);
  EXPECT_EQ(CreateError({}),
            "PJRT_Client_Create: environment variable SEAM_CPU_STREAM_MIN_BYTES must be a "
            "positive integer, got '-5'");
  unsetenv("SEAM_CPU_STREAM_MIN_BYTES");
  // The default: a quarter of the L3, at least 8 MiB (8 MiB when the size is unknown).
  EXPECT_EQ(DefaultStreamMinBytes(0), kStreamFloorBytes);
  EXPECT_EQ(DefaultStreamMinBytes(int64_t{32} << 20), int64_t{8} << 20);
  EXPECT_EQ(DefaultStreamMinBytes(int64_t{300} << 20), int64_t{75} << 20);
  EXPECT_EQ(DefaultStreamMinBytes(int64_t{2} << 20), kStreamFloorBytes);
}

TEST(CpuOptionsTest, AttentionTurnsCausalProductsOnAndOffAsTheVariableDoes) {
  unsetenv("SEAM_CPU_ATTENTION");
  EXPECT_EQ(CreateError({{"attention", std::string("maybe")}}),
            "PJRT_Client_Create: option 'attention' must be on, blocks or off, got 'maybe'");
  EXPECT_EQ(CreateError({{"attention", int64_t{0}}}),
            "PJRT_Client_Create: option 'attention' must be a string value");
  EXPECT_EQ(CausalProductsUnder({}), 6);
  EXPECT_EQ(CausalProductsUnder({{"attention", std::string("on")}}), 6);
  EXPECT_EQ(CausalProductsUnder({{"attention", std::string("blocks")}}), 6);
  EXPECT_EQ(CausalProductsUnder({{"attention", std::string("off")}}), 0);
  // `on` also runs the attention (two heads) in batch slices, one region; `blocks` does not.
  EXPECT_EQ(SlicedRegionsUnder({}), 1);
  EXPECT_EQ(SlicedRegionsUnder({{"attention", std::string("blocks")}}), 0);
  EXPECT_EQ(SlicedRegionsUnder({{"attention", std::string("off")}}), 0);
  setenv("SEAM_CPU_ATTENTION", "blocks", 1);
  EXPECT_EQ(SlicedRegionsUnder({}), 0);
  EXPECT_EQ(CausalProductsUnder({}), 6);
  EXPECT_EQ(SlicedRegionsUnder({{"attention", std::string("on")}}), 1);
  setenv("SEAM_CPU_ATTENTION", "off", 1);
  EXPECT_EQ(CausalProductsUnder({}), 0);
  EXPECT_EQ(CausalProductsUnder({{"attention", std::string("on")}}), 6);
  setenv("SEAM_CPU_ATTENTION", "bogus", 1);
  EXPECT_EQ(
      CreateError({}),
      "PJRT_Client_Create: environment variable SEAM_CPU_ATTENTION must be on, blocks or off, "
      "got 'bogus'");
  unsetenv("SEAM_CPU_ATTENTION");
}

// collective_spin_us's rule (cpu_settings.h): the setting when given, else the default
// poll while the host's processes times their kernel threads fit its CPUs.
TEST(CpuOptionsTest, CollectiveSpinFollowsTheSettingElseTheCpus) {
  CpuSettings settings;
  settings.kernel_threads = 1;
  EXPECT_EQ(CollectiveSpin(settings, 2, 2), kDefaultCollectiveSpinUs);
  EXPECT_EQ(CollectiveSpin(settings, 3, 2), 0);
  settings.kernel_threads = 2;
  EXPECT_EQ(CollectiveSpin(settings, 1, 2), kDefaultCollectiveSpinUs);
  EXPECT_EQ(CollectiveSpin(settings, 2, 2), 0);
  settings.kernel_threads = 0;  // the hardware's threads
  const auto hardware = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(CollectiveSpin(settings, 1, hardware), kDefaultCollectiveSpinUs);
  EXPECT_EQ(CollectiveSpin(settings, 2, hardware), 0);
  settings.collective_spin_us = 5;
  EXPECT_EQ(CollectiveSpin(settings, 2, hardware), 5);
  settings.collective_spin_us = 0;
  EXPECT_EQ(CollectiveSpin(settings, 1, hardware), 0);
}

// kernel_spin_us (cpu_settings.h): the rule, and what a client's settings hold after the
// option, the variable or neither.
TEST(CpuOptionsTest, KernelSpinFollowsTheSettingElseTheCpus) {
  CpuSettings settings;
  settings.kernel_threads = 2;
  EXPECT_EQ(KernelSpin(settings, 1, 2), kDefaultKernelSpinUs);
  EXPECT_EQ(KernelSpin(settings, 2, 2), 0);
  settings.kernel_spin_us = 7;
  EXPECT_EQ(KernelSpin(settings, 2, 2), 7);

  unsetenv("SEAM_CPU_KERNEL_SPIN_US");
  auto spin = [](const std::vector<Option>& options) -> int64_t {
    absl::StatusOr<std::unique_ptr<PjrtClient>> client = Client(options);
    if (!client.ok()) {
      ADD_FAILURE() << client.status();
      return -1;
    }
    return (*client)->client()->settings->kernel_spin_us.value_or(-2);
  };
  EXPECT_EQ(spin({{"threads", int64_t{1}}}), kDefaultKernelSpinUs);  // one thread fits
  EXPECT_EQ(spin({{"threads", int64_t{256}}}), 0);  // more threads than this machine's CPUs
  EXPECT_EQ(spin({{"threads", int64_t{256}}, {"kernel_spin_us", int64_t{700}}}), 700);
  setenv("SEAM_CPU_KERNEL_SPIN_US", "1500", 1);
  EXPECT_EQ(spin({{"threads", int64_t{256}}}), 1500);
  EXPECT_EQ(spin({{"kernel_spin_us", int64_t{0}}}), 0);  // the option wins
  setenv("SEAM_CPU_KERNEL_SPIN_US", "soon", 1);
  EXPECT_EQ(CreateError({}),
            "PJRT_Client_Create: environment variable SEAM_CPU_KERNEL_SPIN_US must be a number of "
            "microseconds from 0 to 1000000, got 'soon'");
  setenv("SEAM_CPU_KERNEL_SPIN_US", "2000000", 1);
  EXPECT_EQ(CreateError({}),
            "PJRT_Client_Create: environment variable SEAM_CPU_KERNEL_SPIN_US must be a number of "
            "microseconds from 0 to 1000000, got '2000000'");
  unsetenv("SEAM_CPU_KERNEL_SPIN_US");
  EXPECT_EQ(CreateError({{"kernel_spin_us", int64_t{-1}}}),
            "PJRT_Client_Create: option 'kernel_spin_us' must be a number of microseconds from 0 "
            "to 1000000, got '-1'");
}

TEST(CpuOptionsTest, AnUnknownOptionListsEveryOption) {
  EXPECT_EQ(CreateError({{"thread", int64_t{2}}}),
            "PJRT_Client_Create: unknown client option 'thread' (the cpu plugin accepts: "
            "cpu_device_count, process_index, process_count, collective_timeout_ms, "
            "collective_spin_us, kernel_spin_us, local_process_count, threads, "
            "gemm, conv, epilogues, layouts, dump_to, inline_max_cost, inline_cross_process, "
            "master_addr, attention, jit, stream_min_bytes)");
  EXPECT_EQ(CreateError({{"conv", int64_t{1}}}),
            "PJRT_Client_Create: option 'conv' must be a string value");
}

}  // namespace
}  // namespace seam::cpu
