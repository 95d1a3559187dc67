// On-device layouts (device_layout.h, layout_plan.h): a program whose parameters feed only
// convolutions reads them in oneDNN's layout, converted once and kept with the block; a
// convolution's result returned alone stays in oneDNN's layout, and whatever reads it
// densely (the next program, a raw read, to-host) gets the same values as with every
// block dense (SEAM_CPU_LAYOUTS=dense), bit for bit. Donation drops the copies a block
// keeps, since the run replaces its values.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "src/ir/reference_evaluator.h"
#include "src/ir/text.h"
#include "src/plugins/cpu/api/cpu_plugin.h"
#include "src/plugins/cpu/compile/dump.h"
#include "src/plugins/cpu/compile/executable.h"
#include "src/plugins/cpu/compile/layout_plan.h"
#include "src/plugins/cpu/kernels/gemm.h"
#include "src/plugins/cpu/runtime/device_layout.h"
#include "src/plugins/cpu/runtime/thread_pool.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"
#include "tests/unit/executable_harness.h"

namespace seam::cpu {
namespace {

constexpr char kImage[] = "f32[4,16,10,10]";
constexpr int64_t kElements = 4 * 16 * 10 * 10;

std::string Conv(const std::string& name, const std::string& x, const std::string& k) {
  return absl::StrCat(
      "  ", name, " = convolution(", x, ", ", k,
      "), input_batch_dim={0}, input_feature_dim={1}, input_spatial_dims={2,3}, "
      "kernel_input_feature_dim={1}, kernel_output_feature_dim={0}, kernel_spatial_dims={2,3}, "
      "output_batch_dim={0}, output_feature_dim={1}, output_spatial_dims={2,3}, "
      "feature_group_count={1}, window_strides={1,1}, padding_low={1,1}, padding_high={1,1}, "
      "lhs_dilation={1,1}, rhs_dilation={1,1} : ",
      kImage, "\n");
}

// conv(x, k) alone: x and k feed only the convolution, its result is returned once.
std::string ConvProgram() {
  return absl::StrCat("program @conv {\n  %x = parameter(0) : ", kImage,
                      "\n  %k = parameter(1) : f32[16,16,3,3]\n", Conv("%c", "%x", "%k"),
                      "  return (%c)\n}\n");
}

std::shared_ptr<const Executable> Compile(const std::string& text, const char* layouts = "auto") {
  setenv(kLayoutVariable, layouts, 1);
  auto executable = harness::CompileOrDie(text, true);
  unsetenv(kLayoutVariable);
  return executable;
}

// The block's values, dense.
std::vector<float> Values(const DeviceMemory& block, int64_t elements) {
  std::vector<float> values(static_cast<size_t>(elements));
  const absl::Status copied = CopyToDense(block, values.data());
  EXPECT_TRUE(copied.ok()) << copied;
  return values;
}

std::vector<float> Floats(const ir::Literal& literal) {
  const float* begin = literal.f32();
  return std::vector<float>(begin, begin + literal.shape.num_elements());
}

std::vector<float> Reference(const std::string& text, const std::vector<ir::Literal>& args) {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<ir::Literal>> out = ir::Evaluate(*program, args);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  return Floats((*out)[0]);
}

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    // Sums of 144 products in float.
    ASSERT_NEAR(actual[i], expected[i], 2e-4 + 3e-5 * std::fabs(expected[i])) << "element " << i;
  }
}

size_t Copies(DeviceMemory& block) {
  const std::lock_guard<std::mutex> lock(block.copies_mutex);
  return block.copies.size();
}

class LayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conv_ = Compile(ConvProgram());
    ASSERT_NE(conv_, nullptr);
    if (!OneDnnAvailable() || !conv_->step_plans()[0].conv->uses_onednn()) {
      GTEST_SKIP() << "no oneDNN convolutions here: every block stays dense";
    }
  }
  void TearDown() override { SetKernelThreads(0); }

  std::shared_ptr<const Executable> conv_;
};

