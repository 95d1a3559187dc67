// remote_bench (issue 18, "Performance"; BENCHMARKS.md, "Remote client"): what the remote
// client costs beside the in-process one, in one run.
//
// Run without SEAM_REMOTE_BENCH_ROLE, the program is a launcher: it starts `seam serve` on
// 127.0.0.1:0 and a plain gRPC streaming service of its own (PlainStream, below) on
// 127.0.0.1:0, runs itself twice (/proc/self/exe: once in process with PJRT_DEVICE=CPU,
// once with SEAM_CLIENT=remote against that server), stops the server, and prints one table
// with both sets of figures and their ratios. Its arguments go to both runs (Google
// Benchmark flags; with --benchmark_repetitions the table takes each one's fastest
// repetition; --benchmark_out would be written by both runs, so leave it out). One thread
// everywhere unless set otherwise: OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and SEAM_CPU_THREADS
// default to 1 for every process it starts.
//
// Measured in each run: the MLP training step of train_step_bench (lazy, cache hit, and
// compiled) for the tiny 16-16-4 and the medium 784-512-512-10 shapes; 64 MiB to and from
// the device through the process's ComputationClient; in the remote run also the same
// 64 MiB over a plain gRPC stream (1 MiB chunks, as the remote client cuts them) to and from
// the launcher's PlainStream, which keeps nothing: the wire and protobuf cost alone. Its
// downloads fill a fresh host buffer per read, as TransferFromDevice fills a fresh host
// value; a second reference reuses one buffer (no fresh pages), beside
// TransferFromDeviceInto reading into one reused buffer.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/mlp_shapes.h"
#include "bench/mlp_step.h"
#include "proto/remote.grpc.pb.h"
#include "seam/compile.h"
#include "seam/nn.h"
#include "seam/optim.h"
#include "seam/tensor.h"
#include "src/runtime/process/runtime.h"
#include "src/testing/remote_fixture.h"

extern "C" char* openblas_get_corename(void);

