// The coordinator's service and clients in one process (no exit handler, no lost-job exit:
// those belong to the process's singleton, tested across processes in distributed_test.cc).
#include "src/runtime/coordinator_service.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_format.h"
#include "proto/coordinator.grpc.pb.h"
#include "src/runtime/coordinator_client.h"
#include "src/runtime/key_value_store.h"
#include "tests/distributed/spawn.h"

namespace seam::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

struct Fixture {
  explicit Fixture(int world_size) {
    options.address = "127.0.0.1";
    options.port = testing::FreePort();
    options.heartbeat_interval = seconds(1);
    options.max_missing_heartbeats = 2;
    CoordinationService::Options service_options;
    service_options.target = options.Target();
    service_options.world_size = world_size;
    service_options.loss_timeout = options.LossTimeout();
    service_options.loss_timeout_source = "2000 ms";
    auto started = CoordinationService::Start(service_options);
    EXPECT_TRUE(started.ok()) << started.status();
    if (started.ok()) service = *std::move(started);
  }

  absl::StatusOr<std::unique_ptr<CoordinatorClient>> Connect(int rank, int world_size) const {
    JobTopology topology;
    topology.rank = rank;
    topology.world_size = world_size;
    return CoordinatorClient::Connect(options, topology, Clock::now() + seconds(10), nullptr);
  }

  CoordinatorOptions options;
  std::unique_ptr<CoordinationService> service;
};

// Waits (bounded) until the client's health is an error.
std::string Text(const absl::Status& status) { return std::string(status.message()); }

absl::Status AwaitLoss(const CoordinatorClient& client) {
  const auto deadline = Clock::now() + seconds(10);
  while (client.Health().ok() && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  return client.Health();
}

TEST(CoordinatorService, StoreAnswersWithTheCodesOfTheContract) {
  Fixture f(1);
  auto client = f.Connect(0, 1);
  ASSERT_TRUE(client.ok()) << client.status();
  KeyValueStore& store = **client;
  ASSERT_TRUE(store.Put("a", std::string("x\0y", 3)).ok());
  EXPECT_EQ(*store.TryGet("a"), std::string("x\0y", 3));
  EXPECT_EQ(*store.Get("a", milliseconds(0)), std::string("x\0y", 3));

  absl::Status again = store.Put("a", "z");
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "Key 'a' is already set (a key is written once per job)");

  absl::Status miss = store.TryGet("b").status();
  EXPECT_EQ(miss.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(miss.message(), "Key 'b' is not set");

  const auto before = Clock::now();
  absl::Status late = store.Get("b", milliseconds(200)).status();
  EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(late.message(), "Key 'b' was not set within 200 ms");
  EXPECT_GE(Clock::now() - before, milliseconds(190));
}

TEST(CoordinatorService, AGetWaitsForAnotherRanksPut) {
  Fixture f(2);
  auto first = f.Connect(0, 2);
  auto second = f.Connect(1, 2);
  ASSERT_TRUE(first.ok() && second.ok());
  absl::StatusOr<std::string> got;
  std::thread reader([&] { got = (*first)->Get("late", seconds(10)); });
  std::this_thread::sleep_for(milliseconds(100));
  ASSERT_TRUE((*second)->Put("late", "here").ok());
  reader.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "here");
}

TEST(CoordinatorService, TwoProcessesWithTheSameRankAreRefused) {
  Fixture f(2);
  auto first = f.Connect(1, 2);
  ASSERT_TRUE(first.ok());
  auto second = f.Connect(1, 2);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(Text(second.status()),
              HasSubstr("Rank 1 is already connected to the coordinator at " + f.options.Target()));
  EXPECT_THAT(Text(second.status()),
              HasSubstr("two processes with the same rank, or a second job on the same address "
                        "and port"));
}

TEST(CoordinatorService, ABarrierThatTimesOutNamesTheMissingRanks) {
  Fixture f(4);
  auto rank0 = f.Connect(0, 4);
  auto rank2 = f.Connect(2, 4);
  ASSERT_TRUE(rank0.ok() && rank2.ok());
  absl::Status other;
  std::thread waiter([&] { other = (*rank2)->Barrier("b", Clock::now() + seconds(10)); });
  absl::Status status = (*rank0)->Barrier("b", Clock::now() + milliseconds(300));
  waiter.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(Text(status),
              HasSubstr("ranks 1, 3 of 4 did not arrive (ranks 1, 3 never connected to the "
                        "coordinator)"));
  EXPECT_EQ(other, status) << "a barrier that timed out fails for every rank at once";
}

