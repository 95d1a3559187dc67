// Test-only control over the in-process CPU plugin. Tests use it to observe work that is
// still pending; nothing in the runtime calls it.
#ifndef SEAM_PLUGINS_CPU_TESTING_HOOKS_H_
#define SEAM_PLUGINS_CPU_TESTING_HOOKS_H_

#include <cstdint>

#include "absl/status/status.h"

struct PJRT_Buffer;

namespace seam::cpu::testing {

// While a RunDelay is alive, every program run sleeps `delay` before computing and runs
// on its device's worker (never on the caller's thread): a device slower than the host,
// for tests of the steps in flight and of the run timers.
class RunDelay {
 public:
  explicit RunDelay(int64_t delay_ns);
  ~RunDelay();
  RunDelay(const RunDelay&) = delete;
  RunDelay& operator=(const RunDelay&) = delete;
};

// While a RunThrow is alive, every program run throws `std::runtime_error(what)` from inside
// its computation, as a bug would: the run must fail with INTERNAL and its thread go on.
class RunThrow {
 public:
  explicit RunThrow(const char* what);
  ~RunThrow();
  RunThrow(const RunThrow&) = delete;
  RunThrow& operator=(const RunThrow&) = delete;
};
// Called inside each run's computation: throws while a RunThrow is alive.
void ThrowIfInjected();

// While at least one ExecutionHold is alive, program runs that reach a device worker wait
// before computing anything (transfers are not held). Destroying the last hold lets them go.
class ExecutionHold {
 public:
  ExecutionHold();
  ~ExecutionHold();
  ExecutionHold(const ExecutionHold&) = delete;
  ExecutionHold& operator=(const ExecutionHold&) = delete;
};

// Called by each run before it computes: blocks while a hold is alive.
void WaitWhileExecutionHeld();
// Whether a hold or a delay is alive now (a run that would wait is not started on the
// caller's thread).
bool ExecutionHeld();

// While alive, every run on device `device_id` fails with `status` before computing
// anything, as a run whose argument failed would. Lets tests see a failing replica release
// the others.
class RunFailure {
 public:
  RunFailure(int device_id, absl::Status status);
  ~RunFailure();
  RunFailure(const RunFailure&) = delete;
  RunFailure& operator=(const RunFailure&) = delete;

 private:
  int device_id_;
};

// Called by each run before it computes: the injected failure for its device, or OK.
absl::Status InjectedRunFailure(int device_id);

// The address of the device memory behind `buffer` (of this in-process plugin), or null
// when it has none (deleted, donated, or not ready yet). Lets tests see that a donated
// argument's memory became an output's.
const void* BufferDataAddress(const PJRT_Buffer* buffer);

// How many runs this process did on the caller's thread (api_execute.cc's inline path):
// lets tests see the inline settings decide. CountInlineRun is the execute path's.
int64_t InlineRuns();
void CountInlineRun();

}  // namespace seam::cpu::testing

#endif  // SEAM_PLUGINS_CPU_TESTING_HOOKS_H_