namespace seam::bench {
namespace {

namespace pb = ::seam::remote;

constexpr size_t kBigBytes = size_t{64} << 20;
constexpr size_t kChunkBytes = size_t{1} << 20;  // the remote client's chunk size
constexpr char kRole[] = "SEAM_REMOTE_BENCH_ROLE";
constexpr char kResults[] = "SEAM_REMOTE_BENCH_RESULTS";
constexpr char kStreamAddress[] = "SEAM_REMOTE_BENCH_STREAM";

// The lazy step: traced every time, compiled once, then a compile-cache hit.
void BM_MlpStep(benchmark::State& state) {
  const MlpShape& shape = MlpShapes()[state.range(0)];
  MlpStepSetUp s(shape);
  float loss_value = 0;
  auto step = [&] {
    Tensor loss = nn::cross_entropy(s.model.forward(s.x), s.y);
    s.sgd.step(loss);
    sync();
    loss_value = loss.item<float>();
  };
  step();
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(loss_value);
  }
  state.SetLabel(MlpLabel(shape));
}

void BM_CompiledMlpStep(benchmark::State& state) {
  const MlpShape& shape = MlpShapes()[state.range(0)];
  MlpStepSetUp s(shape);
  CompiledStep step = compile([&](const std::vector<Tensor>& inputs) {
    Tensor loss = nn::cross_entropy(s.model.forward(inputs[0]), inputs[1]);
    s.sgd.step(loss);
    return std::vector<Tensor>{loss};
  });
  float loss_value = 0;
  for (int i = 0; i < 3; ++i) loss_value = step({s.x, s.y})[0].item<float>();  // capture
  for (auto _ : state) {
    loss_value = step({s.x, s.y})[0].item<float>();
    benchmark::DoNotOptimize(loss_value);
  }
  state.SetLabel(MlpLabel(shape));
}

runtime::ComputationClient& Client() {
  absl::StatusOr<runtime::ComputationClient*> client = runtime::GetComputationClient();
  if (!client.ok()) {
    std::fprintf(stderr, "remote_bench: %s\n", std::string(client.status().message()).c_str());
    std::exit(1);
  }
  return **client;
}

const ir::Shape& BigShape() {
  static const ir::Shape shape{ir::DType::kF32, {static_cast<int64_t>(kBigBytes / 4)}};
  return shape;
}

const std::vector<char>& BigBytes() {
  static const std::vector<char> bytes(kBigBytes, 1);
  return bytes;
}

void BM_ToDevice64MiB(benchmark::State& state) {
  runtime::ComputationClient& client = Client();
  const std::string device = client.GetDefaultDevice();
  for (auto _ : state) {
    auto data = client.TransferToDevice({{BigShape(), BigBytes().data(), device}});
    if (!data.ok() || !(*data)[0]->AwaitReady().ok()) state.SkipWithError("upload failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBigBytes));
}

void BM_FromDevice64MiB(benchmark::State& state) {
  runtime::ComputationClient& client = Client();
  auto data = client.TransferToDevice({{BigShape(), BigBytes().data(), client.GetDefaultDevice()}});
  if (!data.ok()) {
    state.SkipWithError("upload failed");
    return;
  }
  for (auto _ : state) {
    auto literals = client.TransferFromDevice(*data);
    if (!literals.ok()) state.SkipWithError("download failed");
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBigBytes));
}

// Into one host buffer reused across reads (TransferFromDeviceInto): no fresh pages.
void BM_FromDevice64MiBInto(benchmark::State& state) {
  runtime::ComputationClient& client = Client();
  auto data = client.TransferToDevice({{BigShape(), BigBytes().data(), client.GetDefaultDevice()}});
  if (!data.ok()) {
    state.SkipWithError("upload failed");
    return;
  }
  std::vector<uint8_t> host(kBigBytes);
  for (auto _ : state) {
    if (!client.TransferFromDeviceInto((*data)[0], absl::MakeSpan(host)).ok()) {
      state.SkipWithError("download failed");
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBigBytes));
}

// The reference: the same bytes over a plain gRPC stream, no seam on either side.
class PlainStream final : public pb::Remote::Service {
 public:
  grpc::Status TransferToDevice(grpc::ServerContext*,
                                grpc::ServerReader<pb::TransferToDeviceChunk>* reader,
                                pb::TransferToDeviceReply* reply) override {
    pb::TransferToDeviceChunk chunk;
    uint64_t bytes = 0;
    while (reader->Read(&chunk)) bytes += chunk.data().size();
    reply->add_handles(bytes);
    return grpc::Status::OK;
  }
  // Sends handles(0) bytes (at most 64 MiB) in 1 MiB chunks.
  grpc::Status TransferFromDevice(grpc::ServerContext*,
                                  const pb::TransferFromDeviceRequest* request,
                                  grpc::ServerWriter<pb::DataChunk>* writer) override {
    const uint64_t size = request->handles_size() == 1 ? request->handles(0) : 0;
    if (size > kBigBytes) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "at most 64 MiB");
    }
    pb::DataChunk chunk;
    for (size_t at = 0; at < size; at += kChunkBytes) {
      chunk.set_data(BigBytes().data() + at, std::min<size_t>(kChunkBytes, size - at));
      if (!writer->Write(chunk)) break;
    }
    return grpc::Status::OK;
  }
};

std::unique_ptr<pb::Remote::Stub> PlainStub() {
  static std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(std::getenv(kStreamAddress), grpc::InsecureChannelCredentials());
  return pb::Remote::NewStub(channel);
}

void BM_PlainGrpcToDevice64MiB(benchmark::State& state) {
  std::unique_ptr<pb::Remote::Stub> stub = PlainStub();
  for (auto _ : state) {
    grpc::ClientContext context;
    pb::TransferToDeviceReply reply;
    auto writer = stub->TransferToDevice(&context, &reply);
    pb::TransferToDeviceChunk chunk;
    pb::TensorHeader* header = chunk.add_tensors();  // as the remote client's first chunk
    header->set_dtype("f32");
    header->add_dims(BigShape().dims[0]);
    header->set_device("CPU:0");
    for (size_t at = 0; at < kBigBytes; at += kChunkBytes) {
      chunk.mutable_data()->assign(BigBytes().data() + at, kChunkBytes);
      if (!writer->Write(chunk)) break;
      chunk.Clear();
    }
    writer->WritesDone();
    if (!writer->Finish().ok() || reply.handles_size() != 1 || reply.handles(0) != kBigBytes) {
      state.SkipWithError("plain upload failed");
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBigBytes));
}

