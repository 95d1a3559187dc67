#include "src/plugins/cpu/testing_hooks.h"

#include <condition_variable>
#include <mutex>

namespace seam::cpu::testing {
namespace {

struct HoldState {
  std::mutex mu;
  std::condition_variable cv;
  int holds = 0;
};

HoldState& State() {
  static HoldState* state = new HoldState();  // never destroyed: workers may outlive statics
  return *state;
}

}  // namespace

ExecutionHold::ExecutionHold() {
  std::lock_guard<std::mutex> lock(State().mu);
  ++State().holds;
}

ExecutionHold::~ExecutionHold() {
  {
    std::lock_guard<std::mutex> lock(State().mu);
    --State().holds;
  }
  State().cv.notify_all();
}

void WaitWhileExecutionHeld() {
  std::unique_lock<std::mutex> lock(State().mu);
  State().cv.wait(lock, [] { return State().holds == 0; });
}

}  // namespace seam::cpu::testing
