// What the remote client saves on round trips (docs/remote.md, "Round trips per step"):
// small uploads kept back until the next execute carries them, and no runs-in-flight call
// while this client knows its runs have finished. Each behaviour is checked with a server
// that is stopped (SIGSTOP): a call that still went to it would hang, so a call that returns
// at once proves that nothing was sent. Also: what was kept back is never lost or mixed up
// (reads, failed launches, dropped buffers, threads). And reads straight into the caller's
// memory (TransferFromDeviceInto), across chunks and around zero-sized values.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/ir/text.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "src/runtime/remote/remote_wire.h"
#include "src/testing/remote_fixture.h"

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;
using testing::Server;
using Clock = std::chrono::steady_clock;

constexpr int kN = 64;

class RemoteBatching : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(server_.address().empty()) << server_.child().Stderr();
    auto client = RemoteComputationClient::Connect({server_.address(), ""});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    auto program = ir::ParseProgram(testing::ScaleAndSumProgram(kN));
    ASSERT_TRUE(program.ok()) << program.status();
    auto compiled = client_->Compile({{*std::move(program), "CPU:0", false}});
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    computation_ = (*compiled)[0];
  }
  void TearDown() override {
    if (stopped_) server_.child().Signal(SIGCONT);
  }

  ComputationClient::DataPtr Upload(float value) {
    const ir::Literal input = ir::Literal::FromF32(std::vector<float>(kN, value), {kN});
    auto uploaded = client_->TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
    EXPECT_TRUE(uploaded.ok()) << uploaded.status();
    return uploaded.ok() ? (*uploaded)[0] : nullptr;
  }
  // sum(x * 2 + 1) for x = value everywhere, read back.
  float RunAndRead(const ComputationClient::DataPtr& x) {
    auto outputs = client_->ExecuteComputation(*computation_, {x}, "CPU:0", {});
    EXPECT_TRUE(outputs.ok()) << outputs.status();
    if (!outputs.ok()) return -1;
    auto read = client_->TransferFromDevice({(*outputs)[1]});
    EXPECT_TRUE(read.ok()) << read.status();
    return read.ok() ? read->front().f32()[0] : -1;
  }
  void StopServer() {
    server_.child().Signal(SIGSTOP);
    stopped_ = true;
    ASSERT_TRUE(testing::WaitUntilStopped(server_.child().pid())) << "the server never stopped";
  }
  int64_t ServerBuffers() {
    auto stats = client_->GetServerStats();
    EXPECT_TRUE(stats.ok()) << stats.status();
    return stats.ok() ? stats->buffers : -1;
  }

  Server server_;
  std::unique_ptr<RemoteComputationClient> client_;
  ComputationClient::ComputationPtr computation_;
  bool stopped_ = false;
};

TEST_F(RemoteBatching, ASmallUploadReturnsWithoutACall) {
  StopServer();
  const auto start = Clock::now();
  ComputationClient::DataPtr x = Upload(1.0f);
  EXPECT_NE(x, nullptr);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));  // a call would hang
}

TEST_F(RemoteBatching, TheUploadTravelsWithTheExecuteAndComputesTheSame) {
  ComputationClient::DataPtr x = Upload(3.0f);
  EXPECT_EQ(RunAndRead(x), kN * 7.0f);
  // Used again (now placed, by handle) and read back as it was sent.
  EXPECT_EQ(RunAndRead(x), kN * 7.0f);
  auto read = client_->TransferFromDevice({x});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front(), ir::Literal::FromF32(std::vector<float>(kN, 3.0f), {kN}));
}

TEST_F(RemoteBatching, AReadOfAnUploadKeptBackSendsItFirst) {
  ComputationClient::DataPtr x = Upload(2.5f);
  auto read = client_->TransferFromDevice({x});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front(), ir::Literal::FromF32(std::vector<float>(kN, 2.5f), {kN}));
}

TEST_F(RemoteBatching, LargeUploadsGoAtOnce) {
  StopServer();
  const int64_t n = static_cast<int64_t>(wire::kDeferredUploadBytes / 4) + 1;
  const ir::Literal big = ir::Literal::FromF32(std::vector<float>(n, 1.0f), {n});
  std::thread resume([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    server_.child().Signal(SIGCONT);
  });
  const auto start = Clock::now();
  auto uploaded = client_->TransferToDevice({{big.shape, big.bytes.data(), "CPU:0"}});
  const auto took = Clock::now() - start;
  resume.join();
  stopped_ = false;
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  // It waited for the stopped server: it was sent at once.
  EXPECT_GE(took, std::chrono::milliseconds(400));
}

