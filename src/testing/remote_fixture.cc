#include "src/testing/remote_fixture.h"

#include <grpcpp/generic/generic_stub.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace seam::testing {

Server::Server(const std::vector<std::string>& args, const std::map<std::string, std::string>& env)
    : child_(
          [&] {
            std::vector<std::string> argv = {SEAM_CLI, "serve", "--address", "127.0.0.1:0"};
            argv.insert(argv.end(), args.begin(), args.end());
            return argv;
          }(),
          [&] {
            std::map<std::string, std::string> all = env;
            all.emplace("PJRT_DEVICE", "CPU");
            all.emplace("SEAM_CLIENT", "pjrt");
            return all;
          }()) {
  if (!child_.WaitForOutput("listening on ", std::chrono::seconds(30))) return;
  const std::string out = child_.Stdout();
  const size_t at = out.find("listening on ") + 13;
  address_ = out.substr(at, out.find(' ', at) - at);
}

int Server::port() const { return std::atoi(address_.substr(address_.rfind(':') + 1).c_str()); }

RawSession::RawSession(const std::string& address, const std::string& token) : token_(token) {
  channel_ = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  stub_ = remote::Remote::NewStub(channel_);
  if (!token_.empty()) context_.AddMetadata("seam-token", token_);
  stream_ = stub_->OpenSession(&context_, remote::OpenSessionRequest());
  remote::SessionEvent event;
  if (stream_->Read(&event)) {
    session_ = event.session();
    output_base_ = event.output_handle_base();
  }
}

RawSession::~RawSession() {
  context_.TryCancel();
  (void)stream_->Finish();
}

bool WaitUntilStopped(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    for (const auto& task : std::filesystem::directory_iterator(tasks)) {
      std::ifstream stat(task.path() / "stat");
      std::string line;
      std::getline(stat, line);
      const size_t close = line.rfind(')');
      if (close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'T') {
        all = false;
      }
    }
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::unique_ptr<grpc::ClientContext> RawSession::Context() const {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) context->AddMetadata("seam-token", token_);
  return context;
}

uint64_t RawSession::Upload(const std::vector<float>& values, grpc::Status* status) {
  auto context = Context();
  remote::TransferToDeviceReply reply;
  auto writer = stub_->TransferToDevice(context.get(), &reply);
  remote::TransferToDeviceChunk chunk;
  chunk.set_session(session_);
  remote::TensorHeader* header = chunk.add_tensors();
  header->set_dtype("f32");
  header->add_dims(static_cast<int64_t>(values.size()));
  header->set_device("CPU:0");
  chunk.set_data(values.data(), values.size() * sizeof(float));
  writer->Write(chunk);
  writer->WritesDone();
  *status = writer->Finish();
  return status->ok() && reply.handles_size() == 1 ? reply.handles(0) : 0;
}

grpc::Status StreamCompile(remote::Remote::Stub& stub, grpc::ClientContext* context,
                           const remote::CompileRequest& request, remote::CompileReply* reply,
                           size_t chunk_bytes) {
  const std::string serialized = request.SerializeAsString();
  auto writer = stub.Compile(context, reply);
  remote::CompileChunk chunk;
  for (size_t at = 0; at < serialized.size(); at += chunk_bytes) {
    chunk.set_data(serialized.substr(at, chunk_bytes));
    if (!writer->Write(chunk)) break;
  }
  writer->WritesDone();
  return writer->Finish();
}

TempFile::TempFile(const std::string& text) {
  char name[] = "/tmp/seam_remote_test_XXXXXX";
  const int fd = mkstemp(name);
  if (fd >= 0) close(fd);
  path_ = name;
  std::ofstream(path_) << text;
}

TempFile::~TempFile() { std::remove(path_.c_str()); }

std::vector<grpc::Status> SendLargeRequests(const std::string& address, const std::string& method,
                                            size_t bytes, int count,
                                            std::chrono::seconds deadline) {
  remote::CompileRequest request;
  request.add_instances()->mutable_program()->assign(bytes, 'x');
  const std::string serialized = request.SerializeAsString();
  grpc::Slice slice(serialized.data(), serialized.size(), grpc::Slice::STATIC_SLICE);
  grpc::CompletionQueue queue;
  struct Call {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    grpc::ClientContext context;
    std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
    grpc::ByteBuffer reply;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<Call>> calls;
  for (int i = 0; i < count; ++i) {
    auto call = std::make_unique<Call>();
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);  // a connection of its own
    call->channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    call->stub = std::make_unique<grpc::GenericStub>(call->channel);
    call->context.set_deadline(std::chrono::system_clock::now() + deadline);
    grpc::ByteBuffer message(&slice, 1);
    call->reader = call->stub->PrepareUnaryCall(&call->context, method, message, &queue);
    call->reader->StartCall();
    call->reader->Finish(&call->reply, &call->status, call.get());
    calls.push_back(std::move(call));
  }
  for (int i = 0; i < count; ++i) {
    void* tag = nullptr;
    bool ok = false;
    if (!queue.Next(&tag, &ok)) break;
  }
  std::vector<grpc::Status> statuses;
  for (const auto& call : calls) statuses.push_back(call->status);
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
  return statuses;
}

int64_t ProcessStatusKib(int pid, const std::string& field) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atoll(line.c_str() + field.size() + 1);
  }
  return -1;
}

std::string ScaleAndSumProgram(int n) {
  const std::string shape = "f32[" + std::to_string(n) + "]";
  return "program @scale_and_sum {\n"
         "  %x = parameter(0) : " +
         shape +
         "\n"
         "  %two = constant(2.0) : f32[]\n"
         "  %one = constant(1.0) : f32[]\n"
         "  %tb = broadcast_in_dim(%two), dims={} : " +
         shape +
         "\n"
         "  %ob = broadcast_in_dim(%one), dims={} : " +
         shape +
         "\n"
         "  %m = multiply(%x, %tb) : " +
         shape +
         "\n"
         "  %a = add(%m, %ob) : " +
         shape +
         "\n"
         "  %s = reduce_sum(%a), axes={0} : f32[]\n"
         "  return (%a, %s)\n"
         "}\n";
}

}  // namespace seam::testing
