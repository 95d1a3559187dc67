// A short, seeded fuzz of `seam serve`'s requests (issue 18): random and mutated messages
// to every call (handles of this session, another session's, released or invented ones;
// outputs named by the client from its block, another's, or invented;
// unknown sessions; odd dtypes, dimensions and devices; programs cut short or with a
// character changed; transfers whose bytes do not match their shapes). Every answer must be
// OK or an error with a message; the server must still run and serve a client afterwards.
// SEAM_FUZZ_SEED picks another sequence (default 1), SEAM_FUZZ_ROUNDS its length (400).
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/ir/text.h"
#include "src/runtime/remote/remote_computation_client.h"
#include "src/testing/remote_fixture.h"

namespace seam::runtime {
namespace {

namespace pb = ::seam::remote;
using testing::RawSession;
using testing::Server;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? fallback : std::atoll(value);
}

class Fuzzer {
 public:
  Fuzzer(RawSession& mine, RawSession& other, uint64_t seed)
      : mine_(mine), other_(other), rng_(seed) {}

  // One random call; the status it got.
  grpc::Status Round() {
    switch (Pick(7)) {
      case 0:
        return Upload();
      case 1:
        return Download();
      case 2:
        return Compile();
      case 3:
        return Execute();
      case 4:
        return Handles(Pick(3));
      case 5:
        return InFlight();
      default:
        return Memory();
    }
  }

  std::vector<uint64_t>& handles() { return handles_; }

