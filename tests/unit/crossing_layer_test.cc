// The interface's own work, against the counting fake client (tests/unit/fake_client.h):
// the crossing layer of ComputationClient records each crossing's span, timer and counters
// once, whatever the client; the metrics report's server entry comes from the client; and
// the client registry chooses a factory by SEAM_CLIENT.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/ir/text.h"
#include "src/runtime/client_registry.h"
#include "src/runtime/metrics.h"
#include "src/runtime/trace.h"
#include "tests/unit/fake_client.h"

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;

int64_t Samples(metrics::Metric* metric) { return metric->TotalSamples(); }

// How often `name` appears as a quoted string in `text`.
int Occurrences(const std::string& text, const std::string& name) {
  const std::string quoted = "\"" + name + "\"";
  int n = 0;
  for (size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    ++n;
  }
  return n;
}

ir::Program AddOneWithAlias() {
  absl::StatusOr<ir::Program> program = ir::ParseProgram(R"(program @add_one {
  %0 = parameter(0) : f32[2]
  %1 = constant(1) : f32[]
  %2 = broadcast_in_dim(%1), dims={} : f32[2]
  %3 = add(%0, %2) : f32[2]
  return (%3)
})");
  EXPECT_TRUE(program.ok()) << program.status();
  ir::Program result = program.ok() ? *std::move(program) : ir::Program();
  result.aliases.push_back({0, 0});
  return result;
}

TEST(CrossingLayerTest, EachCrossingRecordsItsTimerAndCountersOnce) {
  fake::FakeClient client;
  const ir::Literal x = ir::Literal::FromF32({1.0F, 2.0F}, {2});
  const int64_t to = Samples(ComputationClient::TransferToDeviceMetric());
  const int64_t inbound = Samples(ComputationClient::InboundDataMetric());
  const int64_t handles = ComputationClient::CreateDataHandlesCounter()->Value();
  auto data = client.TransferToDevice(
      {{x.shape, x.bytes.data(), "FAKE:0"}, {x.shape, x.bytes.data(), "FAKE:1"}});
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(Samples(ComputationClient::TransferToDeviceMetric()), to + 1);  // one per call
  EXPECT_EQ(Samples(ComputationClient::InboundDataMetric()), inbound + 2);  // one per tensor
  EXPECT_EQ(ComputationClient::CreateDataHandlesCounter()->Value(), handles + 2);

  const int64_t compiles = Samples(ComputationClient::CompileMetric());
  const int64_t eager_compiles = Samples(ComputationClient::EagerOpCompileMetric());
  const int64_t computations = ComputationClient::CreateCompileHandlesCounter()->Value();
  auto compiled = client.Compile({{AddOneWithAlias(), "FAKE:0"}, {AddOneWithAlias(), "FAKE:0"}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(Samples(ComputationClient::CompileMetric()), compiles + 1);
  EXPECT_EQ(ComputationClient::CreateCompileHandlesCounter()->Value(), computations + 2);
  ASSERT_TRUE(client.Compile({{AddOneWithAlias(), "FAKE:0", /*eager_mode=*/true}}).ok());
  EXPECT_EQ(Samples(ComputationClient::CompileMetric()), compiles + 1);
  EXPECT_EQ(Samples(ComputationClient::EagerOpCompileMetric()), eager_compiles + 1);

  const int64_t aliases = ComputationClient::InputOutputAliasCounter()->Value();
  const int64_t before_run = ComputationClient::CreateDataHandlesCounter()->Value();
  auto outputs = client.ExecuteComputation(*compiled->front(), {data->front()}, "FAKE:0", {});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  EXPECT_EQ(ComputationClient::CreateDataHandlesCounter()->Value(), before_run + 1);
  EXPECT_EQ(ComputationClient::InputOutputAliasCounter()->Value(), aliases + 1);

  const int64_t from = Samples(ComputationClient::TransferFromDeviceMetric());
  auto host = client.TransferFromDevice(*outputs);
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(Samples(ComputationClient::TransferFromDeviceMetric()), from + 1);
  EXPECT_EQ(host->front().bytes, ir::Literal::FromF32({2.0F, 3.0F}, {2}).bytes);
  EXPECT_EQ(client.counts().transfers_from, 1);
}

TEST(CrossingLayerTest, ARefusedReadRecordsNothingAndReachesNoClient) {
  fake::FakeClient client;
  const ir::Literal x = ir::Literal::FromF32({1.0F, 2.0F}, {2});
  auto data = client.TransferToDevice({{x.shape, x.bytes.data(), "FAKE:0"}});
  ASSERT_TRUE(data.ok()) << data.status();
  const int64_t from = Samples(ComputationClient::TransferFromDeviceMetric());
  std::vector<uint8_t> small(4);
  absl::Status refused = client.TransferFromDeviceInto(data->front(), absl::MakeSpan(small));
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("f32[2] needs 8 bytes, the destination has 4"));
  EXPECT_EQ(Samples(ComputationClient::TransferFromDeviceMetric()), from);
  EXPECT_EQ(client.counts().transfers_from, 0);

  std::vector<uint8_t> exact(8);
  ASSERT_TRUE(client.TransferFromDeviceInto(data->front(), absl::MakeSpan(exact)).ok());
  EXPECT_EQ(exact, x.bytes);
  EXPECT_EQ(Samples(ComputationClient::TransferFromDeviceMetric()), from + 1);
  EXPECT_EQ(client.counts().transfers_from, 1);  // the default reads through the client
}

TEST(CrossingLayerTest, EveryCrossingLeavesOneSpanInTheTrace) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "seam_crossing_layer_trace.json";
  ASSERT_TRUE(trace::Start(path.string()).ok());
  {
    fake::FakeClient client;
    const ir::Literal x = ir::Literal::FromF32({1.0F, 2.0F}, {2});
    auto data = client.TransferToDevice({{x.shape, x.bytes.data(), "FAKE:0"}});
    ASSERT_TRUE(data.ok());
    auto compiled = client.Compile({{AddOneWithAlias(), "FAKE:0"}});
    ASSERT_TRUE(compiled.ok());
    auto outputs = client.ExecuteComputation(*compiled->front(), {data->front()}, "FAKE:0", {});
    ASSERT_TRUE(outputs.ok());
    ASSERT_TRUE(client.TransferFromDevice(*outputs).ok());
  }
  ASSERT_TRUE(trace::Stop().ok());
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  std::filesystem::remove(path);
  for (const char* crossing :
       {"TransferToDevice", "Compile", "ExecuteComputation", "TransferFromDevice"}) {
    EXPECT_EQ(Occurrences(text.str(), crossing), 1) << crossing << " in " << text.str();
  }
}

