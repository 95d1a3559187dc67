// `seam serve` against peers that mean harm (issue 31, item 2; docs/remote.md, "Limits"):
// large requests without a token, stalled uploads, long client text, sessions and refused
// calls past their bounds. Every peer here talks to 127.0.0.1 only.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/runtime/remote/remote_wire.h"
#include "src/testing/remote_fixture.h"

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;
using testing::RawSession;
using testing::Server;
using testing::TempFile;
namespace pb = ::seam::remote;

constexpr size_t kMiB = size_t{1} << 20;

// The attack: a 200 MiB Compile with no token, then four at once (and a large
// Execute). Before the server checked tokens ahead of large bodies, one took it from 34 to
// 632 MiB and four to 1.9 GiB; its peak must now stay within 64 MiB of its idle size.
TEST(RemoteHostile, LargeRequestsWithoutTokenLeaveTheServerSmall) {
  TempFile token("a-token-nobody-sends\n");
  Server server({"--token-file", token.path()});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  const int pid = server.child().pid();
  const int64_t idle_kib = testing::ProcessStatusKib(pid, "VmRSS");
  ASSERT_GT(idle_kib, 0);
  for (const auto& [method, count] :
       std::vector<std::pair<std::string, int>>{{"/seam.remote.Remote/Compile", 1},
                                                {"/seam.remote.Remote/Compile", 4},
                                                {"/seam.remote.Remote/Execute", 1}}) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<grpc::Status> statuses = testing::SendLargeRequests(
        server.address(), method, 200 * kMiB, count, std::chrono::seconds(60));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const grpc::Status& status : statuses) {
      EXPECT_FALSE(status.ok()) << method;
      EXPECT_THAT(status.error_code(), ::testing::AnyOf(grpc::StatusCode::UNAUTHENTICATED,
                                                        grpc::StatusCode::RESOURCE_EXHAUSTED))
          << method << ": " << status.error_message();
    }
    const int64_t peak_kib = testing::ProcessStatusKib(pid, "VmHWM");
    std::printf("%s x%d: idle %lld KiB, peak %lld KiB (+%lld MiB), %.2f s, first status %d %s\n",
                method.c_str(), count, static_cast<long long>(idle_kib),
                static_cast<long long>(peak_kib),
                static_cast<long long>((peak_kib - idle_kib) / 1024), seconds,
                statuses.empty() ? -1 : static_cast<int>(statuses[0].error_code()),
                statuses.empty() ? "" : statuses[0].error_message().substr(0, 120).c_str());
    EXPECT_LT(peak_kib - idle_kib, 64 * 1024) << method << " x" << count;
  }
  EXPECT_FALSE(server.child().Wait(std::chrono::milliseconds(0)).exited);
}