 private:
  uint64_t Pick(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

  uint64_t Session() {
    switch (Pick(8)) {
      case 0:
        return other_.id();
      case 1:
        return rng_();
      case 2:
        return 0;
      default:
        return mine_.id();
    }
  }
  uint64_t Handle() {
    if (!handles_.empty() && Pick(3) != 0) return handles_[Pick(handles_.size())];
    if (!foreign_.empty() && Pick(2) == 0) return foreign_[Pick(foreign_.size())];
    return Pick(2) == 0 ? rng_() : Pick(64);
  }
  std::string Dtype() {
    static const char* kNames[] = {"f32", "s32", "f64", "bf16", "pred", "s64", "u8", "f99", ""};
    return kNames[Pick(sizeof(kNames) / sizeof(kNames[0]))];
  }
  int64_t Dim() {
    switch (Pick(6)) {
      case 0:
        return -static_cast<int64_t>(Pick(5));
      case 1:
        return int64_t{1} << (30 + Pick(33));
      default:
        return static_cast<int64_t>(Pick(9));
    }
  }
  std::string Device() {
    static const char* kNames[] = {"CPU:0", "CPU:0", "CPU:1", "CPU:-1", "TPU:0", "", "CPU:0x"};
    return kNames[Pick(sizeof(kNames) / sizeof(kNames[0]))];
  }
  std::string Program() {
    std::string text = testing::ScaleAndSumProgram(static_cast<int>(Pick(5)) + 1);
    switch (Pick(4)) {
      case 0:
        return text.substr(0, Pick(text.size()));
      case 1:
        text[Pick(text.size())] = static_cast<char>(Pick(256));
        return text;
      case 2: {
        std::string noise(Pick(64), ' ');
        for (char& c : noise) c = static_cast<char>(Pick(256));
        return noise;
      }
      default:
        return text;
    }
  }
  void Keep(const google::protobuf::RepeatedField<uint64_t>& handles, uint64_t session) {
    for (uint64_t handle : handles) {
      (session == mine_.id() ? handles_ : foreign_).push_back(handle);
    }
  }

  grpc::Status Upload() {
    const bool as_other = Pick(5) == 0;
    RawSession& who = as_other ? other_ : mine_;
    auto context = who.Context();
    pb::TransferToDeviceReply reply;
    auto writer = who.stub().TransferToDevice(context.get(), &reply);
    pb::TransferToDeviceChunk chunk;
    chunk.set_session(as_other ? other_.id() : Session());
    size_t bytes = 0;
    for (uint64_t t = Pick(3); t > 0; --t) {
      pb::TensorHeader* header = chunk.add_tensors();
      header->set_dtype(Dtype());
      int64_t elements = 1;
      for (uint64_t d = Pick(3); d > 0; --d) {
        header->add_dims(Dim());
        const int64_t dim = std::max<int64_t>(header->dims(header->dims_size() - 1), 0);
        if (__builtin_mul_overflow(elements, dim, &elements)) elements = INT64_MAX;
      }
      header->set_device(Device());
      if (elements >= 0 && elements < 4096) bytes += static_cast<size_t>(elements) * 4;
    }
    if (Pick(4) == 0) chunk.add_release(Handle());
    // Mostly the right number of bytes for f32, sometimes off by a little.
    if (Pick(3) == 0) bytes += Pick(9);
    chunk.set_data(std::string(bytes, '\x3f'));
    writer->Write(chunk);
    if (Pick(4) == 0) writer->Write(chunk);  // a second message: more bytes than declared
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (status.ok()) Keep(reply.handles(), chunk.session());
    return status;
  }

  grpc::Status Download() {
    auto context = mine_.Context();
    pb::TransferFromDeviceRequest request;
    request.set_session(Session());
    for (uint64_t i = Pick(3); i > 0; --i) request.add_handles(Handle());
    auto reader = mine_.stub().TransferFromDevice(context.get(), request);
    pb::DataChunk chunk;
    while (reader->Read(&chunk)) {
    }
    return reader->Finish();
  }

  grpc::Status Compile() {
    auto context = mine_.Context();
    pb::CompileRequest request;
    request.set_session(Session());
    for (uint64_t i = Pick(3); i > 0; --i) {
      pb::CompileInstance* instance = request.add_instances();
      instance->set_program(Program());
      instance->set_compilation_device(Device());
      instance->set_eager_mode(Pick(2) == 0);
    }
    pb::CompileReply reply;
    grpc::Status status = testing::StreamCompile(mine_.stub(), context.get(), request, &reply);
    if (status.ok()) Keep(reply.computations(), request.session());
    return status;
  }

  grpc::Status Execute() {
    auto context = mine_.Context();
    if (Pick(3) == 0) {
      pb::ExecuteReplicatedRequest request;
      request.set_session(Session());
      request.set_computation(Handle());
      for (uint64_t d = Pick(3); d > 0; --d) {
        pb::HandleList* list = request.add_arguments();
        for (uint64_t i = Pick(3); i > 0; --i) list->add_handles(Handle());
        request.add_devices(Device());
      }
      pb::ExecuteReplicatedReply reply;
      return mine_.stub().ExecuteReplicated(context.get(), request, &reply);
    }
    pb::ExecuteRequest request;
    request.set_session(Session());
    request.set_computation(Handle());
    for (uint64_t i = Pick(3); i > 0; --i) request.add_arguments(Handle());
    request.set_device(Device());
    if (Pick(4) == 0) request.add_release(Handle());
    // Outputs named by the client (pipelined executes): fresh names of the session's block,
    // the other session's, in use, invented. Registered names are not kept for later
    // requests: one released would make a later lookup wait for its execute (10 s).
    if (Pick(4) == 0) {
      for (uint64_t i = Pick(3); i > 0; --i) {
        switch (Pick(4)) {
          case 0:
            request.add_output_handles(other_.output_base() + 1 + Pick(1 << 20));
            break;
          case 1:
            request.add_output_handles(Handle());
            break;
          default:
            request.add_output_handles(mine_.output_base() + 1 + Pick(1 << 20));
        }
      }
    }
    pb::ExecuteReply reply;
    grpc::Status status = mine_.stub().Execute(context.get(), request, &reply);
    if (status.ok() && request.output_handles().empty()) Keep(reply.outputs(), request.session());
    return status;
  }

  grpc::Status Handles(uint64_t which) {
    auto context = mine_.Context();
    pb::HandlesRequest request;
    request.set_session(Session());
    for (uint64_t i = Pick(3); i > 0; --i) request.add_handles(Handle());
    if (which == 0) {
      pb::AwaitReadyReply reply;
      return mine_.stub().AwaitReady(context.get(), request, &reply);
    }
    if (which == 1) {
      pb::IsReadyReply reply;
      return mine_.stub().IsReady(context.get(), request, &reply);
    }
    pb::ReleaseReply reply;
    return mine_.stub().Release(context.get(), request, &reply);
  }

  grpc::Status InFlight() {
    auto context = mine_.Context();
    pb::RunsInFlightRequest request;
    request.set_session(Session());
    request.set_device(Device());
    request.set_limit(static_cast<int64_t>(Pick(3)) - 1);
    pb::RunsInFlightReply reply;
    return mine_.stub().RunsInFlight(context.get(), request, &reply);
  }

  grpc::Status Memory() {
    auto context = mine_.Context();
    pb::MemoryStatsRequest request;
    request.set_session(Session());
    request.set_device(Device());
    pb::MemoryStatsReply reply;
    return mine_.stub().MemoryStats(context.get(), request, &reply);
  }

  RawSession& mine_;
  RawSession& other_;
  std::mt19937_64 rng_;
  std::vector<uint64_t> handles_;  // handed out to mine_ (some released since)
  std::vector<uint64_t> foreign_;  // handed out to other_
};

TEST(RemoteFuzz, RandomRequestsGetAnswersAndTheServerSurvives) {
  Server server({}, {{"CPU_NUM_DEVICES", "2"}});
  ASSERT_FALSE(server.address().empty()) << server.child().Stderr();
  RawSession mine(server.address());
  RawSession other(server.address());
  ASSERT_NE(mine.id(), 0u);
  ASSERT_NE(other.id(), 0u);
  const uint64_t seed = static_cast<uint64_t>(EnvInt("SEAM_FUZZ_SEED", 1));
  const int64_t rounds = EnvInt("SEAM_FUZZ_ROUNDS", 400);
  Fuzzer fuzzer(mine, other, seed);
  int64_t ok = 0;
  for (int64_t round = 0; round < rounds; ++round) {
    const grpc::Status status = fuzzer.Round();
    if (status.ok()) {
      ++ok;
      continue;
    }
    // The server answered with a reason; it never went away.
    ASSERT_NE(status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << "round " << round << " (seed " << seed << "): " << status.error_message()
        << "\nserver stderr:\n"
        << server.child().Stderr();
    EXPECT_FALSE(status.error_message().empty())
        << "round " << round << " (seed " << seed << "): code " << status.error_code();
  }
  std::printf("%lld of %lld random requests succeeded\n", static_cast<long long>(ok),
              static_cast<long long>(rounds));
  EXPECT_GT(ok, 0);  // some requests were well formed and did something
  EXPECT_FALSE(server.child().Wait(std::chrono::milliseconds(0)).exited);
  auto client = RemoteComputationClient::Connect({server.address(), ""});
  ASSERT_TRUE(client.ok()) << client.status();
  ir::Literal input = ir::Literal::FromF32({4, 5}, {2});
  auto uploaded = (*client)->TransferToDevice({{input.shape, input.bytes.data(), "CPU:1"}});
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  auto read = (*client)->TransferFromDevice(*uploaded);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ((*read)[0], input);
}

}  // namespace
}  // namespace seam::runtime