TEST(CrossingLayerTest, TheServerEntryIsTheClients) {
  fake::FakeClient client;
  std::string report = "before\n";
  client.AppendServerReport(&report);
  EXPECT_EQ(report,
            "before\nServer: none (SEAM_CLIENT is not remote: the devices are this process's)\n");
}

absl::Status RegisterFake(const std::string& name, int* created) {
  ClientFactory factory;
  factory.name = name;
  factory.description = "a fake named " + name;
  factory.create =
      [created](ClientChoice* choice) -> absl::StatusOr<std::unique_ptr<ComputationClient>> {
    ++*created;
    choice->branch = "fake branch";
    return std::unique_ptr<ComputationClient>(new fake::FakeClient(1));
  };
  return RegisterClientFactory(std::move(factory));
}

TEST(ClientRegistryTest, SeamClientChoosesARegisteredFactory) {
  int alpha = 0;
  int beta = 0;
  ASSERT_TRUE(RegisterFake("alpha", &alpha).ok());
  ASSERT_TRUE(RegisterFake("beta", &beta).ok());
  EXPECT_EQ(RegisteredClientKinds(), (std::vector<std::string>{"alpha", "beta"}));
  ASSERT_EQ(setenv("SEAM_CLIENT", "beta", 1), 0);
  ClientChoice choice;
  auto client = CreateRegisteredClient(&choice);
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->GetPlatformName(), "fake");
  EXPECT_EQ(alpha, 0);
  EXPECT_EQ(beta, 1);
  EXPECT_EQ(choice.client, "beta");
  EXPECT_EQ(choice.client_reason, "SEAM_CLIENT='beta'");
  EXPECT_EQ(choice.branch, "fake branch");
}

TEST(ClientRegistryTest, AnUnknownNameIsRefusedNamingEveryRegisteredClient) {
  int created = 0;
  ASSERT_TRUE(RegisterFake("alpha", &created).ok());
  ASSERT_TRUE(RegisterFake("beta", &created).ok());
  ASSERT_TRUE(RegisterFake("gamma", &created).ok());
  ASSERT_EQ(setenv("SEAM_CLIENT", "delta", 1), 0);
  ClientChoice choice;
  auto client = CreateRegisteredClient(&choice);
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client.status().message(),
            "SEAM_CLIENT must be 'alpha' (a fake named alpha), 'beta' (a fake named beta) or "
            "'gamma' (a fake named gamma), got 'delta'");
  EXPECT_EQ(choice.client, "delta");  // as set, for `seam info`
  EXPECT_EQ(created, 0);
}

TEST(ClientRegistryTest, TheDefaultNeedsItsFactoryLinked) {
  ASSERT_EQ(unsetenv("SEAM_CLIENT"), 0);
  EXPECT_EQ(*ReadRegisteredClientKind(), kDefaultClientKind);
  ClientChoice choice;
  auto client = CreateRegisteredClient(&choice);
  EXPECT_EQ(client.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(client.status().message(), HasSubstr("no client of that name is linked"));
  EXPECT_EQ(choice.client_reason, "SEAM_CLIENT unset: the default");
}

TEST(ClientRegistryTest, AFactoryNeedsANameAndACreateFunction) {
  ClientFactory unnamed;
  unnamed.create = [](ClientChoice*) -> absl::StatusOr<std::unique_ptr<ComputationClient>> {
    return absl::InternalError("never called");
  };
  EXPECT_EQ(RegisterClientFactory(unnamed).code(), absl::StatusCode::kInvalidArgument);
  ClientFactory empty;
  empty.name = "empty";
  EXPECT_EQ(RegisterClientFactory(empty).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(FindClientFactory("empty"), nullptr);
}

}  // namespace
}  // namespace seam::runtime