TEST_F(RemoteBatching, AFailedLaunchKeepsTheUploadItCarried) {
  ComputationClient::DataPtr x = Upload(1.5f);
  const ir::Literal longer = ir::Literal::FromF32(std::vector<float>(kN + 1, 0.0f), {kN + 1});
  auto wrong = client_->TransferToDevice({{longer.shape, longer.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(wrong.ok()) << wrong.status();
  // An argument of the wrong shape: the launch fails on the server after the inline tensors
  // (x among them) were placed. The execute is pipelined, so the failure reaches the caller
  // when an output is used.
  auto outputs = client_->ExecuteComputation(*computation_, {(*wrong)[0]}, "CPU:0", {});
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  auto failed = client_->TransferFromDevice({(*outputs)[1]});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("f32[65]"));
  auto read = client_->TransferFromDevice({x});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front(), ir::Literal::FromF32(std::vector<float>(kN, 1.5f), {kN}));
  EXPECT_EQ(RunAndRead(x), kN * 4.0f);
}

TEST_F(RemoteBatching, AWrongArgumentCountIsRefusedAtOnce) {
  ComputationClient::DataPtr x = Upload(1.0f);
  auto outputs = client_->ExecuteComputation(*computation_, {x, x}, "CPU:0", {});
  ASSERT_FALSE(outputs.ok());
  EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(outputs.status().message()),
              HasSubstr("2 arguments for a program with 1 parameters"));
  EXPECT_EQ(RunAndRead(x), kN * 3.0f);
}

TEST_F(RemoteBatching, AnExecuteReturnsWithoutWaitingForItsReply) {
  ComputationClient::DataPtr x = Upload(1.0f);
  EXPECT_EQ(RunAndRead(x), kN * 3.0f);  // x is placed now
  StopServer();
  const auto start = Clock::now();
  auto outputs = client_->ExecuteComputation(*computation_, {x}, "CPU:0", {});
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));  // a wait for the reply would hang
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  server_.child().Signal(SIGCONT);
  stopped_ = false;
  auto read = client_->TransferFromDevice({(*outputs)[1]});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front().f32()[0], kN * 3.0f);
}

TEST_F(RemoteBatching, ExecutesChainedWithoutReadsRunInOrder) {
  const int64_t before = ServerBuffers();
  ComputationClient::DataPtr y = Upload(0.0f);
  // y <- 2y + 1 ten times, each execute naming the previous one's output before its reply.
  for (int i = 0; i < 10; ++i) {
    auto outputs = client_->ExecuteComputation(*computation_, {y}, "CPU:0", {});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    y = (*outputs)[0];
  }
  auto read = client_->TransferFromDevice({y});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front(), ir::Literal::FromF32(std::vector<float>(kN, 1023.0f), {kN}));
  y.reset();
  EXPECT_EQ(ServerBuffers(), before);  // every output released, none released early
}

TEST_F(RemoteBatching, WithPipeliningOffAnExecuteWaitsForItsReply) {
  auto options = ReadRemoteClientOptions([this](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "SEAM_REMOTE_ADDRESS") return server_.address();
    if (std::string(name) == "SEAM_REMOTE_PIPELINE") return "0";
    return std::nullopt;
  });
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_FALSE(options->pipeline);
  auto client = RemoteComputationClient::Connect(*options);
  ASSERT_TRUE(client.ok()) << client.status();
  auto program = ir::ParseProgram(testing::ScaleAndSumProgram(kN));
  ASSERT_TRUE(program.ok()) << program.status();
  auto compiled = (*client)->Compile({{*std::move(program), "CPU:0", false}});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const ir::Literal input = ir::Literal::FromF32(std::vector<float>(kN, 1.0f), {kN});
  auto x = (*client)->TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(x.ok()) << x.status();
  StopServer();
  std::atomic<bool> returned{false};
  std::thread resume([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_FALSE(returned.load());  // still waiting for the stopped server's reply
    server_.child().Signal(SIGCONT);
  });
  auto outputs = (*client)->ExecuteComputation(*(*compiled)[0], *x, "CPU:0", {});
  returned = true;
  resume.join();
  stopped_ = false;
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  auto read = (*client)->TransferFromDevice({(*outputs)[1]});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front().f32()[0], kN * 3.0f);
}

TEST(RemoteClientOptions, APipelineValueOtherThanZeroOrOneIsAnError) {
  auto options = ReadRemoteClientOptions([](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "SEAM_REMOTE_ADDRESS") return "127.0.0.1:1";
    if (std::string(name) == "SEAM_REMOTE_PIPELINE") return "yes";
    return std::nullopt;
  });
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(options.status().message()),
              HasSubstr("SEAM_REMOTE_PIPELINE must be 0 (every execute waits for its reply) or "
                        "1 (executes are pipelined), got 'yes'"));
}

TEST_F(RemoteBatching, OutputsDroppedBeforeTheReplyAreReleasedAfterIt) {
  ComputationClient::DataPtr x = Upload(1.0f);
  EXPECT_EQ(RunAndRead(x), kN * 3.0f);
  const int64_t before = ServerBuffers();
  StopServer();
  {
    auto outputs = client_->ExecuteComputation(*computation_, {x}, "CPU:0", {});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
  }  // dropped while the server has not seen the execute
  server_.child().Signal(SIGCONT);
  stopped_ = false;
  EXPECT_EQ(ServerBuffers(), before);
}