// With a token, a compile request far above the largest single message travels in chunks: this
// one (6 MiB, against a 4 MiB bound) reaches the program's parser, which names its first line.
TEST(RemoteHostile, CompileRequestsLargerThanOneMessageAreStreamed) {
  Server server;
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession session(server.address());
  ASSERT_NE(session.id(), 0u);
  pb::CompileRequest request;
  request.set_session(session.id());
  request.add_instances()->set_program("program @p {\n  %0 = nonsense(\n}\n" +
                                       std::string(6 * kMiB, '#'));
  pb::CompileReply reply;
  auto context = session.Context();
  grpc::Status status = testing::StreamCompile(session.stub(), context.get(), request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("Compile: program 0: line"));
  EXPECT_LE(status.error_message().size(), 2048u);

  // Chunks that are not a serialized request.
  auto junk_context = session.Context();
  pb::CompileReply junk_reply;
  auto writer = session.stub().Compile(junk_context.get(), &junk_reply);
  pb::CompileChunk chunk;
  chunk.set_data(std::string(100, '\xff'));
  writer->Write(chunk);
  writer->WritesDone();
  grpc::Status junk = writer->Finish();
  EXPECT_EQ(junk.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << junk.error_message();
  EXPECT_THAT(junk.error_message(), HasSubstr("100 bytes received are not a serialized"));
}

// An upload stream that claimed 64 MiB, sent 4 KiB and stopped.
struct StalledUpload {
  grpc::ClientContext context;
  pb::TransferToDeviceReply reply;
  std::unique_ptr<grpc::ClientWriter<pb::TransferToDeviceChunk>> writer;
};

std::unique_ptr<StalledUpload> StartStalledUpload(pb::Remote::Stub& stub, uint64_t session) {
  auto upload = std::make_unique<StalledUpload>();
  upload->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  upload->writer = stub.TransferToDevice(&upload->context, &upload->reply);
  pb::TransferToDeviceChunk chunk;
  chunk.set_session(session);
  pb::TensorHeader* header = chunk.add_tensors();
  header->set_dtype("f32");
  header->add_dims(int64_t{16} << 20);  // 64 MiB
  header->set_device("CPU:0");
  chunk.set_data(std::string(4096, '\x01'));
  upload->writer->Write(chunk);
  return upload;
}

int64_t DeviceBytesInUse(RawSession& session) {
  auto context = session.Context();
  pb::MemoryStatsRequest request;
  request.set_session(session.id());
  request.set_device("CPU:0");
  pb::MemoryStatsReply reply;
  grpc::Status status = session.stub().MemoryStats(context.get(), request, &reply);
  return status.ok() ? reply.bytes_in_use() : -1;
}

// 100 uploads that each claim 64 MiB, send 4 KiB and stop: the server holds what they sent
// (no device buffer is started before half of a claim has arrived), and its stall deadline
// ends every one of them (the peer's own deadline, 30 s, would say DEADLINE_EXCEEDED).
TEST(RemoteHostile, StalledUploadsHoldOnlyWhatTheySentAndEndAtTheDeadline) {
  Server server({"--stall-timeout-s", "2"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession session(server.address());
  ASSERT_NE(session.id(), 0u);
  const int pid = server.child().pid();
  const int64_t idle_kib = testing::ProcessStatusKib(pid, "VmRSS");
  const int64_t idle_device = DeviceBytesInUse(session);
  ASSERT_GE(idle_device, 0);
  // Four connections (each carries up to --max-streams-per-connection calls at once).
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<pb::Remote::Stub>> stubs;
  for (int i = 0; i < 4; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);
    channels.push_back(
        grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args));
    stubs.push_back(pb::Remote::NewStub(channels.back()));
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<StalledUpload>> uploads;
  for (int i = 0; i < 100; ++i) {
    uploads.push_back(StartStalledUpload(*stubs[static_cast<size_t>(i % 4)], session.id()));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const int64_t held_device = DeviceBytesInUse(session) - idle_device;
  const int64_t held_kib = testing::ProcessStatusKib(pid, "VmRSS") - idle_kib;
  std::printf("100 stalled uploads of 64 MiB claims: device bytes %lld, server RSS +%lld KiB\n",
              static_cast<long long>(held_device), static_cast<long long>(held_kib));
  EXPECT_LE(held_device, int64_t{2} * 100 * 4096);
  EXPECT_LT(held_kib, 64 * 1024);
  int ended_by_server = 0;
  for (auto& upload : uploads) {
    grpc::Status status = upload->writer->Finish();
    if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) ++ended_by_server;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("all ended after %.1f s\n", seconds);
  EXPECT_EQ(ended_by_server, 100);
  EXPECT_LT(seconds, 15);
  // The server writes the line as it ends a stream, which the client can see ended first.
  const std::string line = "ended a TransferToDevice stream that sent nothing for 2000 ms";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (server.child().Stderr().find(line) == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(server.child().Stderr(), HasSubstr(line));
  // The server still serves.
  grpc::Status status;
  EXPECT_NE(session.Upload({1, 2, 3}, &status), 0u) << status.error_message();
}

// An upload that claims 64 MiB and sends 200,000 chunks of one byte (before its half, so the
// server keeps them in host memory) holds about what it sent: the bytes, not a string each
// (that would be 32 bytes and a list entry per byte sent, some 10 MB here).
TEST(RemoteHostile, TinyChunksHoldAboutTheirBytes) {
  Server server({"--stall-timeout-s", "5"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession session(server.address());
  ASSERT_NE(session.id(), 0u);
  const int pid = server.child().pid();
  std::unique_ptr<StalledUpload> upload = StartStalledUpload(session.stub(), session.id());
  const int64_t before_kib = testing::ProcessStatusKib(pid, "VmRSS");
  pb::TransferToDeviceChunk tiny;
  tiny.set_data("\x02");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int sent = 0;
  while (sent < 200000 && std::chrono::steady_clock::now() < deadline &&
         upload->writer->Write(tiny)) {
    ++sent;
  }
  ASSERT_EQ(sent, 200000) << "the server ended the stream early";
  // The server may still be reading what the transport took: the most it held over 3 s.
  int64_t held_kib = 0;
  for (int i = 0; i < 60; ++i) {
    held_kib = std::max(held_kib, testing::ProcessStatusKib(pid, "VmRSS") - before_kib);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("200,000 one-byte chunks: server RSS +%lld KiB\n", static_cast<long long>(held_kib));
  EXPECT_LT(held_kib, 4 * 1024);
  upload->context.TryCancel();
  (void)upload->writer->Finish();
}

// At most --max-streams-per-connection calls of one connection are in progress at once: 12
// stalled uploads on one connection with a bound of 4 are ended by the stall deadline in three
// waves, not all at once.
TEST(RemoteHostile, StreamsPerConnectionAreBounded) {
  Server server({"--stall-timeout-s", "1", "--max-streams-per-connection", "4"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession session(server.address());
  ASSERT_NE(session.id(), 0u);
  auto channel = grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  auto stub = pb::Remote::NewStub(channel);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<StalledUpload>> uploads;
  for (int i = 0; i < 12; ++i) uploads.push_back(StartStalledUpload(*stub, session.id()));
  for (auto& upload : uploads) (void)upload->writer->Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("12 stalled uploads, 4 at a time, 1 s deadline: %.2f s\n", seconds);
  EXPECT_GT(seconds, 2.5);  // all at once: about 1 to 1.25 s
  EXPECT_LT(seconds, 20);
}

// gRPC's threads are bounded (--max-threads, its ResourceQuota): 20 stalled uploads against
// a bound of 6 (one held by the session) are not all served at once.
TEST(RemoteHostile, ThreadsAreBounded) {
  Server server({"--stall-timeout-s", "2", "--max-threads", "6"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession session(server.address());
  ASSERT_NE(session.id(), 0u);
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<pb::Remote::Stub>> stubs;
  for (int i = 0; i < 4; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);
    channels.push_back(
        grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args));
    stubs.push_back(pb::Remote::NewStub(channels.back()));
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<StalledUpload>> uploads;
  for (int i = 0; i < 20; ++i) {
    uploads.push_back(StartStalledUpload(*stubs[static_cast<size_t>(i % 4)], session.id()));
  }
  int exhausted = 0;
  for (auto& upload : uploads) {
    if (upload->writer->Finish().error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++exhausted;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("20 stalled uploads, 6 threads: %d refused, all ended after %.1f s\n", exhausted,
              seconds);
  // Unbounded, all 20 are served at once and end together after about 2 s, none refused.
  EXPECT_TRUE(exhausted > 0 || seconds > 4.5) << exhausted << " refused, " << seconds << " s";
  EXPECT_LT(seconds, 25);
}

TEST(RemoteHostile, SessionsAreBounded) {
  Server server({"--max-sessions", "2"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  auto first = std::make_unique<RawSession>(server.address());
  RawSession second(server.address());
  ASSERT_NE(first->id(), 0u);
  ASSERT_NE(second.id(), 0u);
  auto open = [&] {
    auto channel = grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
    auto stub = pb::Remote::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    auto stream = stub->OpenSession(&context, pb::OpenSessionRequest());
    pb::SessionEvent event;
    const bool opened = stream->Read(&event);
    if (opened) context.TryCancel();  // ends the session
    grpc::Status status = stream->Finish();
    return opened ? grpc::Status::OK : status;
  };
  grpc::Status third = open();
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << third.error_message();
  EXPECT_THAT(third.error_message(), HasSubstr("--max-sessions 2"));
  first.reset();  // its session ends; another may open
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  grpc::Status again = open();
  while (!again.ok() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    again = open();
  }
  EXPECT_TRUE(again.ok()) << again.error_message();
}

// A connection with no call in progress is closed after --idle-timeout-s.
TEST(RemoteHostile, IdleConnectionsAreClosed) {
  Server server({"--idle-timeout-s", "1"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  auto channel = grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(
      channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10)));
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (channel->GetState(false) == GRPC_CHANNEL_READY &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(channel->GetState(false), GRPC_CHANNEL_READY);
  std::printf("closed after %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            (until - std::chrono::seconds(20)))
                  .count());
}

// Client text in an error is cut: a 12 KiB device name gets INVALID_ARGUMENT with a short
// message (a whole one would pass gRPC's 8 KiB metadata bound and fail the caller's call with
// an unrelated error), and the session goes on.
TEST(RemoteHostile, LongDeviceNamesAreCutInErrors) {
  Server server;
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession session(server.address());
  ASSERT_NE(session.id(), 0u);
  auto context = session.Context();
  pb::TransferToDeviceReply reply;
  auto writer = session.stub().TransferToDevice(context.get(), &reply);
  pb::TransferToDeviceChunk chunk;
  chunk.set_session(session.id());
  pb::TensorHeader* header = chunk.add_tensors();
  header->set_dtype("f32");
  header->add_dims(1);
  header->set_device("CPU:" + std::string(12 * 1024, '9'));
  chunk.set_data(std::string(4, '\0'));
  writer->Write(chunk);
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_LE(status.error_message().size(), 2048u);
  EXPECT_THAT(status.error_message(), HasSubstr("bytes)"));
  grpc::Status after;
  EXPECT_NE(session.Upload({1, 2}, &after), 0u) << after.error_message();
}

// A 16 MiB client name (the server's message bound raised to let it in) writes one short log
// line, not 64 MiB of escaped text.
TEST(RemoteHostile, LongClientNamesAreCutInTheLog) {
  Server server({"--max-message-mib", "32"});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  auto channel = grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  auto stub = pb::Remote::NewStub(channel);
  grpc::ClientContext context;
  pb::OpenSessionRequest request;
  request.set_client(std::string(16 * kMiB, '\x07'));
  auto stream = stub->OpenSession(&context, request);
  pb::SessionEvent event;
  EXPECT_TRUE(stream->Read(&event));
  context.TryCancel();
  (void)stream->Finish();
  const std::string err = server.child().Stderr();
  EXPECT_THAT(err, HasSubstr("...(16777216 bytes)"));
  EXPECT_LT(err.size(), 16u * 1024);
}

// Refused calls are logged, at most 10 lines in any 10 s: 300 calls without a token write a
// few lines, not 300.
TEST(RemoteHostile, RefusedCallsAreLoggedAtABoundedRate) {
  TempFile token("the-real-token\n");
  Server server({"--token-file", token.path()});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  auto channel = grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
  auto stub = pb::Remote::NewStub(channel);
  for (int i = 0; i < 300; ++i) {
    grpc::ClientContext context;
    pb::HandlesRequest request;
    pb::IsReadyReply reply;
    ASSERT_EQ(stub->IsReady(&context, request, &reply).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  const std::string err = server.child().Stderr();
  int lines = 0;
  for (size_t at = err.find("serve: refused IsReady"); at != std::string::npos;
       at = err.find("serve: refused IsReady", at + 1)) {
    ++lines;
  }
  EXPECT_GE(lines, 1);
  EXPECT_LE(lines, 10);
}

// The refusals of `seam serve`'s start: each exits with status 1 and says why.
testing::Exit ServeWith(const std::vector<std::string>& args, std::string* err) {
  std::vector<std::string> argv = {SEAM_CLI, "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::Child child(argv, {{"PJRT_DEVICE", "CPU"}, {"SEAM_CLIENT", "pjrt"}});
  testing::Exit exit = child.WaitOrKill(std::chrono::seconds(30));
  *err = child.Stderr();
  return exit;
}

TEST(RemoteHostile, TokenFilesOthersMayReadAreRefused) {
  TempFile token("secret-token\n");
  ASSERT_EQ(chmod(token.path().c_str(), 0644), 0);
  std::string err;
  testing::Exit exit = ServeWith({"--address", "127.0.0.1:0", "--token-file", token.path()}, &err);
  EXPECT_TRUE(exit.exited && exit.code == 1) << exit.Describe();
  EXPECT_THAT(err, HasSubstr("the token file '" + token.path() + "' has mode 0644"));
  EXPECT_THAT(err, HasSubstr("chmod 600"));
  // The client refuses such a file the same way.
  absl::StatusOr<std::string> read = wire::ReadTokenFile(token.path(), "SEAM_REMOTE_TOKEN_FILE");
  EXPECT_THAT(read.status().message(), HasSubstr("has mode 0644"));
}

TEST(RemoteHostile, TokenFilesAreReadBounded) {
  std::string err;
  testing::Exit exit = ServeWith({"--address", "127.0.0.1:0", "--token-file", "/dev/zero"}, &err);
  EXPECT_TRUE(exit.exited && exit.code == 1) << exit.Describe();
  EXPECT_THAT(err, HasSubstr("the token file '/dev/zero' holds more than 4096 bytes"));
}

TEST(RemoteHostile, AddressesMustBeLiteral) {
  for (const std::string& address : {std::string("example.invalid:0"), std::string(" 127.0.0.1:0"),
                                     std::string("localhost.:0")}) {
    std::string err;
    testing::Exit exit = ServeWith({"--address", address}, &err);
    EXPECT_TRUE(exit.exited && exit.code == 1) << address << ": " << exit.Describe();
    EXPECT_THAT(err, HasSubstr("--address must name a literal IP address")) << address;
  }
  // A non-loopback address without a token is refused; with one, the address is checked as
  // usual (TEST-NET-1 is not this machine's).
  std::string err;
  testing::Exit exit = ServeWith({"--address", "0.0.0.0:0"}, &err);
  EXPECT_TRUE(exit.exited && exit.code == 1) << exit.Describe();
  EXPECT_THAT(err, HasSubstr("--address 0.0.0.0:0 is not a loopback address and no --token-file"));
}

}  // namespace
}  // namespace seam::runtime