// Reads the 64 MiB into a fresh host buffer per read, as TransferFromDevice returns a fresh
// host value; with `warm`, into one buffer reused across reads (no fresh pages: the
// reference until session 11, kept to show what fresh pages cost).
void PlainGrpcFromDevice(benchmark::State& state, bool warm) {
  std::unique_ptr<pb::Remote::Stub> stub = PlainStub();
  std::vector<char> kept;
  for (auto _ : state) {
    grpc::ClientContext context;
    pb::TransferFromDeviceRequest request;
    request.add_handles(kBigBytes);
    auto reader = stub->TransferFromDevice(&context, request);
    std::vector<char> fresh;
    std::vector<char>& host = warm ? kept : fresh;
    host.clear();
    host.reserve(kBigBytes);
    pb::DataChunk chunk;
    while (reader->Read(&chunk)) host.insert(host.end(), chunk.data().begin(), chunk.data().end());
    if (!reader->Finish().ok() || host.size() != kBigBytes) {
      state.SkipWithError("plain download failed");
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBigBytes));
}
void BM_PlainGrpcFromDevice64MiB(benchmark::State& state) { PlainGrpcFromDevice(state, false); }
void BM_PlainGrpcFromDevice64MiBWarm(benchmark::State& state) { PlainGrpcFromDevice(state, true); }

// Console output as usual, and "name seconds-per-iteration" lines for the launcher.
class ResultsReporter : public benchmark::ConsoleReporter {
 public:
  explicit ResultsReporter(const char* path) : out_(path) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.iterations == 0 || run.run_type != Run::RT_Iteration) continue;
      std::string name = run.benchmark_name();
      const std::string suffix = "/real_time";
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        name.resize(name.size() - suffix.size());
      }
      out_ << name << ' ' << run.real_accumulated_time / static_cast<double>(run.iterations)
           << '\n';
    }
    out_.flush();
  }

 private:
  std::ofstream out_;
};

void Register() {
  for (int shape : {0, 2}) {
    benchmark::RegisterBenchmark("BM_MlpStep", BM_MlpStep)
        ->Arg(shape)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_CompiledMlpStep", BM_CompiledMlpStep)
        ->Arg(shape)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_ToDevice64MiB", BM_ToDevice64MiB)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_FromDevice64MiB", BM_FromDevice64MiB)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_FromDevice64MiBInto", BM_FromDevice64MiBInto)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  if (std::getenv(kStreamAddress) != nullptr) {
    benchmark::RegisterBenchmark("BM_PlainGrpcToDevice64MiB", BM_PlainGrpcToDevice64MiB)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_PlainGrpcFromDevice64MiB", BM_PlainGrpcFromDevice64MiB)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_PlainGrpcFromDevice64MiBWarm", BM_PlainGrpcFromDevice64MiBWarm)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

int RunBenchmarks(int argc, char** argv) {
  Register();
  benchmark::Initialize(&argc, argv);
  ResultsReporter reporter(std::getenv(kResults));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}

// ---- The launcher ----

pid_t g_server_pid = -1;
pid_t g_run_pid = -1;

void StopOnSignal(int signal) {
  if (g_run_pid > 0) kill(g_run_pid, SIGKILL);
  if (g_server_pid > 0) kill(g_server_pid, SIGKILL);
  _exit(128 + signal);
}

std::string CpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

using Results = std::map<std::string, double>;  // benchmark -> seconds per iteration

// Runs this program as a benchmark run with `env`; its results, or empty on failure.
Results RunSelf(int argc, char** argv, std::map<std::string, std::string> env) {
  char path[] = "/tmp/seam_remote_bench_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return {};
  close(fd);
  env[kRole] = "run";
  env[kResults] = path;
  std::vector<std::string> args = {"/proc/self/exe", "--benchmark_color=false"};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  testing::Child run(args, env);
  g_run_pid = run.pid();
  const testing::Exit exit = run.WaitOrKill(std::chrono::minutes(20));
  g_run_pid = -1;
  std::printf("%s", run.Stdout().c_str());
  if (exit.code != 0) std::fprintf(stderr, "%s%s\n", run.Stderr().c_str(), exit.Describe().c_str());
  Results results;
  std::ifstream in(path);
  std::string name;
  double seconds = 0;
  while (in >> name >> seconds) {  // with --benchmark_repetitions, the fastest
    auto [it, added] = results.emplace(name, seconds);
    if (!added) it->second = std::min(it->second, seconds);
  }
  std::remove(path);
  return results;
}

