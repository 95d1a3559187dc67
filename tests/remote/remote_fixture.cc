#include "tests/remote/remote_fixture.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

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
  if (stream_->Read(&event)) session_ = event.session();
}

RawSession::~RawSession() {
  context_.TryCancel();
  (void)stream_->Finish();
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

TempFile::TempFile(const std::string& text) {
  char name[] = "/tmp/seam_remote_test_XXXXXX";
  const int fd = mkstemp(name);
  if (fd >= 0) close(fd);
  path_ = name;
  std::ofstream(path_) << text;
}

TempFile::~TempFile() { std::remove(path_.c_str()); }

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
