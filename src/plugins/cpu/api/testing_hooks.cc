#include "src/plugins/cpu/api/testing_hooks.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "src/plugins/cpu/api/objects.h"

namespace seam::cpu::testing {
namespace {

struct HoldState {
  std::mutex mu;
  std::condition_variable cv;
  int holds = 0;
  int64_t delay_ns = 0;
  const char* throw_what = nullptr;
  std::map<int, absl::Status> failures;  // device id -> injected failure
  // Holds plus injected failures alive, kept beside the fields above (changed under mu):
  // every run asks, and without any hook set (outside these tests, always) the answer
  // needs no lock.
  std::atomic<int> active{0};
};

std::atomic<int64_t> inline_runs{0};

HoldState& State() {
  static HoldState* state = new HoldState();  // never destroyed: workers may outlive statics
  return *state;
}

}  // namespace

RunDelay::RunDelay(int64_t delay_ns) {
  std::lock_guard<std::mutex> lock(State().mu);
  State().delay_ns = delay_ns;
  State().active.fetch_add(1);
}

RunDelay::~RunDelay() {
  std::lock_guard<std::mutex> lock(State().mu);
  State().delay_ns = 0;
  State().active.fetch_sub(1);
}

RunThrow::RunThrow(const char* what) {
  std::lock_guard<std::mutex> lock(State().mu);
  State().throw_what = what;
  State().active.fetch_add(1);
}

RunThrow::~RunThrow() {
  std::lock_guard<std::mutex> lock(State().mu);
  State().throw_what = nullptr;
  State().active.fetch_sub(1);
}

void ThrowIfInjected() {
  if (State().active.load() == 0) return;
  const char* what = nullptr;
  {
    std::lock_guard<std::mutex> lock(State().mu);
    what = State().throw_what;
  }
  if (what != nullptr) throw std::runtime_error(what);
}

ExecutionHold::ExecutionHold() {
  std::lock_guard<std::mutex> lock(State().mu);
  ++State().holds;
  State().active.fetch_add(1);
}

ExecutionHold::~ExecutionHold() {
  {
    std::lock_guard<std::mutex> lock(State().mu);
    --State().holds;
    State().active.fetch_sub(1);
  }
  State().cv.notify_all();
}

void WaitWhileExecutionHeld() {
  if (State().active.load() == 0) return;
  int64_t delay_ns = 0;
  {
    std::unique_lock<std::mutex> lock(State().mu);
    State().cv.wait(lock, [] { return State().holds == 0; });
    delay_ns = State().delay_ns;
  }
  if (delay_ns > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(delay_ns));
}

bool ExecutionHeld() {
  if (State().active.load() == 0) return false;
  std::lock_guard<std::mutex> lock(State().mu);
  return State().holds > 0 || State().delay_ns > 0;
}

RunFailure::RunFailure(int device_id, absl::Status status) : device_id_(device_id) {
  std::lock_guard<std::mutex> lock(State().mu);
  if (State().failures.insert_or_assign(device_id, std::move(status)).second) {
    State().active.fetch_add(1);
  }
}

RunFailure::~RunFailure() {
  std::lock_guard<std::mutex> lock(State().mu);
  if (State().failures.erase(device_id_) > 0) State().active.fetch_sub(1);
}

absl::Status InjectedRunFailure(int device_id) {
  if (State().active.load() == 0) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(State().mu);
  auto it = State().failures.find(device_id);
  return it == State().failures.end() ? absl::OkStatus() : it->second;
}

const void* BufferDataAddress(const PJRT_Buffer* buffer) {
  if (buffer == nullptr || buffer->deleted || !buffer->state->ready->IsReady()) return nullptr;
  const std::shared_ptr<DeviceMemory>& memory = buffer->state->memory;
  return memory ? memory->data() : nullptr;
}

int64_t InlineRuns() { return inline_runs.load(std::memory_order_relaxed); }

void CountInlineRun() { inline_runs.fetch_add(1, std::memory_order_relaxed); }

}  // namespace seam::cpu::testing
