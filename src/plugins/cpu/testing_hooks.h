// Test-only control over the in-process CPU plugin. Tests use it to observe work that is
// still pending; nothing in the runtime calls it.
#ifndef SEAM_PLUGINS_CPU_TESTING_HOOKS_H_
#define SEAM_PLUGINS_CPU_TESTING_HOOKS_H_

namespace seam::cpu::testing {

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

}  // namespace seam::cpu::testing

#endif  // SEAM_PLUGINS_CPU_TESTING_HOOKS_H_
