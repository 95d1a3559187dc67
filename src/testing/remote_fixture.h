// What the remote service's tests share: a `seam serve` child on 127.0.0.1, a raw session
// on the service (for requests no client would send), and the programs they run.
#ifndef SEAM_TESTING_REMOTE_FIXTURE_H_
#define SEAM_TESTING_REMOTE_FIXTURE_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "proto/remote.grpc.pb.h"
#include "src/testing/spawn.h"

namespace seam::testing {

// `seam serve --address 127.0.0.1:0 ARGS...` with PJRT_DEVICE=CPU; address() is where it
// listens (read from its first line; empty when it did not start within 30 s).
class Server {
 public:
  explicit Server(const std::vector<std::string>& args = {},
                  const std::map<std::string, std::string>& env = {});
  const std::string& address() const { return address_; }
  int port() const;
  Child& child() { return child_; }

 private:
  Child child_;
  std::string address_;
};

// A session opened with raw gRPC calls.
class RawSession {
 public:
  explicit RawSession(const std::string& address, const std::string& token = "");
  ~RawSession();
  uint64_t id() const { return session_; }
  // The base of the session's block of output handles (SessionEvent.output_handle_base).
  uint64_t output_base() const { return output_base_; }
  remote::Remote::Stub& stub() { return *stub_; }
  // A context carrying the token, if any.
  std::unique_ptr<grpc::ClientContext> Context() const;
  // Uploads f32 values as one tensor on CPU:0; the handle, or 0 and `status` set.
  uint64_t Upload(const std::vector<float>& values, grpc::Status* status);

 private:
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<remote::Remote::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<remote::SessionEvent>> stream_;
  uint64_t session_ = 0;
  uint64_t output_base_ = 0;
};

// A compile request streamed as the client sends it (remote.proto's Compile): the serialized
// request in chunks of `chunk_bytes`.
grpc::Status StreamCompile(remote::Remote::Stub& stub, grpc::ClientContext* context,
                           const remote::CompileRequest& request, remote::CompileReply* reply,
                           size_t chunk_bytes = size_t{1} << 20);

// True once every thread of `pid` is stopped (state T in /proc/<pid>/task/*/stat), within
// 10 s: a SIGSTOP is delivered asynchronously, so a server just signalled may still answer.
bool WaitUntilStopped(pid_t pid);

// A temporary file with `text` (mode 0600); removed by the destructor.
class TempFile {
 public:
  explicit TempFile(const std::string& text);
  ~TempFile();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Sends `count` unary calls to `method` (e.g. "/seam.remote.Remote/Compile") at once, each
// on a connection of its own and without a token, each one message of `bytes` bytes (a
// CompileRequest whose program is that long; all share one copy here). Their statuses, each
// within `deadline`.
std::vector<grpc::Status> SendLargeRequests(const std::string& address, const std::string& method,
                                            size_t bytes, int count, std::chrono::seconds deadline);

// A field of /proc/<pid>/status in KiB ("VmRSS", "VmHWM"); -1 when it cannot be read.
int64_t ProcessStatusKib(int pid, const std::string& field);

// f32[n] -> (x * 2 + 1) summed, as IR text.
std::string ScaleAndSumProgram(int n);

}  // namespace seam::testing

#endif  // SEAM_TESTING_REMOTE_FIXTURE_H_