void PrintTable(const Results& local, const Results& remote) {
  auto get = [](const Results& r, const std::string& name) {
    auto it = r.find(name);
    return it == r.end() ? -1.0 : it->second;
  };
  std::printf("\n%-32s %14s %14s %10s\n", "step (ms)", "in process", "remote", "remote/in");
  for (const char* name :
       {"BM_MlpStep/0", "BM_CompiledMlpStep/0", "BM_MlpStep/2", "BM_CompiledMlpStep/2"}) {
    const double a = get(local, name), b = get(remote, name);
    std::printf("%-32s %14.4f %14.4f %9.2fx\n", name, a * 1e3, b * 1e3, b / a);
  }
  const double mib = static_cast<double>(kBigBytes) / (1 << 20);
  std::printf("\n%-32s %14s %14s %14s %10s\n", "64 MiB (MiB/s)", "in process", "remote",
              "plain gRPC", "remote/gRPC");
  const char* rows[][3] = {
      {"BM_ToDevice64MiB", "BM_PlainGrpcToDevice64MiB", "BM_ToDevice64MiB"},
      {"BM_FromDevice64MiB", "BM_PlainGrpcFromDevice64MiB", "BM_FromDevice64MiB"},
      {"BM_FromDevice64MiBInto", "BM_PlainGrpcFromDevice64MiBWarm", "BM_FromDevice64MiBInto"}};
  for (const auto& row : rows) {
    const double in = mib / get(local, row[0]), rem = mib / get(remote, row[0]);
    const double plain = mib / get(remote, row[1]);
    std::printf("%-32s %14.0f %14.0f %14.0f %9.2fx\n", row[2], in, rem, plain, rem / plain);
  }
}

int Launch(int argc, char** argv) {
  for (const char* name : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "SEAM_CPU_THREADS"}) {
    setenv(name, "1", /*overwrite=*/0);
  }
  std::printf(
      "CPU: %s\nOpenBLAS core: %s\nOPENBLAS_NUM_THREADS=%s OMP_NUM_THREADS=%s "
      "SEAM_CPU_THREADS=%s (client and server)\n",
      CpuName().c_str(), openblas_get_corename(), std::getenv("OPENBLAS_NUM_THREADS"),
      std::getenv("OMP_NUM_THREADS"), std::getenv("SEAM_CPU_THREADS"));
  signal(SIGINT, StopOnSignal);
  signal(SIGTERM, StopOnSignal);

  PlainStream plain;
  grpc::ServerBuilder builder;
  int plain_port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &plain_port);
  builder.RegisterService(&plain);
  std::unique_ptr<grpc::Server> plain_server = builder.BuildAndStart();
  if (plain_server == nullptr || plain_port == 0) {
    std::fprintf(stderr, "remote_bench: the plain gRPC service did not start on 127.0.0.1\n");
    return 1;
  }
  Results local = RunSelf(argc, argv, {{"SEAM_CLIENT", "pjrt"}, {"PJRT_DEVICE", "CPU"}});
  Results remote;
  {
    testing::Server server;  // seam serve --address 127.0.0.1:0, PJRT_DEVICE=CPU
    g_server_pid = server.child().pid();
    if (server.address().empty()) {
      std::fprintf(stderr, "remote_bench: seam serve did not start: %s\n",
                   server.child().Stderr().c_str());
      return 1;
    }
    std::printf("seam serve at %s; plain gRPC service at 127.0.0.1:%d\n", server.address().c_str(),
                plain_port);
    remote = RunSelf(argc, argv,
                     {{"SEAM_CLIENT", "remote"},
                      {"SEAM_REMOTE_ADDRESS", server.address()},
                      {kStreamAddress, "127.0.0.1:" + std::to_string(plain_port)}});
    server.child().Signal(SIGTERM);
    const testing::Exit stopped = server.child().WaitOrKill(std::chrono::seconds(10));
    g_server_pid = -1;
    if (stopped.code != 0) std::fprintf(stderr, "seam serve: %s\n", stopped.Describe().c_str());
  }  // the Child's destructor kills and reaps it if it is still there
  plain_server->Shutdown();
  if (local.empty() || remote.empty()) {
    std::fprintf(stderr, "remote_bench: a run produced no results\n");
    return 1;
  }
  PrintTable(local, remote);
  return 0;
}

}  // namespace
}  // namespace seam::bench

int main(int argc, char** argv) {
  if (std::getenv(seam::bench::kRole) != nullptr) {
    return seam::bench::RunBenchmarks(argc, argv);
  }
  return seam::bench::Launch(argc, argv);
}