TEST_F(RemoteBatching, ALaunchErrorReachesTheExecutesThatUseItsOutputs) {
  const ir::Literal longer = ir::Literal::FromF32(std::vector<float>(kN + 1, 0.0f), {kN + 1});
  auto wrong = client_->TransferToDevice({{longer.shape, longer.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(wrong.ok()) << wrong.status();
  auto first = client_->ExecuteComputation(*computation_, {(*wrong)[0]}, "CPU:0", {});
  ASSERT_TRUE(first.ok()) << first.status();
  // Named before or after the first reply came: either way the first launch's error.
  auto second = client_->ExecuteComputation(*computation_, {(*first)[0]}, "CPU:0", {});
  absl::Status error = second.status();
  if (second.ok()) error = client_->TransferFromDevice({(*second)[1]}).status();
  ASSERT_FALSE(error.ok());
  EXPECT_THAT(std::string(error.message()), HasSubstr("f32[65]"));
}

TEST_F(RemoteBatching, DroppedUploadsLeaveNoBufferOnTheServer) {
  const int64_t before = ServerBuffers();
  { ComputationClient::DataPtr dropped = Upload(9.0f); }  // never sent
  ComputationClient::DataPtr kept = Upload(1.0f);
  EXPECT_EQ(ServerBuffers(), before + 1);  // the stats call sent `kept` only
  kept.reset();
  EXPECT_EQ(ServerBuffers(), before);
}

TEST_F(RemoteBatching, NoRunsInFlightCallOnceTheRunWasRead) {
  ComputationClient::DataPtr x = Upload(1.0f);
  EXPECT_EQ(RunAndRead(x), kN * 3.0f);
  StopServer();
  const auto start = Clock::now();
  EXPECT_TRUE(client_->AwaitRunsInFlightBelow("CPU:0", 1).ok());
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));  // a call would hang
}

TEST_F(RemoteBatching, UnreadRunsStillWaitOnTheServer) {
  ComputationClient::DataPtr x = Upload(1.0f);
  std::vector<ComputationClient::DataPtr> kept;
  for (int i = 0; i < 3; ++i) {
    auto outputs = client_->ExecuteComputation(*computation_, {x}, "CPU:0", {});
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    kept.push_back((*outputs)[1]);
  }
  ASSERT_TRUE(client_->AwaitRunsInFlightBelow("CPU:0", 1).ok());
  auto in_flight = client_->RunsInFlight("CPU:0");
  ASSERT_TRUE(in_flight.ok()) << in_flight.status();
  EXPECT_EQ(*in_flight, 0);
  // Bounded by the server's answer: the next wait needs no call.
  StopServer();
  const auto start = Clock::now();
  EXPECT_TRUE(client_->AwaitRunsInFlightBelow("CPU:0", 1).ok());
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
}

TEST_F(RemoteBatching, ThreadsUploadingAndRunningGetTheirOwnValues) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 40;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const float value = static_cast<float>(t * 100 + r);
        ComputationClient::DataPtr x = Upload(value);
        if (x == nullptr || RunAndRead(x) != kN * (2 * value + 1)) ++wrong[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

TEST_F(RemoteBatching, ReadsIntoCallerMemoryAcrossChunks) {
  constexpr int64_t kBig = (int64_t{3} << 20) / 4 + 5;  // 3 MiB and a bit: four chunks
  std::vector<float> values(kBig);
  for (int64_t i = 0; i < kBig; ++i) values[i] = static_cast<float>(i % 1000) - 0.5f;
  const ir::Literal big = ir::Literal::FromF32(values, {kBig});
  auto uploaded = client_->TransferToDevice({{big.shape, big.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  std::vector<uint8_t> host(big.bytes.size(), 0xAB);
  ASSERT_TRUE(client_->TransferFromDeviceInto((*uploaded)[0], absl::MakeSpan(host)).ok());
  EXPECT_EQ(host, big.bytes);
  std::vector<uint8_t> short_host(big.bytes.size() - 4);
  const absl::Status wrong =
      client_->TransferFromDeviceInto((*uploaded)[0], absl::MakeSpan(short_host));
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.message()),
              HasSubstr(std::to_string(big.bytes.size()) + " bytes, the destination has " +
                        std::to_string(short_host.size())));
}

TEST_F(RemoteBatching, ReadsZeroSizedValuesAroundOthers) {
  const ir::Literal empty = ir::Literal::FromF32({}, {0});
  const ir::Literal three = ir::Literal::FromF32({1, 2, 3}, {3});
  auto uploaded = client_->TransferToDevice({{empty.shape, empty.bytes.data(), "CPU:0"},
                                             {three.shape, three.bytes.data(), "CPU:0"},
                                             {empty.shape, empty.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  auto read = client_->TransferFromDevice(*uploaded);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0], empty);
  EXPECT_EQ((*read)[1], three);
  EXPECT_EQ((*read)[2], empty);
}

}  // namespace
}  // namespace seam::runtime
