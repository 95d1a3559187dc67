#include "src/plugins/cpu/collectives/gloo_collectives.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gloo/allreduce.h"
#include "gloo/common/error.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/tcp/device.h"
#include "src/plugins/cpu/collectives/gloo_store.h"
#include "src/plugins/cpu/collectives/sigpipe_guard.h"
#include "src/plugins/cpu/kernels/kernels.h"

namespace seam::cpu {
namespace {

std::atomic<int64_t> contexts_built{0};
std::atomic<int64_t> bytes_sent{0};

// What one all_reduce of `bytes` among `processes` sends from this process over Gloo's
// ring (reduce-scatter, then all-gather: each passes P - 1 of the P segments on).
int64_t RingBytesSent(int64_t bytes, int64_t processes) {
  const int64_t segment = (bytes + processes - 1) / processes;
  return 2 * (processes - 1) * segment;
}

absl::Status CheckDType(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
    case ir::DType::kF64:
    case ir::DType::kBF16:
    case ir::DType::kS32:
    case ir::DType::kS64:
      return absl::OkStatus();
    case ir::DType::kPred:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("all_reduce across processes does not support element type ",
                   std::string(ir::DTypeName(dtype)), " (supported: f32, f64, bf16, s32, s64)"));
}

// The all_reduce row's combiner (ops.def) as the binary op that folds two operands.
ir::Op Combiner(ir::Op all_reduce) { return ir::CombinerBinaryOp(ir::ReductionOf(all_reduce)); }

std::string ProcessList(const std::vector<int64_t>& processes) {
  return absl::StrCat("{", absl::StrJoin(processes, ", "), "}");
}

// Runs `body`, which calls into Gloo, and turns whatever it throws into a status.
template <typename Body>
absl::Status Guarded(Body body) {
  try {
    body();
    return absl::OkStatus();
  } catch (const GlooStoreError& e) {
    return e.status();
  } catch (const gloo::IoException& e) {
    const std::string what = e.what();
    const bool timed_out = what.find("Timed out") != std::string::npos;
    return absl::Status(
        timed_out ? absl::StatusCode::kDeadlineExceeded : absl::StatusCode::kUnavailable, what);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("out of host memory in Gloo");
  } catch (const std::exception& e) {
    return absl::UnavailableError(e.what());
  } catch (...) {
    return absl::UnavailableError("Gloo threw an exception that is not a std::exception");
  }
}

// Gloo's TCP device on exactly `local` (no host name lookup): pairs listen on it, and
// connect from the address the route to the peer picks, which is the same interface.
std::shared_ptr<gloo::transport::Device> MakeDevice(const SocketAddress& local) {
  gloo::transport::tcp::attr attr;
  attr.hostname = local.ToString();
  attr.ai_family = local.family();
  attr.ai_socktype = SOCK_STREAM;
  attr.ai_protocol = 0;
  std::memcpy(&attr.ai_addr, &local.storage, local.length);
  attr.ai_addrlen = static_cast<int>(local.length);
  return std::make_shared<gloo::transport::tcp::Device>(attr);
}

// Every process of the set publishes its device count under the context's prefix and
// checks the others' (replica ids assume the same count everywhere).
void CheckDeviceCounts(GlooStore& store, const std::vector<int64_t>& processes, size_t rank,
                       int64_t local_devices) {
  const std::string mine = std::to_string(local_devices);
  store.set(absl::StrCat("devices/", rank), std::vector<char>(mine.begin(), mine.end()));
  for (size_t r = 0; r < processes.size(); ++r) {
    if (r == rank) continue;
    const std::vector<char> theirs = store.get(absl::StrCat("devices/", r));
    if (std::string(theirs.begin(), theirs.end()) != mine) {
      throw GlooStoreError(absl::FailedPreconditionError(
          absl::StrCat("process ", processes[r], " has ", std::string(theirs.begin(), theirs.end()),
                       " device(s), this process has ", mine,
                       " (every process of a job must have the same cpu_device_count)")));
    }
  }
}

// Returns the bytes of the buffer Gloo exchanges (the elements in their wire type).
template <typename T>
size_t TypedAllReduce(const std::shared_ptr<gloo::Context>& context, uint32_t tag,
                      std::chrono::milliseconds timeout, ir::Op combine, ir::DType dtype,
                      std::vector<T*> in, std::vector<T*> out, size_t count) {
  gloo::AllreduceOptions options(context);
  // A lone input that is the output is reduced in place.
  if (in.size() != 1 || in[0] != out[0]) options.setInputs(std::move(in), count);
  options.setOutputs(std::move(out), count);
  options.setReduceFunction([combine, dtype](void* c, const void* a, const void* b, size_t n) {
    Binary(combine, dtype, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
           static_cast<uint8_t*>(c), static_cast<int64_t>(n));
  });
  options.setTag(tag);
  options.setTimeout(timeout);
  gloo::allreduce(options);
  return sizeof(T) * count;
}

template <typename T>
std::vector<T*> As(const std::vector<const uint8_t*>& pointers) {
  std::vector<T*> typed;
  typed.reserve(pointers.size());
  // Gloo takes inputs as non-const pointers; it only reads them.
  for (const uint8_t* p : pointers) typed.push_back(reinterpret_cast<T*>(const_cast<uint8_t*>(p)));
  return typed;
}

template <typename T>
std::vector<T*> As(const std::vector<uint8_t*>& pointers) {
  std::vector<T*> typed;
  typed.reserve(pointers.size());
  for (uint8_t* p : pointers) typed.push_back(reinterpret_cast<T*>(p));
  return typed;
}

size_t AllReduceOn(const std::shared_ptr<gloo::Context>& context, uint32_t tag,
                   std::chrono::milliseconds timeout, ir::Op op, ir::DType dtype,
                   const std::vector<const uint8_t*>& inputs, const std::vector<uint8_t*>& outputs,
                   size_t count) {
  const ir::Op combine = Combiner(op);
  switch (dtype) {
    case ir::DType::kF32:
      return TypedAllReduce<float>(context, tag, timeout, combine, dtype, As<float>(inputs),
                                   As<float>(outputs), count);
    case ir::DType::kF64:
      return TypedAllReduce<double>(context, tag, timeout, combine, dtype, As<double>(inputs),
                                    As<double>(outputs), count);
    case ir::DType::kS32:
      return TypedAllReduce<int32_t>(context, tag, timeout, combine, dtype, As<int32_t>(inputs),
                                     As<int32_t>(outputs), count);
    case ir::DType::kS64:
      return TypedAllReduce<int64_t>(context, tag, timeout, combine, dtype, As<int64_t>(inputs),
                                     As<int64_t>(outputs), count);
    case ir::DType::kBF16:
      // Two bytes per element on the wire: each fold rounds to bf16, as within a process.
      return TypedAllReduce<uint16_t>(context, tag, timeout, combine, dtype, As<uint16_t>(inputs),
                                      As<uint16_t>(outputs), count);
    case ir::DType::kPred:
      break;  // refused by CheckDType before
  }
  return 0;
}

}  // namespace

