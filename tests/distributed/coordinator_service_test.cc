// The coordinator's service and clients in one process (no exit handler, no lost-job exit:
// those belong to the process's singleton, tested across processes in distributed_test.cc).
#include "src/runtime/distributed/coordinator_service.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_format.h"
#include "proto/coordinator.grpc.pb.h"
#include "src/runtime/distributed/coordinator_client.h"
#include "src/runtime/distributed/key_value_store.h"
#include "src/testing/spawn.h"

namespace seam::runtime {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

struct Fixture {
  explicit Fixture(int world_size, const std::string& secret = "") {
    options.address = "127.0.0.1";
    options.port = testing::FreePort();
    options.heartbeat_interval = seconds(1);
    options.max_missing_heartbeats = 2;
    CoordinationService::Options service_options;
    service_options.target = options.Target();
    service_options.world_size = world_size;
    service_options.loss_timeout = options.LossTimeout();
    service_options.loss_timeout_source = "2000 ms";
    service_options.secret = secret;
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

// A process with another world size may be a stray of another job: it alone is refused.
TEST(CoordinatorService, AProcessWithAnotherWorldSizeIsRefusedAndTheJobGoesOn) {
  Fixture f(2);
  auto rank0 = f.Connect(0, 2);
  ASSERT_TRUE(rank0.ok());
  auto stray = f.Connect(1, 3);
  ASSERT_FALSE(stray.ok());
  EXPECT_EQ(stray.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Text(stray.status()),
              HasSubstr("The ranks disagree about the world size: rank 0 (which hosts the "
                        "coordinator) has world size 2, rank 1 (pid "));
  EXPECT_THAT(Text(stray.status()), HasSubstr("has world size 3"));
  auto rank1 = f.Connect(1, 2);
  ASSERT_TRUE(rank1.ok()) << rank1.status();
  EXPECT_TRUE((*rank0)->Health().ok());
  EXPECT_TRUE((*rank0)->Put("k", "v").ok());
  EXPECT_EQ(*(*rank1)->Get("k", seconds(5)), "v");
}

// Connect as rank `rank` of 2 with `secret` ("" for none).
absl::StatusOr<std::unique_ptr<CoordinatorClient>> ConnectWith(const Fixture& f, int rank,
                                                               const std::string& secret) {
  CoordinatorOptions options = f.options;
  options.secret = secret;
  options.secret_file = secret.empty() ? "" : "/the/file";
  JobTopology topology;
  topology.rank = rank;
  topology.world_size = 2;
  return CoordinatorClient::Connect(options, topology, Clock::now() + seconds(10), nullptr);
}

TEST(CoordinatorService, CallsWithoutTheJobsSecretAreRefusedAndTheJobGoesOn) {
  Fixture f(2, "the-secret-of-this-job");
  auto rank0 = ConnectWith(f, 0, "the-secret-of-this-job");
  ASSERT_TRUE(rank0.ok()) << rank0.status();
  auto none = ConnectWith(f, 1, "");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(Text(none.status()),
              HasSubstr("serves a job that has a secret, and the caller sent none"));
  EXPECT_THAT(Text(none.status()), HasSubstr("SEAM_JOB_SECRET_FILE is unset"));
  auto wrong = ConnectWith(f, 1, "the-secret-of-another-job");
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(Text(wrong.status()), HasSubstr("refused the caller's job secret"));
  EXPECT_THAT(Text(wrong.status()), HasSubstr("SEAM_JOB_SECRET_FILE='/the/file'"));
  // A prefix of the secret is no better than another one.
  EXPECT_EQ(ConnectWith(f, 1, "the-secret-of-this").status().code(),
            absl::StatusCode::kPermissionDenied);
  // Every call checks it, not only Connect: a raw call with the job's incarnation.
  {
    auto channel = grpc::CreateChannel(f.options.Target(), grpc::InsecureChannelCredentials());
    auto stub = coordinator::Coordinator::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + seconds(10));
    coordinator::LeaveRequest request;
    request.set_incarnation((*rank0)->incarnation());
    request.set_rank(0);
    request.set_exit_status(3);
    coordinator::LeaveReply reply;
    EXPECT_EQ(stub->Leave(&context, request, &reply).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  // A request larger than the service reads is refused without its secret being looked at.
  {
    auto channel = grpc::CreateChannel(f.options.Target(), grpc::InsecureChannelCredentials());
    auto stub = coordinator::Coordinator::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + seconds(20));
    coordinator::PutRequest request;
    request.set_incarnation((*rank0)->incarnation());
    request.set_key("big");
    request.set_value(std::string(size_t{17} << 20, 'x'));
    coordinator::PutReply reply;
    EXPECT_EQ(stub->Put(&context, request, &reply).error_code(),
              grpc::StatusCode::RESOURCE_EXHAUSTED);
  }
  EXPECT_TRUE((*rank0)->Health().ok());
  auto rank1 = ConnectWith(f, 1, "the-secret-of-this-job");
  ASSERT_TRUE(rank1.ok()) << rank1.status();
  EXPECT_TRUE((*rank0)->Put("k", "v").ok());
  EXPECT_EQ(*(*rank1)->Get("k", seconds(5)), "v");
}

TEST(CoordinatorService, ACallWithASecretToAJobWithoutOneIsRefused) {
  Fixture f(2);
  auto rank1 = ConnectWith(f, 1, "a-secret-nobody-expects");
  EXPECT_EQ(rank1.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(Text(rank1.status()), HasSubstr("serves a job without a secret"));
}

// A rank that leaves with status 0 after fewer job-wide steps: a barrier it never reached
// and a job-wide step beyond its last fail at once, naming it.
TEST(CoordinatorService, ARankThatLeftIsNamedByBarriersAndJobWideSteps) {
  Fixture f(2);
  auto rank0 = f.Connect(0, 2);
  auto rank1 = f.Connect(1, 2);
  ASSERT_TRUE(rank0.ok() && rank1.ok());
  ASSERT_TRUE((*rank0)->BeginJobWideStep().ok());
  ASSERT_TRUE((*rank1)->BeginJobWideStep().ok());
  std::thread leaver([&] { (*rank1)->Leave(0, seconds(20)).IgnoreError(); });
  const auto started = Clock::now();
  absl::Status barrier = (*rank0)->Barrier("after", Clock::now() + seconds(20));
  EXPECT_LT(Clock::now() - started, seconds(5));
  EXPECT_EQ(barrier.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(Text(barrier), HasSubstr("Barrier 'after' cannot complete: rank 1 (pid "));
  EXPECT_THAT(Text(barrier), HasSubstr("exited (status 0) and left the job without reaching it"));
  // The service knows at once; this process learns it on its Watch stream a moment later.
  const auto told_by = Clock::now() + seconds(10);
  while ((*rank0)->DepartedRanks().empty() && Clock::now() < told_by) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ((*rank0)->DepartedRanks(), std::vector<int>{1});
  absl::Status step = (*rank0)->BeginJobWideStep();
  EXPECT_EQ(step.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(Text(step), HasSubstr("The job has lost rank 1 (pid "));
  EXPECT_THAT(Text(step), HasSubstr("it exited (status 0) and left the job after 1 job-wide "
                                    "steps, and job-wide step 2 needs every rank"));
  EXPECT_TRUE((*rank0)->Health().ok()) << "not waiting in a step: the process may go on";
  (*rank0)->Leave(0, seconds(5)).IgnoreError();
  leaver.join();
}

// The leaver's last step is behind this process's: this process waits in a collective that
// can never complete, and the job is lost for it at once.
TEST(CoordinatorService, ARankThatLeavesWhileAnotherWaitsInAStepLosesTheJob) {
  Fixture f(2);
  auto rank0 = f.Connect(0, 2);
  auto rank1 = f.Connect(1, 2);
  ASSERT_TRUE(rank0.ok() && rank1.ok());
  ASSERT_TRUE((*rank0)->BeginJobWideStep().ok());
  std::thread leaver([&] { (*rank1)->Leave(0, seconds(20)).IgnoreError(); });
  absl::Status lost = AwaitLoss(**rank0);
  EXPECT_EQ(lost.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(Text(lost), HasSubstr("it exited (status 0) and left the job after 0 job-wide "
                                    "steps, while this process waits in job-wide step 1, which "
                                    "needs it"));
  (*rank0)->Close();
  f.service->Stop();
  leaver.join();
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