TEST_F(LayoutTest, AConvolutionReadsAndLeavesOneDnnLayoutsWithTheDenseBits) {
  const LayoutPlan& layouts = conv_->layouts();
  ASSERT_EQ(layouts.parameters.size(), 2u);
  EXPECT_NE(layouts.parameters[0], nullptr);
  EXPECT_NE(layouts.results[0], nullptr);
  const std::string dump = OptimizedDumpText(*conv_);
  EXPECT_NE(dump.find("# output 0 left in oneDNN's layout "), std::string::npos) << dump;
  EXPECT_NE(dump.find("# parameter 0 read in oneDNN's layout "), std::string::npos) << dump;
  auto dense = Compile(ConvProgram(), "dense");
  EXPECT_EQ(dense->layouts().results[0], nullptr);
  EXPECT_EQ(OptimizedDumpText(*dense).find("oneDNN's layout"), std::string::npos);
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 1),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 2)};
  const std::vector<float> reference = Reference(ConvProgram(), args);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(absl::StrCat(threads, " thread(s)"));
    SetKernelThreads(threads);
    auto with = Compile(ConvProgram());
    auto without = Compile(ConvProgram(), "dense");
    const std::vector<ir::Literal> got = harness::RunProgram(*with, args);
    ASSERT_EQ(got.size(), 1u);
    ExpectNear(Floats(got[0]), reference);
    EXPECT_EQ(got[0].bytes, harness::RunProgram(*without, args)[0].bytes);
  }
}

TEST_F(LayoutTest, AConvertedParameterIsKeptWithItsBlockAndTheResultCarriesItsLayout) {
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 3),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 4)};
  std::vector<std::shared_ptr<DeviceMemory>> blocks = harness::ToDevice(args);
  auto first = conv_->Run(blocks);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(Copies(*blocks[0]), 1u);
  const std::shared_ptr<DeviceMemory> kept = blocks[0]->copies[0].memory;
  EXPECT_TRUE(SameLayout(kept->layout().get(), conv_->layouts().parameters[0].get()));
  const DeviceMemory& result = *(*first)[0];
  ASSERT_NE(result.layout(), nullptr);
  EXPECT_EQ(result.size(), LayoutBytes(*result.layout()));
  // The second run reads the kept copy: no new conversion.
  auto second = conv_->Run(blocks);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(Copies(*blocks[0]), 1u);
  EXPECT_EQ(blocks[0]->copies[0].memory, kept);
  const std::vector<float> reference = Reference(ConvProgram(), args);
  ExpectNear(Values(*(*second)[0], kElements), reference);
  // A raw range of the blocked result reads the dense bytes.
  std::vector<float> slice(10);
  const absl::Status read =
      CopyDenseBytes((*second)[0], 37 * sizeof(float), slice.size() * sizeof(float), slice.data(),
                     /*counters=*/nullptr);
  ASSERT_TRUE(read.ok()) << read;
  const std::vector<float> dense = Values(*(*second)[0], kElements);
  for (size_t i = 0; i < slice.size(); ++i) EXPECT_EQ(slice[i], dense[37 + i]);
}

// Runs on several threads that read the same dense block convert it once (the block's
// mutex) and compute the same bits.
TEST_F(LayoutTest, ConcurrentRunsConvertASharedBlockOnce) {
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 12),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 13)};
  const std::vector<std::shared_ptr<DeviceMemory>> blocks = harness::ToDevice(args);
  constexpr int kThreads = 4, kRuns = 3;
  std::vector<std::vector<float>> got(kThreads * kRuns);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        auto out = conv_->Run(blocks);
        if (out.ok()) got[t * kRuns + r] = Values(*(*out)[0], kElements);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(Copies(*blocks[0]), 1u);
  EXPECT_EQ(Copies(*blocks[1]), conv_->layouts().parameters[1] != nullptr ? 1u : 0u);
  ExpectNear(got[0], Reference(ConvProgram(), args));
  for (const std::vector<float>& values : got) EXPECT_EQ(values, got[0]);
}