std::string GlooKeyPrefix(const std::vector<int64_t>& processes, int64_t generation) {
  return absl::StrCat("cpu/gloo/", absl::StrJoin(processes, "-"), "/", generation, "/");
}

int64_t GlooContextsBuilt() { return contexts_built.load(); }

int64_t GlooBytesSent() { return bytes_sent.load(std::memory_order_relaxed); }

GlooCollectives::GlooCollectives(GlooConfig config) : config_(config) {}

GlooCollectives::~GlooCollectives() {
  {
    const std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (communication_.joinable()) communication_.join();
  // Contexts before the device they use; neither throws on a closed connection.
  const SigpipeGuard no_sigpipe;
  groups_.clear();
  device_.reset();
}

void GlooCollectives::Post(std::function<void()> task) {
  {
    const std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.push_back(std::move(task));
    if (!communication_.joinable()) communication_ = std::thread([this] { CommunicationLoop(); });
  }
  queue_cv_.notify_one();
}

void GlooCollectives::CommunicationLoop() {
  std::unique_lock<std::mutex> lock(queue_mu_);
  while (true) {
    queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and every posted task ran
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

std::string GlooCollectives::Prefix(const std::vector<int64_t>& processes,
                                    int64_t generation) const {
  return GlooKeyPrefix(processes, generation);
}

absl::Status GlooCollectives::AllReduce(const std::vector<int64_t>& processes, ir::Op op,
                                        ir::DType dtype, const std::vector<const uint8_t*>& inputs,
                                        const std::vector<uint8_t*>& outputs, int64_t count) {
  if (absl::Status supported = CheckDType(dtype); !supported.ok()) return supported;
  if (count == 0 || inputs.empty() || outputs.empty()) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  const SigpipeGuard no_sigpipe;  // a write to a peer that died must fail, not kill us
  Group& group = groups_[processes];
  if (absl::Status connected = Connect(processes, group); !connected.ok()) return connected;
  const int64_t generation = group.generation;
  const uint32_t tag = group.next_tag++;
  size_t wire_bytes = 0;
  absl::Status status = Guarded([&] {
    wire_bytes = AllReduceOn(group.context, tag, config_.timeout, op, dtype, inputs, outputs,
                             static_cast<size_t>(count));
  });
  if (status.ok()) {
    bytes_sent.fetch_add(
        RingBytesSent(static_cast<int64_t>(wire_bytes), static_cast<int64_t>(processes.size())),
        std::memory_order_relaxed);
    return status;
  }
  Break(processes, group);
  return absl::Status(status.code(),
                      absl::StrCat("all_reduce among processes ", ProcessList(processes),
                                   " failed (Gloo context generation ", generation,
                                   "; the next collective among them builds generation ",
                                   generation + 1, "): ", status.message()));
}

absl::Status GlooCollectives::Connect(const std::vector<int64_t>& processes, Group& group) {
  if (group.context != nullptr) return absl::OkStatus();
  // A peer that saw a generation fail marked it broken: start after the last such one
  // (a process that joins after a failure finds the survivors' generation this way).
  while (true) {
    absl::StatusOr<std::string> broken =
        config_.store.TryGet(Prefix(processes, group.generation) + "broken");
    if (absl::IsNotFound(broken.status())) break;
    if (!broken.ok()) {
      return absl::Status(broken.status().code(),
                          absl::StrCat("key-value store: ", broken.status().message()));
    }
    ++group.generation;
  }
  const int64_t generation = group.generation;
  const std::string prefix = Prefix(processes, generation);
  absl::Status status = ConnectAt(processes, prefix, group);
  if (status.ok()) {
    ++contexts_built;
    return status;
  }
  Break(processes, group);
  return absl::Status(
      status.code(), absl::StrCat("building the Gloo context of processes ", ProcessList(processes),
                                  " (generation ", generation, ", keys under '", prefix,
                                  "') failed: ", status.message()));
}

absl::Status GlooCollectives::ConnectAt(const std::vector<int64_t>& processes,
                                        const std::string& prefix, Group& group) {
  return Guarded([&] {
    if (device_ == nullptr) device_ = MakeDevice(config_.local_address);
    const auto rank = static_cast<size_t>(
        std::find(processes.begin(), processes.end(), config_.process_index) - processes.begin());
    GlooStore store(config_.store, prefix, config_.timeout);
    CheckDeviceCounts(store, processes, rank, config_.local_devices);
    auto context = std::make_shared<gloo::rendezvous::Context>(static_cast<int>(rank),
                                                               static_cast<int>(processes.size()));
    context->setTimeout(config_.timeout);
    context->connectFullMesh(store, device_);
    group.context = std::move(context);
    group.next_tag = 0;
  });
}

void GlooCollectives::Break(const std::vector<int64_t>& processes, Group& group) {
  if (group.context != nullptr) {
    Guarded([&] { group.context->closeConnections(); }).IgnoreError();
    group.context.reset();
  }
  // ALREADY_EXISTS when a peer marked it first; any other failure only means that a
  // process joining later tries this generation first and fails over to the next.
  config_.store.Put(Prefix(processes, group.generation) + "broken", "1").IgnoreError();
  ++group.generation;
  group.next_tag = 0;
}

void GlooCollectives::BreakAll() {
  std::lock_guard<std::mutex> lock(mu_);
  const SigpipeGuard no_sigpipe;
  for (auto& [processes, group] : groups_) {
    if (group.context != nullptr) Break(processes, group);
  }
}

}  // namespace seam::cpu
