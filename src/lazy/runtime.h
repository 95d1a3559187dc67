// The front end's runtime: one object holding what every step shares.
//
// A Runtime owns (or, for the process's, reaches) the ComputationClient, the compile cache,
// the step lock, the eager-mode switch and the step barriers' count. Every front-end call
// reaches it through CurrentRuntime(): the process's runtime, built from the environment,
// unless a ScopedRuntime has put another in its place (tests run the step runner, the
// barrier, eager mode and replays against a counting fake client, several runtimes one
// after the other in one process: tests/unit/runtime_fake_client_test.cc).
//
// Metrics stay process-wide, as the reference's are (static members of its
// ComputationClient, shared by every client): a runtime's steps record into the same
// counters as any other's (docs/architecture.md, "The front end's runtime").
#ifndef SEAM_LAZY_RUNTIME_H_
#define SEAM_LAZY_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/lazy/compile_cache.h"
#include "src/runtime/computation_client.h"

namespace seam::lazy {

class Runtime;

// The step lock held: the token the step runner's running and uploading entry points take
// (step_runner.h), so that a caller that does not hold the lock does not compile. Only
// Runtime::LockSteps makes one; it cannot be copied, moved or default-constructed, and it
// unlocks when it goes out of scope. Pass it on by const reference.
class StepLock {
 public:
  StepLock(const StepLock&) = delete;
  StepLock& operator=(const StepLock&) = delete;
  ~StepLock();
  // The runtime whose step lock this is: the one the entry points run on.
  Runtime& runtime() const { return runtime_; }

 private:
  friend class Runtime;
  explicit StepLock(Runtime& runtime);
  Runtime& runtime_;
};

class Runtime {
 public:
  // A runtime over `client`, which the caller owns and keeps alive longer than the runtime,
  // with a compile cache of `cache_capacity` programs. Eager mode starts off.
  explicit Runtime(runtime::ComputationClient* client,
                   size_t cache_capacity = static_cast<size_t>(CompileCache::kDefaultCapacity));
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The process's runtime: its client is the process's (src/runtime/process/runtime.h: chosen by
  // PJRT_DEVICE / SEAM_CLIENT on first use, an error remembered), its compile cache sized
  // by XLA_COMPILATION_CACHE_SIZE on first use, eager mode from SEAM_EAGER. Never destroyed
  // (device work may still be finishing while the process exits).
  static Runtime& Process();

  // The client; the process's runtime builds it on first use.
  absl::StatusOr<runtime::ComputationClient*> client();
  // The client if it exists already, else null (never builds one).
  runtime::ComputationClient* client_if_initialized() const;
  absl::StatusOr<CompileCache*> compile_cache();
  // The client's default device, asked once, as a list of one (a plain step's devices).
  absl::StatusOr<const std::vector<std::string>*> default_device();

  // The step lock (step_runner.h says what it guards), held until the token is destroyed.
  // Recursive: a thread holding it may take it again.
  [[nodiscard]] StepLock LockSteps() { return StepLock(*this); }

  // Eager mode: set_eager's last value, else (the process's runtime) SEAM_EAGER read at
  // first use ("1" on, "0" or unset off; anything else is InvalidArgument naming it).
  absl::StatusOr<bool> eager();
  void set_eager(bool enabled) { eager_.store(enabled ? 1 : 0); }
  // True when eager mode is known to be off: the check every recorded op makes, inline.
  bool eager_known_off() const { return eager_.load(std::memory_order_relaxed) == 0; }
  // Whether any op ran eagerly under this runtime (until then nothing has history to cut).
  void note_ran_eagerly() { ran_eagerly_.store(true, std::memory_order_relaxed); }
  bool ran_eagerly() const { return ran_eagerly_.load(std::memory_order_relaxed); }

  // The step barriers so far and when the last traced one ended (the trace's step spans);
  // read and written under the step lock.
  int64_t barrier_steps = 0;
  int64_t last_barrier_end_ns = 0;

 private:
  friend class StepLock;
  Runtime();  // the process's

  const bool from_environment_;
  runtime::ComputationClient* const client_ = nullptr;  // a given client (not owned)
  std::unique_ptr<CompileCache> cache_;                 // a given client's runtime
  std::recursive_mutex step_mu_;
  std::atomic<int> eager_{-1};  // -1: SEAM_EAGER not read yet; 0 / 1
  std::atomic<bool> ran_eagerly_{false};
  std::once_flag device_once_;
  std::atomic<bool> device_known_{false};    // set (release) once device_once_ has run
  absl::Status device_status_;               // set under device_once_
  std::vector<std::string> default_device_;  // likewise
};

inline StepLock::StepLock(Runtime& runtime) : runtime_(runtime) { runtime.step_mu_.lock(); }
inline StepLock::~StepLock() { runtime_.step_mu_.unlock(); }

// The runtime in use: the innermost live ScopedRuntime's, else Runtime::Process().
Runtime& CurrentRuntime();

// Puts `runtime` in the process's place while it lives, and the previous one back after.
// For tests: make and destroy it while no other thread is inside the front end.
class ScopedRuntime {
 public:
  explicit ScopedRuntime(Runtime& runtime);
  ~ScopedRuntime();
  ScopedRuntime(const ScopedRuntime&) = delete;
  ScopedRuntime& operator=(const ScopedRuntime&) = delete;

 private:
  Runtime* previous_;
};

}  // namespace seam::lazy

#endif  // SEAM_LAZY_RUNTIME_H_