// A blocked result flows into the next program: a convolution that wants its layout reads
// it as it is; a program that wants it dense gets a dense copy, kept with the block.
TEST_F(LayoutTest, ABlockedResultFeedsTheNextProgramConvertedOnlyWhereNeeded) {
  const std::string second_conv = absl::StrCat("program @again {\n  %y = parameter(0) : ", kImage,
                                               "\n  %k = parameter(1) : f32[16,16,3,3]\n",
                                               Conv("%c", "%y", "%k"), "  return (%c)\n}\n");
  const std::string doubled =
      absl::StrCat("program @twice {\n  %y = parameter(0) : ", kImage,
                   "\n  %d = add(%y, %y) : ", kImage, "\n  return (%d)\n}\n");
  auto again = Compile(second_conv);
  auto twice = Compile(doubled);
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 5),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 6)};
  std::vector<std::shared_ptr<DeviceMemory>> blocks = harness::ToDevice(args);
  auto y = conv_->Run(blocks);
  ASSERT_TRUE(y.ok()) << y.status();
  const std::shared_ptr<DeviceMemory> y_block = (*y)[0];
  ASSERT_NE(y_block->layout(), nullptr);
  // conv(conv(x, k), k) against the reference on y's dense values.
  ir::Literal y_literal = ir::Literal::FromF32(Values(*y_block, kElements), {4, 16, 10, 10});
  auto z = again->Run({y_block, blocks[1]});
  ASSERT_TRUE(z.ok()) << z.status();
  if (SameLayout(y_block->layout().get(), again->layouts().parameters[0].get())) {
    EXPECT_EQ(Copies(*y_block), 0u) << "read as it is";
  }
  ExpectNear(Values(*(*z)[0], kElements), Reference(second_conv, {y_literal, args[1]}));
  const size_t before = Copies(*y_block);
  auto d = twice->Run({y_block});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)[0]->layout(), nullptr);
  EXPECT_EQ(Copies(*y_block), before + 1) << "a dense copy, kept";
  std::vector<float> expected = Floats(y_literal);
  for (float& v : expected) v += v;
  EXPECT_EQ(Values(*(*d)[0], kElements), expected);
  auto d2 = twice->Run({y_block});
  ASSERT_TRUE(d2.ok()) << d2.status();
  EXPECT_EQ(Copies(*y_block), before + 1) << "the kept copy, read again";
}

// A block that a program donates gets new values: the copies it kept (the convolution's
// layout of its old values) must not be read afterwards.
TEST_F(LayoutTest, DonationDropsTheCopiesAKeptBlockCarries) {
  const std::string bump = absl::StrCat(
      "program @bump {\n  %x = parameter(0) : ", kImage,
      "\n  %one = constant(1) : f32[]\n  %ones = broadcast_in_dim(%one), dims={} : ", kImage,
      "\n  %y = add(%x, %ones) : ", kImage, "\n  alias output 0 = parameter 0\n  return (%y)\n}\n");
  auto bumped = Compile(bump);
  EXPECT_EQ(bumped->layouts().parameters[0], nullptr);
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 7),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 8)};
  std::vector<std::shared_ptr<DeviceMemory>> blocks = harness::ToDevice(args);
  ASSERT_TRUE(conv_->Run(blocks).ok());
  ASSERT_EQ(Copies(*blocks[0]), 1u);
  auto x1 = bumped->Run({blocks[0]});
  ASSERT_TRUE(x1.ok()) << x1.status();
  EXPECT_EQ(Copies(*(*x1)[0]), 0u);
  auto out = conv_->Run({(*x1)[0], blocks[1]});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> x_plus_one = Floats(args[0]);
  for (float& v : x_plus_one) v += 1.0f;
  ExpectNear(
      Values(*(*out)[0], kElements),
      Reference(ConvProgram(), {ir::Literal::FromF32(x_plus_one, {4, 16, 10, 10}), args[1]}));
}