TEST(CoordinatorService, RanksThatDisagreeAboutTheWorldSizeFailTheJob) {
  Fixture f(2);
  auto rank0 = f.Connect(0, 2);
  ASSERT_TRUE(rank0.ok());
  absl::StatusOr<std::string> blocked;
  std::thread reader([&] { blocked = (*rank0)->Get("never", seconds(30)); });
  auto rank1 = f.Connect(1, 3);
  ASSERT_FALSE(rank1.ok());
  EXPECT_EQ(rank1.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Text(rank1.status()),
              HasSubstr("The ranks disagree about the world size: rank 0 (which hosts the "
                        "coordinator) has world size 2, rank 1 (pid "));
  EXPECT_THAT(Text(rank1.status()), HasSubstr("has world size 3"));
  absl::Status lost = AwaitLoss(**rank0);
  EXPECT_EQ(lost.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(Text(rank1.status()), HasSubstr(Text(lost)));
  const auto before = Clock::now();
  reader.join();
  EXPECT_LT(Clock::now() - before, seconds(5)) << "a blocked get is released by the loss";
  EXPECT_EQ(blocked.status().code(), absl::StatusCode::kAborted);
  EXPECT_EQ((*rank0)->Put("k", "v").code(), absl::StatusCode::kAborted);
}

TEST(CoordinatorService, ClientsNoticeAStoppedService) {
  Fixture f(2);
  auto rank1 = f.Connect(1, 2);
  ASSERT_TRUE(rank1.ok());
  f.service->Stop();
  absl::Status lost = AwaitLoss(**rank1);
  EXPECT_EQ(lost.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(Text(lost), HasSubstr("The job has lost rank 0: the connection to the "
                                    "coordinator at " +
                                    f.options.Target() + " (hosted by rank 0) closed"));
}

TEST(CoordinatorService, AClosedClientIsALostRankForTheOthers) {
  Fixture f(2);
  auto rank0 = f.Connect(0, 2);
  auto rank1 = f.Connect(1, 2);
  ASSERT_TRUE(rank0.ok() && rank1.ok());
  rank1->reset();  // closes its Watch stream without leaving: as if the process died
  absl::Status lost = AwaitLoss(**rank0);
  EXPECT_THAT(Text(lost), HasSubstr("The job has lost rank 1 (pid "));
  EXPECT_THAT(Text(lost), HasSubstr("its connection to the coordinator closed before it "
                                    "left the job"));
}

TEST(CoordinatorService, AnotherJobsRequestsAreRefused) {
  Fixture f(1);
  auto client = f.Connect(0, 1);
  ASSERT_TRUE(client.ok());
  auto channel = grpc::CreateChannel(f.options.Target(), grpc::InsecureChannelCredentials());
  auto stub = coordinator::Coordinator::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + seconds(10));
  coordinator::TryGetRequest request;
  request.set_incarnation((*client)->incarnation() + 1);
  request.set_key("k");
  coordinator::GetReply reply;
  grpc::Status status = stub->TryGet(&context, request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(
      status.error_message(),
      HasSubstr("serves job incarnation " + absl::StrFormat("%016x", (*client)->incarnation())));
  EXPECT_THAT(status.error_message(), HasSubstr("a process of an earlier job on the same address "
                                                "and port?"));
}

TEST(CoordinatorService, ASecondServiceOnTheSamePortIsRefused) {
  Fixture f(1);
  CoordinationService::Options again;
  again.target = f.options.Target();
  auto second = CoordinationService::Start(again);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "Failed to initialize distributed runtime service. Cannot listen on " +
                f.options.Target() +
                " (MASTER_ADDR:XLA_COORDINATOR_PORT): the port is in use, or the address is "
                "not one of this machine's");
}

TEST(CoordinatorService, AnAddressOfAnotherMachineIsRefused) {
  CoordinationService::Options options;
  options.target = "192.0.2.1:" + std::to_string(testing::FreePort());  // TEST-NET-1
  auto service = CoordinationService::Start(options);
  ASSERT_FALSE(service.ok());
  EXPECT_THAT(Text(service.status()),
              HasSubstr("Failed to initialize distributed runtime service. Cannot listen on "
                        "192.0.2.1:"));
}

}  // namespace
}  // namespace seam::runtime
