// `seam serve` and the remote client (issue 18, docs/remote.md): tokens, the address bound,
// requests no client should send (unknown, foreign and released handles, truncated and
// malformed messages), a client killed mid-step and a server killed mid-step.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/ir/text.h"
#include "src/runtime/pjrt/pjrt_registry.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "src/runtime/remote/remote_wire.h"
#include "src/testing/remote_fixture.h"

namespace seam::runtime {
namespace {

using ::testing::HasSubstr;
using testing::RawSession;
using testing::Server;
using testing::TempFile;
using Clock = std::chrono::steady_clock;

absl::StatusOr<std::unique_ptr<RemoteComputationClient>> ConnectTo(const std::string& address,
                                                                   const std::string& token = "") {
  return RemoteComputationClient::Connect({address, token});
}

// Uploads `values`, runs ScaleAndSumProgram on them and reads the sum back.
absl::StatusOr<float> RoundTrip(ComputationClient& client, const std::vector<float>& values) {
  ir::Literal input = ir::Literal::FromF32(values, {static_cast<int64_t>(values.size())});
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> uploaded =
      client.TransferToDevice({{input.shape, input.bytes.data(), "CPU:0"}});
  if (!uploaded.ok()) return uploaded.status();
  absl::StatusOr<ir::Program> program =
      ir::ParseProgram(testing::ScaleAndSumProgram(static_cast<int>(values.size())));
  if (!program.ok()) return program.status();
  absl::StatusOr<std::vector<ComputationClient::ComputationPtr>> compiled =
      client.Compile({{*std::move(program), "CPU:0", false}});
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> outputs =
      client.ExecuteComputation(*(*compiled)[0], *uploaded, "CPU:0", {});
  if (!outputs.ok()) return outputs.status();
  absl::StatusOr<std::vector<ir::Literal>> read = client.TransferFromDevice({(*outputs)[1]});
  if (!read.ok()) return read.status();
  return (*read)[0].f32()[0];
}

float Expected(const std::vector<float>& values) {
  float sum = 0;
  for (float v : values) sum += v * 2 + 1;
  return sum;
}

TEST(RemoteServe, RefusesCallsWithoutTheRightToken) {
  TempFile token("correct-horse-battery\n");
  TempFile wrong("staple\n");
  Server server({"--token-file", token.path()});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();

  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> none = ConnectTo(server.address());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(none.status().message(), HasSubstr("requires a token"));

  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> bad =
      ConnectTo(server.address(), "staple");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(bad.status().message(), HasSubstr("refused the call's token"));

  // Every call is checked, not only the session's opening: a call of a valid session
  // without the token is refused too.
  RawSession good_raw(server.address(), "correct-horse-battery");
  ASSERT_NE(good_raw.id(), 0u);
  grpc::ClientContext bare;
  ::seam::remote::CompileRequest compile;
  compile.set_session(good_raw.id());
  ::seam::remote::CompileReply reply;
  EXPECT_EQ(testing::StreamCompile(good_raw.stub(), &bare, compile, &reply).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  // The token read from a file, as SEAM_REMOTE_TOKEN_FILE does (trailing newline dropped).
  setenv("SEAM_REMOTE_ADDRESS", server.address().c_str(), 1);
  setenv("SEAM_REMOTE_TOKEN_FILE", token.path().c_str(), 1);
  absl::StatusOr<RemoteClientOptions> options =
      ReadRemoteClientOptions([](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        return value == nullptr ? std::nullopt : std::optional<std::string>(value);
      });
  unsetenv("SEAM_REMOTE_TOKEN_FILE");
  unsetenv("SEAM_REMOTE_ADDRESS");
  ASSERT_TRUE(options.ok()) << options.status();
  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> good =
      RemoteComputationClient::Connect(*options);
  ASSERT_TRUE(good.ok()) << good.status();
  absl::StatusOr<float> sum = RoundTrip(**good, {1, 2, 3});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, Expected({1, 2, 3}));

  // A wrong token file: refused the same way.
  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> from_wrong_file =
      ConnectTo(server.address(), std::string(*wire::ReadTokenFile(wrong.path(), "test")));
  EXPECT_EQ(from_wrong_file.status().code(), absl::StatusCode::kUnauthenticated);
}

// Listening sockets (state 0A) on `port` in /proc/net/tcp and tcp6: their local addresses as
// the kernel writes them (hex).
std::vector<std::string> ListeningAddresses(int port) {
  std::vector<std::string> found;
  for (const char* path : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);  // the header
    while (std::getline(file, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote_end, state;
      fields >> slot >> local >> remote_end >> state;
      const size_t colon = local.rfind(':');
      if (colon == std::string::npos || state != "0A") continue;
      if (std::stoi(local.substr(colon + 1), nullptr, 16) == port) {
        found.push_back(local.substr(0, colon));
      }
    }
  }
  return found;
}

TEST(RemoteServe, ListensOnlyOnTheAddressGiven) {
  Server server;
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  ASSERT_THAT(server.address(), ::testing::StartsWith("127.0.0.1:"));
  // One listener on the port, for 127.0.0.1 only: in /proc's byte order, as an IPv4
  // socket or as gRPC's IPv6 socket bound to the v4-mapped ::ffff:127.0.0.1. No wildcard
  // (00000000, or :: in tcp6) and no other address.
  EXPECT_THAT(
      ListeningAddresses(server.port()),
      ::testing::ElementsAre(::testing::AnyOf("0100007F", "0000000000000000FFFF00000100007F")));

  // An address that is not this machine's (TEST-NET-1; with a token, which an address that
  // is not loopback needs), and one that is not an address.
  TempFile token("a-token\n");
  testing::Child foreign(
      {SEAM_CLI, "serve", "--address", "192.0.2.1:8548", "--token-file", token.path()},
      {{"PJRT_DEVICE", "CPU"}});
  testing::Exit exit = foreign.WaitOrKill(std::chrono::seconds(30));
  EXPECT_TRUE(exit.exited && exit.code == 1) << exit.Describe();
  EXPECT_THAT(foreign.Stderr(), HasSubstr("cannot listen on 192.0.2.1:8548"));
  testing::Child malformed({SEAM_CLI, "serve", "--address", "localhost"}, {{"PJRT_DEVICE", "CPU"}});
  exit = malformed.WaitOrKill(std::chrono::seconds(30));
  EXPECT_TRUE(exit.exited && exit.code == 1) << exit.Describe();
  EXPECT_THAT(malformed.Stderr(), HasSubstr("--address must be HOST:PORT"));
  EXPECT_THAT(malformed.Stderr(), HasSubstr("'localhost'"));
}

TEST(RemoteServe, RefusesUnknownForeignAndMalformedRequests) {
  Server server;
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession a(server.address());
  RawSession b(server.address());
  ASSERT_NE(a.id(), 0u);
  ASSERT_NE(b.id(), 0u);
  grpc::Status status;
  const uint64_t handle = a.Upload({1, 2, 3, 4}, &status);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const std::string named = "handle " + std::to_string(handle);

  auto read = [](RawSession& session, uint64_t which, uint64_t session_id) {
    ::seam::remote::TransferFromDeviceRequest request;
    request.set_session(session_id);
    request.add_handles(which);
    auto context = session.Context();
    auto reader = session.stub().TransferFromDevice(context.get(), request);
    ::seam::remote::DataChunk chunk;
    while (reader->Read(&chunk)) {
    }
    return reader->Finish();
  };
  // Another session's handle, an unknown one, an unknown session.
  grpc::Status foreign = read(b, handle, b.id());
  EXPECT_EQ(foreign.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(foreign.error_message(), HasSubstr(named + " belongs to another client"));
  grpc::Status unknown = read(b, 987654321, b.id());
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(unknown.error_message(), HasSubstr("handle 987654321 is not known"));
  grpc::Status no_session = read(b, handle, 12345);
  EXPECT_EQ(no_session.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(no_session.error_message(), HasSubstr("is not open on this server"));
  EXPECT_TRUE(read(a, handle, a.id()).ok());

  // A truncated upload, too many bytes, an unknown dtype, a negative dimension.
  auto upload = [&](const std::string& dtype, int64_t dim, size_t bytes, uint64_t session_id = 0) {
    auto context = a.Context();
    ::seam::remote::TransferToDeviceReply reply;
    auto writer = a.stub().TransferToDevice(context.get(), &reply);
    ::seam::remote::TransferToDeviceChunk chunk;
    chunk.set_session(session_id == 0 ? a.id() : session_id);
    ::seam::remote::TensorHeader* header = chunk.add_tensors();
    header->set_dtype(dtype);
    header->add_dims(dim);
    header->set_device("CPU:0");
    chunk.set_data(std::string(bytes, '\x01'));
    writer->Write(chunk);
    writer->WritesDone();
    return writer->Finish();
  };
  grpc::Status stranger = upload("f32", 1, 4, 12345);
  EXPECT_EQ(stranger.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(stranger.error_message(), HasSubstr("is not open on this server"));
  grpc::Status truncated = upload("f32", 4, 5);
  EXPECT_EQ(truncated.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(truncated.error_message(), HasSubstr("need 16 bytes, the request carried 5"));
  EXPECT_EQ(upload("f32", 1, 9).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  grpc::Status dtype = upload("f99", 1, 4);
  EXPECT_THAT(dtype.error_message(), HasSubstr("unknown dtype 'f99'"));
  EXPECT_EQ(upload("f32", -3, 0).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  grpc::Status huge = upload("f32", int64_t{1} << 40, 8);
  EXPECT_EQ(huge.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << huge.error_message();
  {  // Shapes whose bytes add up past 2^64: refused, not wrapped into a small total.
    auto context = a.Context();
    ::seam::remote::TransferToDeviceReply reply;
    auto writer = a.stub().TransferToDevice(context.get(), &reply);
    ::seam::remote::TransferToDeviceChunk chunk;
    chunk.set_session(a.id());
    for (int i = 0; i < 4; ++i) {
      ::seam::remote::TensorHeader* header = chunk.add_tensors();
      header->set_dtype("f32");
      header->add_dims(int64_t{1} << 60);  // 2^62 bytes each: four make 2^64
      header->set_device("CPU:0");
    }
    writer->Write(chunk);
    writer->WritesDone();
    grpc::Status wrapped = writer->Finish();
    EXPECT_EQ(wrapped.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << wrapped.error_message();
    EXPECT_THAT(wrapped.error_message(), HasSubstr("tensor 3 (f32[1152921504606846976]) takes"));
  }

  // A program that does not parse; a buffer used as a computation; an unknown device.
  {
    auto context = a.Context();
    ::seam::remote::CompileRequest request;
    request.set_session(a.id());
    request.add_instances()->set_program("program @p {\n  %0 = nonsense(\n}");
    ::seam::remote::CompileReply reply;
    grpc::Status compiled = testing::StreamCompile(a.stub(), context.get(), request, &reply);
    EXPECT_EQ(compiled.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(compiled.error_message(), HasSubstr("Compile: program 0: line"));
  }
  {
    auto context = a.Context();
    ::seam::remote::ExecuteRequest request;
    request.set_session(a.id());
    request.set_computation(handle);
    request.set_device("CPU:0");
    ::seam::remote::ExecuteReply reply;
    grpc::Status executed = a.stub().Execute(context.get(), request, &reply);
    EXPECT_EQ(executed.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(executed.error_message(), HasSubstr(named + " is a buffer, not a computation"));
  }
  EXPECT_EQ(upload("f32", 1, 4).error_code(), grpc::StatusCode::OK);

  // Release: another session may not; after the owner's release the handle is unknown.
  auto release = [&](RawSession& session, uint64_t which) {
    auto context = session.Context();
    ::seam::remote::HandlesRequest request;
    request.set_session(session.id());
    request.add_handles(which);
    ::seam::remote::ReleaseReply reply;
    return session.stub().Release(context.get(), request, &reply);
  };
  EXPECT_EQ(release(b, handle).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(release(a, handle).ok());
  grpc::Status released = read(a, handle, a.id());
  EXPECT_EQ(released.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(released.error_message(), HasSubstr(named + " is not known"));

  // The server survived all of it and still serves a client.
  EXPECT_FALSE(server.child().Wait(std::chrono::milliseconds(0)).exited);
  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> client = ConnectTo(server.address());
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<float> sum = RoundTrip(**client, {0.5f, -1});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, Expected({0.5f, -1}));
}

// Uploads go straight into device buffers chunk by chunk and downloads leave in 1 MiB ranges
// (ABI 1.5 on the server): tensors that straddle chunks, an empty one between them, and one
// larger than the direct path's 64 MiB bound (received whole, then sent to the device) all
// read back byte for byte.
TEST(RemoteServe, TransfersAcrossChunksAndTensorsReadBackExactly) {
  Server server;
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> client = ConnectTo(server.address());
  ASSERT_TRUE(client.ok()) << client.status();
  auto pattern = [](int64_t n, int seed) {
    std::vector<float> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = float((i * 7 + seed) % 1009);
    return ir::Literal::FromF32(values, {n});
  };
  const std::vector<ir::Literal> small = {pattern(300001, 1), ir::Literal::FromF32({}, {0}),
                                          pattern(524289, 2), pattern(3, 3)};
  std::vector<ComputationClient::TensorSource> sources;
  for (const ir::Literal& literal : small) {
    sources.push_back({literal.shape, literal.bytes.data(), "CPU:0"});
  }
  absl::StatusOr<std::vector<ComputationClient::DataPtr>> uploaded =
      (*client)->TransferToDevice(sources);
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  absl::StatusOr<std::vector<ir::Literal>> read = (*client)->TransferFromDevice(*uploaded);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), small.size());
  for (size_t i = 0; i < small.size(); ++i) EXPECT_TRUE((*read)[i] == small[i]) << "tensor " << i;

  const ir::Literal large = pattern((int64_t{64} << 20) / 4 + 5, 4);  // 64 MiB + 20 bytes
  uploaded = (*client)->TransferToDevice({{large.shape, large.bytes.data(), "CPU:0"}});
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  read = (*client)->TransferFromDevice(*uploaded);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->front() == large);
}

// SIGTERM (and SIGINT) stop the server cleanly, also with a client connected: exit status
// 0, "seam serve: stopped"; the client's next call fails saying the server went away.
TEST(RemoteServe, StopsCleanlyOnSigterm) {
  Server server;
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  absl::StatusOr<std::unique_ptr<RemoteComputationClient>> client = ConnectTo(server.address());
  ASSERT_TRUE(client.ok()) << client.status();
  server.child().Signal(SIGTERM);
  testing::Exit exit = server.child().WaitOrKill(std::chrono::seconds(20));
  EXPECT_TRUE(exit.exited && exit.code == 0) << exit.Describe() << server.child().Stderr();
  EXPECT_THAT(server.child().Stdout(), HasSubstr("seam serve: stopped"));
  absl::StatusOr<int64_t> in_flight = (*client)->RunsInFlight("CPU:0");
  ASSERT_FALSE(in_flight.ok());
  EXPECT_THAT(in_flight.status().message(), HasSubstr("lost the connection to seam serve"));
}

}  // namespace
}  // namespace seam::runtime