// Values with other readers stay dense: a parameter also read by an add, a result returned
// twice, a convolution's value that another instruction reads.
TEST_F(LayoutTest, ValuesWithOtherReadersStayDense) {
  const std::string text = absl::StrCat(
      "program @mixed {\n  %x = parameter(0) : ", kImage,
      "\n  %k = parameter(1) : f32[16,16,3,3]\n", "  %k2 = parameter(2) : f32[16,16,3,3]\n",
      Conv("%c", "%x", "%k"), Conv("%e", "%x", "%k2"), "  %s = add(%e, %x) : ", kImage,
      "\n  return (%c, %c, %s, %e)\n}\n");
  auto mixed = Compile(text);
  ASSERT_NE(mixed, nullptr);
  // (k and k2 feed only convolutions, as their rhs: they may be read in oneDNN's layout.)
  EXPECT_EQ(mixed->layouts().parameters[0], nullptr);
  for (const auto& layout : mixed->layouts().results) EXPECT_EQ(layout, nullptr);
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 9),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 10),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 11)};
  const std::vector<ir::Literal> got = harness::RunProgram(*mixed, args);
  absl::StatusOr<ir::Program> program = ir::ParseProgram(text);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<ir::Literal>> reference = ir::Evaluate(*program, args);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_EQ(got.size(), 4u);
  for (size_t r = 0; r < got.size(); ++r) {
    SCOPED_TRACE(absl::StrCat("result ", r));
    ExpectNear(Floats(got[r]), Floats((*reference)[r]));
  }
}

// Through the PJRT client over the plugin's function table: PJRT_Buffer_ToHostBuffer and
// PJRT_Buffer_CopyRawToHost of a result in oneDNN's layout give its dense bytes, whole and
// in ranges, and the device's memory figures count the converted copies.
TEST_F(LayoutTest, TheClientReadsABlockedResultAsDenseBytes) {
  auto client = runtime::PjrtComputationClient::Create(cpu::GetCpuPjrtApi());
  ASSERT_TRUE(client.ok()) << client.status();
  runtime::ComputationClient& c = **client;
  absl::StatusOr<ir::Program> program = ir::ParseProgram(ConvProgram());
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = c.Compile({{*program, c.GetDefaultDevice()}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::vector<ir::Literal> args = {harness::RandomF32({ir::DType::kF32, {4, 16, 10, 10}}, 14),
                                         harness::RandomF32({ir::DType::kF32, {16, 16, 3, 3}}, 15)};
  std::vector<runtime::ComputationClient::TensorSource> sources;
  for (const ir::Literal& l : args)
    sources.push_back({l.shape, l.bytes.data(), c.GetDefaultDevice()});
  auto uploaded = c.TransferToDevice(sources);
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  auto before = c.GetMemoryStats(c.GetDefaultDevice());
  ASSERT_TRUE(before.ok()) << before.status();
  auto outputs = c.ExecuteComputation(*compiled->front(), *uploaded, c.GetDefaultDevice(), {});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  auto whole = c.TransferFromDevice(*outputs);
  ASSERT_TRUE(whole.ok()) << whole.status();
  const std::vector<float> dense = Floats((*whole)[0]);
  ExpectNear(dense, Reference(ConvProgram(), args));
  for (size_t offset : {size_t{0}, size_t{4 * 517}}) {
    std::vector<float> piece(777, -1.0f);
    const absl::Status read = c.TransferFromDeviceRange(
        (*outputs)[0], offset, absl::MakeSpan(reinterpret_cast<uint8_t*>(piece.data()), 777 * 4));
    ASSERT_TRUE(read.ok()) << read;
    for (size_t i = 0; i < piece.size(); ++i) ASSERT_EQ(piece[i], dense[offset / 4 + i]) << i;
  }
  // The input's kept copy and the result's dense copy count on the device.
  auto after = c.GetMemoryStats(c.GetDefaultDevice());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_GE(after->bytes_in_use - before->bytes_in_use, 3 * kElements * 4);
}

TEST(LayoutVariableTest, OnlyAutoAndDenseAreAccepted) {
  for (const char* ok : {"", "auto", "dense"}) {
    setenv(kLayoutVariable, ok, 1);
    EXPECT_TRUE(CheckLayoutVariable().ok()) << ok;
  }
  setenv(kLayoutVariable, "blocked", 1);
  const absl::Status status = CheckLayoutVariable();
  unsetenv(kLayoutVariable);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("SEAM_CPU_LAYOUTS must be auto or dense, got 'blocked'"),
            std::string::npos)
      << status;
}

}  // namespace
}  // namespace seam::cpu
