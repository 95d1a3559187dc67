// The CPU plugin loaded by path (libseam_pjrt_cpu.so, via dlopen) runs the same step as
// the CPU plugin linked into the process, with the same result.
#include <gtest/gtest.h>

#include <cstdlib>

#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_api.h"
#include "src/runtime/pjrt/pjrt_computation_client.h"
#include "tests/e2e/step_fixture.h"

namespace seam::runtime {
namespace {

using testing::StepInputs;

// The step of step_fixture.h, written as IR text (parameters: x, w1, b1, w2, b2, target,
// and the scalar 0.5).
constexpr char kStep[] = R"(program @step {
  %x = parameter(0) : f32[5,4]
  %w1 = parameter(1) : f32[4,3]
  %b1 = parameter(2) : f32[3]
  %w2 = parameter(3) : f32[3,2]
  %b2 = parameter(4) : f32[2]
  %t = parameter(5) : f32[5,2]
  %half = parameter(6) : f32[]
  %xw = dot_general(%x, %w1), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[5,3]
  %b1b = broadcast_in_dim(%b1), dims={1} : f32[5,3]
  %h = add(%xw, %b1b) : f32[5,3]
  %hw = dot_general(%h, %w2), lhs_batch={}, lhs_contracting={1}, rhs_batch={}, rhs_contracting={0} : f32[5,2]
  %b2b = broadcast_in_dim(%b2), dims={1} : f32[5,2]
  %y = add(%hw, %b2b) : f32[5,2]
  %d = subtract(%y, %t) : f32[5,2]
  %sq = multiply(%d, %d) : f32[5,2]
  %s = reduce_sum(%sq), axes={0,1} : f32[]
  %loss = multiply(%s, %half) : f32[]
  %rs = reduce_sum(%y), axes={1} : f32[5]
  %one = constant(1) : f32[]
  %oneb = broadcast_in_dim(%one), dims={} : f32[5]
  %rs1 = add(%rs, %oneb) : f32[5]
  return (%loss, %y, %rs1)
}
)";

std::string PluginPath() {
  const char* path = std::getenv("SEAM_CPU_PLUGIN_PATH");
  return path == nullptr ? "" : path;
}

// Runs the step through the four crossings of `client`; returns the three results.
std::vector<ir::Literal> RunStep(ComputationClient& client, const StepInputs& in) {
  using S = StepInputs;
  std::string device = client.GetDefaultDevice();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(kStep);
  EXPECT_TRUE(program.ok()) << program.status();
  std::vector<ir::Literal> literals = {ir::Literal::FromF32(in.x, {S::kBatch, S::kIn}),
                                       ir::Literal::FromF32(in.w1, {S::kIn, S::kHidden}),
                                       ir::Literal::FromF32(in.b1, {S::kHidden}),
                                       ir::Literal::FromF32(in.w2, {S::kHidden, S::kOut}),
                                       ir::Literal::FromF32(in.b2, {S::kOut}),
                                       ir::Literal::FromF32(in.target, {S::kBatch, S::kOut}),
                                       ir::Literal::ScalarF32(0.5f)};
  std::vector<ComputationClient::TensorSource> sources;
  for (const ir::Literal& l : literals) sources.push_back({l.shape, l.bytes.data(), device});
  auto data = client.TransferToDevice(sources);
  EXPECT_TRUE(data.ok()) << data.status();
  auto computations = client.Compile({{*program, device}});
  EXPECT_TRUE(computations.ok()) << computations.status();
  auto outputs = client.ExecuteComputation(*computations->front(), *data, device, {});
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  auto host = client.TransferFromDevice(*outputs);
  EXPECT_TRUE(host.ok()) << host.status();
  return *host;
}

TEST(PluginDlopenTest, LoadedPluginRunsTheStepLikeTheInProcessOne) {
  ASSERT_FALSE(PluginPath().empty()) << "SEAM_CPU_PLUGIN_PATH is not set";
  absl::StatusOr<const PJRT_Api*> loaded = LoadPjrtPlugin("cpu_by_path", PluginPath());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  // A separate copy of the plugin code: its own table, not the in-process one.
  EXPECT_NE(*loaded, GetInProcessCpuPjrtApi());

  auto by_path = PjrtComputationClient::Create(*loaded);
  ASSERT_TRUE(by_path.ok()) << by_path.status();
  auto in_process = PjrtComputationClient::Create(GetInProcessCpuPjrtApi());
  ASSERT_TRUE(in_process.ok()) << in_process.status();
  EXPECT_EQ((*by_path)->GetPlatformName(), "cpu");
  EXPECT_EQ((*by_path)->GetDefaultDevice(), "CPU:0");

  StepInputs in = testing::MakeStepInputs(7);
  std::vector<ir::Literal> a = RunStep(**by_path, in);
  std::vector<ir::Literal> b = RunStep(**in_process, in);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a, b);  // same code, same inputs: bit-identical

  testing::StepResult expected = testing::ReferenceStep(in);
  EXPECT_NEAR(a[0].f32()[0], expected.loss, 1e-4f * (1.0f + std::abs(expected.loss)));
  for (size_t i = 0; i < expected.y.size(); ++i) EXPECT_NEAR(a[1].f32()[i], expected.y[i], 1e-4f);
  for (size_t i = 0; i < expected.row_sum.size(); ++i) {
    EXPECT_NEAR(a[2].f32()[i], expected.row_sum[i], 1e-4f);
  }
}

TEST(PluginDlopenTest, CreateOptionsReachTheLoadedPlugin) {
  absl::StatusOr<const PJRT_Api*> loaded = LoadPjrtPlugin("cpu_by_path", PluginPath());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto client = PjrtComputationClient::Create(*loaded, {{"cpu_device_count", int64_t{3}}});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetLocalDevices().size(), 3u);

  auto bad = PjrtComputationClient::Create(*loaded, {{"device_count", int64_t{3}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "PJRT_Client_Create: unknown client option 'device_count' (the cpu plugin accepts: "
            "cpu_device_count, process_index, process_count, collective_timeout_ms, "
            "collective_spin_us, kernel_spin_us, local_process_count, threads, "
            "gemm, conv, epilogues, layouts, dump_to, inline_max_cost, inline_cross_process, "
            "master_addr, attention, jit, stream_min_bytes)");
}

TEST(PluginDlopenTest, MissingLibraryIsAClearError) {
  absl::StatusOr<const PJRT_Api*> loaded = LoadPjrtPlugin("nothing", "/nonexistent/libnothing.so");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "Failed to open /nonexistent/libnothing.so: /nonexistent/libnothing.so: cannot open "
            "shared object file: No such file or directory");
}

TEST(PluginDlopenTest, LibraryWithoutGetPjrtApiIsNotFound) {
  absl::StatusOr<const PJRT_Api*> loaded = LoadPjrtPlugin("libm", "libm.so.6");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(loaded.status().message(), "GetPjrtApi not found in libm.so.6");
}

TEST(PluginDlopenTest, MalformedProgramIsAnErrorNotACrash) {
  auto client = PjrtComputationClient::Create(GetInProcessCpuPjrtApi());
  ASSERT_TRUE(client.ok());
  ir::Program program;  // no results: the plugin's verifier refuses it
  auto compiled = (*client)->Compile({{program, "CPU:0"}});
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace seam::runtime
