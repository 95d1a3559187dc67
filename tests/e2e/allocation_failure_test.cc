// Allocation failures through the seam (issue 14, item 4): a run whose output the plugin
// cannot allocate reports RESOURCE_EXHAUSTED on that output, and TransferFromDevice returns
// that error before it sizes a host buffer by the output's shape (it used to allocate the
// shape's bytes first and throw std::bad_alloc). Also run through the remote client
// (tests/remote, SEAM_CLIENT=remote), which refuses an impossible upload before reading it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "src/ir/text.h"
#include "src/runtime/process/runtime.h"

namespace seam::runtime {
namespace {

// 2^60 f32 elements: 2^62 bytes, more than any address space holds.
constexpr char kHugeOutput[] = R"(program @huge_output {
  %a = parameter(0) : f32[]
  %b = broadcast_in_dim(%a), dims={} : f32[1152921504606846976]
  return (%b)
}
)";

TEST(AllocationFailureTest, TransferFromDeviceReportsTheRunsErrorBeforeSizingAHostBuffer) {
  ComputationClient* client = *GetComputationClient();
  std::string device = client->GetDefaultDevice();
  absl::StatusOr<ir::Program> program = ir::ParseProgram(kHugeOutput);
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = client->Compile({{*program, device}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ir::Literal a = ir::Literal::FromF32({2}, {});
  auto inputs = client->TransferToDevice({{a.shape, a.bytes.data(), device}});
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  auto outputs = client->ExecuteComputation(*compiled->front(), *inputs, device, {});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  auto host = client->TransferFromDevice(*outputs);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(host.status().message(),
            "PJRT_LoadedExecutable_Execute: out of host memory while running the program");
}

TEST(AllocationFailureTest, TransferToDeviceOfAnImpossibleSizeIsResourceExhausted) {
  ComputationClient* client = *GetComputationClient();
  std::string device = client->GetDefaultDevice();
  float value = 1;
  ir::Shape shape{ir::DType::kF32, {int64_t{1} << 60}};
  auto data = client->TransferToDevice({{shape, &value, device}});
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), absl::StatusCode::kResourceExhausted);
  const char* which = std::getenv("SEAM_CLIENT");
  if (which != nullptr && std::string(which) == "remote") {
    // Refused before any byte is read from `value` (reading them would run past it): the
    // data cannot be in this process, whatever the server's devices hold.
    const std::string expected =
        "TransferToDevice: cannot send 4611686018427387904 bytes for "
        "f32[1152921504606846976] (tensor 0): more than this host's physical memory (";
    EXPECT_EQ(std::string(data.status().message()).substr(0, expected.size()), expected)
        << data.status();
  } else {
    EXPECT_EQ(data.status().message(),
              "PJRT_Client_BufferFromHostBuffer: cannot allocate 4611686018427387904 bytes of "
              "device memory for f32[1152921504606846976]");
  }
}

}  // namespace
}  // namespace seam::runtime
